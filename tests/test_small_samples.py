"""The gate at every size: exact tests and intervals checked against values computed by hand on
small tables (every pair alike, one discordant pair, n = 1, 2, 3), the family's rules for what
is gated. The false-alarm rate they give is measured by simulation in
scripts/bench_statistics.py."""

from __future__ import annotations

import math
import random

import pytest

from pytest_audiobench.gate import exact
from pytest_audiobench.gate.family import MIN_N, Candidate, plan
from pytest_audiobench.gate.paired import assess, paired
from pytest_audiobench.outcome.lines import Linear, SampleLine

Z = 1.6448536269514715  # the one-sided 5 % normal quantile
ACCURACY = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=100, binary=True)
SCORE = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=10, drawn=True)


def line(sample: str, value: float, *, cluster: str | None = None, draws: int = 1,
         judged: bool = False) -> SampleLine:
    return SampleLine(id=sample, cluster=cluster or sample, groups={"by": "g"},
                      values={"v": value}, draws=[value] * draws, judged=judged, failed=False,
                      answer_sha256="", answer="")


def runs(before: list[float], after: list[float], **kw: object) -> tuple[dict[str, SampleLine],
                                                                        dict[str, SampleLine]]:
    base = {f"s{i}": line(f"s{i}", v, **kw) for i, v in enumerate(before)}  # type: ignore[arg-type]
    new = {f"s{i}": line(f"s{i}", v, **kw) for i, v in enumerate(after)}  # type: ignore[arg-type]
    return base, new


def test_the_binomial_tail_of_a_fair_coin() -> None:
    assert exact.binomial_tail(0, 5) == 1.0
    assert exact.binomial_tail(3, 3) == 1 / 8
    assert exact.binomial_tail(2, 3) == (3 + 1) / 8
    assert exact.binomial_tail(10, 13) == pytest.approx((286 + 78 + 13 + 1) / 8192)
    assert exact.binomial_tail(4, 3) == 0.0


@pytest.mark.parametrize(("sums", "p"), [
    ([0.0, 0.0, 0.0], 1.0),              # every pair alike: nothing to go on
    ([-1.0], 0.5),                      # n = 1, lost: one coin
    ([-1.0, -1.0], 0.25),               # n = 2, both lost
    ([-1.0, -1.0, -1.0], 0.125),        # n = 3, all lost: 1/8, never below 5 %
    ([-1.0, 0.0, 0.0], 0.5),            # one discordant pair among three
    ([-1.0, 1.0, -1.0], 0.5),           # two lost, one gained: P(2 or more of 3 heads)
    ([-1.0, -2.0, 0.5], 0.25),          # sizes differ: of 8 patterns, -2.5 and -3.5 are as low
])
def test_the_sign_flip_test_counts_the_patterns_by_hand(sums: list[float], p: float) -> None:
    assert exact.sign_flip_p(sums) == pytest.approx(p)


def test_random_flips_estimate_the_exact_count_and_hoeffding_spares_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    sums = [-(i % 5 + 1) * 0.1 if i % 3 else (i % 4 + 1) * 0.1 for i in range(16)]
    counted = exact.sign_flip_p(sums)
    monkeypatch.setattr(exact, "ENUMERATED", 8)
    sampled = exact.sign_flip_p(sums)
    assert sampled == pytest.approx(counted, abs=0.01)
    # Hoeffding: P(total <= t) <= exp(-t^2 / (2 sum s^2)); every sum negative: tiny.
    falling = [-0.1 - 0.01 * i for i in range(40)]
    bound = math.exp(-sum(falling) ** 2 / (2 * sum(s * s for s in falling)))
    assert exact.sign_flip_p(falling, level=0.05) == pytest.approx(bound)
    assert bound < 1e-6


def test_students_t_quantiles_are_the_tabled_ones() -> None:
    table = {(0.975, 1): 12.706, (0.975, 2): 4.303, (0.95, 5): 2.015, (0.975, 10): 2.228,
             (0.995, 30): 2.750, (0.95, 120): 1.658}
    for (p, freedom), value in table.items():
        assert exact.t_quantile(p, freedom) == pytest.approx(value, abs=5e-4)
    assert exact.t_quantile(0.95, 100_000) == pytest.approx(Z, abs=1e-4)


Q = Z * Z  # 2.705543


