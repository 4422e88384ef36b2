"""Paired statistics for a release gate (pure): a metric's change between a baseline run and a
new one over the samples both scored, its standard error clustered by shared context, the
judge's noise, and whether one sample dropped by more than that noise explains.

The facts are those of "Adding Error Bars to Evals" (Miller, 2024): paired differences, the
cluster-robust standard error with its C/(C-1) factor, Bonferroni's correction when several
metrics are tested at once, and the smallest effect detectable at a given power. The
statistics page of the docs (docs/statistics.md) explains them in plain words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from statistics import NormalDist

from pytest_audiobench.outcome.lines import Linear, SampleLine

_NORMAL = NormalDist()
POWER = 0.8
"""The power at which the smallest detectable drop is given."""


@dataclass(frozen=True, slots=True)
class Paired:
    """A metric over the samples both runs scored."""

    n: int
    clusters: int
    baseline: float
    new: float
    se: float | None
    """Clustered standard error of ``new - baseline``; None with fewer than two clusters."""

    @property
    def difference(self) -> float:
        return self.new - self.baseline


def paired(metric: Linear, base: Mapping[str, SampleLine],
           new: Mapping[str, SampleLine]) -> Paired | None:
    """The metric on both sides over the samples both scored, and the clustered standard
    error of the difference; None unless every group the metric weighs has such a sample."""
    groups: dict[str, list[tuple[SampleLine, SampleLine]]] = {}
    for sample in sorted(base.keys() & new.keys()):
        b, n = base[sample], new[sample]
        group = n.groups.get(metric.by, "")
        if group in metric.weights and metric.value in b.values and metric.value in n.values:
            groups.setdefault(group, []).append((b, n))
    if set(groups) != set(metric.weights):
        return None
    base_value = new_value = 0.0
    influence: dict[str, float] = {}
    for group, members in groups.items():
        share = metric.weights[group] / len(members)
        diffs = [n.values[metric.value] - b.values[metric.value] for b, n in members]
        mean_diff = sum(diffs) / len(diffs)
        base_value += share * sum(b.values[metric.value] for b, _ in members)
        new_value += share * sum(n.values[metric.value] for _, n in members)
        for (_, n), d in zip(members, diffs, strict=True):
            # Each sample's share of the change, less its group's mean: the residuals the
            # cluster-robust estimator adds up within each cluster before squaring.
            influence[n.cluster] = influence.get(n.cluster, 0.0) + share * (d - mean_diff)
    clusters = len(influence)
    se = None
    if clusters >= 2:
        se = math.sqrt(clusters / (clusters - 1) * sum(r * r for r in influence.values()))
    return Paired(n=sum(len(m) for m in groups.values()), clusters=clusters,
                  baseline=base_value, new=new_value, se=se)


def quantile(p: float) -> float:
    return _NORMAL.inv_cdf(p)


@dataclass(frozen=True, slots=True)
class Decision:
    """A paired metric held against its margin at a family-wise level."""

    paired: Paired
    margin: float
    z: float
    """The one-sided quantile at the Bonferroni-corrected level."""

    @property
    def low(self) -> float | None:
        se = self.paired.se
        return None if se is None else self.paired.difference - self.z * se

    @property
    def high(self) -> float | None:
        se = self.paired.se
        return None if se is None else self.paired.difference + self.z * se

    @property
    def regressed(self) -> bool:
        """Confident, at the family-wise level, that the metric dropped by more than the
        margin: even the upper bound of the change is below ``-margin``."""
        return self.high is not None and self.high < -self.margin

    @property
    def detectable(self) -> float | None:
        """The smallest drop this sample size detects with 80 % power: the margin plus
        ``(z + z_power)`` standard errors."""
        se = self.paired.se
        return None if se is None else self.margin + (self.z + quantile(POWER)) * se


def decide(result: Paired, margin: float, confidence: float, family: int) -> Decision:
    """Bonferroni over ``family`` metrics tested at once keeps the chance that an unchanged
    model fails the gate at most ``1 - confidence``."""
    alpha = (1.0 - confidence) / max(1, family)
    return Decision(paired=result, margin=margin, z=quantile(1.0 - alpha))


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
            freedom += k - 1
    return math.sqrt(squares / freedom) if freedom else None


def noise_of(written: float | None, lines: Iterable[SampleLine]) -> float | None:
    """The judge's noise a baseline holds: as written in its file, else measured from its
    lines."""
    return written if written is not None else judge_noise(lines)


def items_comparable(noise: float | None, lines: Iterable[SampleLine]) -> bool:
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
    if not noise or not base.draws or not new.draws:
        return 0.0
    spread = noise * math.sqrt(1 / len(base.draws) + 1 / len(new.draws))
    return quantile(1.0 - (1.0 - confidence) / 2) * spread
