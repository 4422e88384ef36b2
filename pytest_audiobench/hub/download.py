"""Download benchmark releases: AIR-Bench Chat from ModelScope, MMAR from Hugging Face.

AIR-Bench Chat: only ``Chat/Chat_meta.json`` and the audio folders of the selected tasks are
fetched: the whole release (the Foundation half too) is tens of GB. MMAR: the meta file and the
audio archive are fetched into the Hugging Face hub cache and the archive is unpacked once.
``modelscope`` and ``huggingface_hub`` are imported lazily inside :func:`download_air_bench_chat`
and :func:`download_mmar`, so importing this module stays cheap.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import socket
import tarfile
import tempfile
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from types import MappingProxyType
from urllib.parse import urlsplit

from pytest_audiobench.errors import AudiobenchError

__all__ = [
    "AIR_BENCH_CHAT_REPO",
    "CHAT_FOLDERS",
    "DEFAULT_ENDPOINT",
    "ENDPOINT_ENV_VARS",
    "HF_DEFAULT_ENDPOINT",
    "MMAR_ARCHIVE",
    "MMAR_LEGACY_META",
    "MMAR_META",
    "MMAR_REPO",
    "DownloadError",
    "chat_allow_patterns",
    "download_air_bench_chat",
    "download_mmar",
    "resolve_endpoint",
    "resolve_hf_endpoint",
]

AIR_BENCH_CHAT_REPO = "evalscope/AIR-Bench"
# The name the same dataset was published under before; only quoted in error messages.
_OLDER_REPO_NAME = "evalscope/AIR-Bench-Dataset"

DEFAULT_ENDPOINT = "https://www.modelscope.cn"
# Read in this order when no endpoint is passed. MODELSCOPE_ENDPOINT is the variable of
# modelscope >= 1.38 (modelscope-hub); MODELSCOPE_DOMAIN is the older, deprecated one.
ENDPOINT_ENV_VARS: tuple[str, ...] = ("MODELSCOPE_ENDPOINT", "MODELSCOPE_DOMAIN")

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
# The reachability probe: connect and read timeouts in seconds, one attempt, no retries.
_PROBE_TIMEOUT = (5.0, 8.0)
_MAX_REASON_CHARS = 200


class DownloadError(AudiobenchError):
    """The benchmark release could not be downloaded; the message is one line with the fix."""


def resolve_endpoint(endpoint: str | None = None) -> str:
    """The hub URL to use: `endpoint`, else MODELSCOPE_ENDPOINT, else MODELSCOPE_DOMAIN, else
    https://www.modelscope.cn. A bare host gets ``https://``; a trailing slash is dropped."""
    return _first_endpoint([endpoint, *_env(ENDPOINT_ENV_VARS)], DEFAULT_ENDPOINT)


def _env(names: Sequence[str]) -> list[str | None]:
    return [os.environ.get(name) for name in names]


def _first_endpoint(candidates: Sequence[str | None], default: str) -> str:
    """The first non-blank candidate, else `default`; a bare host gets ``https://``, a trailing
    slash is dropped."""
    value = next((c.strip() for c in candidates if c and c.strip()), default)
    if not value.lower().startswith(("http://", "https://")):
        value = f"https://{value}"
    return value.rstrip("/")


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


