"""The toy judged benchmark: each sample asks a question about a clip; the judge is shown the
reference and the answer (fenced, as data) and says whether the answer gives the reference,
yes or no. Offline (``--audiobench-judge-model overlap``), the judge replies as
``ToyJudgedJudgeUse.offline`` says: yes when every word of the reference is in the answer."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from pytest_audiobench.benchmarks.base import Benchmark, JudgeUse, Release, Runtime
from pytest_audiobench.benchmarks.judging import ask_until_parsed, fence_for
from pytest_audiobench.benchmarks.metafile import read_json_array, validated
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.frozen import OwnSettings
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import JudgeError
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord

from . import LAYOUT, NAME

META = Path("toy_judged.json")


class ToyJudgedSettings(OwnSettings):
    attempts: int


class ToyJudgedItem(BaseModel):
    id: str
    task: str
    audio: str
    question: str
    answer: str


class ToyJudgedGrade(Grade):
    kind: Literal["toy_judged"] = "toy_judged"
    correct: bool
    outputs: list[str]
    """The judge's replies, the accepted one last."""

    @property
    def judge_calls(self) -> int:
        return len(self.outputs)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _yes_or_no(reply: str) -> bool | str:
    said = reply.strip().lower()
    return said == "yes" if said in ("yes", "no") else "neither yes nor no"


class ToyJudged(Benchmark):
    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.attempts = settings.of(NAME, ToyJudgedSettings).attempts

    def load(self, root: Path) -> Release:
        raw = read_json_array(root, META, LAYOUT, "one record per question")
        items = [validated(ToyJudgedItem, item, f"{root / META}: record {index}",
                           "id, task, audio, question and answer")
                 for index, item in enumerate(raw, 1)]
        samples = [Sample(benchmark=NAME, id=i.id, task=i.task, category=i.task,
                          audio=root / i.audio, question=i.question, reference=i.answer)
                   for i in items]
        return Release(samples, (f"{NAME}.accuracy",))

    def prompt(self, sample: Sample) -> str:
        return sample.question

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        if runtime.judge is None:
            raise JudgeError(f"{NAME} needs a judge")
        fence = fence_for(answer.text)
        messages = [{"role": "user", "content": (
            f"Reference: {sample.reference}\nThe answer is the text between two lines that "
            f"read {fence}.\n{fence}\n{answer.text}\n{fence}\n"
            "Does the answer give the reference? Reply yes or no.")}]
        # The fields the request is made of: the offline judge replies from them.
        fingerprint = {"benchmark": NAME, "reference": sample.reference, "answer": answer.text}
        asked = await ask_until_parsed(runtime.judge, messages, _yes_or_no, self.attempts,
                                       fingerprint=fingerprint)
        if asked.parsed is None:
            raise JudgeError(f"the judge said neither yes nor no: {asked.outputs}")
        return ToyJudgedGrade(correct=asked.parsed, outputs=asked.outputs)

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        wrong = [a.text for a, v in zip(answers, grades, strict=True)
                 if isinstance(v, ToyJudgedGrade) and not v.correct]
        return f"{NAME} {sample.id}: judged wrong: {wrong}" if wrong else None

    def metrics(self, records: Iterable[SampleRecord], run: int) -> dict[str, Metric]:
        groups: dict[str, list[bool]] = {}
        for record in records:
            if len(record.grades) > run and isinstance(
                    grade := record.grades[run], ToyJudgedGrade):
                for group in ("", f"{record.task}."):
                    groups.setdefault(group, []).append(grade.correct)
        return {f"{NAME}.{group}accuracy": Metric(value=100 * sum(oks) / len(oks), n=len(oks))
                for group, oks in groups.items()}

    def judge_use(self) -> ToyJudgedJudgeUse:
        return ToyJudgedJudgeUse(self)


class ToyJudgedJudgeUse(JudgeUse):
    """A judge call an answer, and the offline judge's reply to it."""

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        return 1, 0, False

    def protocol(self) -> list[str]:
        return ["yes/no"]

    @staticmethod
    def offline(inputs: Mapping[str, Any]) -> str | None:
        """yes when every word of the reference is in the answer, else no; None for a request
        that is not this benchmark's."""
        if inputs.get("benchmark") != NAME:
            return None
        said = set(_words(inputs["answer"]))
        return "yes" if set(_words(inputs["reference"])) <= said else "no"