@pytest.mark.parametrize(("cells", "low", "high"), [
    # Every pair alike, n = 3 or 4: +-z^2 / (n + z^2), as Wilson's interval of 0 of n.
    ((0, 0, 3), -Q / (3 + Q), Q / (3 + Q)),
    ((0, 0, 4), -Q / (4 + Q), Q / (4 + Q)),
    # All n lost: the score at delta is -sqrt(n (1 + delta) / (1 - delta)), so the upper end
    # is (z^2 - n) / (z^2 + n): +0.4603 for n = 1, +0.1499 for 2, -0.0516 for 3.
    ((1, 0, 1), -1.0, (Q - 1) / (Q + 1)),
    ((2, 0, 2), -1.0, (Q - 2) / (Q + 2)),
    ((3, 0, 3), -1.0, (Q - 3) / (Q + 3)),
    # One discordant pair of three (one lost): above -1/3 the score is
    # -sqrt((1 + 3 delta) / (1 - delta)), so the upper end is (z^2 - 1) / (z^2 + 3); below it
    # the lower end is the root of (9 + 3 z^2) d^2 + (6 + 3 z^2) d + 1 = 0 under -1/3.
    ((1, 0, 3), (-(6 + 3 * Q) - math.sqrt((6 + 3 * Q) ** 2 - 4 * (9 + 3 * Q))) / (2 * (9 + 3 * Q)),
     (Q - 1) / (Q + 3)),
])
def test_tangos_interval_by_hand(cells: tuple[int, int, int], low: float, high: float) -> None:
    assert exact.tango(*cells, Z) == pytest.approx((low, high), abs=1e-9)


def test_tangos_interval_ends_where_its_score_test_rejects() -> None:
    low, high = exact.tango(3, 1, 10, Z)
    assert (round(low, 4), round(high, 4)) == (-0.5011, 0.1451)
    assert exact._score(3, 1, 10, low) == pytest.approx(Z)
    assert exact._score(3, 1, 10, high) == pytest.approx(-Z)


def test_tangos_interval_stays_inside_the_range_with_width_on_every_small_table() -> None:
    for n in range(1, 9):
        for lost in range(n + 1):
            for gained in range(n + 1 - lost):
                low, high = exact.tango(lost, gained, n, 2.8)
                assert -1.0 <= low <= (gained - lost) / n <= high <= 1.0
                assert high - low > 0.1


def test_three_items_all_lost_are_not_a_regression() -> None:
    """The issue's case: 3 items right in the baseline and wrong now. The interval no longer
    collapses to a point, and the exact test says 1 in 8 by chance."""
    result = paired(ACCURACY, *runs([100, 100, 100], [0, 0, 0]))
    assert result is not None and result.method == "exact"
    assessed = assess(result, margin=1.0, level=0.05)
    assert assessed.low == pytest.approx(-100.0)
    assert assessed.high == pytest.approx(100 * (Q - 3) / (Q + 3))  # -5.16
    assert assessed.p == pytest.approx(1 / 8) and not assessed.regressed
    assert not result.detects_at_all(0.05, 1.0) and assessed.detectable is None


def test_every_pair_alike_gives_no_regression_and_an_interval_with_width() -> None:
    result = paired(ACCURACY, *runs([100, 0, 100, 0], [100, 0, 100, 0]))
    assert result is not None
    assessed = assess(result, 1.0, 0.05)
    assert assessed.low is not None and assessed.high is not None
    assert assessed.low < 0 < assessed.high and not assessed.regressed


def test_a_judged_score_never_has_a_zero_standard_error_when_the_noise_is_known() -> None:
    # Five samples, each exactly 2 points lower, two draws on each side: the clustered error
    # is 0, the noise floor 0.9 x sqrt(5 x (1/5)^2 x (1/2 + 1/2)) = 0.9 / sqrt(5).
    base, new = runs([7, 7, 7, 7, 7], [5, 5, 5, 5, 5], draws=2, judged=True)
    result = paired(SCORE, base, new, noise=0.9)
    assert result is not None and result.se_clustered == 0.0
    assert result.se == pytest.approx(0.9 / math.sqrt(5))
    assessed = assess(result, 0.1, 0.05)
    t = exact.t_quantile(0.95, 4)
    assert assessed.high == pytest.approx(-2 + t * 0.9 / math.sqrt(5))
    # The sign-flip test of five equal drops: 1/32, below 5 %: a regression, decided by a
    # test that does not rest on the zero spread.
    assert assessed.p == pytest.approx(1 / 32) and assessed.regressed
    # Without the noise there is no interval (no spread to build one from), and the decision is
    # the exact tests' as before: nothing rests on the zero standard error.
    bare = paired(SCORE, *runs([7, 7, 7, 7, 7], [5, 5, 5, 5, 5]))
    assert bare is not None and bare.se == 0.0
    unknown = assess(bare, 0.1, 0.05)
    assert (unknown.low, unknown.high) == (None, None)
    assert unknown.p == pytest.approx(1 / 32) and unknown.regressed
    # Four such samples cannot be told from chance at 5 % (1/16), however equal their drops.
    four = paired(SCORE, *runs([7, 7, 7, 7], [5, 5, 5, 5]))
    assert four is not None
    assert assess(four, 0.1, 0.05).p == pytest.approx(1 / 16)
    assert not assess(four, 0.1, 0.05).regressed


