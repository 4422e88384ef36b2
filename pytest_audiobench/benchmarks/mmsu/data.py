"""MMSU: its records, read from the converted layout, or converted once from the release's
parquet files (a local snapshot of the hub repo, or the download's), validated at load.

The converted layout (facts.CONVERTED, ``mmsu.jsonl``) holds one JSON object a line with the
release's fields, ``audio`` being the clip's path relative to the folder (``audio/<id><ext>``),
and the clips in ``audio/``: it reads without pyarrow, and the bundled mini data ships in it.
The release's parquet rows carry the clip itself (``audio``: a struct of the file's ``bytes``
and its original ``path``); ``write_converted`` turns them into that layout, for the local
snapshot here and for ``download.download_mmsu`` alike.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictStr, field_validator, model_validator

from pytest_audiobench.benchmarks.metafile import (
    clip_inside,
    jsonl_records,
    size_note,
    validated,
)
from pytest_audiobench.benchmarks.mmsu.facts import CONVERTED, FIELDS, HUB_REPO, NAME, SIZE
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    clip_id,
    clip_of,
    convert_snapshot,
    numbered_rows,
    snapshot_files,
)

AUDIO_FOLDER = "audio"
"""Where the converted layout keeps the clips, beside ``mmsu.jsonl``."""
CONVERTED_MARKER = ".mmsu-converted.json"
"""Written into a converted folder once it is complete; records what it was converted from."""
LOCAL_FOLDER = NAME
"""Under the cache folder: one converted folder per local parquet snapshot, named by a hash."""
# Changes when the conversion writes something else, so that earlier conversions are redone.
_CONVERSION = 1
# The release pads a question of two or three options with nulls, in any of the four places
# (e.g. choice_a and choice_d null around "male" and "female"); the other two are often null.
_OPTIONAL = ("choice_a", "choice_b", "choice_c", "choice_d", "sub-sub-category",
             "linguistics_sub_discipline")
_STRINGS = ", ".join(field for field in FIELDS if field != "audio")
_EXPECTED = (f"expected an object with the strings {_STRINGS} (any of choice_a to choice_d, "
             "sub-sub-category and linguistics_sub_discipline may be empty or null; answer_gt "
             "the text of one of the options given) and audio (the clip's path under the "
             f"folder, {AUDIO_FOLDER}/<id><ext>)")
_EXPECTED_ROW = (f"expected the columns {_STRINGS} (strings; any of choice_a to choice_d, "
                 "sub-sub-category and linguistics_sub_discipline may be empty or null; "
                 "answer_gt the text of one of the options given) and audio (a struct with "
                 "the clip's file bytes and its original file name, path)")
_LAYOUTS = (f"expected the converted layout ({CONVERTED}, one record a line, and the clips in "
            f"{AUDIO_FOLDER}/) or a snapshot of the hub repo {HUB_REPO} (its train split as "
            f"*{PARQUET_SUFFIX} files, e.g. data/train-*{PARQUET_SUFFIX})")


class MmsuRecord(BaseModel):
    """One MMSU question: the release's fields, ``audio`` being the clip's file (absolute,
    inside the folder read). ``answer_gt`` is the correct option's text, never a letter."""

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: StrictStr = Field(min_length=1)
    task_name: StrictStr = Field(min_length=1)
    """One of the 47 tasks, e.g. ``accent_identification``."""
    question: StrictStr
    choice_a: StrictStr = ""
    """Empty where the question has no option A: the release pads a question of two or three
    options with nulls in any place, and a null reads as empty. Every option keeps its letter."""
    choice_b: StrictStr = ""
    choice_c: StrictStr = ""
    choice_d: StrictStr = ""
    answer_gt: StrictStr = Field(min_length=1)
    category: StrictStr = Field(min_length=1)
    """``perception`` or ``reasoning`` (facts.CATEGORIES)."""
    sub_category: StrictStr = Field(alias="sub-category")
    sub_sub_category: StrictStr = Field("", alias="sub-sub-category")
    linguistics_sub_discipline: StrictStr = ""
    audio: Path

    @field_validator(*(name.replace("-", "_") for name in _OPTIONAL), mode="before")
    @classmethod
    def _null_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @model_validator(mode="after")
    def _answer_is_an_option(self) -> MmsuRecord:
        if self.answer_gt not in self.choices:
            raise ValueError(f"answer_gt {self.answer_gt!r} is none of the options "
                             f"{list(self.choices)!r}")
        return self

    @property
    def choices(self) -> tuple[str, ...]:
        """The options given, in order: the non-empty ones among choice_a to choice_d (what
        ``answer_gt`` must be one of; ``letters`` keeps where each one is)."""
        return tuple(option for option in self.letters.values() if option)

    @property
    def letters(self) -> dict[str, str]:
        """Each letter's option, the empty ones kept: the official scoring reads a reply's
        letter in these four."""
        return {"A": self.choice_a, "B": self.choice_b, "C": self.choice_c, "D": self.choice_d}


