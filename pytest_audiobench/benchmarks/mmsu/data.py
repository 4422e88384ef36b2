"""MMSU: its records, read from the converted layout, or converted once from the release's
parquet files (a local snapshot of the hub repo, or the download's), validated at load.

The converted layout (facts.CONVERTED, ``mmsu.jsonl``) holds one JSON object a line with the
release's fields, ``audio`` being the clip's path relative to the folder (``audio/<id><ext>``),
and the clips in ``audio/``: it reads without pyarrow, and the bundled mini data ships in it.
The release's parquet rows carry the clip itself (``audio``: a struct of the file's ``bytes``
and its original ``path``); ``RELEASE`` (a ``parquet_release.ParquetRelease``) turns them into
that layout, for a local snapshot and for ``download.download_mmsu`` alike.
"""

from __future__ import annotations

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
from pytest_audiobench.benchmarks.parquet_release import AUDIO_FOLDER, ParquetRelease
from pytest_audiobench.hub.converting import PARQUET_SUFFIX

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


def _line(record: MmsuRecord) -> dict[str, Any]:
    dumped = record.model_dump(mode="json", by_alias=True)
    return {field: dumped[field] for field in FIELDS}


RELEASE = ParquetRelease(
    name=NAME, what="MMSU", repo=HUB_REPO, lines=CONVERTED, clip_field="audio",
    record=MmsuRecord, line_of=_line, expected_row=_EXPECTED_ROW,
    holding=f"a folder holding {CONVERTED} and {AUDIO_FOLDER}/", version=1)
"""The release's parquet rows, converted into the layout a run reads, downloaded or not."""


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
    return RELEASE.from_snapshot(root, Path(cache_dir).expanduser().resolve(), _LAYOUTS)


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
