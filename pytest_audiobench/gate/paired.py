"""Paired statistics for a release gate (pure): a metric's change between a baseline run and a
new one over the samples both scored, tested at its level by a method valid for its n and its
kind of score, and whether one sample dropped by more than the judge's noise explains.

A metric regresses when two exact tests both reject at its level, neither of which rests on
a standard error (so none can come from one that fell to zero); "dropped" reads "rose" for a
metric that is better lower (a word error rate), whose changes the tests take negated:
- "nothing changed", by the sign-flip test of the clusters' sums of differences
  (``exact.sign_flip_p``; for 0/1 scores with one item per clip, McNemar's exact test on the
  discordant pairs): an unchanged model fails it at most at its level, at any n;
- "it dropped by no more than the margin", by the same test of the sums shifted by the margin
  (each difference plus the margin is then as likely up as down).
Its interval shows how large the change may be: Tango's paired score interval for 0/1
scores; for other scores the clustered standard error (with its C/(C-1) factor, Student's t
with C - 1 degrees of freedom, and never below what the judge's measured noise alone makes);
either cut to the metric's range.

The facts are those of "Adding Error Bars to Evals" (Miller, 2024) and of the small-sample
literature it points to; docs/statistics.md explains them in plain words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from pytest_audiobench.gate import exact
from pytest_audiobench.outcome.lines import Linear, SampleLine

_NORMAL = NormalDist()
POWER = 0.8
"""The power at which the smallest detectable drop is given."""

Method = Literal["exact", "sign-flip", "run-swap"]
"""How a metric is tested: ``exact`` for 0/1 scores (McNemar's exact test, Tango's
interval), ``sign-flip`` for any other (the sign-flip test, a clustered t interval),
``run-swap`` when the two sides were asked a different number of times (the run-swap test,
the same interval)."""
SWAP_WAYS = 4_096
"""The most ways of choosing a sample's new runs among its pooled ones the run-swap test
takes (21 for a baseline of 20 runs against one); beyond, the metric is held against its
threshold."""


@dataclass(frozen=True, slots=True)
class Table:
    """Paired 0/1 outcomes: right in both runs, only in the baseline, only now, in neither."""

    both: int
    lost: int
    gained: int
    neither: int


@dataclass(frozen=True, slots=True)
class Paired:
    """A metric over the samples both runs scored."""

    n: int
    clusters: int
    baseline: float
    new: float
    low: float
    """The lowest value a sample (and so the metric) can take."""
    span: float
    """The width of the metric's range: its change lies within ``[-span, +span]`` (infinite
    for a range open above)."""
    sums: tuple[float, ...]
    """Per cluster, its samples' weighted differences added up; their total is the change."""
    weights: tuple[float, ...]
    """Per cluster (in the order of ``sums``), its samples' weights in the metric."""
    se_clustered: float | None
    """Clustered standard error of the change; None with fewer than two clusters."""
    se_noise: float
    """What the judge's measured noise alone makes of the change's standard error."""
    table: Table | None
    """For 0/1 scores of one group, one sample per cluster: the paired table."""
    can_fall: int
    """Clusters with a sample that can worsen in the baseline (above the lowest value, or
    below the highest when lower is better)."""
    heaviest: float
    """The largest weight one sample has in the metric."""
    swing: float
    """One sample's whole swing (``Linear.span``: the range's width, or its ``swing`` when
    the range is open), for the smallest detectable change."""
    room: float
    """How far the metric can worsen from the baseline within its range."""
    swaps: tuple[exact.Swap, ...] | None = None
    """Per sample, its weight and each side's per-run values, when some sample was asked a
    different number of times on the two sides: the run-swap test then stands for the
    sign-flip test."""
    se_swap: float = 0.0
    """With ``swaps``, the change's spread over the run-swap test's choices."""
    sign: int = 1
    """+1 when the metric is better higher, -1 when better lower (``Linear.sign``): ``sums``
    and ``swaps`` hold the changes times it, gains."""

    @property
    def difference(self) -> float:
        return self.new - self.baseline

    @property
    def gain(self) -> float:
        """The change as an improvement: the difference, negated when lower is better."""
        return self.sign * self.difference

    @property
    def se(self) -> float | None:
        """The standard error an interval uses: the clustered one, floored by the noise and,
        when the sides hold different numbers of runs, by the runs' own spread."""
        if self.se_clustered is None:
            return None
        return max(self.se_clustered, self.se_noise, self.se_swap)

    @property
    def method(self) -> Method:
        if self.swaps is not None:
            return "run-swap"
        return "exact" if self.table is not None else "sign-flip"

    def detects_at_all(self, level: float, margin: float) -> bool:
        """Whether any outcome in the metric's range could reject at ``level``: even every
        sample falling to the lowest value is otherwise within chance (known before the new
        run's scores, from the baseline and n only)."""
        # 2^-k is the smallest p-value the sign-flip test can give over k clusters that can fall
        # (every sum negative: one pattern in 2^k); a cluster already at the bottom cannot help.
        return self.room > margin and 0.5 ** self.can_fall <= level


