"""MMAR: the release layout, its records, and the numbers a complete release must show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    field_validator,
    model_validator,
)

from pytest_audiobench.benchmarks.metafile import inside_root, validated
from pytest_audiobench.benchmarks.mmar.facts import MODALITIES, MODALITY_COUNTS
from pytest_audiobench.benchmarks.mmar.rubrics import Rubric
from pytest_audiobench.errors import DataError

META_JSONL = "MMAR-meta.jsonl"
META_JSON = "MMAR-meta.json"
"""The older release: one JSON array of the first 12 fields, without thinking, cue, rubric."""
FLAG = "--audiobench-data"
RECORD_COUNT = 1000

CATEGORY_COUNTS: dict[str, int] = {
    "Signal Layer": 43,
    "Perception Layer": 404,
    "Semantic Layer": 412,
    "Cultural Layer": 141,
}
CATEGORIES: tuple[str, ...] = tuple(CATEGORY_COUNTS)
SUB_CATEGORY_COUNTS: dict[str, int] = {
    "Content Analysis": 304,
    "Environmental Perception and Reasoning": 149,
    "Counting and Statistics": 99,
    "Professional Knowledge and Reasoning": 71,
    "Music Theory": 63,
    "Emotion and Intention": 60,
    "Culture of Speaker": 52,
    "Correlation Analysis": 50,
    "Speaker Analysis": 48,
    "Temporal Analysis": 28,
    "Acoustic Quality Analysis": 18,
    "Anomaly Detection": 17,
    "Spatial Analysis": 15,
    "Imagination": 10,
    "Audio Difference Analysis": 8,
    "Aesthetic Evaluation": 8,
}
SUB_CATEGORIES: tuple[str, ...] = tuple(SUB_CATEGORY_COUNTS)
_EXPECTED = (
    "expected an object with id, audio_path, question, choices (2 to 6 strings), answer (one of "
    f"the choices), modality (one of {', '.join(MODALITIES)}), category (one of "
    f"{', '.join(CATEGORIES)}), sub-category, and optionally language, source, url, timestamp, "
    "thinking, cue and rubric (5 criteria)"
)


class MmarRecord(BaseModel):
    """One MMAR item: the 15 fields of ``MMAR-meta.jsonl`` (12 in the legacy json).

    Only what evaluation uses is required; the provenance fields may be missing or null.
    """

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    id: StrictStr = Field(min_length=1)
    audio_path: StrictStr = Field(min_length=1)
    """Relative to the release root, e.g. "./audio/<name>.wav"; the name is not always the id."""
    question: StrictStr
    choices: list[StrictStr] = Field(min_length=2, max_length=6)
    """In the release's order. A few real items carry an empty string as a placeholder choice."""
    answer: StrictStr
    modality: StrictStr
    category: StrictStr
    sub_category: StrictStr = Field(alias="sub-category")
    language: str | None = None
    """e.g. "en", "zh|en"; null when no language is spoken."""
    source: str | None = None
    url: str | None = None
    timestamp: str | None = None
    thinking: str | None = None
    """The reference chain of thought (absent in the legacy json)."""
    cue: list[str] | None = None
    rubric: Rubric | None = None
    """Five criteria (absent in the legacy json)."""

    @field_validator("audio_path")
    @classmethod
    def _inside_the_release(cls, value: str) -> str:
        inside_root(value)
        return value

    @field_validator("modality")
    @classmethod
    def _known_modality(cls, value: str) -> str:
        # The official script keys a fixed table by modality and fails on any other value.
        if value not in MODALITY_COUNTS:
            raise ValueError(f"unknown modality {value!r}")
        return value

    @field_validator("category")
    @classmethod
    def _known_category(cls, value: str) -> str:
        if value not in CATEGORY_COUNTS:
            raise ValueError(f"unknown category {value!r}")
        return value

    @model_validator(mode="after")
    def _answer_is_a_choice(self) -> MmarRecord:
        if self.answer not in self.choices:
            raise ValueError(f"choices do not contain the answer {self.answer!r}")
        return self


