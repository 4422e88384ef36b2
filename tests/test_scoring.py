"""AIR-Bench Chat aggregation: per-pass means like cal_score.py, micro categories, leaderboard."""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from pytest_audiobench.benchmarks.air_bench_chat import TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.judge import (
    ChatGrade,
    Order,
    PassGrade,
    combine,
)
from pytest_audiobench.benchmarks.air_bench_chat.scoring import ChatScores
from pytest_audiobench.outcome.metrics import Metric

P = "air_bench_chat"


def judged(model: int, reference: int = 5, *, swap: bool = True) -> ChatGrade:
    """A sample given the same scores in both orders (or only in pass A without swap)."""
    passes = [_pass("reference_first", model, reference)]
    if swap:
        passes.append(_pass("model_first", model, reference))
    return combine(passes)


def chat_metrics(graded: Iterable[tuple[str, ChatGrade]], prefix: str = P) -> dict[str, Metric]:
    """The metrics of ``graded`` (task, grade) pairs, added up as the benchmark does."""
    scores = ChatScores()
    for task, grade in graded:
        scores.add(task, grade)
    return scores.metrics(prefix)


Scores = tuple[int, int] | None
"""(model, reference) of one pass, or None for a pass whose replies never parsed."""


def two_passes(a: Scores, b: Scores) -> ChatGrade:
    """A sample with pass A (reference as Assistant 1) and pass B scored separately."""
    return combine([_pass("reference_first", *(a or (None, None))),
                    _pass("model_first", *(b or (None, None)))])


def unparsed_sample() -> ChatGrade:
    return two_passes(None, None)


def _pass(order: Order, model: int | None, reference: int | None) -> PassGrade:
    if model is None or reference is None:
        return PassGrade(order=order, outputs=["n/a"])
    return PassGrade(order=order, outputs=[f"{model} {reference}"], model_score=model,
                       reference_score=reference)


def samples(task: str, *scores: int) -> list[tuple[str, ChatGrade]]:
    return [(task, judged(score)) for score in scores]


def spread(task: str, total: int, high: int, low: int, n_high: int) -> list[
        tuple[str, ChatGrade]]:
    """``total`` samples of ``task``: ``n_high`` scored ``high`` and the rest ``low``."""
    return samples(task, *([high] * n_high + [low] * (total - n_high)))


def value(metrics: dict[str, Metric], name: str) -> float:
    return metrics[f"{P}.{name}"].value


# --- the leaderboard arithmetic ---------------------------------------------------------------


def qwen2_audio_like() -> list[tuple[str, ChatGrade]]:
    """Category means 7.18 / 6.99 / 6.79 and mixed categories 6.70 and 6.84 (mean 6.77)."""
    return [
        *spread("speech_QA", 25, 8, 7, 9),            # speech pools both tasks:
        *spread("speech_dialogue_QA", 25, 7, 7, 0),   # (9*8 + 41*7) / 50 = 7.18
        *spread("sound_QA", 80, 7, 6, 79),            # (99*7 + 1*6) / 100 = 6.99
        *spread("sound_generation_QA", 20, 7, 7, 0),
        *spread("music_QA", 79, 7, 7, 0),             # (79*7 + 21*6) / 100 = 6.79
        *spread("music_generation_analysis_QA", 21, 6, 6, 0),
        *spread("speech_and_sound_QA", 10, 7, 6, 7),  # 67 / 10 = 6.70
        *spread("speech_and_music_QA", 25, 7, 6, 21),  # 171 / 25 = 6.84
    ]


def test_the_category_means_of_the_leaderboard_check_case() -> None:
    metrics = chat_metrics(qwen2_audio_like())
    assert value(metrics, "speech.score") == pytest.approx(7.18)
    assert value(metrics, "sound.score") == pytest.approx(6.99)
    assert value(metrics, "music.score") == pytest.approx(6.79)
    assert value(metrics, "speech_and_sound.score") == pytest.approx(6.70)
    assert value(metrics, "speech_and_music.score") == pytest.approx(6.84)


def test_mixed_is_the_mean_of_the_two_mixed_categories() -> None:
    metrics = chat_metrics(qwen2_audio_like())
    assert value(metrics, "mixed.score") == pytest.approx(6.77)


def test_average_is_the_mean_of_speech_sound_music_and_mixed_as_published() -> None:
    # PROTOCOLS check: Qwen2-Audio 7.18 / 6.99 / 6.79 / 6.77 gives 6.93.
    metrics = chat_metrics(qwen2_audio_like())
    assert value(metrics, "average.score") == pytest.approx((7.18 + 6.99 + 6.79 + 6.77) / 4)
    assert round(value(metrics, "average.score"), 2) == 6.93