def chat_allow_patterns(folders: Sequence[str]) -> list[str]:
    """modelscope allow-patterns for the meta file plus every file under `folders`.

    modelscope matches each repo-relative file path with :func:`fnmatch.fnmatch`, whose ``*``
    also matches ``/``, so ``Chat/<folder>/*`` covers files in nested subfolders too.
    """
    return [_META_PATH, *(f"Chat/{folder}/*" for folder in folders)]


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _short_reason(exc: BaseException, *, host: str | None = None) -> str:
    """A short, single-line description of a (possibly deeply wrapped) network error.

    `host` is named when a name-resolution error carries no host name of its own (httpx's
    errors do not; urllib3's "Failed to resolve 'HOST'" does)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        item = todo.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        chain.append(item)
        reason = getattr(item, "reason", None)
        todo.extend(
            [
                reason if isinstance(reason, BaseException) else None,
                item.__cause__,
                item.__context__,
            ]
        )
    text = " ".join(_one_line(str(e)) for e in chain)
    errno_text = re.search(r"\[Errno -?\d+\] ([^)'\"\[\]]+)", text)
    host_match = re.search(r"Failed to resolve '([^']+)'", text)
    resolved = host_match.group(1) if host_match else None
    if resolved is None and host and _is_name_resolution_error(chain, text):
        resolved = host
    if resolved:
        detail = errno_text.group(1).strip() if errno_text else "name resolution failed"
        return f"cannot resolve host {resolved} ({detail})"
    if errno_text:
        return errno_text.group(1).strip()
    if any(isinstance(e, TimeoutError) or "timed out" in str(e).lower() for e in chain):
        return "connection timed out"
    message = _one_line(str(exc)) or "no message"
    reason_text = f"{type(exc).__name__}: {message}"
    if len(reason_text) > _MAX_REASON_CHARS:
        reason_text = reason_text[: _MAX_REASON_CHARS - 3] + "..."
    return reason_text


def _is_name_resolution_error(chain: Sequence[BaseException], text: str) -> bool:
    # getaddrinfo's errors: socket.gaierror, whose errno is negative on Linux ([Errno -2] Name
    # or service not known, [Errno -3] Temporary failure in name resolution); httpx keeps only
    # its text when it wraps one.
    return any(isinstance(e, socket.gaierror) for e in chain) or bool(
        re.search(r"\[Errno -\d+\]|getaddrinfo failed|nodename nor servname", text)
    )


def _fix(endpoint: str, contents: str | None = None) -> str:
    release = f"the release yourself ({contents})" if contents else "the release yourself"
    return (
        f"download {release} and pass its folder with --audiobench-data DIR, "
        f"or run where {endpoint} is reachable"
    )


def _probe(endpoint: str, repo_id: str) -> None:
    """One quick request to the hub; raises the transport error when nothing answers.

    Any HTTP answer, even an error status, counts as reachable: the statuses are left to
    modelscope. This keeps an offline run from sitting through modelscope's own retries.
    """
    import requests  # modelscope's own HTTP client: same proxy and CA settings

    with requests.get(
        f"{endpoint}/api/v1/datasets/{repo_id}",
        timeout=_PROBE_TIMEOUT,
        stream=True,
        headers={"User-Agent": "pytest-audiobench"},
    ):
        pass


def _cached_hint(root: Path, folders: Sequence[str]) -> str:
    complete = (root / _META_PATH).is_file() and all(
        (root / "Chat" / f).is_dir() and any((root / "Chat" / f).iterdir()) for f in folders
    )
    if not complete:
        return ""
    return f" (an earlier download of these folders is in {root}: pass --audiobench-data {root})"


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
    folders = _folders_for(tasks)
    hub = resolve_endpoint(endpoint)
    cache_dir = Path(cache_dir).expanduser().resolve()
    root = cache_dir / repo_id.replace("/", "--")
    paths = ", ".join([_META_PATH, *(f"Chat/{folder}/" for folder in folders)])
    what = f"AIR-Bench Chat ({repo_id}: {paths})"

    try:
        _probe(hub, repo_id)
    except Exception as exc:
        raise DownloadError(
            f"cannot download {what} from {hub}: {_short_reason(exc)}; "
            f"{_fix(hub)}{_cached_hint(root, folders)}"
        ) from exc

    from modelscope.hub.snapshot_download import dataset_snapshot_download

    root.mkdir(parents=True, exist_ok=True)
    try:
        returned = dataset_snapshot_download(
            repo_id,
            cache_dir=str(cache_dir),
            local_dir=str(root),
            allow_patterns=chat_allow_patterns(folders),
            endpoint=hub,
        )
    except Exception as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        cause = type(exc.__cause__).__name__ if exc.__cause__ is not None else ""
        if status == 404 or cause == "NotExistError":
            raise DownloadError(
                f"cannot download {what}: {hub} has no dataset {repo_id} (HTTP 404); check the "
                f"dataset id (it was also published as {_OLDER_REPO_NAME}), or {_fix(hub)}"
            ) from exc
        raise DownloadError(
            f"cannot download {what} from {hub}: {_short_reason(exc)}; files already fetched "
            f"are kept and a re-run fetches only the rest; else {_fix(hub)}"
            f"{_cached_hint(root, folders)}"
        ) from exc

    release_root = Path(returned)
    missing = [
        p for p in [_META_PATH, *(f"Chat/{f}" for f in folders)] if not (release_root / p).exists()
    ]
    if missing:
        raise DownloadError(
            f"unexpected layout of dataset {repo_id} at {hub}: after the download "
            f"{release_root} lacks {', '.join(missing)} (expected Chat/Chat_meta.json and "
            f"Chat/<task>_<dataset>/ folders); {_fix(hub)}"
        )
    return release_root


# --- MMAR from Hugging Face -----------------------------------------------------------------

MMAR_REPO = "BoJack/MMAR"
MMAR_META = "MMAR-meta.jsonl"
# The metadata file of the older releases; fetched when the repo has no MMAR_META.
MMAR_LEGACY_META = "MMAR-meta.json"
MMAR_ARCHIVE = "mmar-audio.tar.gz"

HF_DEFAULT_ENDPOINT = "https://huggingface.co"
# huggingface_hub reads HF_ENDPOINT once, when it is imported; download_mmar reads it per call.
_HF_ENDPOINT_ENV_VARS: tuple[str, ...] = ("HF_ENDPOINT",)
# The variables with which huggingface_hub turns its network access off.
_HF_OFFLINE_ENV_VARS: tuple[str, ...] = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
_TRUE_VALUES = frozenset({"1", "ON", "YES", "TRUE"})
# The hub cache under cache_dir; huggingface_hub's own layout inside (datasets--OWNER--NAME/).
_HF_CACHE_FOLDER = "huggingface"
# The reachability probe before huggingface_hub is called: one request, no retry; seconds for
# each of connect, read (and write, pool with httpx).
_HF_PROBE_TIMEOUT = 6.0
_MMAR_CONTENTS = f"{MMAR_META} and audio/"
_AUDIO_FOLDER = "audio"
_AUDIO_SUFFIXES: tuple[str, ...] = (".wav", ".flac", ".mp3", ".ogg")
# Written into the release root after a complete unpacking; names the archive it came from.
_UNPACKED_MARKER = ".mmar-audio-unpacked.json"
_STAGING_PREFIX = ".audio-partial-"


class _UnpackError(Exception):
    """The archive is unsafe, unreadable or laid out differently; the message says how."""


def resolve_hf_endpoint(endpoint: str | None = None) -> str:
    """The Hugging Face hub URL to use: `endpoint`, else HF_ENDPOINT (read at this call, not
    when huggingface_hub was imported), else https://huggingface.co. A bare host gets
    ``https://``; a trailing slash is dropped."""
    return _first_endpoint([endpoint, *_env(_HF_ENDPOINT_ENV_VARS)], HF_DEFAULT_ENDPOINT)