def read_mmar(root: Path) -> tuple[list[MmarRecord], bool]:
    """Validate every record of ``root/MMAR-meta.jsonl`` (or the legacy ``MMAR-meta.json``).

    Returns the records in file order and whether they carry rubrics: True when every record
    has one, False when none has (a release with some rubrics missing is rejected).
    """
    if (root / META_JSONL).is_file():
        records = _read_jsonl(root, root / META_JSONL)
    elif (root / META_JSON).is_file():
        records = _read_json_array(root, root / META_JSON)
    else:
        raise DataError(_missing(root))
    if not records:
        raise DataError(f"{FLAG} {root}: {_meta_name(root)} holds no records; expected the "
                        f"{RECORD_COUNT:,} MMAR records")
    _check_unique(root, records)
    return [record for record, _ in records], _has_rubrics(root, records)


def audio_path(root: Path, record: MmarRecord) -> Path:
    """Where ``record``'s audio lives: its ``audio_path`` under ``root`` (never derived from id)."""
    try:
        return root.joinpath(*inside_root(record.audio_path).parts)
    except ValueError as exc:
        raise DataError(f"{FLAG} {root}: record {record.id!r}: audio_path {exc}") from None


# --- reading ----------------------------------------------------------------------------------

Located = tuple[MmarRecord, int]
"""A record and the line it starts on."""


def _read_jsonl(root: Path, meta: Path) -> list[Located]:
    text = _read_text(root, meta)
    located = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{FLAG} {root}: {meta} line {number}: not valid JSON ({exc.msg} at "
                            f"column {exc.colno}); expected one JSON object per line") from None
        located.append((_record(root, meta, number, raw), number))
    return located


def _read_json_array(root: Path, meta: Path) -> list[Located]:
    """Decode the array element by element, to name the line each record starts on."""
    text = _read_text(root, meta)
    decoder = json.JSONDecoder()
    index = _skip_space(text, 0)
    if not text.startswith("[", index):
        raise DataError(f"{FLAG} {root}: {meta}: expected a JSON array of records")
    index = _skip_space(text, index + 1)
    located: list[Located] = []
    while not text.startswith("]", index):
        number = text.count("\n", 0, index) + 1
        try:
            raw, index = decoder.raw_decode(text, index)
        except json.JSONDecodeError as exc:
            raise DataError(f"{FLAG} {root}: {meta} line {exc.lineno}: not valid JSON "
                            f"({exc.msg}); expected a JSON array of records") from None
        located.append((_record(root, meta, number, raw), number))
        index = _skip_space(text, index)
        if text.startswith(",", index):
            index = _skip_space(text, index + 1)
        elif not text.startswith("]", index):
            line = text.count("\n", 0, index) + 1
            raise DataError(f"{FLAG} {root}: {meta} line {line}: expected ',' or ']' after a "
                            "record; expected a JSON array of records")
    return located


def _record(root: Path, meta: Path, number: int, raw: Any) -> MmarRecord:
    return validated(MmarRecord, raw, f"{FLAG} {root}: {meta} line {number}", _EXPECTED)


def _read_text(root: Path, meta: Path) -> str:
    try:
        return meta.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{FLAG} {root}: cannot read {meta} as UTF-8 text ({exc})") from exc


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


def _check_unique(root: Path, records: list[Located]) -> None:
    first_line: dict[str, int] = {}
    for record, number in records:
        if record.id in first_line:
            raise DataError(
                f"{FLAG} {root}: {_meta_name(root)} line {number}: id {record.id!r} already "
                f"appears on line {first_line[record.id]}; expected every id once")
        first_line[record.id] = number


def _has_rubrics(root: Path, records: list[Located]) -> bool:
    without = [(record, number) for record, number in records if record.rubric is None]
    if not without:
        return True
    if len(without) < len(records):
        record, number = without[0]
        raise DataError(
            f"{FLAG} {root}: {_meta_name(root)} line {number} (id {record.id!r}): no rubric, "
            f"while {len(records) - len(without)} other records have one; expected a rubric "
            "on every record (MMAR-meta.jsonl) or on none (the legacy MMAR-meta.json)")
    return False


def _meta_name(root: Path) -> Path:
    return root / META_JSONL if (root / META_JSONL).is_file() else root / META_JSON


def _missing(root: Path) -> str:
    hint = ""
    if root.is_file() and root.name in (META_JSONL, META_JSON):
        hint = f" (that is the metadata file itself: pass its folder, {root.parent})"
    elif (root / "MMAR").is_dir():
        hint = f" (did you mean {root / 'MMAR'}?)"
    return (f"{FLAG} {root}: neither {META_JSONL} nor {META_JSON} is there{hint}; expected the "
            f"MMAR release root, the folder that holds {META_JSONL} (or the older {META_JSON}) "
            "and the audio/ folder")