def test_the_margin_is_tested_exactly_on_the_shifted_differences() -> None:
    # Ten samples each 0.15 lower: beyond no change (p = 2^-10) but, shifted by a margin of
    # 0.2, every difference is +0.05: p = 1, within the margin. A margin of 0.1 leaves -0.05
    # each: 2^-10 again, a regression.
    base, new = runs([5.0] * 10, [4.85] * 10)
    result = paired(SCORE, base, new)
    assert result is not None
    assert assess(result, 0.2, 0.05).p is None  # the change does not even pass the margin
    assert assess(result, 0.1, 0.05).p == pytest.approx(2 ** -10)
    assert assess(result, 0.1, 0.05).regressed


def test_intervals_are_cut_to_the_range() -> None:
    # Two clusters on a 0-10 score: t with one degree of freedom is 6.31 at 5 %.
    base, new = runs([9, 1], [1, 9])
    result = paired(SCORE, base, new)
    assert result is not None and result.clusters == 2
    assessed = assess(result, 0.1, 0.05)
    assert (assessed.low, assessed.high) == (-10.0, 10.0)


# --- sides asked a different number of times: the run-swap test ------------------------------


def over_runs(sample: str, per_run: list[float]) -> SampleLine:
    """A 0/1 sample asked ``len(per_run)`` times (one run: no per-run values)."""
    return SampleLine(id=sample, cluster=sample, groups={"by": "g"},
                      values={"v": sum(per_run) / len(per_run)},
                      runs=[{"v": v} for v in per_run] if len(per_run) > 1 else [],
                      draws=per_run, failed=False, answer_sha256="", answer="")


@pytest.mark.parametrize(("samples", "p"), [
    # n = 1, right once in two baseline runs, wrong now: of the three pooled runs the new
    # one is a wrong one 2 times in 3 (change -50 each time; a right one would give +100).
    ([(1.0, [0, 100], [0])], 2 / 3),
    # every run alike: nothing to go on.
    ([(1.0, [100, 100], [100])], 1.0),
    # n = 2, each right in 1 of 3 baseline runs and wrong now: both draws wrong, (3/4)^2.
    ([(0.5, [100, 0, 0], [0]), (0.5, [0, 100, 0], [0])], 9 / 16),
    # the layer: ten items right in a quarter of the pooled runs, all wrong now.
    ([(0.1, [100, 0, 0], [0])] * 10, 0.75 ** 10),
    # two new runs against two: choosing 2 of 4 pooled [100, 100, 0, 0] as new, the change is
    # -100 only for the observed {0, 0}: 1 way in 6.
    ([(1.0, [100, 100], [0, 0])], 1 / 6),
])
def test_the_run_swap_test_counts_the_choices_by_hand(
        samples: list[exact.Swap], p: float) -> None:
    assert exact.swap_p(samples) == pytest.approx(p)


def test_one_run_on_each_side_is_the_sign_flip_test() -> None:
    rng = random.Random(7)
    pairs = [(rng.choice([0, 40, 100]), rng.choice([0, 60, 100])) for _ in range(12)]
    samples = [(1 / 12, [b], [n]) for b, n in pairs]
    sums = [(n - b) / 12 for b, n in pairs]
    assert exact.swap_p(samples) == pytest.approx(exact.sign_flip_p(sums))


