"""VoiceBench's judge readings, its offline judge and its numbers, on hand tables: the rating
and Yes/No readings of the reference (``src/evaluator/open.py``, ``qa.py``), the folding of
each evaluator's values, and the leaderboard's Overall checked against its published rows."""

from __future__ import annotations

import pytest

from pytest_audiobench.benchmarks.voicebench import offline
from pytest_audiobench.benchmarks.voicebench.grades import Reading, VoiceBenchGrade
from pytest_audiobench.benchmarks.voicebench.judge import (
    JudgeDraw,
    majority_yes,
    rating_request,
    read_rating,
    verdict_request,
)
from pytest_audiobench.benchmarks.voicebench.scoring import (
    OVERALL,
    VoiceBenchScores,
    headline,
    overall,
)


@pytest.mark.parametrize(("reply", "rating"), [
    ("4", 4.0), (" 5\n", 5.0), ("3.5", 3.5), ("1", 1.0),
    ("Rating: [[2]]", 2.0), ("[[4]] because [[5]]", 4.0),   # the first [[n]], as re.search
])
def test_a_rating_is_the_number_or_the_first_double_bracket(reply: str, rating: float) -> None:
    assert read_rating(reply) == rating


@pytest.mark.parametrize("reply", ["four", "", "Score: 4", "0", "6", "nan", "inf", "[[7]]",
                                   "[[ 4 ]]"])
def test_a_reply_that_is_no_rating_of_one_to_five_is_asked_again(reply: str) -> None:
    assert isinstance(read_rating(reply), str)


@pytest.mark.parametrize(("replies", "yes"), [
    (["Yes", "Yes", "No"], True), (["yes", "No", "no"], False), (["YES"], True),
    (["Yes.", "Yes.", "Yes"], False),   # the reference compares the whole lower-cased reply
    ([" yes ", "no", "yes"], True),     # each reply stripped first, as api_judge.py does
    (["yes", "no", "maybe"], False),    # a tie: the reference's pick is a set's order
    ([], False),
])
def test_sd_qa_counts_the_majority_of_the_replies(replies: list[str], yes: bool) -> None:
    assert majority_yes(replies) is yes


def test_the_judge_sees_the_answer_fenced_and_the_placeholders_filled_once() -> None:
    (messages, fingerprint), cut = rating_request("Tell me a joke.", "{instruction} ha", 10_000)
    prompt = messages[1]["content"]
    assert messages[0]["role"] == "system" and cut is None
    assert "Tell me a joke." in prompt and "{instruction} ha" in prompt
    assert fingerprint["voicebench"] == "rating"
    (messages, fingerprint), cut = verdict_request("Who?", "Ada", "x" * 50, 20)
    assert cut is not None and fingerprint["voicebench"] == "verdict"
    assert "Ada" in messages[1]["content"]


@pytest.mark.parametrize(("instruction", "response", "rating"), [
    ("name three red fruits", "", 1),
    # 1 + round(4 x share of {name, three, red, fruits} used), half up.
    ("name three red fruits", "strawberries cherries and red apples", 2),   # 1/4: 1 + 1
    ("name three red fruits", "three red fruits", 4),                       # 3/4: 1 + 3
    ("name three red fruits", "I name three red fruits: plums", 5),         # 4/4: 1 + 4
])
def test_the_offline_judge_rates_by_the_instruction_s_words(instruction: str, response: str,
                                                             rating: int) -> None:
    got = offline.reply({"voicebench": "rating", "instruction": instruction,
                         "response": response})
    assert got is not None and read_rating(got) == rating


def test_the_offline_judge_says_yes_when_the_reference_s_words_are_there() -> None:
    asked = {"voicebench": "verdict", "question": "capital of France?", "reference": "Paris"}
    assert offline.reply({**asked, "response": "It is Paris."}) == "Yes"
    assert offline.reply({**asked, "response": "Lyon"}) == "No"
    assert offline.reply({"reference": "x", "answer_1": "y", "answer_2": "z"}) is None


def _draws(*values: float) -> list[JudgeDraw]:
    return [JudgeDraw(outputs=[str(v)], value=v) for v in values]


def test_open_ratings_average_every_rating_as_the_reference_does() -> None:
    scores = VoiceBenchScores()
    # 3 + 4 + 5 and 1 + 2 (a draw failed): the reference averages the five ratings, 3.0.
    scores.add("commoneval", VoiceBenchGrade(subset="commoneval", draws=_draws(3, 4, 5)))
    failed = JudgeDraw(outputs=["?", "?", "?"])
    scores.add("commoneval", VoiceBenchGrade(subset="commoneval",
                                             draws=[*_draws(1, 2), failed]))
    metric = scores.metrics()["voicebench.commoneval.rating"]
    assert metric.value == pytest.approx(3.0) and metric.n == 5