def download_mmar(
    cache_dir: Path, *, repo_id: str = MMAR_REPO, endpoint: str | None = None
) -> Path:
    """Fetch the MMAR meta file and audio archive through huggingface_hub into `cache_dir`,
    unpack the archive once, and return the release root (the folder with ``MMAR-meta.jsonl``,
    or the legacy ``MMAR-meta.json``, and ``audio/``).

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface`` (huggingface_hub's
    own layout, e.g. ``datasets--BoJack--MMAR/blobs``); the release root is
    ``cache_dir/<owner>--<name>`` of `repo_id` (e.g. ``cache_dir/BoJack--MMAR``), which gets a
    copy of the meta file and the unpacked ``audio/``; a lock file for concurrent callers is
    in ``cache_dir/.locks``. The archive stays in the hub cache, so the audio takes its space
    twice.

    The files are ``MMAR-meta.jsonl`` (if the repo lacks it: ``MMAR-meta.json``) and
    ``mmar-audio.tar.gz`` of the dataset repo at its ``main`` revision. huggingface_hub asks
    the hub for each file's metadata (``HEAD {endpoint}/datasets/{repo_id}/resolve/main/
    {file}``) on every call and downloads only what its cache lacks, so a second call
    downloads nothing. Large files are redirected to the hub's CDN or Xet storage, whose hosts
    must be reachable too.

    The hub is `endpoint`, else HF_ENDPOINT as set at this call (huggingface_hub itself reads
    it only when imported), else https://huggingface.co. Before the download the hub gets one
    request (``HEAD {endpoint}/api/datasets/{repo_id}``, 6 s timeouts, no retry): when it
    fails, only the hub cache is used (huggingface_hub's ``local_files_only``), so an offline
    run with the files cached works and one without fails at once (or after that timeout)
    instead of after huggingface_hub's retries with back-off (23 s for a refused connection).
    With HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) true, at this call or when huggingface_hub
    was imported, there is no probe and only the hub cache is used. A token for a private or
    gated repo is found by huggingface_hub (HF_TOKEN, or the one ``hf auth login`` saved).

    Unpacking: the archive (any compression :mod:`tarfile` reads) may hold only regular files
    and folders: a symbolic or hard link, a device, a FIFO, an absolute path or a ``..``
    component fails the whole unpacking, and each member is extracted with tarfile's ``data``
    filter where Python has it (3.11.4+, 3.12+). It is unpacked into a temporary folder in the
    release root; the audio folder is the shallowest folder named ``audio`` (``audio/x.wav``,
    ``mmar-audio/audio/x.wav``), else the one folder that directly holds the ``.wav`` (or
    ``.flac``, ``.mp3``, ``.ogg``) files; it becomes ``ROOT/audio`` and the rest of the archive
    is dropped. Then a marker file naming the archive's cache blob is written: a later call
    unpacks again only when the archive changed or ``ROOT/audio`` is gone.

    Raises DownloadError (one line, chained) when the hub is unreachable and the files are not
    cached, the repo or a file is missing, the download fails, or the archive is unsafe,
    unreadable or holds no audio folder.
    """
    hub = resolve_hf_endpoint(endpoint)
    cache_dir = Path(cache_dir).expanduser().resolve()
    root = cache_dir / repo_id.replace("/", "--")
    hub_cache = cache_dir / _HF_CACHE_FOLDER
    what = f"MMAR ({repo_id}: {MMAR_META}, {MMAR_ARCHIVE})"
    fix = _fix(hub, _MMAR_CONTENTS)

    offline = _hf_offline()
    unreachable: Exception | None = None
    if not offline:
        try:
            _hf_probe(hub, repo_id)
        except Exception as exc:  # the hub cache may still have the files
            unreachable = exc
    local_only = offline or unreachable is not None

    def fetch(filename: str) -> Path:
        return _hf_fetch(
            repo_id, filename, hub_cache=hub_cache, endpoint=hub, local_only=local_only
        )

    missing = f"neither {MMAR_META} nor {MMAR_LEGACY_META}"
    try:
        meta = _fetch_meta(fetch, local_only=local_only)
        missing = f"no {MMAR_ARCHIVE}"
        archive = fetch(MMAR_ARCHIVE)
    except Exception as exc:
        error = _mmar_fetch_error(
            exc,
            what=what,
            repo_id=repo_id,
            hub=hub,
            hub_cache=hub_cache,
            offline=offline,
            unreachable=unreachable,
            missing=missing,
        )
        raise error from (unreachable or exc)

    try:
        _install_mmar(meta, archive, root, cache_dir / ".locks" / f"{root.name}.lock")
    except _UnpackError as exc:
        raise DownloadError(
            f"cannot unpack {MMAR_ARCHIVE} of {repo_id} from {hub} ({archive.resolve()}): "
            f"{exc}; nothing of it was unpacked into {root}; {fix}"
        ) from exc
    except OSError as exc:
        raise DownloadError(
            f"cannot unpack {MMAR_ARCHIVE} of {repo_id} into {root}: {_short_reason(exc)}; {fix}"
        ) from exc
    return root


