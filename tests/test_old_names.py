"""The names an answer's grade had before issue 54 gave each level one noun: ``Verdict``,
``ChoiceVerdict`` and ``MatchedVerdict``, a benchmark's ``verdict`` class attribute, a record's
``verdicts``, ``JudgeError``'s ``verdict`` and the fixture ``audiobench_verdicts``. A benchmark
written against them keeps working: each old name is the new one's thing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

import pytest

import pytest_audiobench as api
from pytest_audiobench import (
    ChoiceBenchmark,
    ChoiceGrade,
    Grade,
    JudgeError,
    MatchedGrade,
    MatchedVerdict,
    Release,
    Sample,
    SampleRecord,
    Verdict,
)
from pytest_audiobench.config.settings import Sampling
from pytest_audiobench.outcome.records import ModelAnswer, RequestRecord
from pytest_audiobench.transport.types import Completion
from tests.conftest import Servers
from tests.settings import make_settings


def test_the_old_names_are_the_new_classes_and_stay_public() -> None:
    assert (api.Verdict, api.ChoiceVerdict, api.MatchedVerdict) == (Grade, ChoiceGrade,
                                                                     MatchedGrade)
    assert api.Verdict is Grade and api.ChoiceVerdict is ChoiceGrade
    assert api.MatchedVerdict is MatchedGrade
    assert {"Verdict", "ChoiceVerdict", "MatchedVerdict", "Grade", "ChoiceGrade",
            "MatchedGrade"} <= set(api.__all__)


class OldNamedGrade(MatchedVerdict):
    kind: Literal["old_named"] = "old_named"


class OldNamed(ChoiceBenchmark):
    """A multiple-choice benchmark as one was written before: its grade's class named by the
    class attribute ``verdict``, its numbers read from ``record.verdicts``."""

    name = "old_named"
    verdict = OldNamedGrade
    groupings = (("task", "task."),)

    def load(self, root: Path) -> Release:
        raise NotImplementedError

    def prompt(self, sample: Sample) -> str:
        return sample.question

    def groups(self, record: SampleRecord) -> dict[str, str]:
        return {"task": record.task}

    def right_in(self, records: list[SampleRecord]) -> list[bool]:
        return [v.correct for r in records for v in r.verdicts if isinstance(v, Verdict)]


def _answer(text: str) -> ModelAnswer:
    request = RequestRecord(url="http://x", model="m", sampling=Sampling(),
                            audio_mode="input_audio", prompt="", audio_format="wav",
                            audio_seconds=1.0, audio_sha256="clip", transcoded=False)
    return ModelAnswer(request=request, completion=Completion(text=text))


def test_an_old_named_multiple_choice_benchmark_grades_counts_and_reads_back(
        tmp_path: Path) -> None:
    assert OldNamed.grade_type is OldNamedGrade
    assert Grade.kinds["old_named"] is OldNamedGrade
    bench = OldNamed(make_settings(tmp_path, model="random", data="mini", benchmark=("mmsu",)))
    sample = Sample(benchmark="old_named", id="1", task="animals", category="animals",
                    audio=tmp_path / "a.wav", question="Which animal?", reference="a dog",
                    choices=("a dog", "a cat"))
    answers = [_answer("a dog"), _answer("a cat")]
    no_runtime: Any = None  # a multiple-choice benchmark grades by its rules alone
    grades = [asyncio.run(bench.grade(sample, a, no_runtime)) for a in answers]
    assert [type(g) for g in grades] == [OldNamedGrade, OldNamedGrade]
    assert [g.correct for g in grades] == [True, False]
    made = SampleRecord(benchmark="old_named", sample_id="1", task="animals",
                        category="animals", nodeid="audiobench::old_named::animals::1",
                        outcome="passed", audio_path="a.wav", choices=list(sample.choices),
                        reference=sample.reference, answers=answers[:1], grades=grades[:1])
    # A record a benchmark read before, written under its old key: the same record.
    dumped = json.loads(made.model_dump_json())
    dumped["verdicts"] = dumped.pop("grades")
    read = SampleRecord.model_validate(dumped)
    assert read == made and read.verdicts == read.grades == grades[:1]
    assert bench.right_in([read]) == [True]
    assert bench.metrics([read], 0)["old_named.avg"].value == 100.0
    assert bench.failure(sample, answers[1:], grades[1:]) is not None


def test_a_judge_error_takes_and_gives_its_grade_by_the_old_name_too() -> None:
    grade = OldNamedGrade(matcher="official", reasoning="", prediction="a dog")
    old = JudgeError("no reply parsed", verdict=grade)
    assert old.grade is old.verdict is grade
    assert JudgeError("no reply parsed", grade).verdict is grade


CONFTEST = """
import json

import pytest


@pytest.fixture(autouse=True)
def _grades_by_both_names(request):
    if "audiobench_grades" in request.fixturenames:
        old = request.getfixturevalue("audiobench_verdicts")
        new = request.getfixturevalue("audiobench_grades")
        with open("seen.jsonl", "a") as seen:
            seen.write(json.dumps([old is new, len(new)]) + "\\n")
"""


def test_a_conftest_reads_an_item_s_grades_by_the_old_fixture_name(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    pytester.makeconftest(CONFTEST)
    run = run_bench("-k", "speech_QA")
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-2000:]
    seen = [json.loads(line) for line in (pytester.path / "seen.jsonl").read_text().splitlines()]
    assert seen and all(same and graded == 1 for same, graded in seen)
