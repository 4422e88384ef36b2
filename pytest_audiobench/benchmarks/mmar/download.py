"""Download MMAR from Hugging Face: the meta file and the audio archive are fetched into the
Hugging Face hub cache and the archive is unpacked once. ``huggingface_hub`` and ``filelock``
are imported lazily inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlsplit

from pytest_audiobench import files
from pytest_audiobench.errors import DownloadError, UnpackError
from pytest_audiobench.hub.archive import extract_safely
from pytest_audiobench.hub.huggingface import (
    hf_fetch,
    hf_offline,
    hf_probe,
    hf_reason,
    is_missing,
    resolve_hf_endpoint,
    uncached_error,
)
from pytest_audiobench.hub.network import fix_hint, short_reason

MMAR_REPO = "BoJack/MMAR"
MMAR_META = "MMAR-meta.jsonl"
# The metadata file of the older releases; fetched when the repo has no MMAR_META.
MMAR_LEGACY_META = "MMAR-meta.json"
MMAR_ARCHIVE = "mmar-audio.tar.gz"

# The hub cache under cache_dir; huggingface_hub's own layout inside (datasets--OWNER--NAME/).
_HF_CACHE_FOLDER = "huggingface"
_MMAR_CONTENTS = f"{MMAR_META} and audio/"
_AUDIO_FOLDER = "audio"
_AUDIO_SUFFIXES: tuple[str, ...] = (".wav", ".flac", ".mp3", ".ogg")
# Written into the release root after a complete unpacking; names the archive it came from.
_UNPACKED_MARKER = ".mmar-audio-unpacked.json"
_STAGING_PREFIX = ".audio-partial-"


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
    fix = fix_hint(hub, _MMAR_CONTENTS)

    offline = hf_offline()
    unreachable: Exception | None = None
    if not offline:
        try:
            hf_probe(hub, repo_id)
        except Exception as exc:  # the hub cache may still have the files
            unreachable = exc
    local_only = offline or unreachable is not None

    def fetch(filename: str) -> Path:
        return hf_fetch(repo_id, filename, hub_cache=hub_cache, endpoint=hub, local_only=local_only)

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
    except UnpackError as exc:
        raise DownloadError(
            f"cannot unpack {MMAR_ARCHIVE} of {repo_id} from {hub} ({archive.resolve()}): "
            f"{exc}; nothing of it was unpacked into {root}; {fix}"
        ) from exc
    except OSError as exc:
        raise DownloadError(
            f"cannot unpack {MMAR_ARCHIVE} of {repo_id} into {root}: {short_reason(exc)}; {fix}"
        ) from exc
    return root


def _fetch_meta(fetch: Callable[[str], Path], *, local_only: bool) -> Path:
    """MMAR_META, else (when the repo, or with `local_only` the cache, lacks it) the legacy
    MMAR_LEGACY_META."""
    try:
        return fetch(MMAR_META)
    except Exception as exc:
        if not is_missing(exc, local=local_only):
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

    fix = fix_hint(hub, _MMAR_CONTENTS)
    host = urlsplit(hub).hostname
    uncached = uncached_error(what, hub, hub_cache, fix, offline=offline,
                              unreachable=unreachable) if is_missing(exc, local=True) else None
    if uncached is not None:
        return uncached
    if isinstance(exc, RepositoryNotFoundError):
        status = getattr(getattr(exc, "response", None), "status_code", None) or 404
        return DownloadError(
            f"cannot download {what}: {hub} has no dataset {repo_id} (HTTP {status}; a private "
            f"or gated repo needs a token in HF_TOKEN); check the dataset id, or {fix}"
        )
    if is_missing(exc, local=False):
        return DownloadError(
            f"unexpected layout of dataset {repo_id} at {hub}: it has {missing} (expected "
            f"{MMAR_META} or {MMAR_LEGACY_META}, and {MMAR_ARCHIVE}); {fix}"
        )
    return DownloadError(f"cannot download {what} from {hub}: {hf_reason(exc, host)}; {fix}")


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
        extract_safely(archive, staging)
        folder = _find_audio_folder(staging)
        marker = root / _UNPACKED_MARKER
        target = root / _AUDIO_FOLDER
        marker.unlink(missing_ok=True)
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.exists():
            shutil.rmtree(target)
        folder.rename(target)
        with files.replacing(marker) as out:
            out.write(json.dumps(dict(stamp)))
    finally:
        shutil.rmtree(staging, ignore_errors=True)


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
            raise UnpackError(
                f"it has {len(top)} folders named {_AUDIO_FOLDER}/ at the same depth "
                f"({', '.join(shown(p) for p in top[:3])}); expected one"
            )
        if not any(_is_audio(p) for p in named[0].rglob("*")):
            raise UnpackError(
                f"its folder {shown(named[0])} holds no audio files "
                f"({', '.join(_AUDIO_SUFFIXES)}); expected {_AUDIO_FOLDER}/<file>.wav"
            )
        return named[0]
    holders = sorted({p.parent for p in staging.rglob("*") if _is_audio(p)})
    if len(holders) == 1:
        return holders[0]
    if not holders:
        raise UnpackError(
            f"it holds no audio files ({', '.join(_AUDIO_SUFFIXES)}); expected "
            f"{_AUDIO_FOLDER}/<file>.wav"
        )
    raise UnpackError(
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
        with files.replacing_bytes(target) as out:
            out.write(data)
    other = MMAR_LEGACY_META if meta.name == MMAR_META else MMAR_META
    (root / other).unlink(missing_ok=True)