def _hf_offline() -> bool:
    """Whether huggingface_hub must not use the network: HF_HUB_OFFLINE (or
    TRANSFORMERS_OFFLINE) is true now, or was when huggingface_hub was imported."""
    from huggingface_hub import constants

    now = any((v or "").strip().upper() in _TRUE_VALUES for v in _env(_HF_OFFLINE_ENV_VARS))
    return now or bool(getattr(constants, "HF_HUB_OFFLINE", False))


def _hf_probe(endpoint: str, repo_id: str) -> None:
    """One request to the hub, no retry; raises the transport error when nothing answers.

    Any HTTP answer, even an error status, counts as reachable: the statuses are left to
    huggingface_hub. huggingface_hub's own session is used, so its proxy and CA settings apply.
    """
    from huggingface_hub import get_session

    get_session().head(
        f"{endpoint}/api/datasets/{repo_id}",
        timeout=_HF_PROBE_TIMEOUT,
        headers={"User-Agent": "pytest-audiobench"},
    )


def _hf_fetch(
    repo_id: str, filename: str, *, hub_cache: Path, endpoint: str, local_only: bool
) -> Path:
    from huggingface_hub import hf_hub_download

    return Path(
        hf_hub_download(
            repo_id,
            filename,
            repo_type="dataset",
            cache_dir=hub_cache,
            endpoint=endpoint,
            local_files_only=local_only,
        )
    )


