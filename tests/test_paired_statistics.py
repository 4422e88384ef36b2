"""The paired gate's statistics against values computed by hand on small tables."""

from __future__ import annotations

import math

import pytest

from pytest_audiobench.gate import exact
from pytest_audiobench.gate.evaluation import HOLDING, paired_row
from pytest_audiobench.gate.paired import (
    allowed_drop,
    assess,
    judge_noise,
    paired,
    quantile,
)
from pytest_audiobench.gate.sample_change import change
from pytest_audiobench.outcome.lines import Linear, SampleLine


def line(sample: str, value: float, *, cluster: str | None = None, group: str = "g",
         draws: list[float] | None = None, failed: bool = False) -> SampleLine:
    return SampleLine(id=sample, cluster=cluster or sample, groups={"by": group},
                      values={"v": value}, draws=draws if draws is not None else [value],
                      failed=failed, answer_sha256="", answer="")


ONE_GROUP = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=10)


def test_without_clusters_the_standard_error_is_the_paired_t_one() -> None:
    base = {f"s{i}": line(f"s{i}", v) for i, v in enumerate([5, 6, 7, 8])}
    new = {f"s{i}": line(f"s{i}", v) for i, v in enumerate([4, 6, 5, 8])}
    result = paired(ONE_GROUP, base, new)
    assert result is not None
    # d = -1, 0, -2, 0: mean -0.75, sample variance 0.9167, SE = sqrt(0.9167 / 4)
    assert result.difference == pytest.approx(-0.75)
    assert (result.baseline, result.new) == (pytest.approx(6.5), pytest.approx(5.75))
    assert result.se == pytest.approx(math.sqrt((0.0625 + 0.5625 + 1.5625 + 0.5625) / 3 / 4))
    assert (result.n, result.clusters) == (4, 4)


def test_samples_that_share_a_clip_are_one_cluster() -> None:
    base = {s: line(s, 5) for s in "abcd"}
    new = {"a": line("a", 4, cluster="x"), "b": line("b", 4, cluster="x"),
           "c": line("c", 5, cluster="y"), "d": line("d", 5, cluster="y")}
    result = paired(ONE_GROUP, base, new)
    assert result is not None
    # d = -1, -1, 0, 0; mean -0.5; residuals summed per cluster: x: 2 * (-0.5) / 4 = -0.25,
    # y: 2 * 0.5 / 4 = 0.25; SE^2 = C/(C-1) * (0.0625 + 0.0625) = 2 * 0.125
    assert result.clusters == 2
    assert result.se == pytest.approx(math.sqrt(0.25))
    # The same differences without clusters: SE^2 = 0.3333 / 4, much smaller.
    loose = paired(ONE_GROUP, base, {s: line(s, v.values["v"]) for s, v in new.items()})
    assert loose is not None and loose.se is not None and loose.se < result.se  # type: ignore[operator]


def test_a_weighted_metric_is_a_weighted_sum_of_group_means() -> None:
    average = Linear(value="v", by="by", weights={"a": 0.75, "b": 0.25}, low=0, high=10)
    base = {"1": line("1", 4, group="a"), "2": line("2", 6, group="a"),
            "3": line("3", 8, group="b")}
    new = {"1": line("1", 4, group="a"), "2": line("2", 4, group="a"),
           "3": line("3", 9, group="b")}
    result = paired(average, base, new)
    assert result is not None
    assert result.baseline == pytest.approx(0.75 * 5 + 0.25 * 8)
    assert result.new == pytest.approx(0.75 * 4 + 0.25 * 9)
    # Influence: a: 0.75/2 * (d - mean_a) = 0.375 * (+1, -1); b: 0.25 * 0; C = 3.
    assert result.se == pytest.approx(math.sqrt(1.5 * (0.375 ** 2 * 2)))