def test_average_is_not_the_mean_over_all_samples() -> None:
    graded = qwen2_audio_like()
    pooled = sum(v.model_score or 0 for _, v in graded) / len(graded)
    metrics = chat_metrics(graded)
    assert value(metrics, "average.score") != pytest.approx(pooled, abs=1e-4)


def test_mixed_and_average_also_carry_the_reference_score() -> None:
    metrics = chat_metrics([
        (task, judged(5, ref)) for task, ref in (
            ("speech_QA", 9), ("sound_QA", 8), ("music_QA", 7),
            ("speech_and_sound_QA", 6), ("speech_and_music_QA", 2))])
    assert value(metrics, "mixed.reference") == pytest.approx(4.0)
    assert value(metrics, "average.reference") == pytest.approx((9 + 8 + 7 + 4) / 4)


def test_mixed_and_average_count_every_sample_beneath_them() -> None:
    metrics = chat_metrics(qwen2_audio_like())
    assert metrics[f"{P}.mixed.score"].n == 35
    assert metrics[f"{P}.average.score"].n == 285


# --- categories pool their tasks (micro) -----------------------------------------------------


def test_a_category_pools_its_tasks_samples_rather_than_averaging_task_means() -> None:
    metrics = chat_metrics([*samples("speech_QA", 9, 9, 9), *samples("speech_dialogue_QA", 1)])
    assert value(metrics, "speech_QA.score") == 9.0
    assert value(metrics, "speech_dialogue_QA.score") == 1.0
    assert value(metrics, "speech.score") == pytest.approx(7.0)  # not (9 + 1) / 2 = 5.0
    assert metrics[f"{P}.speech.score"].n == 4


@pytest.mark.parametrize(("task", "category"), sorted(TASK_CATEGORY.items()))
def test_every_task_reports_under_its_own_name_and_its_category(task: str,
                                                               category: str) -> None:
    metrics = chat_metrics(samples(task, 4, 6))
    for group in (task, category):
        assert value(metrics, f"{group}.score") == pytest.approx(5.0)
        assert value(metrics, f"{group}.reference") == pytest.approx(5.0)
        assert metrics[f"{P}.{group}.score"].n == 2


def test_the_prefix_names_every_metric() -> None:
    metrics = chat_metrics(samples("sound_QA", 7), prefix="custom")
    assert set(metrics) == {f"custom.{group}.{stat}" for group in ("sound_QA", "sound")
                            for stat in ("score", "reference", "win_rate")}


def test_no_grades_give_no_metrics() -> None:
    assert chat_metrics([]) == {}


# --- win rate --------------------------------------------------------------------------------

WIN_RATES = [
    pytest.param([(9, 5), (6, 5), (3, 5), (1, 5)], 0.5, id="half_the_samples_above_the_reference"),
    pytest.param([(5, 5), (5, 5)], 0.0, id="ties_are_not_wins"),
    pytest.param([(6, 5), (5, 5), (4, 5)], 1 / 3, id="one_win_one_tie_one_loss"),
    pytest.param([(0, 0), (1, 0)], 0.5, id="a_zero_reference_can_be_beaten_but_not_tied_over"),
    pytest.param([(10, 9)], 1.0, id="one_point_above_is_a_win"),
]


@pytest.mark.parametrize(("pairs", "expected"), WIN_RATES)
def test_the_win_rate_counts_only_scores_strictly_above_the_reference(
        pairs: list[tuple[int, int]], expected: float) -> None:
    metrics = chat_metrics([("music_QA", judged(m, r)) for m, r in pairs])
    assert value(metrics, "music_QA.win_rate") == pytest.approx(expected)
    assert value(metrics, "music.win_rate") == pytest.approx(expected)


def test_the_win_rate_is_judged_per_pass_not_on_the_samples_mean() -> None:
    # Pass A: model 9 vs 5 (win). Pass B: model 4 vs 6 (loss). The sample's means are 6.5 vs 5.5,
    # a win on the means, but cal_score.py counts each order on its own: one win in two.
    metrics = chat_metrics([("sound_QA", two_passes((9, 5), (4, 6)))])
    assert value(metrics, "sound_QA.win_rate") == pytest.approx(0.5)


# --- per-pass semantics of cal_score.py -------------------------------------------------------


