"""The paired gate's view of any multiple-choice benchmark (``benchmarks/choice/gating.py``): a
sample's line of 0/1 outcomes and a metric read from its name, checked by hand."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pytest_audiobench import SampleRecord, choice_line, choice_linear, percent
from pytest_audiobench.config.settings import Sampling
from pytest_audiobench.outcome.lines import text_sha256
from pytest_audiobench.outcome.records import ModelAnswer, RequestRecord
from pytest_audiobench.transport.types import Completion

ENDINGS = {"avg": "correct", "official.avg": "official", "strict.avg": "strict",
           "rubrics": "rubric"}
GROUPINGS = (("task", "modality."), ("folder", "folder."))


def test_percent_is_the_share_of_true_flags_including_one() -> None:
    assert percent([True, False, True, True]) == 75.0
    assert (percent([True]), percent([False])) == (100.0, 0.0)


@pytest.mark.parametrize(("metric", "by", "group", "value", "binary"), [
    ("b.avg", "all", "all", "correct", True),
    ("b.modality.sound.official.avg", "task", "sound", "official", True),
    ("b.modality.sound.avg", "task", "sound", "correct", True),
    ("b.folder.common_voice_13.0_en.strict.avg", "folder", "common_voice_13.0_en", "strict",
     True),
    ("b.rubrics", "all", "all", "rubric", False),
])
def test_a_metric_is_one_value_averaged_over_one_group(
        metric: str, by: str, group: str, value: str, binary: bool) -> None:
    made = choice_linear(metric, "b", GROUPINGS, ENDINGS, rated={"rubric"})
    assert made is not None
    assert (made.by, made.weights, made.value, made.binary) == (by, {group: 1.0}, value, binary)
    assert (made.low, made.high) == (0.0, 100.0)


def test_a_metric_it_does_not_name_is_none() -> None:
    assert choice_linear("b.modality.sound.median", "b", GROUPINGS, ENDINGS) is None
    assert choice_linear("b.crs", "b", GROUPINGS, ENDINGS) is None


@dataclass(frozen=True)
class _Graded:
    correct: bool
    strict: bool


def _values(graded: list[_Graded]) -> dict[str, float]:
    return {"correct": percent(g.correct for g in graded),
            "strict": percent(g.strict for g in graded)}


def _record(answers: int) -> SampleRecord:
    request = RequestRecord(url="http://x", model="m", sampling=Sampling(),
                            audio_mode="input_audio", prompt="", audio_format="wav",
                            audio_seconds=1.0, audio_sha256="clip-hash", transcoded=False)
    answer = ModelAnswer(request=request, completion=Completion(text="Man", reasoning="low"))
    return SampleRecord(benchmark="b", sample_id="1", task="sound", category="c",
                        nodeid="audiobench::b::sound::1", outcome="passed", audio_path="a.wav",
                        answers=[answer] * answers)


def test_a_sample_s_line_holds_each_run_as_a_draw_and_fails_unless_every_run_is_right() -> None:
    graded = [_Graded(True, True), _Graded(False, True), _Graded(True, False)]
    line = choice_line(_record(3), graded, _values, {"task": "sound"}, judged=True,
                       replies=["A"])
    assert line.values == {"correct": pytest.approx(200 / 3), "strict": pytest.approx(200 / 3)}
    assert line.runs == [{"correct": 100.0, "strict": 100.0}, {"correct": 0.0, "strict": 100.0},
                         {"correct": 100.0, "strict": 0.0}]
    assert (line.draws, line.failed, line.judged) == ([100.0, 0.0, 100.0], True, True)
    assert (line.cluster, line.groups) == ("clip-hash", {"all": "all", "task": "sound"})
    assert (line.answer, line.answer_sha256, line.reasoning, line.replies) == (
        "Man", text_sha256("Man"), "low", ["A"])


def test_one_right_run_is_a_line_without_runs_that_clears_its_bar() -> None:
    line = choice_line(_record(1), [_Graded(True, False)], _values, {})
    assert (line.values, line.runs, line.draws, line.failed, line.judged) == (
        {"correct": 100.0, "strict": 0.0}, [], [100.0], False, False)