def test_only_the_samples_both_runs_scored_count_and_a_missing_group_measures_nothing() -> None:
    base = {"1": line("1", 5), "2": line("2", 5)}
    new = {"2": line("2", 3), "3": line("3", 9)}
    result = paired(ONE_GROUP, base, new)
    assert result is not None and result.n == 1 and result.se is None  # one cluster
    both = Linear(value="v", by="by", weights={"g": 0.5, "h": 0.5}, low=0, high=10)
    assert paired(both, base, new) is None


def test_the_interval_uses_students_t_on_the_clusters_and_the_detectable_drop() -> None:
    base = {f"s{i}": line(f"s{i}", 5.0 + (i % 2)) for i in range(100)}
    new = {f"s{i}": line(f"s{i}", 4.8 + (i % 2) + (0.1 if i % 4 == 0 else 0))
           for i in range(100)}
    result = paired(ONE_GROUP, base, new)
    assert result is not None and result.se is not None and result.method == "sign-flip"
    one = assess(result, margin=0.1, level=0.05)
    seven = assess(result, margin=0.1, level=0.05 / 7)
    t = exact.t_quantile(0.95, 99)  # 1.6604, a little above the normal 1.6449
    assert t == pytest.approx(1.6604, abs=1e-4)
    assert one.high == pytest.approx(result.difference + t * result.se)
    assert seven.high == pytest.approx(result.difference + exact.t_quantile(1 - 0.05 / 7, 99)
                                       * result.se)
    # The standard error (0.004: the differences hardly vary) is floored for planning by one
    # sample's whole swing, 10 points of range / 100 samples.
    assert result.se < 0.1
    assert one.detectable == pytest.approx(0.1 + (t + quantile(0.8)) * 0.1)
    # d is -0.1 or -0.2: the interval lies wholly below the margin, and the sign-flip test
    # (every sum negative: p = 2^-100, Hoeffding's bound already far below the level) agrees.
    assert one.high is not None and one.high < -0.1
    assert one.p is not None and one.p < 1e-6 and one.regressed


def test_the_judge_noise_is_the_pooled_spread_of_the_draws() -> None:
    lines = [line("a", 5, draws=[4, 6]), line("b", 7, draws=[7, 7, 7]),
             line("c", 2, draws=[2])]
    # squares: a: 1 + 1 = 2 (1 degree of freedom), b: 0 (2), c: none
    assert judge_noise(lines) == pytest.approx(math.sqrt(2 / 3))
    assert judge_noise([line("x", 1)]) is None


def test_one_item_regresses_only_beyond_the_noise_of_its_draws() -> None:
    base = line("a", 7, draws=[7, 7])
    allowed = allowed_drop(base, line("a", 6, draws=[6, 6]), 0.9, 0.95)
    assert allowed == pytest.approx(quantile(0.975) * 0.9 * math.sqrt(1 / 2 + 1 / 2))
    assert change(base, line("a", 6, draws=[6, 6]), False, 0.9, 0.95) is None
    dropped = change(base, line("a", 4, draws=[4, 4]), False, 0.9, 0.95)
    assert dropped is not None and dropped.kind == "regressed"
    assert "a drop of 3, more than the judge's noise explains (1.76)" in dropped.reason
    # Without judge noise (a matcher), any drop is a regression.
    assert change(line("m", 100), line("m", 0), True, None, 0.95).kind == "regressed"  # type: ignore[union-attr]


def test_under_the_bar_as_before_is_expected_and_clearing_it_is_an_improvement() -> None:
    low = line("a", 3.5, draws=[3, 4], failed=True)
    expected = change(low, line("a", 3, draws=[3, 3]), True, 0.9, 0.95)
    assert expected is not None and expected.kind == "xfailed"
    assert expected.reason == "under its bar as in the baseline: baseline 3.5, now 3"
    slipped = change(line("a", 6, draws=[6, 6]), line("a", 4.5, draws=[4, 5]), True, 0.9, 0.95)
    assert slipped is not None and slipped.kind == "xfailed"
    assert slipped.reason == ("under its bar now, but within the judge's noise of the baseline "
                              "(1.76): baseline 6, now 4.5")
    improved = change(low, line("a", 6, draws=[6, 6]), False, 0.9, 0.95)
    assert improved is not None and improved.kind == "xpassed"
    assert change(line("a", 7), line("a", 7), False, 0.9, 0.95) is None
    assert change(None, line("a", 7), True, 0.9, 0.95) is None


