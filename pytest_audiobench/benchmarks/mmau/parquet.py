"""MMAU's hub parquet rows written as the maintainers' published layout (the split's JSON array
and each record's audio at its ``audio_id``), once, behind a marker: for the download's files
in the hub cache, and for a local snapshot of a split's repo (``huggingface-cli download
--repo-type dataset gamma-lab-umd/MMAU-test-mini --local-dir DIR``), converted into the
plugin's cache (``release_folder``). pyarrow is imported only when rows are read, so importing
this module stays cheap.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.mmau.facts import NAME, SPLITS
from pytest_audiobench.hub.converting import (
    BadData,
    Conversion,
    column,
    convert_snapshot,
    parquet_rows,
    snapshot_files,
)

MARKER = ".mmau-converted.json"
"""Written into the release root after a complete conversion; names the files it came from."""
VERSION = 1
"""Changes when the conversion writes something else, so that earlier ones are redone."""
# The fields of other_attributes a record carries, in the published order after the answer.
_ATTRIBUTES: tuple[str, ...] = ("dataset", "task", "split", "category", "sub-category",
                                "difficulty")
_EXPECTED_ROW = ("expected the columns instruction, choices (strings), answer, context (a "
                 "struct with the audio's bytes) and other_attributes (a JSON object with id, "
                 f"{', '.join(_ATTRIBUTES)})")


def release_folder(root: Path, split: str, cache_dir: Path) -> Path:
    """The folder holding `split`'s published layout: `root` when it holds the split's JSON
    array; else, when parquet files are below it (a local snapshot of the split's hub repo,
    hidden folders left out), their conversion into that layout, built once into
    ``cache_dir/mmau/<split>/<hash>/`` (a changed file is converted again); else `root`, whose
    reading then says what it lacks. DataError, one line naming ``--audiobench-data``, when
    pyarrow is missing or a parquet row is not as expected."""
    if (root / SPLITS[split]).exists():
        return root
    parquet = snapshot_files(root)
    if not parquet:
        return root
    return convert_snapshot(
        root, parquet, Path(cache_dir).expanduser().resolve(), folder=f"{NAME}/{split}",
        what=f"MMAU {split}", version=VERSION,
        instead=f"a folder holding {SPLITS[split]} and {audio_folder(split)}/",
        conversion=lambda blobs, target, stamp: conversion(blobs, target, stamp, split))


def audio_folder(split: str) -> str:
    """The folder of the split's audio at the release root, as published."""
    return f"{split}-audios"


def conversion(blobs: Mapping[str, Path], root: Path, stamp: Mapping[str, Any],
               split: str) -> Conversion:
    """The release root of `split` built into `root` from the parquet files `blobs` (a name
    to show -> its file), its marker holding `stamp`, what identifies the files."""
    def whole(folder: Path) -> bool:
        return (folder / SPLITS[split]).is_file() and (folder / audio_folder(split)).is_dir()

    return Conversion(root, MARKER, {"conversion": VERSION, "split": split, **stamp},
                      lambda folder: _write_release(blobs, folder, split), whole)


def _write_release(blobs: Mapping[str, Path], folder: Path, split: str) -> None:
    audio = folder / audio_folder(split)
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
    # The test split withholds its answers: a null is an answer withheld, not a bad row.
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
        # "x": a second row of the same id fails instead of overwriting the first's audio.
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
    # Stripped only when the answer matches a choice whole: else the answer could no longer be
    # found among the stripped choices.
    if not own or (answer and answer not in choices):
        return choices, answer
    stripped = [c[len(p):] for c, p in zip(choices, prefixes, strict=True)]
    return stripped, stripped[choices.index(answer)] if answer else answer
