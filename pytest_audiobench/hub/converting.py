"""What the Hugging Face downloads that convert a dataset share: the repo reached (or only its
hub cache used, offline or when the hub does not answer), the parquet files under a folder of
the repo listed and kept for offline calls, their rows read, each row's clip named and taken
out, every failure as one line, and a release layout built once, in a temporary folder renamed
into place, with a marker naming the files it came from, under a file lock; and a local
snapshot of a hub repo (``huggingface-cli download --local-dir``) converted the same way,
once, into the plugin's cache, in a folder named after its files (``snapshot_home``), its
failures naming ``--audiobench-data``.

``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pytest_audiobench import files
from pytest_audiobench.errors import DataError, DownloadError, UnpackError
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

HF_CACHE_FOLDER = "huggingface"
"""The hub cache under a download's cache folder; huggingface_hub's own layout inside
(``datasets--OWNER--NAME/``)."""
PARQUET_SUFFIX = ".parquet"
LOCKS_FOLDER = ".locks"
"""Beside the converted roots: one lock file per conversion, for concurrent callers."""

_DISTRIBUTION = "pytest-audiobench"
# A requirement of the distribution's metadata, e.g. 'pyarrow>=14; extra == "NAME"'.
_PYARROW_EXTRA = re.compile(r"""^pyarrow\b[^;]*;.*\bextra\s*==\s*["']([\w.-]+)["']""")
_BATCH_ROWS = 16
"""Rows in memory at once while converting: each may hold its audio."""
_GONE = "a file it lists is gone"
DEFAULT_CLIP_SUFFIX = ".wav"
"""A clip's extension when its original file name gives none."""
_CLIP_SUFFIX = re.compile(r"\.[A-Za-z0-9]{1,10}")
_FILE_ID = re.compile(r"[^/\\\x00]+")
_HASH_CHARS = 16

T = TypeVar("T")


class NotCached(Exception):
    """Offline, and no earlier call saved the list of the files to take from the hub cache."""


class NoFiles(Exception):
    """The repo has none of the files looked for; the message says which."""


class BadData(Exception):
    """A downloaded file, or one of its rows, is not as expected; the message names it."""


@dataclass(frozen=True)
class HubRepo:
    """A dataset repo on a hub: only the hub cache is used when HF_HUB_OFFLINE is set
    (``offline``) or the probe failed (``unreachable``, its error)."""

    repo_id: str
    url: str
    cache: Path
    offline: bool
    unreachable: Exception | None

    @property
    def local_only(self) -> bool:
        return self.offline or self.unreachable is not None

    def fetch(self, name: str) -> Path:
        """The repo's file `name` in the hub cache, downloaded when the cache lacks it."""
        return hf_fetch(self.repo_id, name, hub_cache=self.cache, endpoint=self.url,
                        local_only=self.local_only)

    def fetch_all(self, names: Iterable[str]) -> dict[str, Path]:
        return {name: self.fetch(name) for name in names}


def connect(repo_id: str, url: str, cache: Path) -> HubRepo:
    """The repo at the hub `url`, after one quick request to it (none with HF_HUB_OFFLINE)."""
    offline = hf_offline()
    return HubRepo(repo_id, url, cache, offline, None if offline else _probe(url, repo_id))


def _probe(url: str, repo_id: str) -> Exception | None:
    """The probe's error, kept for the message when the hub cache lacks the files too."""
    try:
        hf_probe(url, repo_id)
    except Exception as exc:  # the hub cache may still have the files
        return exc
    return None


def parquet_names(hub: HubRepo, listing: Path, prefix: str = "") -> list[str]:
    """The repo's ``*.parquet`` files whose path starts with `prefix`, sorted: from the repo's
    file list (``GET {url}/api/datasets/{repo_id}``), or offline from `listing`, which
    ``convert_once`` writes after each online call."""
    if hub.local_only:
        return _saved_names(listing)
    from huggingface_hub import HfApi

    info = HfApi(endpoint=hub.url).dataset_info(hub.repo_id)
    # Sorted: the files are read, their rows numbered and the listing saved in this order, the
    # same on every call and offline.
    names = sorted(s.rfilename for s in info.siblings or ()
                   if s.rfilename.startswith(prefix)
                   and s.rfilename.lower().endswith(PARQUET_SUFFIX))
    if not names:
        raise NoFiles(f"it has no {prefix}*{PARQUET_SUFFIX} file")
    return names


def _saved_names(listing: Path) -> list[str]:
    try:
        names = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise NotCached(f"cannot read {listing}: {exc}") from exc
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise NotCached(f"{listing} is not a list of file names")
    return names


def fetch_or_explain(hub: HubRepo, fetch: Callable[[], T], *, what: str, fix: str,
                     expected: str, gone: str = _GONE) -> T:
    """What `fetch` returns, or DownloadError in one line, chained: `what` could not be had
    from the hub nor its cache, the repo is missing, or the files are not as `expected` (a
    file missing on the hub is `gone`)."""
    try:
        return fetch()
    except Exception as exc:
        # Chained to the probe's error when the hub did not answer: that is the cause, the cache
        # miss only what followed from it.
        raise _fetch_error(exc, hub, what, fix, expected, gone) from (hub.unreachable or exc)


def _fetch_error(exc: BaseException, hub: HubRepo, what: str, fix: str, expected: str,
                 gone: str) -> DownloadError:
    from huggingface_hub.utils import RepositoryNotFoundError  # type: ignore[attr-defined]

    host = urlsplit(hub.url).hostname
    not_cached = isinstance(exc, NotCached) or is_missing(exc, local=True)
    uncached = uncached_error(what, hub.url, hub.cache, fix, offline=hub.offline,
                              unreachable=hub.unreachable) if not_cached else None
    if uncached is not None:
        return uncached
    if isinstance(exc, RepositoryNotFoundError):
        status = getattr(getattr(exc, "response", None), "status_code", None) or 404
        return DownloadError(
            f"cannot download {what}: {hub.url} has no dataset {hub.repo_id} (HTTP {status}; a "
            f"private or gated repo needs a token in HF_TOKEN); check the dataset id, or {fix}"
        )
    if isinstance(exc, NoFiles) or is_missing(exc, local=False):
        said = str(exc) if isinstance(exc, NoFiles) else f"{gone} ({hf_reason(exc, host)})"
        return DownloadError(f"unexpected layout of dataset {hub.repo_id} at {hub.url}: {said} "
                             f"(expected {expected}); {fix}")
    return DownloadError(f"cannot download {what} from {hub.url}: {hf_reason(exc, host)}; {fix}")


def pyarrow_install() -> str:
    """How to install pyarrow: the extra of this package that brings it, as its installed
    metadata says (pyproject.toml is the one place that names it); plain pyarrow when the
    metadata is not there or names no such extra."""
    try:
        requirements = metadata.requires(_DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        requirements = []
    extras = [m.group(1) for r in requirements if (m := _PYARROW_EXTRA.match(r.strip()))]
    return f"pip install '{_DISTRIBUTION}[{extras[0]}]'" if extras else "pip install pyarrow"


def require_pyarrow(what: str, fix: str, install: str) -> None:
    """DownloadError, one line, unless pyarrow can be imported: `what` (the release, its repo
    and hub) comes as parquet files; `install` says how to get pyarrow."""
    try:
        importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise DownloadError(
            f"cannot convert {what}: the hub ships it as parquet files, which need pyarrow, and "
            f"pyarrow is not installed ({exc}); install it with {install}, or {fix}"
        ) from exc


def parquet_rows(name: str, blob: Path) -> Iterator[dict[str, Any]]:
    """The rows of the parquet file `name` (its cache file `blob`), a few at a time; BadData
    when it is not a readable parquet file."""
    import pyarrow  # type: ignore[import-untyped]
    import pyarrow.parquet  # type: ignore[import-untyped]

    try:
        for batch in pyarrow.parquet.ParquetFile(blob).iter_batches(batch_size=_BATCH_ROWS):
            yield from batch.to_pylist()
    except pyarrow.ArrowException as exc:
        raise BadData(f"{name} ({blob}) is not a readable parquet file: "
                      f"{short_reason(exc)}") from exc


def column(row: Mapping[str, Any], name: str, where: str,
           kind: type[Any] | tuple[type[Any], ...], expected: str) -> Any:
    """The row's value of `name`; BadData naming `where` when it is missing or not a `kind`."""
    value = row.get(name)
    if value is None:
        raise BadData(f"{where}: no {name}; {expected}")
    if not isinstance(value, kind):
        raise BadData(f"{where}: {name} is a {type(value).__name__}; {expected}")
    return value


def download_parquet_release(repo_id: str, cache_dir: Path, endpoint: str | None, *,
                             what: str, holding: str, expected: str,
                             conversion: Callable[[Mapping[str, Path], Path,
                                                   Mapping[str, Any]], Conversion],
                             prefix: str = "", part: str = "") -> Path:
    """The ``*.parquet`` files of the hub repo `repo_id` under `prefix` (every one when it is
    empty) fetched into ``cache_dir``'s hub cache and converted once by `conversion` into, or
    below, ``cache_dir/<owner>--<name>``, which is returned (`conversion` is given that root
    and the stamp of the blobs, and names the folder it builds). `part` (e.g. a split)
    names the saved file list ``.<owner>--<name>[-<part>].parquet.json``, kept for offline
    calls, and the lock in ``cache_dir/.locks`` that keeps concurrent callers to one
    conversion; the marker names the parquet blobs, so a changed file is converted again.
    DownloadError, one line naming `what`, the repo and the hub, and the fix (pass `holding`
    with ``--audiobench-data``): pyarrow missing, the hub unreachable with nothing cached, no
    parquet file (`expected` says what should be there), a download or a row that fails."""
    cache_dir = Path(cache_dir).expanduser().resolve()
    name = repo_id.replace("/", "--")
    key = f"{name}-{part}" if part else name
    url = resolve_hf_endpoint(endpoint)
    fix = fix_hint(url, holding)
    # Before the hub is asked: nothing is downloaded that could not be converted.
    require_pyarrow(f"{what} ({repo_id} at {url})", fix, pyarrow_install())
    hub = connect(repo_id, url, cache_dir / HF_CACHE_FOLDER)
    listing = cache_dir / f".{key}{PARQUET_SUFFIX}.json"
    blobs = fetch_or_explain(hub, lambda: hub.fetch_all(parquet_names(hub, listing, prefix)),
                             what=f"{what} ({repo_id}: {prefix}*{PARQUET_SUFFIX})", fix=fix,
                             expected=expected)
    root = cache_dir / name
    convert_or_explain(conversion(blobs, root, {"parquet": blob_stamp(blobs)}), hub,
                       what=what, fix=fix, lock=cache_dir / LOCKS_FOLDER / f"{key}.lock",
                       listing=listing, names=list(blobs))
    return root


def numbered_rows(blobs: Mapping[str, Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each row of the parquet files `blobs` (a name to show -> its file) with where it is:
    the file and the row, counted from 1."""
    for name, blob in blobs.items():
        for number, row in enumerate(parquet_rows(name, blob), 1):
            yield f"{name}: row {number}", row


def clip_id(row: Mapping[str, Any], where: str, expected: str) -> str:
    """The row's ``id`` as the name of its clip's file (an integer as its decimal string);
    BadData when it is missing, of another type, or cannot name a file."""
    value = row.get("id")
    # A bool is an int to Python: a ``true`` id would name a clip "True".
    if isinstance(value, bool) or not isinstance(value, str | int):
        value = column(row, "id", where, str, expected)  # says what is wrong with it
    record_id = str(value)
    # The id becomes a file name under the release: a separator or a dot folder would write
    # outside ``audio/``.
    if not _FILE_ID.fullmatch(record_id) or record_id in (".", ".."):
        raise BadData(f"{where}: the id {record_id!r} cannot name a file; expected an id "
                      "without '/', '\\' or NUL, and not '.' or '..'")
    return record_id


def clip_of(row: Mapping[str, Any], where: str, record_id: str,
            expected: str) -> tuple[bytes, str]:
    """The row's clip (its ``audio`` struct's bytes) and the extension of its original file
    name (``DEFAULT_CLIP_SUFFIX`` when it gives none); BadData when there are no bytes."""
    audio = column(row, "audio", where, dict, expected)
    data = audio.get("bytes")
    if not isinstance(data, bytes) or not data:
        raise BadData(f"{where} (id {record_id!r}): audio has no bytes; {expected}")
    original = audio.get("path")
    if isinstance(original, str):
        # A path written on Windows; the suffix is kept only when it is a plain extension, since it
        # becomes part of a file name written here.
        suffix = PurePosixPath(original.replace("\\", "/")).suffix
        if _CLIP_SUFFIX.fullmatch(suffix):
            return data, suffix
    return data, DEFAULT_CLIP_SUFFIX


def snapshot_files(root: Path, pattern: str = f"*{PARQUET_SUFFIX}") -> list[Path]:
    """The files matching `pattern` anywhere below `root` (a local snapshot of a hub repo; by
    default its parquet files), hidden folders left out, sorted; none when `root` is not a
    folder."""
    if not root.is_dir():
        return []
    return sorted(path for path in root.rglob(pattern) if path.is_file()
                  and not any(part.startswith(".") for part in path.relative_to(root).parts))


def convert_snapshot(root: Path, parquet: Sequence[Path], cache_dir: Path, *, folder: str,
                     what: str, version: int, instead: str,
                     conversion: Callable[[Mapping[str, Path], Path, Mapping[str, Any]],
                                          Conversion]) -> Path:
    """The folder `conversion` builds from a local snapshot's `parquet` files, built once into
    ``cache_dir/<folder>/<hash>/`` (``snapshot_home``), so a changed file is converted again.
    DataError, one line naming ``--audiobench-data`` `root` and `what`: pyarrow is not
    installed (then `instead` says which folder to pass), a row is not as expected, or the
    cache cannot be written."""
    snapshot_needs_pyarrow(root, len(parquet), what, instead)
    files = snapshot_stamp(parquet)
    target = snapshot_home(cache_dir, folder, version, files)
    convert_local(root, conversion({str(p): p for p in parquet}, target, {"parquet": files}),
                  cache_dir, f"{what} parquet files")
    return target


def snapshot_stamp(paths: Iterable[Path]) -> dict[str, dict[str, int]]:
    """What identifies a local snapshot's files, for a conversion's marker: each one's path,
    size and modification time (hashing gigabytes of audio on every start would cost more
    than converting again after a touch)."""
    return {str(path): _size_and_time(path) for path in paths}


def snapshot_home(cache_dir: Path, folder: str, version: int,
                  stamp: Mapping[str, Any]) -> Path:
    """``cache_dir/<folder>/<hash>``: where a local snapshot is converted, named by the hash of
    the conversion's `version` and the snapshot's `stamp` (``snapshot_stamp``), so that
    another snapshot, or a changed file, has a folder of its own."""
    name = hashlib.sha256(json.dumps([version, stamp]).encode()).hexdigest()[:_HASH_CHARS]
    return cache_dir / folder / name


def convert_local(root: Path, conversion: Conversion, cache_dir: Path, what: str) -> None:
    """``convert_once`` for a local snapshot (the lock in ``cache_dir/.locks``, named after
    the target's place under `cache_dir`), with BadData, UnpackError and OSError as one-line
    DataErrors naming ``--audiobench-data`` `root` and `what` (e.g. "MMSU parquet files")."""
    target = conversion.target
    lock = cache_dir / LOCKS_FOLDER / f"{'-'.join(target.relative_to(cache_dir).parts)}.lock"
    try:
        convert_once(conversion, lock=lock)
    except (BadData, UnpackError) as exc:
        raise DataError(f"--audiobench-data {root}: cannot convert its {what}: {exc}; nothing "
                        f"of it was written into {target}") from exc
    except OSError as exc:
        raise DataError(f"--audiobench-data {root}: cannot convert its {what} into {target}: "
                        f"{exc}") from exc


def _size_and_time(path: Path) -> dict[str, int]:
    stat = path.stat()
    return {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def snapshot_needs_pyarrow(root: Path, count: int, what: str, instead: str) -> None:
    """DataError, one line naming ``--audiobench-data`` `root`, unless pyarrow can be
    imported: it holds `what` as `count` parquet files; `instead` is the folder to pass
    without pyarrow."""
    try:
        importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise DataError(f"--audiobench-data {root}: holds {what} as {count} parquet file(s), "
                        f"which need pyarrow to be converted, and pyarrow is not installed "
                        f"({exc}); install it with {pyarrow_install()}, or pass {instead}"
                        ) from exc


def blob_stamp(blobs: Mapping[str, Path]) -> dict[str, dict[str, Any]]:
    """Each file's cache blob (named after its ETag, so a changed file is another blob) and
    size: what a marker records of the files a conversion read."""
    return {name: {"blob": str(path.resolve()), "size": path.stat().st_size}
            for name, path in blobs.items()}


@dataclass(frozen=True)
class Conversion:
    """A folder built whole from downloaded files: `build` writes it into an empty temporary
    folder, which then becomes `target`; its `marker` file holds `stamp` (what it was built
    from), and a later call builds it again only when the stamp differs or `whole` (given
    `target`) says it is no longer complete."""

    target: Path
    marker: str
    stamp: Mapping[str, Any]
    build: Callable[[Path], None]
    whole: Callable[[Path], bool]


def convert_or_explain(conversion: Conversion, hub: HubRepo, *, what: str, fix: str,
                       lock: Path, listing: Path | None = None,
                       names: Sequence[str] = ()) -> None:
    """``convert_once``, with BadData, UnpackError and OSError as one-line DownloadErrors
    naming `what`, the repo and the target."""
    target = conversion.target
    try:
        convert_once(conversion, lock=lock, listing=listing, names=names)
    except (BadData, UnpackError) as exc:
        raise DownloadError(
            f"cannot convert {what} of {hub.repo_id} from {hub.url}: {exc}; nothing of it was "
            f"written into {target}; {fix}"
        ) from exc
    except OSError as exc:
        raise DownloadError(
            f"cannot convert {what} of {hub.repo_id} into {target}: {short_reason(exc)}; {fix}"
        ) from exc


def convert_once(conversion: Conversion, *, lock: Path, listing: Path | None = None,
                 names: Sequence[str] = ()) -> None:
    """Save `names` into `listing` (for offline calls) and build the conversion unless its
    marker says it is built. Under the file lock `lock`, so concurrent callers (xdist
    workers) build it once."""
    from filelock import FileLock  # a dependency of huggingface_hub

    lock.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock)):
        if listing is not None:
            _remember(listing, names)
        # Asked under the lock: a worker that waited for another's build finds it done.
        if not _already_built(conversion):
            _build_into_place(conversion)


def _remember(listing: Path, names: Sequence[str]) -> None:
    text = json.dumps(list(names))
    if not listing.is_file() or listing.read_text(encoding="utf-8") != text:
        with files.replacing(listing) as out:
            out.write(text)


def _already_built(conversion: Conversion) -> bool:
    try:
        marker = conversion.target / conversion.marker
        recorded = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == dict(conversion.stamp) and conversion.whole(conversion.target)


def _build_into_place(conversion: Conversion) -> None:
    target = conversion.target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Safe under the lock: no other caller's staging folder can be live now.
    _drop_leftovers(target)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-partial-", dir=target.parent))
    try:
        conversion.build(staging)
        marker = staging / conversion.marker
        marker.write_text(json.dumps(dict(conversion.stamp)), encoding="utf-8")
        _swap(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _drop_leftovers(target: Path) -> None:
    """The temporary folders of an interrupted earlier call."""
    for pattern in (f".{target.name}-partial-*", f".{target.name}-old-*"):
        for leftover in target.parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def _swap(staging: Path, target: Path) -> None:
    """Rename `staging` to `target`, moving an earlier target aside first and deleting it
    after."""
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}-old-", dir=target.parent))
    try:
        if target.exists() or target.is_symlink():
            # Aside first: a rename onto a folder that is not empty fails, and moved aside the
            # old one is never seen half deleted under the target's name. Killed between the
            # two renames, the next call finds no marker and builds again.
            target.rename(old / target.name)
        staging.rename(target)
    finally:
        shutil.rmtree(old, ignore_errors=True)
