"""AIR-Bench Chat's release layout and its records, validated at load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from pytest_audiobench.benchmarks.air_bench_chat.facts import NAME, TASK_CATEGORY
from pytest_audiobench.benchmarks.metafile import read_json_array
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.errors import DataError, problems

META = Path("Chat") / "Chat_meta.json"


class ChatRecord(BaseModel):
    """One record of ``Chat/Chat_meta.json``, exactly the official fields."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    path: str = Field(min_length=1)
    question: str
    answer_gt: str
    task_name: str
    dataset_name: str
    meta_info: str
    uniq_id: StrictInt

    @field_validator("path")
    @classmethod
    def _bare_file_name(cls, value: str) -> str:
        # The release names files inside their task folder; anything else would read audio
        # from outside the release.
        if "/" in value or "\\" in value or value in (".", ".."):
            raise ValueError("must be a bare file name (the release keeps no folders in it)")
        return value


def read_records(root: Path) -> list[ChatRecord]:
    """Validate every record of ``root/Chat/Chat_meta.json``."""
    meta = root / META
    raw = read_json_array(root, META, "the AIR-Bench release root, the folder that holds "
                          "Chat/Chat_meta.json and the Chat/<task>_<dataset>/ audio folders",
                          "the 2,200 AIR-Bench Chat records")
    records = [_record(meta, index, item) for index, item in enumerate(raw)]
    seen: set[int] = set()
    for record in records:
        if record.uniq_id in seen:
            raise DataError(f"{meta}: uniq_id {record.uniq_id} appears more than once")
        seen.add(record.uniq_id)
    return records


def _record(meta: Path, index: int, item: Any) -> ChatRecord:
    where = f"{meta}: record {index}"
    if isinstance(item, dict) and "uniq_id" in item:
        where += f" (uniq_id {item['uniq_id']!r})"
    try:
        record = ChatRecord.model_validate(item)
    except ValidationError as exc:
        raise DataError(
            f"{where}: {problems(exc)}; expected an object with path, question, answer_gt, "
            "task_name, dataset_name, meta_info (strings) and uniq_id (integer)"
        ) from None
    if record.task_name not in TASK_CATEGORY:
        raise DataError(
            f"{where}: unknown task_name {record.task_name!r}; expected one of "
            + ", ".join(TASK_CATEGORY)
        )
    return record


def samples(root: Path) -> list[Sample]:
    """Every sample of the release at ``root``, in ``uniq_id`` order."""
    return [_sample(root, r) for r in sorted(read_records(root), key=lambda r: r.uniq_id)]


def _sample(root: Path, record: ChatRecord) -> Sample:
    folder = f"{record.task_name}_{record.dataset_name}"
    return Sample(
        benchmark=NAME, id=str(record.uniq_id), task=record.task_name,
        category=TASK_CATEGORY[record.task_name], audio=root / "Chat" / folder / record.path,
        question=record.question, reference=record.answer_gt, context=record.meta_info,
    )