def _is_missing(exc: BaseException, *, local: bool) -> bool:
    """Whether `exc` says the file is not there: on the hub (``local=False``: HTTP 404 with
    ``X-Error-Code: EntryNotFound``) or in the hub cache (``local=True``)."""
    # Public names of huggingface_hub.utils in 0.23 as in 2.x (huggingface_hub.errors is newer);
    # 2.x re-exports them lazily, which mypy does not see.
    from huggingface_hub.utils import (  # type: ignore[attr-defined]
        EntryNotFoundError,
        LocalEntryNotFoundError,
    )

    # LocalEntryNotFoundError is an EntryNotFoundError too (0.23 as well as 1.x and 2.x).
    return isinstance(exc, EntryNotFoundError) and (
        isinstance(exc, LocalEntryNotFoundError) == local
    )


def _fetch_meta(fetch: Callable[[str], Path], *, local_only: bool) -> Path:
    """MMAR_META, else (when the repo, or with `local_only` the cache, lacks it) the legacy
    MMAR_LEGACY_META."""
    try:
        return fetch(MMAR_META)
    except Exception as exc:
        if not _is_missing(exc, local=local_only):
            raise
    return fetch(MMAR_LEGACY_META)


def _mmar_fetch_error(
    exc: BaseException,
    *,
    what: str,
    repo_id: str,
    hub: str,
    hub_cache: Path,
    offline: bool,
    unreachable: BaseException | None,
    missing: str,
) -> DownloadError:
    from huggingface_hub.utils import RepositoryNotFoundError  # type: ignore[attr-defined]

    fix = _fix(hub, _MMAR_CONTENTS)
    host = urlsplit(hub).hostname
    if unreachable is not None and _is_missing(exc, local=True):
        return DownloadError(
            f"cannot download {what} from {hub}: {_short_reason(unreachable, host=host)} "
            f"(and the hub cache {hub_cache} does not have the files); {fix}"
        )
    if offline and _is_missing(exc, local=True):
        return DownloadError(
            f"cannot download {what}: HF_HUB_OFFLINE is set and the hub cache {hub_cache} "
            f"does not have the files; unset HF_HUB_OFFLINE, or {fix}"
        )
    if isinstance(exc, RepositoryNotFoundError):
        status = getattr(getattr(exc, "response", None), "status_code", None) or 404
        return DownloadError(
            f"cannot download {what}: {hub} has no dataset {repo_id} (HTTP {status}; a private "
            f"or gated repo needs a token in HF_TOKEN); check the dataset id, or {fix}"
        )
    if _is_missing(exc, local=False):
        return DownloadError(
            f"unexpected layout of dataset {repo_id} at {hub}: it has {missing} (expected "
            f"{MMAR_META} or {MMAR_LEGACY_META}, and {MMAR_ARCHIVE}); {fix}"
        )
    return DownloadError(f"cannot download {what} from {hub}: {_hf_reason(exc, host)}; {fix}")


