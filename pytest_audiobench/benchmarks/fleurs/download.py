"""Download a FLEURS language's test split from Hugging Face: its transcript file and audio
archive are fetched into the Hugging Face hub cache and unpacked once into the layout
``data.read_language`` reads, by the same ``archive.conversion`` that unpacks a local
snapshot. ``huggingface_hub`` and ``filelock`` are imported lazily inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.fleurs.archive import conversion, hub_files
from pytest_audiobench.benchmarks.fleurs.data import AUDIO_FOLDER, TRANSCRIPTS, check_language
from pytest_audiobench.benchmarks.fleurs.facts import HUB_REPO
from pytest_audiobench.hub.converting import (
    HF_CACHE_FOLDER,
    LOCKS_FOLDER,
    blob_stamp,
    connect,
    convert_or_explain,
    fetch_or_explain,
)
from pytest_audiobench.hub.huggingface import resolve_hf_endpoint
from pytest_audiobench.hub.network import fix_hint


def download_fleurs(cache_dir: Path, languages: Sequence[str], *,
                    endpoint: str | None = None) -> Path:
    """Fetch the test split of each of FLEURS's `languages` (hub configs such as ``en_us``,
    ``cmn_hans_cn``) from the hub repo ``google/fleurs`` through huggingface_hub into
    `cache_dir`, unpack each once, and return the root that ``read_language`` reads: it holds
    ``<language>/test.tsv`` and the audio in ``<language>/audio/test/`` for each of them.

    The repo keeps each language in ``data/<language>/``: ``test.tsv`` (also ``train.tsv``,
    ``dev.tsv``) and ``audio/test.tar.gz`` (also ``train``, ``dev``), whose members are
    ``test/<file_name>.wav``. So found in public code that fetches these two files by path
    from the repo, or unpacks the archive into ``audio/`` (searched in December 2026). Only
    ``data/<language>/test.tsv`` and ``data/<language>/audio/test.tar.gz`` of the selected
    languages are fetched, in one go (a failure names every file wanted), never another
    language or split; huggingface_hub downloads only what its cache lacks.

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/google--fleurs``, and each language is unpacked on its own into
    ``<language>/`` there: a copy of the transcript file, and the one folder of the archive
    that holds the ``.wav`` files as ``audio/test/``, built in a temporary folder and renamed
    into place with a marker naming the two files' cache blobs (a later call unpacks again
    only when one changed or the folder is gone); lock files are in ``cache_dir/.locks``. The
    archive stays in the hub cache, so the audio takes its space twice. The archive may hold
    only regular files and folders (``hub.archive.extract_safely``).

    The hub, its probe and offline use are as for the other downloads: `endpoint`, else
    HF_ENDPOINT, else https://huggingface.co; with HF_HUB_OFFLINE set, or when the hub does
    not answer, only the hub cache is used.

    Raises ValueError for a language that is not a config name; DownloadError (one line,
    chained) when the hub is unreachable and the files are not cached, the repo or a file is
    missing, the download fails, or an archive is unsafe, unreadable or holds no audio.
    """
    for language in languages:
        check_language(language)
    cache_dir = Path(cache_dir).expanduser().resolve()
    name = HUB_REPO.replace("/", "--")
    url = resolve_hf_endpoint(endpoint)
    said = ", ".join(languages)
    fix = fix_hint(url, " and ".join(f"{lang}/{TRANSCRIPTS} and {lang}/"
                                     f"{AUDIO_FOLDER.as_posix()}/" for lang in languages))
    files = [path for language in languages for path in hub_files(language)]
    hub = connect(HUB_REPO, url, cache_dir / HF_CACHE_FOLDER)
    blobs = fetch_or_explain(
        hub, lambda: hub.fetch_all(files), what=f"FLEURS {said} ({HUB_REPO}: "
        f"{', '.join(files)})", fix=fix, expected=" and ".join(files),
        gone=f"it lacks one of {', '.join(files)} (is each of {said} one of its languages?)")
    for language in languages:
        own = {path: blobs[path] for path in hub_files(language)}
        target = cache_dir / name / language
        convert_or_explain(conversion(own, target, {"files": blob_stamp(own)}, language), hub,
                           what=f"FLEURS {language}", fix=fix,
                           lock=cache_dir / LOCKS_FOLDER / f"{name}-{language}.lock")
    return cache_dir / name
