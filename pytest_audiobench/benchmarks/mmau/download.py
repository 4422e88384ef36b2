"""Download MMAU from Hugging Face: a split's parquet files are fetched into the Hugging Face hub
cache and converted once into the maintainers' published layout (the split's JSON array and
each record's audio at its ``audio_id``), which ``data.read_mmau`` reads. ``huggingface_hub``,
``filelock`` and ``pyarrow`` are imported lazily inside the functions, so importing this module
stays cheap.
"""

from __future__ import annotations

import importlib
import json
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pytest_audiobench import files
from pytest_audiobench.benchmarks.mmau.facts import SPLITS
from pytest_audiobench.errors import DownloadError
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

MMAU_REPOS: dict[str, str] = {
    "test-mini": "gamma-lab-umd/MMAU-test-mini",
    "test": "gamma-lab-umd/MMAU-test",
}
"""Each split's dataset repo on the hub: parquet files, one row per question."""
PYARROW_INSTALL = "pip install 'pytest-audiobench[mmau]'"

# The hub cache under cache_dir; huggingface_hub's own layout inside (datasets--OWNER--NAME/).
_HF_CACHE_FOLDER = "huggingface"
_PARQUET_SUFFIX = ".parquet"
# Written into the release root after a complete conversion; names the parquet blobs it came
# from. _CONVERSION changes when the conversion writes something else, so the marker differs.
_CONVERTED_MARKER = ".mmau-converted.json"
_CONVERSION = 1
# Rows in memory at once while converting: each holds its audio.
_BATCH_ROWS = 16
# The fields of other_attributes a record carries, in the published order after the answer.
_ATTRIBUTES: tuple[str, ...] = ("dataset", "task", "split", "category", "sub-category",
                                "difficulty")
_EXPECTED_ROW = ("expected the columns instruction, choices (strings), answer, context (a "
                 "struct with the audio's bytes) and other_attributes (a JSON object with id, "
                 f"{', '.join(_ATTRIBUTES)})")


class _NotCached(Exception):
    """Offline, and the hub cache has no list of the split's parquet files."""


class _NoParquet(Exception):
    """The repo has no parquet file."""


class _BadData(Exception):
    """A parquet file, or one of its rows, is not as expected; the message names it."""


@dataclass(frozen=True)
class _Hub:
    """The split's repo on a hub: only the hub cache is used when HF_HUB_OFFLINE is set
    (``offline``) or the probe failed (``unreachable``)."""

    repo_id: str
    url: str
    cache: Path
    offline: bool
    unreachable: Exception | None

    @property
    def local_only(self) -> bool:
        return self.offline or self.unreachable is not None


def download_mmau(cache_dir: Path, split: str, *, endpoint: str | None = None) -> Path:
    """Fetch the parquet files of MMAU's `split` ("test-mini" or "test") through huggingface_hub
    into `cache_dir`, convert them once, and return the release root: the split's JSON array
    (``mmau-test-mini.json``, ``mmau-test.json``) and each record's audio at its ``audio_id``
    (``./test-mini-audios/<id>.wav``, ``./test-audios/<id>.wav``).

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface`` (huggingface_hub's own
    layout); the release root is ``cache_dir/<owner>--<name>`` of the split's repo (e.g.
    ``cache_dir/gamma-lab-umd--MMAU-test-mini``); beside it, ``.<root name>.parquet.json``
    lists the repo's parquet files for offline calls; a lock file for concurrent callers is in
    ``cache_dir/.locks``. The parquet files stay in the hub cache, so the audio takes its space
    twice.

    The files are every ``*.parquet`` file of the dataset repo (its file list, ``GET
    {endpoint}/api/datasets/{repo_id}``), in sorted order, at the ``main`` revision;
    huggingface_hub downloads only what its cache lacks. The hub, its probe and offline use
    are as for MMAR's download: `endpoint`, else HF_ENDPOINT, else https://huggingface.co; one
    quick request first, and when it fails (or HF_HUB_OFFLINE is set) only the hub cache and
    the file list an earlier call saved are used.

    Conversion: each row (counted from 1 in each file) becomes one record with the fields
    ``id``, ``audio_id``, ``question`` (the row's ``instruction``), ``choices``, ``answer``
    (``""`` where the row has none) and ``dataset``, ``task``, ``split``, ``category``,
    ``sub-category``, ``difficulty`` from its ``other_attributes`` JSON (those it has). The
    letter prefixes ``(A) `` of the choices and the answer are dropped when every choice has
    its own position's letter and the answer is one of the choices (or empty). The audio
    bytes of ``context`` are written as they are. The root is built in a temporary folder
    and renamed into place, with a marker naming the parquet blobs: a later call converts
    again only when a parquet file changed or the root is gone.

    Raises DownloadError (one line, chained) when pyarrow is not installed, the hub is
    unreachable and the files are not cached, the repo or its parquet files are missing, the
    download fails, or a parquet file or row is not as expected.
    """
    repo_id = _repo_id(split)
    cache_dir = Path(cache_dir).expanduser().resolve()
    root = cache_dir / repo_id.replace("/", "--")
    url = resolve_hf_endpoint(endpoint)
    _require_pyarrow(repo_id, url, split)
    hub = _connect(repo_id, url, cache_dir / _HF_CACHE_FOLDER)
    listing = cache_dir / f".{root.name}{_PARQUET_SUFFIX}.json"
    try:
        blobs = _fetch_parquets(hub, listing)
    except Exception as exc:
        raise _fetch_error(exc, hub, split) from (hub.unreachable or exc)
    _install_or_explain(blobs, root, split, listing, hub)
    return root