def test_for_accuracy_the_paired_test_is_mcnemars_exact_test_on_the_discordant_pairs() -> None:
    # MMAR: each item right (100) or wrong (0) in both runs. 10 items: 3 right in both (a),
    # 3 right only in the baseline (b), 1 right only in the new run (c), 3 in neither (d).
    before = [100, 100, 100, 0, 100, 100, 0, 0, 100, 0]
    after = [0, 0, 0, 100, 100, 100, 0, 0, 100, 0]
    accuracy = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=100, binary=True)
    base = {f"s{i}": line(f"s{i}", v) for i, v in enumerate(before)}
    new = {f"s{i}": line(f"s{i}", v) for i, v in enumerate(after)}
    result = paired(accuracy, base, new)
    assert result is not None and result.table is not None and result.method == "exact"
    assert (result.table.both, result.table.lost, result.table.gained,
            result.table.neither) == (3, 3, 1, 3)
    assert result.difference == pytest.approx(100 * (1 - 3) / 10)
    # McNemar's exact test: of the 4 discordant pairs, 3 or more lost by chance:
    # (C(4,3) + C(4,4)) / 2^4 = 5 / 16.
    assert exact.sign_flip_p(result.sums) == pytest.approx(5 / 16)
    # Tango's score interval at z = 1.6449 (one-sided 5 %), tests/test_small_samples.py
    # checks its ends by hand: [-0.5011, +0.1451].
    test = assess(result, margin=1.0, level=0.05)
    assert (round(test.low, 2), round(test.high, 2)) == (-50.11, 14.51)  # type: ignore[arg-type]
    # The margin's test (the sums shifted by one point) can only add doubt: not a regression.
    assert test.p is not None and test.p >= 5 / 16 and not test.regressed
    # The clustered standard error stays what it was: McNemar's unpooled one,
    # sqrt(b + c - (b - c)^2 / n) / n, with the n / (n - 1) factor.
    mcnemar = math.sqrt(3 + 1 - (3 - 1) ** 2 / 10) / 10
    assert result.se == pytest.approx(100 * mcnemar * math.sqrt(10 / 9))


def test_an_unknown_noise_of_a_sampled_judge_decides_no_item() -> None:
    judged = SampleLine(id="a", cluster="a", groups={"by": "g"}, values={"v": 7}, draws=[7],
                        judged=True, failed=False, answer_sha256="", answer="")
    dropped = judged.model_copy(update={"draws": [3], "values": {"v": 3}, "failed": True})
    assert allowed_drop(judged, dropped, None, 0.95) is None
    assert change(judged, dropped, True, None, 0.95) is None  # today's bar decides
    ruled = line("a", 7)  # graded by a rule: no noise to explain a drop
    assert change(ruled, line("a", 3), True, None, 0.95) is not None


