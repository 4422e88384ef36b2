"""MMAU: a split's records as the maintainers publish them, validated at load.

The release root holds the split's JSON array (``mmau-test-mini.json``, ``mmau-test.json``) and
each record's audio at its ``audio_id`` (``./test-mini-audios/<id>.wav``); ``parquet.py``
writes it from the split's hub repo, downloaded or a local snapshot. A record's
``category`` is a string, or on 13 test-mini records a list of one; it is read as the string.
The test split withholds the answers: its records may have none, test-mini's must.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
    ValidationInfo,
    field_validator,
)

from pytest_audiobench.benchmarks.metafile import inside_root, read_json_array, validated
from pytest_audiobench.benchmarks.mmau.facts import (
    CATEGORIES,
    DIFFICULTIES,
    HUB_REPOS,
    MAX_CHOICES,
    MIN_CHOICES,
    SPLIT_SIZES,
    SPLITS,
    TASKS,
)
from pytest_audiobench.errors import DataError

FLAG = "--audiobench-data"
_EXPECTED = (f"expected an object with id, audio_id (a path inside the release root), question, "
             f"choices ({MIN_CHOICES} to {MAX_CHOICES} strings), answer (one of the choices; "
             f"withheld in the test split), task (one of {', '.join(TASKS)}), category (one of "
             f"{', '.join(CATEGORIES)}, or a list of one), sub-category and difficulty (one of "
             f"{', '.join(DIFFICULTIES)})")


class MmauRecord(BaseModel):
    """One MMAU question: the fields of the split's JSON array that scoring and reports use
    (``dataset`` and ``split`` are kept for the submission file, which writes records back
    whole)."""

    model_config = ConfigDict(extra="allow", frozen=True, populate_by_name=True)

    id: StrictStr = Field(min_length=1)
    audio_id: StrictStr = Field(min_length=1)
    question: StrictStr
    choices: list[StrictStr] = Field(min_length=MIN_CHOICES, max_length=MAX_CHOICES)
    answer: StrictStr | None = None
    """The correct choice's text; None where the split withholds it."""
    task: StrictStr
    category: StrictStr
    sub_category: StrictStr = Field(alias="sub-category")
    difficulty: StrictStr

    @field_validator("audio_id")
    @classmethod
    def _inside_the_release(cls, value: str) -> str:
        inside_root(value)
        return value

    @field_validator("task", "difficulty")
    @classmethod
    def _known(cls, value: str, info: ValidationInfo) -> str:
        if value not in {"task": TASKS, "difficulty": DIFFICULTIES}[info.field_name or ""]:
            raise ValueError(f"unknown {info.field_name} {value!r}")
        return value

    @field_validator("category", mode="before")
    @classmethod
    def _one_category(cls, value: Any) -> Any:
        if isinstance(value, list):
            if len(value) != 1:
                raise ValueError(f"a list of {len(value)} categories; expected one")
            value = value[0]
        if value not in CATEGORIES:
            raise ValueError(f"unknown category {value!r}")
        return value

    @field_validator("answer", mode="before")
    @classmethod
    def _withheld_is_none(cls, value: Any) -> Any:
        return None if value == "" else value


def read_mmau(root: Path, split: str) -> list[MmauRecord]:
    """Every record of ``split`` at ``root`` (the published layout; ``parquet.release_folder``
    finds or converts it), validated: each a known task, difficulty and category, 2 to 8
    choices, the answer among them (test-mini: always there), every id once. DataError names
    the file, the record and what was expected."""
    meta = Path(SPLITS[split])
    layout = (f"the MMAU release root of the {split} split, the folder that holds {meta} and "
              f"the audio its records name, or a snapshot of the hub repo {HUB_REPOS[split]} "
              "(its parquet files)")
    raw = read_json_array(root, meta, layout, f"the {SPLIT_SIZES[split]:,} MMAU {split} records")
    records = [_record(root / meta, index, item, split) for index, item in enumerate(raw, 1)]
    seen: dict[str, int] = {}
    for index, record in enumerate(records, 1):
        if record.id in seen:
            raise DataError(f"{root / meta}: record {index}: id {record.id!r} already appears as "
                            f"record {seen[record.id]}; expected every id once")
        seen[record.id] = index
    return records


def audio_path(root: Path, record: MmauRecord) -> Path:
    """Where ``record``'s audio lives: its ``audio_id`` under ``root``."""
    return root.joinpath(*inside_root(record.audio_id).parts)


def _record(meta: Path, index: int, raw: Any, split: str) -> MmauRecord:
    record = validated(MmauRecord, raw, f"{meta}: record {index}", _EXPECTED)
    where = f"{meta}: record {index} (id {record.id!r})"
    if record.answer is None and split != "test":
        raise DataError(f"{where}: no answer; the {split} split has every answer ({_EXPECTED})")
    if record.answer is not None and record.answer not in record.choices:
        raise DataError(f"{where}: the choices {record.choices} do not contain the answer "
                        f"{record.answer!r}; {_EXPECTED}")
    return record