def test_each_pass_is_averaged_over_its_own_parsed_replies_then_the_passes_are_averaged() -> None:
    # Sample 1: pass A model 8 / reference 6, pass B model 6 / reference 6.
    # Sample 2: pass A model 4 / reference 5, pass B never parsed.
    # Pass A means: model (8 + 4) / 2 = 6, reference 5.5, wins 1/2.
    # Pass B means (one sample): model 6, reference 6, wins 0/1.
    graded = [("speech_QA", two_passes((8, 6), (6, 6))), ("speech_QA", two_passes((4, 5), None))]
    metrics = chat_metrics(graded)
    assert value(metrics, "speech_QA.score") == pytest.approx((6.0 + 6.0) / 2)
    assert value(metrics, "speech_QA.reference") == pytest.approx((5.5 + 6.0) / 2)
    assert value(metrics, "speech_QA.win_rate") == pytest.approx((0.5 + 0.0) / 2)
    # ...which is not the mean of the samples' own scores, (7 + 4) / 2.
    assert value(metrics, "speech_QA.score") != pytest.approx(5.5)


def test_without_swap_the_single_pass_is_the_score() -> None:
    graded = [("music_QA", judged(m, 5, swap=False)) for m in (2, 4, 9)]
    metrics = chat_metrics(graded)
    assert value(metrics, "music_QA.score") == pytest.approx(5.0)
    assert value(metrics, "music_QA.win_rate") == pytest.approx(1 / 3)


def test_a_pass_order_that_never_parsed_leaves_the_other_order_alone() -> None:
    graded = [("sound_QA", two_passes(None, (7, 3))), ("sound_QA", two_passes(None, (5, 3)))]
    metrics = chat_metrics(graded)
    assert value(metrics, "sound_QA.score") == pytest.approx(6.0)
    assert value(metrics, "sound_QA.reference") == pytest.approx(3.0)


def test_an_unparsed_sample_is_left_out_not_counted_as_zero() -> None:
    metrics = chat_metrics([*samples("sound_QA", 8, 6), ("sound_QA", unparsed_sample())])
    assert value(metrics, "sound_QA.score") == pytest.approx(7.0)
    assert metrics[f"{P}.sound_QA.score"].n == 2


def test_zero_scores_count_so_a_category_mean_can_be_below_one() -> None:
    metrics = chat_metrics(samples("speech_QA", 0, 0, 1, 0))
    assert value(metrics, "speech_QA.score") == pytest.approx(0.25)
    assert metrics[f"{P}.speech_QA.score"].n == 4


def test_n_counts_the_samples_with_a_model_score() -> None:
    graded = [
        ("music_QA", judged(7)),
        ("music_QA", two_passes((7, 5), None)),   # one pass parsed: still scored
        ("music_QA", unparsed_sample()),          # no score: not counted
    ]
    metrics = chat_metrics(graded)
    assert {metrics[f"{P}.music_QA.{stat}"].n for stat in ("score", "reference", "win_rate")} == {2}


def test_a_task_whose_samples_never_parsed_has_no_metrics() -> None:
    metrics = chat_metrics([("sound_QA", unparsed_sample()), *samples("music_QA", 5)])
    assert not any(name.startswith(f"{P}.sound") for name in metrics)
    assert value(metrics, "music.score") == 5.0


# --- mixed and average need every component ---------------------------------------------------


ALL_CATEGORIES = ("speech_QA", "sound_QA", "music_QA", "speech_and_sound_QA",
                  "speech_and_music_QA")


@pytest.mark.parametrize("left_out", ["speech_and_sound_QA", "speech_and_music_QA"])
def test_mixed_and_average_are_absent_without_both_mixed_categories(left_out: str) -> None:
    graded = [(task, judged(6)) for task in ALL_CATEGORIES if task != left_out]
    metrics = chat_metrics(graded)
    for name in ("mixed.score", "mixed.reference", "average.score", "average.reference"):
        assert f"{P}.{name}" not in metrics


@pytest.mark.parametrize("left_out", ["speech_QA", "sound_QA", "music_QA"])
def test_average_is_absent_without_each_of_speech_sound_and_music(left_out: str) -> None:
    graded = [(task, judged(6)) for task in ALL_CATEGORIES if task != left_out]
    metrics = chat_metrics(graded)
    assert value(metrics, "mixed.score") == 6.0
    assert f"{P}.average.score" not in metrics
    assert f"{P}.average.reference" not in metrics


def test_a_category_present_only_as_unparsed_samples_keeps_average_absent() -> None:
    graded = [(task, judged(6)) for task in ALL_CATEGORIES if task != "music_QA"]
    graded.append(("music_QA", unparsed_sample()))
    assert f"{P}.average.score" not in chat_metrics(graded)


def test_with_every_category_present_average_is_reported() -> None:
    graded = [(task, judged(score)) for task, score in zip(ALL_CATEGORIES, (8, 6, 4, 2, 6),
                                                           strict=True)]
    metrics = chat_metrics(graded)
    assert value(metrics, "mixed.score") == pytest.approx(4.0)
    assert value(metrics, "average.score") == pytest.approx((8 + 6 + 4 + 4) / 4)