def _hf_reason(exc: BaseException, host: str | None) -> str:
    """A short reason for a failed huggingface_hub download. When the metadata request failed
    and the file was not cached either, huggingface_hub raises LocalEntryNotFoundError from
    the request's error: that error is the reason."""
    cause = exc.__cause__ if _is_missing(exc, local=True) and exc.__cause__ else exc
    response = getattr(cause, "response", None)
    status = getattr(response, "status_code", None)
    if isinstance(status, int):
        request = getattr(response, "request", None)
        asked = f"{request.method} {request.url}" if request is not None else "a request"
        hint = ""
        if status == 404 and not getattr(response, "headers", {}).get("X-Error-Code"):
            hint = " without the Hugging Face hub's error headers (is it a Hugging Face hub?)"
        return f"{asked} got HTTP {status}{hint}"
    return _short_reason(cause, host=host)


def _install_mmar(meta: Path, archive: Path, root: Path, lock_path: Path) -> None:
    """Unpack `archive` into ``root/audio`` unless the marker says it already is; copy `meta`
    into `root`. Under a file lock, so concurrent callers (xdist workers) unpack once."""
    from filelock import FileLock  # a dependency of huggingface_hub

    root.mkdir(parents=True, exist_ok=True)
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock_path)):
        blob = archive.resolve()  # the cache blob, named after the archive's ETag
        stamp = {"archive": str(blob), "size": blob.stat().st_size}
        if not _already_unpacked(root, stamp):
            _unpack_audio(blob, root, stamp)
        _place_meta(meta, root)


def _already_unpacked(root: Path, stamp: Mapping[str, object]) -> bool:
    try:
        recorded = json.loads((root / _UNPACKED_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == dict(stamp) and (root / _AUDIO_FOLDER).is_dir()


def _unpack_audio(archive: Path, root: Path, stamp: Mapping[str, object]) -> None:
    for leftover in root.glob(f"{_STAGING_PREFIX}*"):  # from an interrupted earlier call
        shutil.rmtree(leftover, ignore_errors=True)
    staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=root))
    try:
        _extract_safely(archive, staging)
        folder = _find_audio_folder(staging)
        marker = root / _UNPACKED_MARKER
        target = root / _AUDIO_FOLDER
        marker.unlink(missing_ok=True)
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
        folder.rename(target)
        marker.write_text(json.dumps(dict(stamp)), encoding="utf-8")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _unsafe_member(member: tarfile.TarInfo) -> str | None:
    """Why `member` must not be extracted, or None."""
    if member.issym():
        return f"is a symbolic link (to {member.linkname!r})"
    if member.islnk():
        return f"is a hard link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "is a device file"
    if member.isfifo():
        return "is a FIFO"
    if not (member.isfile() or member.isdir()):
        return "is neither a regular file nor a folder"
    name = member.name
    windows = PureWindowsPath(name)
    if name.startswith(("/", "\\")) or windows.drive or windows.root:
        return "has an absolute path"
    if ".." in PurePosixPath(name).parts or ".." in windows.parts:
        return "has a '..' component"
    if member.isfile() and not PurePosixPath(name).parts:
        return "has no name"
    return None


