"""Download MMAU from Hugging Face: a split's parquet files are fetched into the Hugging Face hub
cache and converted once into the maintainers' published layout (the split's JSON array and
each record's audio at its ``audio_id``), which ``data.read_mmau`` reads. What is not MMAU's
own (the probe, offline use, the file list, the errors, converting once behind a marker and a
lock) is ``hub.converting``'s. ``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported
lazily inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.mmau.facts import SPLITS
from pytest_audiobench.hub.converting import (
    HF_CACHE_FOLDER,
    LOCKS_FOLDER,
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    blob_stamp,
    column,
    connect,
    convert_or_explain,
    fetch_or_explain,
    parquet_names,
    parquet_rows,
    pyarrow_install,
    require_pyarrow,
)
from pytest_audiobench.hub.huggingface import resolve_hf_endpoint
from pytest_audiobench.hub.network import fix_hint

MMAU_REPOS: dict[str, str] = {
    "test-mini": "gamma-lab-umd/MMAU-test-mini",
    "test": "gamma-lab-umd/MMAU-test",
}
"""Each split's dataset repo on the hub: parquet files, one row per question."""

# Written into the release root after a complete conversion; names the parquet blobs it came
# from. _CONVERSION changes when the conversion writes something else, so the marker differs.
_CONVERTED_MARKER = ".mmau-converted.json"
_CONVERSION = 1
# The fields of other_attributes a record carries, in the published order after the answer.
_ATTRIBUTES: tuple[str, ...] = ("dataset", "task", "split", "category", "sub-category",
                                "difficulty")
_EXPECTED_ROW = ("expected the columns instruction, choices (strings), answer, context (a "
                 "struct with the audio's bytes) and other_attributes (a JSON object with id, "
                 f"{', '.join(_ATTRIBUTES)})")


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
    fix = _fix(url, split)
    require_pyarrow(f"MMAU {split} ({repo_id} at {url})", fix, pyarrow_install())
    hub = connect(repo_id, url, cache_dir / HF_CACHE_FOLDER)
    listing = cache_dir / f".{root.name}{PARQUET_SUFFIX}.json"
    blobs = fetch_or_explain(
        hub, lambda: hub.fetch_all(parquet_names(hub, listing)),
        what=f"MMAU {split} ({repo_id}: its *{PARQUET_SUFFIX} files)", fix=fix,
        expected=f"one or more *{PARQUET_SUFFIX} files, one row per question")
    convert_or_explain(_conversion(blobs, root, split), hub, what=f"MMAU {split}", fix=fix,
                       lock=cache_dir / LOCKS_FOLDER / f"{root.name}.lock", listing=listing,
                       names=list(blobs))
    return root


def _repo_id(split: str) -> str:
    if split not in MMAU_REPOS:
        raise ValueError(f"unknown MMAU split {split!r}; expected one of {', '.join(MMAU_REPOS)}")
    return MMAU_REPOS[split]


def _fix(url: str, split: str) -> str:
    return fix_hint(url, f"{SPLITS[split]} and {_audio_folder(split)}/")


def _audio_folder(split: str) -> str:
    return f"{split}-audios"


def _conversion(blobs: Mapping[str, Path], root: Path, split: str) -> Conversion:
    """The release root built from the parquet files; its marker names their cache blobs."""
    stamp = {"conversion": _CONVERSION, "split": split, "parquet": blob_stamp(blobs)}

    def whole(folder: Path) -> bool:
        return (folder / SPLITS[split]).is_file() and (folder / _audio_folder(split)).is_dir()

    return Conversion(root, _CONVERTED_MARKER, stamp,
                      lambda folder: _write_release(blobs, folder, split), whole)


def _write_release(blobs: Mapping[str, Path], folder: Path, split: str) -> None:
    audio = folder / _audio_folder(split)
    audio.mkdir()
    records = [record for name, blob in blobs.items()
               for record in _records(name, blob, audio)]
    text = json.dumps(records, ensure_ascii=False, indent=4)
    (folder / SPLITS[split]).write_text(text + "\n", encoding="utf-8")


def _records(name: str, blob: Path, audio: Path) -> Iterator[dict[str, Any]]:
    for number, row in enumerate(parquet_rows(name, blob), 1):
        yield _record(row, f"{name}: row {number}", audio)


def _record(row: Mapping[str, Any], where: str, audio: Path) -> dict[str, Any]:
    """One row as a published record; its audio is written to `audio`/<id>.wav."""
    question = _column(row, "instruction", where, str)
    choices = _column(row, "choices", where, list)
    answer = row.get("answer") or ""
    if not all(isinstance(c, str) for c in choices) or not isinstance(answer, str):
        raise BadData(f"{where}: choices or answer is not text; {_EXPECTED_ROW}")
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
    return column(row, name, where, kind, _EXPECTED_ROW)


def _attributes(raw: str | dict[str, Any], where: str) -> dict[str, Any]:
    try:
        attributes = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError as exc:
        raise BadData(f"{where}: other_attributes is not JSON ({exc}); {_EXPECTED_ROW}") from exc
    if not isinstance(attributes, dict):
        raise BadData(f"{where}: other_attributes is not a JSON object; {_EXPECTED_ROW}")
    return attributes


def _record_id(attributes: Mapping[str, Any], where: str) -> str:
    """The record's id, which names its audio file: so a plain file name."""
    value = attributes.get("id")
    if not isinstance(value, str) or value in ("", ".", "..") or any(
            c in value for c in "/\\\0"):
        raise BadData(f"{where}: the id {value!r} in other_attributes names no file; "
                      "expected a text usable as a file name (no slash)")
    return value


def _write_audio(path: Path, context: Mapping[str, Any], where: str) -> None:
    data = context.get("bytes")
    if not isinstance(data, bytes):
        raise BadData(f"{where}: context has no audio bytes; {_EXPECTED_ROW}")
    try:
        with path.open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise BadData(f"{where}: the id {path.stem!r} is an earlier row's too; expected "
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
