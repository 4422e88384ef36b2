"""MMAR-Rubrics: reply checks as in the official script, arithmetic, raters and CRS."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pytest_audiobench.benchmarks.mmar.rubrics import (
    SYSTEM_PROMPT,
    CriterionScore,
    Rubric,
    RubricCriterion,
    RubricMetrics,
    call_score,
    check_rubric_reply,
    crs,
    rate_sample,
    rubric_metrics,
    rubric_prompt,
    wrong_answer_grade,
)
from pytest_audiobench.outcome.metrics import Metric, combine_runs, trimmed_mean
from pytest_audiobench.transport.types import Completion, Usage
from tests.fakes.datasets import load_mmar_reference, reference_available

NAMES = ("Cue: throat singing", "Cue: long song", "Acoustics", "Culture", "Final choice")
CRITERIA = [RubricCriterion(name=n, scoring_point=f"Award 1 point if {n}.", note="why",
                            choices=[0, 1]) for n in NAMES]


def reply(*scores: object, names: Sequence[str] = NAMES, **extra: Any) -> str:
    items = [{"name": n, "score": s, "justification": f"because {n}", **extra}
             for n, s in zip(names, scores, strict=False)]
    return json.dumps(items)


# --- criteria ---------------------------------------------------------------------------------


def test_a_rubric_has_exactly_five_criteria() -> None:
    adapter = TypeAdapter(Rubric)
    assert len(adapter.validate_python([c.model_dump() for c in CRITERIA])) == 5
    for count in (4, 6):
        with pytest.raises(ValidationError):
            adapter.validate_python([CRITERIA[0].model_dump()] * count)


@pytest.mark.parametrize("choices", [
    pytest.param([], id="no_choices"),
    pytest.param(["0", "1"], id="strings"),
    pytest.param([0.5, 1], id="fractions"),
    pytest.param([True, False], id="booleans"),
])
def test_a_criterion_needs_a_non_empty_list_of_integer_choices(choices: list[Any]) -> None:
    with pytest.raises(ValidationError):
        RubricCriterion(name="n", scoring_point="p", choices=choices)


# --- replies ----------------------------------------------------------------------------------

ACCEPTED = [
    pytest.param(reply(1, 0, 1, 1, 0), [1, 0, 1, 1, 0], id="a_plain_json_list"),
    pytest.param("```json\n" + reply(1, 1, 1, 1, 1) + "\n```", [1] * 5,
                 id="a_json_fence_is_tolerated_as_officially"),
    pytest.param("Here is my evaluation:\n" + reply(0, 0, 0, 0, 0) + "\nDone.", [0] * 5,
                 id="prose_around_the_list_is_tolerated"),
    pytest.param(reply(1.0, 0.0, 1, 1, 0), [1, 0, 1, 1, 0], id="a_float_equal_to_a_choice"),
    pytest.param(reply(True, False, 1, 1, 0), [1, 0, 1, 1, 0],
                 id="json_booleans_pass_as_in_python"),
    pytest.param(reply(1, 0, 1, 1, 0, names=["a", "b", "c", "d", "e"]), [1, 0, 1, 1, 0],
                 id="other_names_only_warn"),
    pytest.param(json.dumps([{"name": n, "score": 1} for n in NAMES]), [1] * 5,
                 id="a_justification_is_optional"),
]

REJECTED = [
    pytest.param("", "not valid JSON", id="empty"),
    pytest.param("I cannot evaluate this.", "not valid JSON", id="prose_only"),
    pytest.param(reply(1, 0, 1, 1, 0)[:-2], "not valid JSON", id="truncated_json"),
    pytest.param('{"name": "x", "score": 1}', "expected a JSON list", id="an_object"),
    pytest.param(reply(1, 0, 1, 1), "expected 5 items", id="too_few_items"),
    pytest.param(reply(1, 0, 1, 1, 0) [:-1] + ', {"name": "x", "score": 1}]',
                 "expected 5 items", id="too_many_items"),
    pytest.param(reply(1, 2, 1, 1, 0), "score 2", id="a_score_out_of_range"),
    pytest.param(reply(1, -1, 1, 1, 0), "score -1", id="a_negative_score"),
    pytest.param(reply(1, 0.5, 1, 1, 0), "score 0.5", id="a_fraction"),
    pytest.param(reply(1, "1", 1, 1, 0), "score '1'", id="a_string_score"),
    pytest.param(reply(1, None, 1, 1, 0), "score None", id="a_null_score"),
    pytest.param(json.dumps([{"name": n} for n in NAMES]), "'name' and 'score'",
                 id="a_missing_score"),
    pytest.param(json.dumps([{"score": 1} for _ in NAMES]), "'name' and 'score'",
                 id="a_missing_name"),
    pytest.param(json.dumps(["name score"] * 5), "'name' and 'score'", id="strings_as_items"),
    pytest.param(json.dumps([1, 0, 1, 1, 0]), "'name' and 'score'", id="bare_scores"),
]


def scores_of(text: str, criteria: Sequence[RubricCriterion]) -> list[CriterionScore] | None:
    checked = check_rubric_reply(text, criteria)
    return None if isinstance(checked, str) else checked


@pytest.mark.parametrize(("text", "scores"), ACCEPTED)
def test_a_reply_that_passes_the_official_checks_is_read(text: str, scores: list[int]) -> None:
    parsed = scores_of(text, CRITERIA)
    assert parsed is not None
    assert [s.score for s in parsed] == scores
    assert [s.name for s in parsed] == list(NAMES)
    assert all(type(s.score) is int for s in parsed)


@pytest.mark.parametrize(("text", "problem"), REJECTED)
def test_a_reply_that_fails_the_official_checks_is_rejected_with_the_reason(
        text: str, problem: str) -> None:
    assert scores_of(text, CRITERIA) is None
    checked = check_rubric_reply(text, CRITERIA)
    assert isinstance(checked, str)
    assert problem in checked


def test_a_reply_keeps_the_justification_and_the_judge_s_own_name() -> None:
    text = reply(1, 0, 1, 1, 0, names=[NAMES[0], "Renamed", *NAMES[2:]])
    parsed = scores_of(text, CRITERIA)
    assert parsed is not None
    assert parsed[0] == CriterionScore(name=NAMES[0], score=1,
                                       justification=f"because {NAMES[0]}")
    assert parsed[1].name == NAMES[1]
    assert parsed[1].judge_name == "Renamed"


def test_a_score_must_be_in_its_own_criterion_s_choices() -> None:
    criteria = [*CRITERIA[:4], RubricCriterion(name=NAMES[4], scoring_point="p",
                                               choices=[0, 1, 2])]
    assert scores_of(reply(1, 1, 1, 1, 2), criteria) is not None
    assert scores_of(reply(2, 1, 1, 1, 1), criteria) is None


# --- arithmetic -------------------------------------------------------------------------------


@pytest.mark.parametrize(("scores", "expected"), [
    pytest.param([1, 1, 1, 1, 1], 1.0, id="all"),
    pytest.param([0, 0, 0, 0, 0], 0.0, id="none"),
    pytest.param([1, 0, 1, 0, 0], 0.4, id="two_of_five"),
])
def test_a_call_scores_the_sum_over_the_sum_of_maxima(scores: list[int],
                                                      expected: float) -> None:
    assert call_score(scores, CRITERIA) == pytest.approx(expected)


def test_a_call_score_weighs_criteria_by_their_maximum() -> None:
    criteria = [RubricCriterion(name="a", scoring_point="p", choices=[0, 1, 2]),
                RubricCriterion(name="b", scoring_point="p", choices=[0, 1])]
    assert call_score([2, 0], criteria) == pytest.approx(2 / 3)


def test_a_call_score_is_zero_when_every_maximum_is_zero() -> None:
    assert call_score([0], [RubricCriterion(name="a", scoring_point="p", choices=[0])]) == 0.0


@pytest.mark.parametrize(("values", "expected"), [
    pytest.param([0.2, 1.0, 0.6, 0.8, 0.6], (0.6 + 0.6 + 0.8) / 3, id="five_keep_middle_three"),
    pytest.param([1.0, 1.0, 1.0, 1.0, 1.0], 1.0, id="all_equal"),
    pytest.param([0.0, 1.0, 1.0, 1.0, 1.0], 1.0, id="one_outlier_dropped"),
    pytest.param([0.4, 0.8, 0.6, 0.6], 0.6, id="four_keep_middle_two"),
    pytest.param([0.2, 0.4, 1.0], 0.4, id="three_keep_the_median"),
    pytest.param([0.2, 0.6], 0.4, id="two_plain_mean"),
    pytest.param([0.8], 0.8, id="one_is_itself"),
])
def test_trimmed_mean_drops_the_lowest_and_highest(values: list[float],
                                                   expected: float) -> None:
    assert trimmed_mean(values) == pytest.approx(expected)
    # Whole runs' metrics are combined by the same rule (the paper's middle runs).
    runs = [{"m": Metric(value=value, n=1)} for value in values]
    assert combine_runs(runs)["m"].value == pytest.approx(expected)


def test_trimmed_mean_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no values"):
        trimmed_mean([])


def test_trimmed_rater_scores_fall_between_the_point_two_steps() -> None:
    assert trimmed_mean([0.2, 0.4, 0.4, 0.6, 1.0]) == pytest.approx(0.4666666)


# --- CRS --------------------------------------------------------------------------------------


def test_crs_is_the_rubric_sum_over_the_correct_count() -> None:
    assert crs([0.8, 1.0, 0.6], 3) == pytest.approx(0.8)
    assert crs([0.8, 0.0, 0.0], 1) == pytest.approx(0.8)
    assert crs([], 0) is None


def test_rubric_metrics_give_avg_rubrics_and_crs() -> None:
    samples = [(True, 1.0), (True, 0.6), (False, 0.0), (False, 0.0), (True, 0.8)]
    metrics = rubric_metrics(samples)
    assert (metrics.samples, metrics.correct, metrics.evaluated, metrics.unavailable) == (
        5, 3, 5, 0)
    assert metrics.avg == pytest.approx(60.0)
    assert metrics.rubrics == pytest.approx(48.0)
    assert metrics.crs == pytest.approx(0.8)
    assert metrics.crs == pytest.approx(metrics.rubrics / metrics.avg)  # type: ignore[operator]


def test_published_numbers_satisfy_crs_equals_rubrics_over_avg() -> None:
    # Audio-Cogito (2026): Avg 71.70, Rubrics 62.22, CRS 0.87.
    assert round(62.22 / 71.70, 2) == 0.87


def test_an_unavailable_rubric_score_is_left_out_and_counted_never_zero() -> None:
    samples = [(True, 1.0), (True, None), (False, 0.0), (True, 0.5)]
    metrics = rubric_metrics(samples)
    assert metrics.samples == 4
    assert metrics.correct == 3
    assert metrics.avg == pytest.approx(75.0)
    assert metrics.evaluated == 3
    assert metrics.unavailable == 1
    assert metrics.rubrics == pytest.approx(50.0)
    assert metrics.crs == pytest.approx(0.75)


def test_rubric_metrics_of_no_samples_are_empty() -> None:
    assert rubric_metrics([]) == RubricMetrics(samples=0, correct=0, evaluated=0, unavailable=0,
                                               avg=None, rubrics=None, crs=None)


def test_a_wrong_answer_with_a_rubric_score_is_an_error() -> None:
    with pytest.raises(ValueError, match="wrong answer"):
        rubric_metrics([(False, 0.4)])


def test_a_wrong_answer_scores_zero_without_a_judge() -> None:
    grade = wrong_answer_grade()
    assert grade.correct is False
    assert grade.score == 0.0
    assert grade.raters == []
    assert "without asking the judge" in grade.notes[0]


# --- the prompt -------------------------------------------------------------------------------


def test_the_rubric_prompt_carries_every_official_input_in_order() -> None:
    prompt = rubric_prompt("Where?", "Open Grassland", "Throat singing means steppe.",
                           CRITERIA, "I hear throat singing.", "Open Grassland")
    order = ["Where?", "Open Grassland", "Throat singing means steppe.",
             *(c.scoring_point for c in CRITERIA), "I hear throat singing."]
    positions = [prompt.index(part) for part in order]
    assert positions == sorted(positions)
    body, last_line = prompt.rstrip().rsplit("\n", 1)
    assert body.endswith("Open Grassland")  # the model's answer comes last, then its fence
    assert last_line.startswith("<<DATA-")
    for criterion in CRITERIA:
        assert prompt.count(criterion.name) >= 2  # in the rubric and in the output shape
    assert "[0, 1]" in prompt
    assert "why" not in prompt  # the note is not shown, as officially


def test_the_rubric_prompt_asks_for_only_a_json_list_with_name_score_justification() -> None:
    prompt = rubric_prompt("Q", "A", "T", CRITERIA, "R", "A")
    assert "JSON list" in prompt
    assert '"score"' in prompt
    assert '"justification"' in prompt
    assert "50 words" in prompt


def test_a_criterion_name_with_quotes_stays_valid_json_in_the_shape() -> None:
    criterion = RubricCriterion(name='Says "steppe"', scoring_point="p", choices=[0, 1])
    assert '"name": "Says \\"steppe\\""' in rubric_prompt("Q", "A", "T", [criterion], "R", "A")


@pytest.mark.skipif(not reference_available(), reason="the MMAR reference metadata is absent")
def test_a_perfect_reply_to_a_real_rubric_parses() -> None:
    record = load_mmar_reference()[0]
    criteria = [RubricCriterion.model_validate(c) for c in record["rubric"]]
    text = json.dumps([{"name": c.name, "score": 1, "justification": "ok"} for c in criteria])
    parsed = scores_of(text, criteria)
    assert parsed is not None
    assert call_score([s.score for s in parsed], criteria) == 1.0


# --- rate_sample ------------------------------------------------------------------------------


class ScriptedJudge:
    """Replies from a script, in request order, recording each request."""

    def __init__(self, replies: Sequence[str]) -> None:
        self.replies = list(replies)
        self.requests: list[tuple[list[dict[str, Any]], int]] = []
        self.tags: list[str | None] = []

    async def complete(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
                       fingerprint: Mapping[str, Any] | None = None,
                       cache_tag: str | None = None) -> Completion:
        self.requests.append((messages, seed_offset))
        self.tags.append(cache_tag)
        await asyncio.sleep(0)
        text = self.replies.pop(0) if self.replies else "no more replies"
        return Completion(text=text, usage=Usage(prompt_tokens=10, completion_tokens=2))


def rate(judge: ScriptedJudge, **options: Any) -> Any:
    # The official protocol's raters and attempts, unless a test says otherwise.
    return asyncio.run(rate_sample(
        judge, question="Q", answer="A", thinking="T", criteria=CRITERIA,
        model_reasoning="R", model_answer="A",
        **({"raters": 5, "max_attempts": 20, "max_answer_chars": 10_000} | options)))


def test_five_raters_give_the_trimmed_mean_of_their_call_scores() -> None:
    judge = ScriptedJudge([reply(*s) for s in (
        (1, 1, 1, 1, 1), (1, 0, 0, 0, 0), (1, 1, 1, 0, 0), (1, 1, 0, 0, 0), (1, 1, 1, 1, 0))])
    grade = rate(judge)
    assert [r.score for r in grade.raters] == pytest.approx([1.0, 0.2, 0.6, 0.4, 0.8])
    assert grade.score == pytest.approx(0.6)
    assert grade.correct is True
    assert grade.reason is None
    assert len(judge.requests) == 5


def test_a_rater_retries_past_invalid_replies_and_keeps_every_one() -> None:
    invalid = ["not json", reply(1, 1, 1), reply(1, 2, 1, 1, 1), "```json\n[{]\n```"]
    judge = ScriptedJudge([*invalid, reply(1, 0, 1, 0, 1)] + [reply(1, 1, 1, 1, 1)] * 4)
    grade = rate(judge, raters=5)
    assert [len(r.outputs) for r in grade.raters] == [5, 1, 1, 1, 1]
    retried = grade.raters[0]
    assert retried.outputs[:4] == invalid
    assert retried.scores is not None
    assert [s.score for s in retried.scores] == [1, 0, 1, 0, 1]
    assert retried.usage.prompt_tokens == 50
    assert grade.score == pytest.approx(1.0)


def test_a_rater_that_never_parses_makes_the_score_unavailable_not_zero() -> None:
    judge = ScriptedJudge([reply(1, 1, 1, 1, 1)] * 4 + ["nonsense"] * 30)
    grade = rate(judge, max_attempts=3)
    assert grade.score is None
    assert grade.reason is not None
    assert grade.reason.startswith("rater 5 of 5 gave no acceptable reply in 3 attempts")
    assert "never counted as 0" in grade.reason
    assert [r.score for r in grade.raters] == [1.0, 1.0, 1.0, 1.0, None]
    assert grade.raters[-1].outputs == ["nonsense"] * 3
    assert grade.raters[-1].problem is not None
    assert len(judge.requests) == 4 + 3


def test_the_first_rater_that_never_parses_ends_the_sample_as_officially() -> None:
    judge = ScriptedJudge(["nonsense"] * 30)
    grade = rate(judge, max_attempts=20)
    assert grade.score is None
    assert len(grade.raters) == 1
    assert len(judge.requests) == 20


def test_every_request_carries_the_same_seed_like_the_official_script() -> None:
    judge = ScriptedJudge(["bad", reply(1, 1, 1, 1, 1)] + [reply(1, 1, 1, 1, 1)] * 4)
    rate(judge)
    assert {offset for _, offset in judge.requests} == {0}


def test_the_judge_gets_our_system_message_and_the_rubric_prompt() -> None:
    judge = ScriptedJudge([reply(1, 1, 1, 1, 1)] * 5)
    rate(judge)
    messages, _ = judge.requests[0]
    assert messages[0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert messages[1] == {"role": "user",
                           "content": rubric_prompt("Q", "A", "T", CRITERIA, "R", "A")}


def test_a_very_long_reasoning_is_noted_not_refused() -> None:
    judge = ScriptedJudge([reply(1, 1, 1, 1, 1)] * 5)
    grade = asyncio.run(rate_sample(
        judge, question="Q", answer="A", thinking="T", criteria=CRITERIA,
        model_reasoning="x" * 10_000, model_answer="A", raters=5, max_attempts=20,
        max_answer_chars=10_000))
    assert grade.score == 1.0
    assert any("10000 characters" in note for note in grade.notes)


def test_one_rater_is_its_own_score() -> None:
    grade = rate(ScriptedJudge([reply(1, 1, 0, 0, 0)]), raters=1)
    assert grade.score == pytest.approx(0.4)


@pytest.mark.parametrize("options", [{"raters": 0}, {"max_attempts": 0}],
                         ids=["no_raters", "no_attempts"])
def test_rating_needs_at_least_one_rater_and_one_attempt(options: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be >= 1"):
        rate(ScriptedJudge([]), **options)


def test_every_rater_and_attempt_has_its_own_cache_tag() -> None:
    judge = ScriptedJudge(["not json", reply(1, 1, 1, 1, 1), reply(1, 1, 1, 1, 1)])
    rate(judge, raters=2)
    assert judge.tags == ["rater 0 attempt 0", "rater 0 attempt 1", "rater 1 attempt 0"]


def test_reasoning_over_the_limit_is_cut_for_the_judge_and_noted() -> None:
    judge = ScriptedJudge([reply(1, 1, 1, 1, 1)] * 5)
    grade = rate(judge, max_answer_chars=50)  # the reasoning "R" fits
    assert not any("judge was shown" in note for note in grade.notes)
    judge = ScriptedJudge([reply(1, 1, 1, 1, 1)] * 5)
    grade = asyncio.run(rate_sample(
        judge, question="Q", answer="A", thinking="T", criteria=CRITERIA,
        model_reasoning="because " * 20, model_answer="A", raters=5, max_attempts=20,
        max_answer_chars=50))
    assert "the model's reasoning is 160 characters; the judge was shown the first 50 " \
           "(--audiobench-judge-max-answer-chars)" in grade.notes
    prompt = judge.requests[0][0][1]["content"]
    assert "[... 110 more characters cut]" in prompt and "because " * 6 in prompt
