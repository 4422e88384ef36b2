"""The toy benchmark: each sample asks a question about a clip; the judge says whether the
model's answer means the reference ("yes"/"no"), asked again until it says one of them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pytest_audiobench import (
    Benchmark,
    DataError,
    Grade,
    JudgeError,
    Metric,
    ModelAnswer,
    OwnSettings,
    Release,
    Runtime,
    Sample,
    SampleRecord,
    Settings,
    ask_until_parsed,
)
from tests.toy import NAME


class ToySettings(OwnSettings):
    prefix: str
    export: Path | None


class ToyGrade(Grade):
    kind: Literal["toy"] = "toy"
    correct: bool
    outputs: list[str]

    @property
    def judge_calls(self) -> int:
        return len(self.outputs)


class Toy(Benchmark):
    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        own = settings.of(NAME, ToySettings)
        self.prefix = own.prefix
        self.export = own.export

    def load(self, root: Path) -> Release:
        try:
            items = json.loads((root / "toy.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise DataError(f"--audiobench-data {root}: no readable toy.json ({exc})") from exc
        samples = [Sample(benchmark=NAME, id=item["id"], task=item["task"],
                          category=item["task"], audio=root / item["audio"],
                          question=item["question"], reference=item["answer"])
                   for item in items]
        return Release(samples, (f"{NAME}.accuracy",))

    def prompt(self, sample: Sample) -> str:
        return f"{self.prefix} {sample.question}"

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> ToyGrade:
        if runtime.judge is None:
            raise JudgeError("the toy benchmark needs a judge")
        messages = [{"role": "user", "content": f"Reference: {sample.reference}\n"
                                                f"Answer: {answer.text}\nSame meaning? yes/no"}]
        asked = await ask_until_parsed(
            runtime.judge, messages,
            lambda reply: reply.strip().lower() == "yes" if reply.strip().lower() in (
                "yes", "no") else "neither yes nor no", attempts=2)
        if asked.parsed is None:
            raise JudgeError(f"the judge said neither yes nor no: {asked.outputs}")
        return ToyGrade(correct=asked.parsed, outputs=asked.outputs)

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        wrong = [a.text for a, v in zip(answers, grades, strict=True)
                 if isinstance(v, ToyGrade) and not v.correct]
        return f"toy {sample.id}: judged wrong: {wrong}" if wrong else None

    def metrics(self, records: Sequence[SampleRecord], run: int) -> dict[str, Metric]:
        graded = [(r.task, v.correct) for r in records if len(r.grades) > run
                  for v in [r.grades[run]] if isinstance(v, ToyGrade)]
        groups = {"": [ok for _, ok in graded]}
        for task, ok in graded:
            groups.setdefault(f"{task}.", []).append(ok)
        return {f"{NAME}.{group}accuracy": Metric(value=100 * sum(oks) / len(oks), n=len(oks))
                for group, oks in groups.items() if oks}

    def finish(self, records: Sequence[SampleRecord]) -> list[str]:
        if self.export is None:
            return []
        lines = [f"{r.sample_id}\t{r.answers[0].text if r.answers else ''}" for r in records]
        self.export.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return [f"toy answers: {len(lines)} lines written to {self.export}"]