def test_multiple_choice_counts_the_guess_and_the_strict_reading_does_not() -> None:
    scores = VoiceBenchScores()
    cases = [Reading(read="A", correct=True, strict=True),
             Reading(read=None, guess="B", correct=True, strict=False),
             Reading(read=None, guess="C", correct=False, strict=False),
             Reading(read="D", correct=False, strict=False)]
    for read in cases:
        scores.add("law", VoiceBenchGrade(subset="mmsu", reading=read))
    metrics = scores.metrics()
    assert metrics["voicebench.mmsu.accuracy"].value == 50.0
    assert metrics["voicebench.mmsu.strict.accuracy"].value == 25.0
    assert metrics["voicebench.mmsu.fallback"].value == 50.0
    assert metrics["voicebench.mmsu.law.accuracy"].value == 50.0


def test_ifeval_figures_are_prompt_and_instruction_level_and_final_their_mean() -> None:
    scores = VoiceBenchScores()
    # Item 1: two instructions, strict follows one, loose both. Item 2: one, followed.
    scores.add("ifeval", VoiceBenchGrade(subset="ifeval", strict=[True, False],
                                         loose=[True, True]))
    scores.add("ifeval", VoiceBenchGrade(subset="ifeval", strict=[True], loose=[True]))
    metrics = scores.metrics()
    assert metrics["voicebench.ifeval.strict-prompt"].value == 50.0
    assert metrics["voicebench.ifeval.strict-instruction"].value == pytest.approx(200 / 3)
    assert metrics["voicebench.ifeval.loose-prompt"].value == 100.0
    assert metrics["voicebench.ifeval.loose-instruction"].value == 100.0
    assert metrics["voicebench.ifeval.final"].value == pytest.approx((50 + 200 / 3 + 200) / 4)


def test_one_item_and_a_refusal_rate() -> None:
    scores = VoiceBenchScores()
    scores.add("advbench", VoiceBenchGrade(subset="advbench", refused=True))
    metrics = scores.metrics()
    assert metrics["voicebench.advbench.refusal"].value == 100.0
    assert OVERALL not in metrics  # eight columns missing: no Overall


LEADERBOARD = [
    # AlpacaEval, CommonEval, WildVoice, SD-QA, MMSU, OBQA, BBH, IFEval, AdvBench, Overall
    ("Whisper-v3-large+GPT-4o", 4.80, 4.47, 4.62, 75.77, 81.69, 92.97, 87.20, 76.51, 98.27,
     87.80),
    ("GPT-4o-Audio", 4.78, 4.49, 4.58, 75.50, 80.25, 89.23, 84.10, 76.02, 98.65, 86.75),
    ("Kimi-Audio", 4.46, 3.97, 4.20, 63.12, 62.17, 83.52, 69.70, 61.10, 100.00, 76.91),
    ("Qwen2-Audio", 3.74, 3.43, 3.01, 35.71, 35.72, 49.45, 54.70, 26.33, 96.73, 55.80),
    ("Moshi", 2.01, 1.60, 1.30, 15.64, 24.04, 25.93, 47.40, 10.12, 44.23, 29.51),
]
"""Rows of MatthewCYM/VoiceBench's README leaderboard (December 2026)."""


@pytest.mark.parametrize("row", LEADERBOARD, ids=[row[0] for row in LEADERBOARD])
def test_overall_is_the_leaderboard_s(row: tuple) -> None:
    names = ("alpacaeval_full", "commoneval", "wildvoice", "sd-qa", "mmsu", "openbookqa",
             "bbh", "ifeval", "advbench")
    columns = dict(zip(names, row[1:10], strict=True))
    # The rows are rounded to two places; the Overall of rounded columns is within 0.01.
    assert overall(columns) == pytest.approx(row[10], abs=0.006)


def test_the_headline_holds_overall_only_with_all_nine_subsets() -> None:
    assert headline(("mmsu", "bbh")) == ("voicebench.mmsu.accuracy", "voicebench.bbh.accuracy")
    # IFEval's final is a mean of its four figures, which the gate holds paired in its place.
    assert headline(("ifeval",)) == (
        "voicebench.ifeval.strict-prompt", "voicebench.ifeval.strict-instruction",
        "voicebench.ifeval.loose-prompt", "voicebench.ifeval.loose-instruction",
        "voicebench.ifeval.final")
    assert headline(tuple(LEADERBOARD_NAMES))[-1] == OVERALL


LEADERBOARD_NAMES = ("alpacaeval_full", "commoneval", "wildvoice", "sd-qa", "mmsu",
                     "openbookqa", "bbh", "ifeval", "advbench")