def paired(metric: Linear, base: Mapping[str, SampleLine], new: Mapping[str, SampleLine],
           noise: float | None = None) -> Paired | None:
    """The metric on both sides over the samples both scored; None unless every group the
    metric weighs has such a sample. ``noise`` is the judge's, for the floor of the standard
    error of a metric made of judged draws."""
    groups: dict[str, list[tuple[SampleLine, SampleLine]]] = {}
    # Sorted: the clusters' order, and so the seeded random sign patterns drawn over them, is
    # the same however the lines arrived (workers, a merge), and so is the row's status.
    for sample in sorted(base.keys() & new.keys()):
        b, n = base[sample], new[sample]
        group = n.groups.get(metric.by, "")
        if group in metric.weights and metric.value in b.values and metric.value in n.values:
            groups.setdefault(group, []).append((b, n))
    # A group with no pair would drop its weight out of the mean: what both sides hold would
    # no longer be the metric.
    if set(groups) != set(metric.weights) or not _weighed(metric, groups):
        return None
    swaps = _swaps(metric, groups)
    # Sides of different run counts without a run-swap test: the sign-flip test of their means
    # would be invalid (a mean of 20 runs against one is not exchangeable), so no pairing.
    if swaps == ():
        return None
    sums: dict[str, float] = {}
    weights: dict[str, float] = {}
    residuals: dict[str, float] = {}
    heaviest = noise_variance = base_value = new_value = 0.0
    for group, members in groups.items():
        shares = _shares(metric, group, members)
        diffs = [n.values[metric.value] - b.values[metric.value] for b, n in members]
        # The group's mean change, each sample weighed by its share.
        mean_diff = sum(s * d for s, d in zip(shares, diffs, strict=True)) / sum(shares)
        heaviest = max(heaviest, *shares)
        for (b, n), d, share in zip(members, diffs, shares, strict=True):
            base_value += share * b.values[metric.value]
            new_value += share * n.values[metric.value]
            sums[n.cluster] = sums.get(n.cluster, 0.0) + share * d * metric.sign
            weights[n.cluster] = weights.get(n.cluster, 0.0) + share
            # Less its group's mean: the residuals the cluster-robust estimator adds up
            # within each cluster before squaring (for a ratio, its linearisation).
            residuals[n.cluster] = residuals.get(n.cluster, 0.0) + share * (d - mean_diff)
            # s^2 w^2 (1/k_base + 1/k_new): the floor of the standard error. Every judged difference
            # carries that noise even when, by chance, all of them came out the same.
            if metric.drawn and noise:
                noise_variance += share * share * noise * noise * _draw_weight(b, n)
    pairs = [pair for members in groups.values() for pair in members]
    return Paired(
        n=len(pairs), clusters=len(sums), baseline=base_value, new=new_value, low=metric.low,
        span=metric.high - metric.low, sums=tuple(sums.values()),
        weights=tuple(weights[cluster] for cluster in sums),
        se_clustered=_clustered(residuals.values()), se_noise=math.sqrt(noise_variance),
        table=_table(metric, pairs, len(sums)), can_fall=_can_fall(metric, groups),
        heaviest=heaviest, swaps=swaps, se_swap=exact.swap_se(swaps) if swaps else 0.0,
        sign=metric.sign, swing=metric.span,
        room=metric.high - base_value if metric.lower_is_better else base_value - metric.low)


def _weighed(metric: Linear, groups: Mapping[str, list[tuple[SampleLine, SampleLine]]]) -> bool:
    """Whether every group weighs something: without ``weight`` it always does; with it,
    every sample holds the weight and each group's add up to more than zero."""
    if metric.weight is None:
        return True
    for members in groups.values():
        found = [b.values.get(metric.weight) for b, _ in members]
        if any(w is None or w < 0 for w in found) or not sum(w or 0.0 for w in found):
            return False
    return True


def _shares(metric: Linear, group: str, members: list[tuple[SampleLine, SampleLine]]
            ) -> list[float]:
    """Each sample's weight in the metric: its group's weight shared equally, or by the
    samples' ``weight`` value (the baseline's side: the reference both sides are held to)."""
    if metric.weight is None:
        return [metric.weights[group] / len(members)] * len(members)
    found = [b.values[metric.weight] for b, _ in members]
    total = sum(found)
    return [metric.weights[group] * w / total for w in found]


