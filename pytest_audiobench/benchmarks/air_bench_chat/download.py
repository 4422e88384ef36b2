"""Download AIR-Bench Chat from ModelScope: only ``Chat/Chat_meta.json`` and the audio folders
of the selected tasks are fetched: the whole release (the Foundation half too) is tens of GB.
``modelscope`` is imported lazily inside :func:`download_air_bench_chat`, so importing this
module stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from pytest_audiobench.hub.modelscope import fetch_dataset

AIR_BENCH_CHAT_REPO = "evalscope/AIR-Bench"
# The name the same dataset was published under before; only quoted in error messages.
_OLDER_REPO_NAME = "evalscope/AIR-Bench-Dataset"

CHAT_FOLDERS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "speech_QA": ("speech_QA_iemocap", "speech_QA_common_voice_en"),
        "speech_dialogue_QA": ("speech_dialogue_QA_fisher", "speech_dialogue_QA_spokenwoz"),
        "sound_QA": ("sound_QA_clotho",),
        "sound_generation_QA": ("sound_generation_QA_clotho",),
        "music_QA": ("music_QA_musiccaps",),
        "music_generation_analysis_QA": ("music_generation_analysis_QA_musiccaps",),
        "speech_and_sound_QA": ("speech_and_sound_QA_audiocaps_cv",),
        "speech_and_music_QA": ("speech_and_music_QA_musiccaps_cv",),
    }
)

_META_PATH = "Chat/Chat_meta.json"


def _folders_for(tasks: Sequence[str]) -> list[str]:
    if isinstance(tasks, str):
        raise TypeError("tasks must be a sequence of task names, not a single string")
    unknown = [t for t in tasks if t not in CHAT_FOLDERS]
    if unknown or not tasks:
        if unknown:
            problem = f"unknown AIR-Bench Chat task(s) {', '.join(map(repr, unknown))}"
        else:
            problem = "no AIR-Bench Chat task selected"
        raise ValueError(f"{problem}; accepted tasks: {', '.join(CHAT_FOLDERS)}")
    folders: list[str] = []
    for task in tasks:
        folders.extend(f for f in CHAT_FOLDERS[task] if f not in folders)
    return folders


def download_air_bench_chat(
    tasks: Sequence[str],
    cache_dir: Path,
    *,
    repo_id: str = AIR_BENCH_CHAT_REPO,
    endpoint: str | None = None,
) -> Path:
    """Download Chat/Chat_meta.json and the audio folders of `tasks` into `cache_dir`; return the
    release root (the directory that contains ``Chat/``).

    The root is ``cache_dir / "<owner>--<name>"`` of `repo_id` (e.g.
    ``cache_dir/evalscope--AIR-Bench``); modelscope's lock files go to ``cache_dir/.lock``.
    A re-run lists the repo again and downloads only what is missing or whose size or SHA-256
    differs from the hub's listing (modelscope's own cache check), so it needs the hub too.

    The hub is `endpoint`, else the environment variable ``MODELSCOPE_ENDPOINT``, else the
    deprecated ``MODELSCOPE_DOMAIN``, else https://www.modelscope.cn. Before modelscope is
    called the hub gets one request (5 s connect, 8 s read timeout, no retry), so an offline
    run fails at once, or after those timeouts, instead of after modelscope's own retries with
    back-off (about 20 s with no network at all, more when packets are dropped). A token for
    private repos is read by modelscope from ``MODELSCOPE_API_TOKEN``; modelscope's other
    ``MODELSCOPE_*`` tunables (timeouts, retry counts) apply as modelscope documents them.

    Raises ValueError for an unknown (or no) task name, DownloadError (one line, chained) when
    the hub is unreachable, the download fails, or the repo's layout is not the expected one.
    """
    paths = [_META_PATH, *(f"Chat/{folder}/" for folder in _folders_for(tasks))]
    return fetch_dataset(repo_id, paths, cache_dir, "AIR-Bench Chat",
                         layout="Chat/Chat_meta.json and Chat/<task>_<dataset>/ folders",
                         endpoint=endpoint, also=_OLDER_REPO_NAME)
