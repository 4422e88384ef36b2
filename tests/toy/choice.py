"""The toy multiple-choice benchmark, on the public ``ChoiceBenchmark``: it states its data,
its prompt and its groups; the grading (the official token-set rule, the strict one beside
it), the numbers, the gate's lines, the failure report, the page and the export are the
base's."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, field_validator

from pytest_audiobench import (
    ChoiceBenchmark,
    MatchedGrade,
    OwnSettings,
    Release,
    Sample,
    SampleRecord,
    Settings,
    inside_root,
    read_json_array,
    validated,
)
from tests.toy import CHOICE_LAYOUT, CHOICE_NAME

META = Path("toy_choice.json")


class ToyChoiceSettings(OwnSettings):
    matcher: str
    export: Path | None


class ToyChoiceItem(BaseModel):
    id: str
    task: str
    audio: str
    question: str
    choices: list[str]
    answer: str

    @field_validator("audio")
    @classmethod
    def _inside(cls, value: str) -> str:
        return inside_root(value).as_posix()  # ValueError: the record's one-line DataError


class ToyChoiceGrade(MatchedGrade):
    kind: Literal["toy_choice"] = "toy_choice"


class ToyChoice(ChoiceBenchmark):
    name = CHOICE_NAME
    grade_type = ToyChoiceGrade
    groupings = (("task", "task."),)
    export_flag, export_title = "--audiobench-toy-choice-export", "toy_choice"

    def __init__(self, settings: Settings) -> None:
        self.own = settings.of(CHOICE_NAME, ToyChoiceSettings)
        super().__init__(settings, self.own.matcher)

    def load(self, root: Path) -> Release:
        raw = read_json_array(root, META, CHOICE_LAYOUT, "one record per question")
        items = [validated(ToyChoiceItem, item, f"{root / META}: record {index}",
                           "id, task, audio, question, choices and answer")
                 for index, item in enumerate(raw, 1)]
        samples = [Sample(benchmark=CHOICE_NAME, id=i.id, task=i.task, category=i.task,
                          audio=root / i.audio, question=i.question,
                          choices=tuple(i.choices), reference=i.answer) for i in items]
        tasks = dict.fromkeys(s.task for s in samples)
        return Release(samples, (f"{CHOICE_NAME}.avg",
                                 *(f"{CHOICE_NAME}.task.{t}.avg" for t in tasks)))

    def prompt(self, sample: Sample) -> str:
        return "\n".join((sample.question, "Options:", *sample.choices))

    def groups(self, record: SampleRecord) -> dict[str, str]:
        return {"task": record.task}

    def export_path(self) -> Path | None:
        return self.own.export

    def submission(self, record: SampleRecord,
                   grade: ToyChoiceGrade | None) -> dict[str, Any]:
        return {"id": record.sample_id,
                "prediction": grade.prediction if grade is not None else None}
