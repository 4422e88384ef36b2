"""AIR-Bench Foundation's release layout and its records, validated at load: the meta file
``Foundation/Foundation_meta.json`` (a JSON list) and the audio at
``Foundation/<task_name>_<dataset_name>/<path>``, in the same release root as Chat."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pytest_audiobench import DataError, read_json_array
from pytest_audiobench.benchmarks.air_bench_foundation.facts import (
    FLAC_TASKS,
    FOLDERS,
    LETTERS,
)

META = Path("Foundation") / "Foundation_meta.json"


class FoundationRecord(BaseModel):
    """One record of ``Foundation/Foundation_meta.json``: the official fields."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = Field(min_length=1)
    question: str
    choice_a: str
    choice_b: str
    choice_c: str | None = None
    choice_d: str | None = None
    answer_gt: str
    task_name: str
    dataset_name: str
    uniq_id: int | str

    @field_validator("path")
    @classmethod
    def _inside_its_folder(cls, value: str) -> str:
        # A path outside the record's folder would read audio from outside the release.
        parts = PurePosixPath(value.replace("\\", "/")).parts
        if value.startswith(("/", "\\")) or ".." in parts or not parts:
            raise ValueError("must be a path inside the record's folder")
        return value

    @property
    def folder(self) -> str:
        return f"{self.task_name}_{self.dataset_name}"

    @property
    def options(self) -> tuple[str, ...]:
        """The options in letter order: two, three or four (a missing one ends them)."""
        found = []
        for option in (self.choice_a, self.choice_b, self.choice_c, self.choice_d):
            if option is None or not option.strip():
                break
            found.append(option)
        return tuple(found)

    @property
    def answer_letter(self) -> str | None:
        """The correct option's letter: the first option whose text is ``answer_gt``."""
        wanted = self.answer_gt.strip()
        for letter, option in zip(LETTERS, self.options, strict=False):
            if option.strip() == wanted:
                return letter
        return None


def read_records(root: Path) -> list[FoundationRecord]:
    """Validate every record of ``root/Foundation/Foundation_meta.json``."""
    meta = root / META
    raw = read_json_array(root, META, "the AIR-Bench release root, the folder that holds "
                          "Foundation/Foundation_meta.json and the Foundation/<task>_<dataset>/ "
                          "audio folders", "the AIR-Bench Foundation records")
    records = [_record(meta, index, item) for index, item in enumerate(raw)]
    seen: set[str] = set()
    for record in records:
        key = str(record.uniq_id)
        if key in seen:
            raise DataError(f"{meta}: uniq_id {record.uniq_id!r} appears more than once")
        seen.add(key)
    return records


def _record(meta: Path, index: int, item: Any) -> FoundationRecord:
    where = f"{meta}: record {index}"
    if isinstance(item, dict) and "uniq_id" in item:
        where += f" (uniq_id {item['uniq_id']!r})"
    try:
        record = FoundationRecord.model_validate(item)
    except ValidationError as exc:
        wrong = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg'].lower()}"
                          for e in exc.errors())
        raise DataError(
            f"{where}: {wrong}; expected an object with path, question, choice_a, choice_b, "
            "optional choice_c and choice_d, answer_gt, task_name, dataset_name (strings) "
            "and uniq_id") from None
    if record.folder not in FOLDERS:
        # Its items would have no task of the benchmark's to run under.
        raise DataError(f"{where}: unknown folder {record.folder!r} (task_name_dataset_name); "
                        "expected one of " + ", ".join(FOLDERS))
    if record.answer_letter is None:
        raise DataError(f"{where}: answer_gt {record.answer_gt!r} is none of its options "
                        f"({' | '.join(record.options)})")
    return record


def audio_path(root: Path, record: FoundationRecord) -> Path:
    """Where the record's audio is: ``Foundation/<folder>/<path>``; a task whose records name
    ``.wav`` files that the release stores as ``.flac`` (Audio_Grounding) reads the ``.flac``,
    as the official inference script does."""
    path = record.path
    if record.task_name in FLAC_TASKS and path.lower().endswith(".wav"):
        path = path[:-3] + "flac"
    return root / "Foundation" / record.folder / path