def _repo_id(split: str) -> str:
    if split not in MMAU_REPOS:
        raise ValueError(f"unknown MMAU split {split!r}; expected one of {', '.join(MMAU_REPOS)}")
    return MMAU_REPOS[split]


def _fix(url: str, split: str) -> str:
    return fix_hint(url, f"{SPLITS[split]} and {_audio_folder(split)}/")


def _audio_folder(split: str) -> str:
    return f"{split}-audios"


def _require_pyarrow(repo_id: str, url: str, split: str) -> None:
    try:
        importlib.import_module("pyarrow.parquet")
    except ImportError as exc:
        raise DownloadError(
            f"cannot convert MMAU {split} ({repo_id} at {url}): the hub ships it as parquet "
            f"files, which need pyarrow, and pyarrow is not installed ({exc}); install it with "
            f"{PYARROW_INSTALL}, or {_fix(url, split)}"
        ) from exc


def _connect(repo_id: str, url: str, cache: Path) -> _Hub:
    offline = hf_offline()
    return _Hub(repo_id, url, cache, offline, None if offline else _probe(url, repo_id))


def _probe(url: str, repo_id: str) -> Exception | None:
    """The probe's error, kept for the message when the hub cache lacks the files too."""
    try:
        hf_probe(url, repo_id)
    except Exception as exc:  # the hub cache may still have the files
        return exc
    return None


def _fetch_parquets(hub: _Hub, listing: Path) -> dict[str, Path]:
    """Each parquet file's repo path -> its file in the hub cache, in sorted order."""
    names = _saved_names(listing) if hub.local_only else _list_parquets(hub)
    return {
        name: hf_fetch(hub.repo_id, name, hub_cache=hub.cache, endpoint=hub.url,
                       local_only=hub.local_only)
        for name in names
    }


def _list_parquets(hub: _Hub) -> list[str]:
    from huggingface_hub import HfApi

    info = HfApi(endpoint=hub.url).dataset_info(hub.repo_id)
    names = sorted(s.rfilename for s in info.siblings or () if _is_parquet(s.rfilename))
    if not names:
        raise _NoParquet(f"it has no *{_PARQUET_SUFFIX} file")
    return names


def _is_parquet(name: str) -> bool:
    return name.lower().endswith(_PARQUET_SUFFIX)