def test_random_choices_estimate_the_exact_count_and_hoeffding_spares_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    samples: list[exact.Swap] = [(1 / 6, [100, 0, 0, 100][: 2 + i % 3], [0])
                                 for i in range(6)]
    counted = exact.swap_p(samples)
    monkeypatch.setattr(exact, "CONVOLVED", 4)
    assert exact.swap_p(samples) == pytest.approx(counted, abs=0.01)
    # Forty items right in half of four baseline runs, all wrong now: of the pooled
    # [100, 0, 100, 0, 0] each contributes -50/40 (a wrong run drawn as the new one) or +75/40
    # (a right one); Hoeffding's bound exp(-2 t^2 / sum (b - a)^2) at t = -50.
    falling: list[exact.Swap] = [(1 / 40, [100, 0, 100, 0], [0])] * 40
    bound = math.exp(-2 * 50.0 ** 2 / (40 * (125 / 40) ** 2))
    assert exact.swap_p(falling, level=0.05) == pytest.approx(bound)


def test_the_run_swap_spread_by_hand() -> None:
    # Pooled [0, 100, 0], one new: changes -50, +100, -50; mean 0, variance 5,000.
    assert exact.swap_se([(1.0, [0, 100], [0])]) == pytest.approx(math.sqrt(5000))
    assert exact.swap_se([(1.0, [100, 100], [100])]) == 0.0


def test_a_baseline_over_runs_is_tested_by_the_run_swap_test_not_the_sign_flips() -> None:
    """The semantic layer the issue's seed 16 failed on: ten items, a baseline of four runs
    right once in each, a new run wrong on all ten. The sign-flip test of the ten equal drops
    said 2^-10 (a regression at any level); by the runs it is (4/5)^10 = 0.107: chance."""
    base = {f"s{i}": over_runs(f"s{i}", [100, 0, 0, 0]) for i in range(10)}
    new = {f"s{i}": over_runs(f"s{i}", [0]) for i in range(10)}
    result = paired(ACCURACY, base, new)
    assert result is not None and result.method == "run-swap" and result.table is None
    assessed = assess(result, 1.0, 0.05)
    assert assessed.p == pytest.approx(0.8 ** 10) and not assessed.regressed
    # The interval's error is at least the runs' own spread: the ten alike differences alone
    # would give a clustered error of 0.
    assert result.se_clustered == pytest.approx(0.0)
    assert result.se_swap == pytest.approx(math.sqrt(10 * 0.01 * 0.16 * 1e4 * 25 / 16))
    assert assessed.low is not None and assessed.high is not None
    assert assessed.low < -25 < 0 < assessed.high


def test_the_run_swap_test_needs_every_run_of_the_value() -> None:
    base = {"s0": over_runs("s0", [100, 0])}
    base["s0"].runs[1].pop("v")
    assert paired(ACCURACY, base, {"s0": over_runs("s0", [0])}) is None
    # As many runs on each side: the sign-flip test of the means, no per-run values needed.
    even = {"s0": over_runs("s0", [100, 0])}
    assert paired(ACCURACY, even, {"s0": over_runs("s0", [0, 0])}).method == "sign-flip"  # type: ignore[union-attr]


def candidate(n: int, base: float = 100, *, margin: float = 1.0,
              min_n: int = MIN_N) -> Candidate:
    before = [base] * n
    result = paired(ACCURACY, *runs(before, before))
    assert result is not None
    return Candidate(result, margin, min_n)


def test_the_family_gates_what_can_detect_a_drop_and_shares_the_level() -> None:
    found = {"big": candidate(40), "other": candidate(30), "small": candidate(3),
             "floor": candidate(20, base=0)}
    planned = plan(found, 0.95)
    # small: 3 < 10; floor: every baseline value at 0, nothing can fall.
    assert {k for k, a in planned.items() if a.gated} == {"big", "other"}
    assert [a.level for a in planned.values()] == [pytest.approx(0.025)] * 4
    everything = plan(found, 0.95, gate_small=True)
    assert all(a.gated for a in everything.values())
    assert [a.level for a in everything.values()] == [pytest.approx(0.05 / 4)] * 4


def test_a_baseline_may_gate_a_small_metric_by_its_own_minimum_n() -> None:
    found = {"big": candidate(40), "seven": candidate(7, min_n=5)}
    planned = plan(found, 0.95)
    # Seven items can reach p = 2^-7 = 0.0078, below 0.05 / 2.
    assert planned["seven"].gated and planned["seven"].level == pytest.approx(0.025)
    # Four clusters cannot reach 0.025 even with min_n 2: reported, not gated.
    assert not plan({"big": candidate(40), "four": candidate(4, min_n=2)}, 0.95)["four"].gated