def release_folder(root: Path, cache_dir: Path) -> Path:
    """The folder holding MMSU's converted layout: `root` when it holds ``mmsu.jsonl``; else
    the conversion of the release's parquet files anywhere below it (a snapshot of the hub
    repo, hidden folders left out), built once into ``cache_dir/mmsu/<hash>/`` (the hash of
    the files' paths, sizes and modification times, so a changed file is converted again).
    DataError, one line: neither layout is there; pyarrow, which the parquet files need, is
    not installed; or a parquet row is not as expected (its file and row named)."""
    root = Path(root).expanduser().resolve()
    if (root / CONVERTED).exists():
        return root
    return _convert_local(root, _parquet_files(root), Path(cache_dir).expanduser().resolve())


def read_mmsu(root: Path, cache_dir: Path) -> tuple[list[MmsuRecord], str | None]:
    """MMSU's records in the folder ``release_folder`` finds under `root`, in the release's
    order, and a note when they are not the whole release (None when they are its 5,000).
    DataError, one line: as ``release_folder``, or a line of ``mmsu.jsonl`` is not as expected
    (its file and line named, and what was expected): not JSON, a field missing or not a
    string, an empty id, task_name or category, an ``answer_gt`` that is none of the options,
    an id twice, an audio path outside the folder or missing.
    """
    records = _read_converted(release_folder(root, cache_dir))
    return records, size_note(NAME, len(records), SIZE)


def write_converted(blobs: Mapping[str, Path], folder: Path) -> None:
    """Write the converted layout into the empty `folder` from the parquet files `blobs` (a
    name to show in errors -> its file), their rows in order: each row's clip into
    ``audio/<id><ext>`` (the extension of its original file name, else ``.wav``) and its
    fields into a line of ``mmsu.jsonl``, nulls of the optional fields (any option among them)
    as empty strings.
    BadData naming the file and the row (counted from 1) for a row that is not a valid
    record, an id that cannot name a file or comes twice, or audio without bytes."""
    (folder / AUDIO_FOLDER).mkdir()
    seen: dict[str, str] = {}
    with (folder / CONVERTED).open("w", encoding="utf-8", newline="\n") as out:
        for where, row in numbered_rows(blobs):
            out.write(json.dumps(_write_row(row, where, folder, seen), ensure_ascii=False))
            out.write("\n")


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any]) -> Conversion:
    """The converted layout built into `target` from `blobs` (see ``write_converted``), its
    marker holding `stamp`, what identifies the parquet files it came from."""
    return Conversion(target, CONVERTED_MARKER, {"conversion": _CONVERSION, **stamp},
                      lambda folder: write_converted(blobs, folder),
                      lambda built: (built / CONVERTED).is_file())


# --- a local snapshot -------------------------------------------------------------------------


def _parquet_files(root: Path) -> list[Path]:
    """The parquet files below `root`, sorted; DataError naming both layouts when none."""
    found = snapshot_files(root)
    if not found:
        there = "there" if root.is_dir() else "there (no such folder)"
        raise DataError(f"--audiobench-data {root}: neither {CONVERTED} nor any "
                        f"*{PARQUET_SUFFIX} file {there}; {_LAYOUTS}")
    return found


def _convert_local(root: Path, parquet: list[Path], cache_dir: Path) -> Path:
    """The converted folder of the snapshot's `parquet` files, converted unless done."""
    return convert_snapshot(root, parquet, cache_dir, folder=LOCAL_FOLDER, what="MMSU",
                            version=_CONVERSION, conversion=conversion,
                            instead=f"a folder holding {CONVERTED} and {AUDIO_FOLDER}/")


# --- converting rows --------------------------------------------------------------------------


def _write_row(row: Mapping[str, Any], where: str, folder: Path,
               seen: dict[str, str]) -> dict[str, Any]:
    """Write the row's clip into `folder` and return its line; `seen` maps the ids written
    so far to where they were."""
    record_id = clip_id(row, where, _EXPECTED_ROW)
    if record_id in seen:
        raise BadData(f"{where}: the id {record_id!r} is {seen[record_id]}'s too; expected "
                      "every id once")
    data, suffix = clip_of(row, where, record_id, _EXPECTED_ROW)
    relative = f"{AUDIO_FOLDER}/{record_id}{suffix}"
    line = _checked_line({**row, "audio": relative}, where)
    seen[record_id] = where
    (folder / relative).write_bytes(data)
    return line


def _checked_line(raw: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The release's fields of `raw` as a line of ``mmsu.jsonl``, once valid as a record."""
    try:
        record = validated(MmsuRecord, dict(raw), where, _EXPECTED_ROW)
    except DataError as exc:
        raise BadData(str(exc)) from None
    dumped = record.model_dump(mode="json", by_alias=True)
    return {field: dumped[field] for field in FIELDS}


# --- reading the converted layout -------------------------------------------------------------


def _read_converted(folder: Path) -> list[MmsuRecord]:
    records, _ = jsonl_records(folder / CONVERTED, lambda where, raw: _record(folder, where, raw),
                               _EXPECTED, f"the {SIZE:,} questions of MMSU")
    return records


def _record(folder: Path, where: str, raw: Any) -> MmsuRecord:
    """The record of the line at `where` (its value `raw`), its audio found under `folder`."""
    record = validated(MmsuRecord, raw, where, _EXPECTED)
    clip = clip_inside(folder, f"{where} (id {record.id!r})", "audio", raw["audio"], _EXPECTED)
    return record.model_copy(update={"audio": clip})