def _saved_names(listing: Path) -> list[str]:
    """The parquet files an earlier online call found (written by _remember)."""
    try:
        names = json.loads(listing.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _NotCached(f"cannot read {listing}: {exc}") from exc
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise _NotCached(f"{listing} is not a list of file names")
    return names


def _fetch_error(exc: BaseException, hub: _Hub, split: str) -> DownloadError:
    from huggingface_hub.utils import RepositoryNotFoundError  # type: ignore[attr-defined]

    what = f"MMAU {split} ({hub.repo_id}: its *{_PARQUET_SUFFIX} files)"
    fix = _fix(hub.url, split)
    host = urlsplit(hub.url).hostname
    not_cached = isinstance(exc, _NotCached) or is_missing(exc, local=True)
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
    if isinstance(exc, _NoParquet) or is_missing(exc, local=False):
        gone = f"a file it lists is gone ({hf_reason(exc, host)})"
        said = str(exc) if isinstance(exc, _NoParquet) else gone
        return DownloadError(
            f"unexpected layout of dataset {hub.repo_id} at {hub.url}: {said} (expected one or "
            f"more *{_PARQUET_SUFFIX} files, one row per question); {fix}"
        )
    return DownloadError(f"cannot download {what} from {hub.url}: {hf_reason(exc, host)}; {fix}")


def _install_or_explain(
    blobs: Mapping[str, Path], root: Path, split: str, listing: Path, hub: _Hub
) -> None:
    fix = _fix(hub.url, split)
    try:
        _install(blobs, root, split, listing)
    except _BadData as exc:
        raise DownloadError(
            f"cannot convert MMAU {split} of {hub.repo_id} from {hub.url}: {exc}; nothing of "
            f"it was written into {root}; {fix}"
        ) from exc
    except OSError as exc:
        raise DownloadError(
            f"cannot convert MMAU {split} of {hub.repo_id} into {root}: {short_reason(exc)}; "
            f"{fix}"
        ) from exc


def _install(blobs: Mapping[str, Path], root: Path, split: str, listing: Path) -> None:
    """Save the file list and convert the parquet files into `root` unless its marker says
    they already are. Under a file lock, so concurrent callers (xdist workers) convert once."""
    from filelock import FileLock  # a dependency of huggingface_hub

    lock_path = root.parent / ".locks" / f"{root.name}.lock"
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(lock_path)):
        _remember(listing, list(blobs))
        stamp = _stamp(blobs, split)
        if not _already_converted(root, split, stamp):
            _convert_into_place(blobs, root, split, stamp)


def _remember(listing: Path, names: Sequence[str]) -> None:
    text = json.dumps(list(names))
    if not listing.is_file() or listing.read_text(encoding="utf-8") != text:
        with files.replacing(listing) as out:
            out.write(text)


def _stamp(blobs: Mapping[str, Path], split: str) -> dict[str, Any]:
    """What the marker records: each parquet file's cache blob (named after its ETag)."""
    parquet = {name: {"blob": str(path.resolve()), "size": path.stat().st_size}
               for name, path in blobs.items()}
    return {"conversion": _CONVERSION, "split": split, "parquet": parquet}