def test_the_worked_example_of_the_statistics_page() -> None:
    """docs/statistics.md works these numbers by hand: six questions on four clips."""
    table = [("s1", "c1", 7.0, 5.0), ("s2", "c1", 6.0, 4.5), ("s3", "c2", 8.0, 8.0),
             ("s4", "c3", 5.0, 5.5), ("s5", "c3", 7.0, 7.0), ("s6", "c4", 6.0, 6.0)]
    base = {s: line(s, b, cluster=c, draws=[b, b]) for s, c, b, _ in table}
    new = {s: line(s, n, cluster=c, draws=[n, n]) for s, c, _, n in table}
    result = paired(ONE_GROUP, base, new)
    assert result is not None and result.se is not None
    assert (result.baseline, result.new, result.difference) == (6.5, 6.0, -0.5)
    assert result.se == pytest.approx(math.sqrt(4 / 3 * 9 / 36))  # 0.577
    # Four clips: Student's t with 3 degrees of freedom, 2.353 at one-sided 5 %.
    alone = assess(result, 0.1, 0.05)
    assert (round(alone.low, 2), round(alone.high, 2)) == (-1.86, 0.86)  # type: ignore[arg-type]
    assert not alone.regressed and alone.p == pytest.approx(0.5)
    # Four clips can detect nothing at 5 %: even all four falling has p = 1/16 by chance.
    assert not result.detects_at_all(0.05, 0.1) and alone.detectable is None
    # With a fifth clip, 1/32 could: the drop found 80 % of the time would then be
    # 0.1 + (2.353 + 0.8416) x 0.577 = 1.94, well inside the largest possible, 6.5.
    assert result.detects_at_all(0.05, 0.1) is False and 0.5 ** 5 <= 0.05
    assert round(0.1 + (exact.t_quantile(0.95, 3) + quantile(0.8)) * result.se, 2) == 1.94
    outcomes = {s: change(base[s], new[s], new[s].score < 5, 0.9, 0.95) for s in base}
    assert {s: c.kind for s, c in outcomes.items() if c} == {"s1": "regressed",
                                                             "s2": "xfailed"}


def test_an_interval_wholly_below_zero_but_inside_the_margin_reads_worse_within_it() -> None:
    base = {f"s{i}": line(f"s{i}", 5.0) for i in range(20)}
    new = {f"s{i}": line(f"s{i}", 4.9 if i < 10 else 5.0) for i in range(20)}
    result = paired(ONE_GROUP, base, new)
    assert result is not None and result.se is not None
    # d = -0.1 ten times, 0 ten times: mean -0.05, variance 20 * 0.05^2 / 19, SE its root / 20
    assert result.se == pytest.approx(math.sqrt(20 * 0.0025 / 19 / 20))
    test = assess(result, margin=1.0, level=0.05)
    assert test.high == pytest.approx(-0.05 + exact.t_quantile(0.95, 19) * result.se)
    assert test.high == pytest.approx(-0.0302, abs=1e-4) and not test.regressed
    row = paired_row("m", test)
    assert row.status == "worse within margin" and row.status in HOLDING
    # One sample lower and one higher: the interval holds zero, and the metric is ok.
    level = {f"s{i}": line(f"s{i}", 4.9 if i == 0 else 5.1 if i == 1 else 5.0) for i in range(20)}
    even = paired(ONE_GROUP, base, level)
    assert even is not None and paired_row("m", assess(even, 1.0, 0.05)).status == "ok"


class _Bench:
    """What a benchmark tells the paired gate: one linear metric and its default margin."""

    def linear(self, metric: str) -> Linear | None:
        return Linear(value="v", by="g", weights={"a": 1.0}, low=0.0, high=10.0) \
            if metric == "m" else None

    def margin(self, metric: str) -> float:
        return 0.5


def _scored(sample: str, value: float) -> SampleLine:
    return SampleLine(id=sample, cluster=sample, groups={"g": "a"}, values={"v": value},
                      draws=[value], failed=False, answer_sha256="", answer="")


def test_the_run_s_gate_and_audiobench_compare_pair_lines_with_one_rule() -> None:
    from pytest_audiobench.gate.evaluation import Pairing, candidates

    base = {s: _scored(s, 6.0) for s in ("1", "2")}
    new = {"1": _scored("1", 5.0), "2": _scored("2", 4.0)}
    default = Pairing.of(_Bench(), base, new, noise=0.25)
    given = Pairing.of(_Bench(), base, new, noise=0.25, margins={"m": 2.0})
    assert (default.margin("m"), given.margin("m"), given.margin("other")) == (0.5, 2.0, 0.5)
    found = candidates(default, {"m": None, "not linear": None})
    assert list(found) == ["m"]  # a metric the benchmark cannot make linear is not paired
    assert found["m"].margin == 0.5 and candidates(given, {"m": None})["m"].margin == 2.0
    paired = found["m"].paired
    assert (paired.n, paired.baseline, paired.new) == (2, 6.0, 4.5)  # (5 + 4) / 2