def _swaps(metric: Linear, groups: Mapping[str, list[tuple[SampleLine, SampleLine]]]
           ) -> tuple[exact.Swap, ...] | None:
    """Each sample's weight and per-run values, when some sample's two sides hold different
    numbers of runs; None when none does; empty when the run-swap test cannot be had (a run
    without the value, or more than ``SWAP_WAYS`` ways for a sample)."""
    if all(len(b.runs) == len(n.runs) for members in groups.values() for b, n in members):
        return None
    swaps = []
    for group, members in groups.items():
        for (b, n), share in zip(members, _shares(metric, group, members), strict=True):
            base, new = _runs(b, metric.value), _runs(n, metric.value)
            if base is None or new is None or math.comb(len(base) + len(new), len(new)) > SWAP_WAYS:
                return ()
            # Gains: the test asks whether the new runs are this much worse.
            swaps.append((share, tuple(metric.sign * v for v in base),
                          tuple(metric.sign * v for v in new)))
    return tuple(swaps)


def _runs(line: SampleLine, value: str) -> tuple[float, ...] | None:
    """``value`` in each of the sample's inference runs; None when a run lacks it."""
    if not line.runs:
        return (line.values[value],)
    kept = tuple(run[value] for run in line.runs if value in run)
    return kept if len(kept) == len(line.runs) else None


def _draw_weight(base: SampleLine, new: SampleLine) -> float:
    """``1/k`` for each side's ``k`` judge draws, of the sides a sampled judge scored."""
    return ((1 / len(base.draws) if base.judged and base.draws else 0.0)
            + (1 / len(new.draws) if new.judged and new.draws else 0.0))


def _clustered(residuals: Iterable[float]) -> float | None:
    kept = list(residuals)
    # One cluster has no spread to measure (its C/(C-1) would divide by zero): no interval.
    if len(kept) < 2:
        return None
    # C/(C-1): the small-sample correction of the cluster-robust estimator, which without it
    # is biased low when the clusters are few.
    return math.sqrt(len(kept) / (len(kept) - 1) * sum(r * r for r in kept))


def _table(metric: Linear, pairs: list[tuple[SampleLine, SampleLine]],
           clusters: int) -> Table | None:
    """The paired table of a right-or-wrong metric of one group when every value is the
    lowest or the highest and no two samples share a cluster; else None."""
    # McNemar's test takes the pairs as independent: two items of one clip are not, so a shared
    # cluster leaves the metric to the clustered sign-flip test.
    if not metric.binary or len(metric.weights) != 1 or clusters != len(pairs):
        return None
    ends = (metric.low, metric.high)
    cells = {(True, True): 0, (True, False): 0, (False, True): 0, (False, False): 0}
    for b, n in pairs:
        before, after = b.values[metric.value], n.values[metric.value]
        # A mean over several runs lies between the ends: not a 0/1 outcome.
        if before not in ends or after not in ends:
            return None
        cells[(before == metric.high, after == metric.high)] += 1
    return Table(both=cells[(True, True)], lost=cells[(True, False)],
                 gained=cells[(False, True)], neither=cells[(False, False)])


def _can_fall(metric: Linear,
              groups: Mapping[str, list[tuple[SampleLine, SampleLine]]]) -> int:
    """Clusters with a sample that can worsen: above the lowest value, or below the highest
    when lower is better."""
    return len({b.cluster for members in groups.values() for b, _ in members
                if (b.values[metric.value] < metric.high if metric.lower_is_better
                    else b.values[metric.value] > metric.low)})


def quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


@dataclass(frozen=True, slots=True)
class Assessed:
    """A paired metric held against its margin at its level."""

    paired: Paired
    margin: float
    level: float
    """The one-sided level of its tests (the family-wise level shared among the gated)."""
    gated: bool
    """False: too few samples to detect a drop in its range; reported, not gated."""
    low: float | None
    high: float | None
    """The interval of the change at ``level`` on each side, inside the metric's range; None
    when it cannot be had (one cluster, or no spread at all and no judge noise)."""
    detectable: float | None
    """The smallest drop (a rise, when lower is better) found with 80 % power, as a positive
    size; None when no drop within the range is, or when the metric is not gated."""
    p: float | None
    """The larger p-value of the two exact tests (or a bound on it below the level), when the
    change is beyond the margin and the metric is gated; None otherwise (it could not
    regress)."""

    @property
    def regressed(self) -> bool:
        """Both exact tests reject: the change is not chance, and beyond the margin."""
        return self.gated and self.p is not None and self.p <= self.level

    @property
    def gains(self) -> tuple[float | None, float | None]:
        """The interval as improvements (negated and swapped when lower is better): its
        first end is the worst change the run allows."""
        if self.paired.sign > 0 or self.low is None or self.high is None:
            return self.low, self.high
        return -self.high, -self.low