def _extract_safely(archive: Path, staging: Path) -> None:
    """Extract every member of `archive` into `staging`, or raise _UnpackError on the first
    member that is not a regular file or folder inside `staging`."""
    has_data_filter = hasattr(tarfile, "data_filter")  # Python 3.11.4+, 3.12+
    base = staging.resolve()
    try:
        with tarfile.open(archive, mode="r:*") as tar:
            for member in tar:
                problem = _unsafe_member(member)
                target = base.joinpath(*PurePosixPath(member.name).parts)
                if problem is None and not target.resolve().is_relative_to(base):
                    problem = "would be written outside the target folder"
                if problem is not None:
                    raise _UnpackError(
                        f"member {member.name!r} {problem}; only regular files and folders "
                        "inside the archive are allowed"
                    )
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif has_data_filter:
                    tar.extract(member, base, filter="data")
                else:
                    tar.extract(member, base, set_attrs=False)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        detail = _one_line(str(exc))
        if "could not be opened successfully" in detail:  # tarfile's "r:*" tried every format
            detail = "not a gzip, bzip2, xz or plain tar file"
        raise _UnpackError(
            f"it is not a readable tar archive ({type(exc).__name__}: "
            f"{detail[:_MAX_REASON_CHARS]}); delete that file to fetch it again"
        ) from exc


def _find_audio_folder(staging: Path) -> Path:
    """The folder of `staging` to become ``ROOT/audio``: the shallowest one named ``audio``,
    else the one folder that directly holds audio files."""

    def shown(path: Path) -> str:
        return f"{path.relative_to(staging).as_posix() or '.'}/"

    named = sorted(
        (p for p in staging.rglob(_AUDIO_FOLDER) if p.is_dir()),
        key=lambda p: (len(p.parts), str(p)),
    )
    if named:
        top = [p for p in named if len(p.parts) == len(named[0].parts)]
        if len(top) > 1:
            raise _UnpackError(
                f"it has {len(top)} folders named {_AUDIO_FOLDER}/ at the same depth "
                f"({', '.join(shown(p) for p in top[:3])}); expected one"
            )
        if not any(_is_audio(p) for p in named[0].rglob("*")):
            raise _UnpackError(
                f"its folder {shown(named[0])} holds no audio files "
                f"({', '.join(_AUDIO_SUFFIXES)}); expected {_AUDIO_FOLDER}/<file>.wav"
            )
        return named[0]
    holders = sorted({p.parent for p in staging.rglob("*") if _is_audio(p)})
    if len(holders) == 1:
        return holders[0]
    if not holders:
        raise _UnpackError(
            f"it holds no audio files ({', '.join(_AUDIO_SUFFIXES)}); expected "
            f"{_AUDIO_FOLDER}/<file>.wav"
        )
    raise _UnpackError(
        f"its audio files are spread over {len(holders)} folders "
        f"({', '.join(shown(p) for p in holders[:3])}) and none is named {_AUDIO_FOLDER}/; "
        f"expected {_AUDIO_FOLDER}/<file>.wav"
    )


def _is_audio(path: Path) -> bool:
    return path.suffix.lower() in _AUDIO_SUFFIXES and path.is_file()


def _place_meta(meta: Path, root: Path) -> None:
    """Copy `meta` into `root` (atomically, when it differs) and drop the other meta name, so
    the root never holds a stale one next to the current one."""
    target = root / meta.name
    data = meta.read_bytes()
    if not target.is_file() or target.read_bytes() != data:
        partial = root / f".{meta.name}.partial"
        partial.write_bytes(data)
        os.replace(partial, target)
    other = MMAR_LEGACY_META if meta.name == MMAR_META else MMAR_META
    (root / other).unlink(missing_ok=True)