def _already_converted(root: Path, split: str, stamp: Mapping[str, Any]) -> bool:
    try:
        recorded = json.loads((root / _CONVERTED_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    whole = (root / SPLITS[split]).is_file() and (root / _audio_folder(split)).is_dir()
    return recorded == dict(stamp) and whole


def _convert_into_place(
    blobs: Mapping[str, Path], root: Path, split: str, stamp: Mapping[str, Any]
) -> None:
    _drop_leftovers(root)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-partial-", dir=root.parent))
    try:
        _write_release(blobs, staging, split)
        (staging / _CONVERTED_MARKER).write_text(json.dumps(dict(stamp)), encoding="utf-8")
        _swap(staging, root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _drop_leftovers(root: Path) -> None:
    """The temporary folders of an interrupted earlier call."""
    for pattern in (f".{root.name}-partial-*", f".{root.name}-old-*"):
        for leftover in root.parent.glob(pattern):
            shutil.rmtree(leftover, ignore_errors=True)


def _swap(staging: Path, root: Path) -> None:
    """Rename `staging` to `root`, moving an earlier root aside first and deleting it after."""
    old = Path(tempfile.mkdtemp(prefix=f".{root.name}-old-", dir=root.parent))
    try:
        if root.exists() or root.is_symlink():
            root.rename(old / root.name)
        staging.rename(root)
    finally:
        shutil.rmtree(old, ignore_errors=True)


def _write_release(blobs: Mapping[str, Path], folder: Path, split: str) -> None:
    audio = folder / _audio_folder(split)
    audio.mkdir()
    records = [record for name, blob in blobs.items()
               for record in _records(name, blob, audio)]
    text = json.dumps(records, ensure_ascii=False, indent=4)
    (folder / SPLITS[split]).write_text(text + "\n", encoding="utf-8")


def _records(name: str, blob: Path, audio: Path) -> Iterator[dict[str, Any]]:
    for number, row in enumerate(_rows(name, blob), 1):
        yield _record(row, f"{name}: row {number}", audio)


def _rows(name: str, blob: Path) -> Iterator[dict[str, Any]]:
    import pyarrow  # type: ignore[import-untyped]
    import pyarrow.parquet  # type: ignore[import-untyped]

    try:
        for batch in pyarrow.parquet.ParquetFile(blob).iter_batches(batch_size=_BATCH_ROWS):
            yield from batch.to_pylist()
    except pyarrow.ArrowException as exc:
        raise _BadData(f"{name} ({blob}) is not a readable parquet file: "
                       f"{short_reason(exc)}") from exc


def _record(row: Mapping[str, Any], where: str, audio: Path) -> dict[str, Any]:
    """One row as a published record; its audio is written to `audio`/<id>.wav."""
    question = _column(row, "instruction", where, str)
    choices = _column(row, "choices", where, list)
    answer = row.get("answer") or ""
    if not all(isinstance(c, str) for c in choices) or not isinstance(answer, str):
        raise _BadData(f"{where}: choices or answer is not text; {_EXPECTED_ROW}")
    attributes = _attributes(_column(row, "other_attributes", where, (str, dict)), where)
    record_id = _record_id(attributes, where)
    _write_audio(audio / f"{record_id}.wav", _column(row, "context", where, dict), where)
    choices, answer = _unprefixed(choices, answer)
    head = {"id": record_id, "audio_id": f"./{audio.name}/{record_id}.wav",
            "question": question, "choices": choices, "answer": answer}
    return head | {key: attributes[key] for key in _ATTRIBUTES if key in attributes}


def _column(
    row: Mapping[str, Any], name: str, where: str, kind: type[Any] | tuple[type[Any], ...]
) -> Any:
    value = row.get(name)
    if value is None:
        raise _BadData(f"{where}: no {name}; {_EXPECTED_ROW}")
    if not isinstance(value, kind):
        raise _BadData(f"{where}: {name} is a {type(value).__name__}; {_EXPECTED_ROW}")
    return value


def _attributes(raw: str | dict[str, Any], where: str) -> dict[str, Any]:
    try:
        attributes = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError as exc:
        raise _BadData(f"{where}: other_attributes is not JSON ({exc}); {_EXPECTED_ROW}") from exc
    if not isinstance(attributes, dict):
        raise _BadData(f"{where}: other_attributes is not a JSON object; {_EXPECTED_ROW}")
    return attributes


def _record_id(attributes: Mapping[str, Any], where: str) -> str:
    """The record's id, which names its audio file: so a plain file name."""
    value = attributes.get("id")
    if not isinstance(value, str) or value in ("", ".", "..") or any(
            c in value for c in "/\\\0"):
        raise _BadData(f"{where}: the id {value!r} in other_attributes names no file; "
                       "expected a text usable as a file name (no slash)")
    return value


def _write_audio(path: Path, context: Mapping[str, Any], where: str) -> None:
    data = context.get("bytes")
    if not isinstance(data, bytes):
        raise _BadData(f"{where}: context has no audio bytes; {_EXPECTED_ROW}")
    try:
        with path.open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise _BadData(f"{where}: the id {path.stem!r} is an earlier row's too; expected "
                       "every id once") from exc


def _unprefixed(choices: list[str], answer: str) -> tuple[list[str], str]:
    """The choices and the answer without their ``(A) `` prefixes when every choice carries its
    own position's letter and the answer is one of the choices (or withheld); else as given."""
    prefixes = [f"({chr(ord('A') + i)}) " for i in range(len(choices))]
    own = all(c.startswith(p) for c, p in zip(choices, prefixes, strict=True))
    if not own or (answer and answer not in choices):
        return choices, answer
    stripped = [c[len(p):] for c, p in zip(choices, prefixes, strict=True)]
    return stripped, stripped[choices.index(answer)] if answer else answer