def assess(result: Paired, margin: float, level: float, gated: bool = True) -> Assessed:
    """``result`` assessed at the one-sided ``level``: the interval, the smallest detectable
    drop and, when the change is beyond the margin, the exact tests."""
    low, high = _interval(result, level)
    p = None
    if gated and result.gain < -margin:
        p = _p(result, margin, level)
    return Assessed(paired=result, margin=margin, level=level, gated=gated, low=low, high=high,
                    detectable=_detectable(result, margin, level) if gated else None, p=p)


def _p(result: Paired, margin: float, level: float) -> float:
    """The larger p-value of "nothing changed" and "it dropped by no more than the margin"."""
    if result.swaps is not None:
        return max(exact.swap_p(result.swaps, 0.0, level),
                   exact.swap_p(result.swaps, margin, level))
    # A drop of exactly the margin, shared out by each cluster's weight: under it the shifted
    # sums are as likely up as down, so rejecting it puts the drop beyond the margin.
    shifted = [s + margin * w for s, w in zip(result.sums, result.weights, strict=True)]
    return max(exact.sign_flip_p(result.sums, level), exact.sign_flip_p(shifted, level))


def _quantile(result: Paired, level: float) -> float | None:
    if result.table is not None:
        # Tango's interval is a score test's, on the normal quantile; t is for a clustered SE.
        return quantile(1.0 - level)
    if result.clusters < 2:
        return None
    return exact.t_quantile(1.0 - level, result.clusters - 1)


def _interval(result: Paired, level: float) -> tuple[float | None, float | None]:
    q = _quantile(result, level)
    table = result.table
    if table is not None and q is not None:
        low, high = exact.tango(table.lost, table.gained, result.n, q)
        # Tango's interval is of a difference of proportions, in [-1, 1]: scaled to the range.
        return low * result.span, high * result.span
    se = result.se
    # A zero SE (no spread and no judge noise) would make a point, not an interval: n/a.
    if q is None or not se:
        return None, None
    return (max(-result.span, result.difference - q * se),
            min(result.span, result.difference + q * se))


def _detectable(result: Paired, margin: float, level: float) -> float | None:
    """``margin + (q + z_power) x SE``, the standard error at least what one sample's whole
    swing moves the metric; None beyond the largest drop the baseline allows, or when no
    outcome could reject."""
    q = _quantile(result, level)
    if q is None or not result.detects_at_all(level, margin):
        return None
    # At least one sample's whole swing at its weight: a run whose differences happened to be
    # alike (SE 0) would otherwise claim to detect any drop just past the margin.
    se = max(result.se or 0.0, result.swing * result.heaviest)
    drop = margin + (q + quantile(POWER)) * se
    return drop if drop <= result.room else None


def judge_noise(lines: Iterable[SampleLine]) -> float | None:
    """The standard deviation of one judge draw around its sample's mean, pooled over every
    sample with more than one draw (the two swapped passes, repeats, runs); None without any."""
    squares = 0.0
    freedom = 0
    for line in lines:
        k = len(line.draws)
        if k > 1:
            mean = sum(line.draws) / k
            squares += sum((x - mean) ** 2 for x in line.draws)
            # Pooled within samples: a sample's own mean is estimated from its draws, costing one
            # degree of freedom each, so the variance is not biased low.
            freedom += k - 1
    return math.sqrt(squares / freedom) if freedom else None


def noise_of(written: float | None, lines: Iterable[SampleLine]) -> float | None:
    """The judge's noise a baseline holds: as written in its file, else measured from its
    lines."""
    return written if written is not None else judge_noise(lines)


def items_decidable(noise: float | None, lines: Iterable[SampleLine]) -> bool:
    """Whether a sample's drop can be told from the judge's noise: the noise is known, or no
    score came from a sampled judge."""
    return noise is not None or not any(line.judged for line in lines)


def allowed_drop(base: SampleLine, new: SampleLine, noise: float | None,
                 confidence: float) -> float | None:
    """How far one sample's score may fall from its baseline by the judge's noise alone, at
    the one-sided level ``(1 - confidence) / 2`` (2.5 % at 95 %): an unchanged sample is
    taken for a regression that rarely. None when a sampled judge scored it and its noise
    is unknown (one draw per sample): no drop can then be told from noise."""
    if noise is None and (base.judged or new.judged):
        return None
    # Graded by a rule or a deterministic judge: nothing to allow, any drop is a change.
    if not noise or not base.draws or not new.draws:
        return 0.0
    spread = noise * math.sqrt(1 / len(base.draws) + 1 / len(new.draws))
    return quantile(1.0 - (1.0 - confidence) / 2) * spread
