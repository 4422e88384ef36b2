"""A baseline evaluated against one benchmark's numbers: every baselined metric held against
this run, a row each (pure). ``decision.py`` decides from it what the baseline's file and the
run's exit status become.

A metric whose baseline has per-sample lines, and that its benchmark can compute from them,
is held paired: its change over the samples both runs scored, against a margin, at its share
of the family-wise level (``paired.py``, ``family.py``). Any other metric is held against its
threshold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from pydantic import AliasChoices, BaseModel, Field

from pytest_audiobench.gate.baseline import Baseline, Threshold
from pytest_audiobench.gate.drift import other_judge
from pytest_audiobench.gate.family import MIN_N, Candidate, plan
from pytest_audiobench.gate.paired import Assessed, Method, paired
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity

RowStatus = Literal["ok", "worse within margin", "can't tell", "below", "regressed",
                    "too small", "not measured", "not selected", "judge changed", "above",
                    "over", "under"]
"""A metric row's status, what the gate says of a paired metric or of a threshold: ``above``
or ``below`` its threshold less its tolerance, for a metric better higher; ``under`` or
``over`` its threshold plus its tolerance, for one better lower (a word error rate). ``ok``
is said only of a paired metric whose interval rules a drop out (a rise, when lower is
better)."""
HOLDING: frozenset[RowStatus] = frozenset({"ok", "worse within margin", "can't tell",
                                           "too small", "not selected", "judge changed",
                                           "above", "under"})
"""Statuses the gate holds on: a metric measurably worse but not beyond its margin is said
and held; one whose interval reaches past the margin while the exact tests find no
regression cannot be told either way (held, and said: the run could not rule the drop out);
one too small to be gated is reported, not held; so is one the run's selection (-k, -m,
--deselect, --audiobench-tasks) left without a sample, and one held against a threshold the
baseline's judge set when today's judge is another (``drift.py``)."""
UNRESOLVED: frozenset[RowStatus] = frozenset({"can't tell", "too small", "not selected",
                                              "judge changed"})
"""Held statuses that say nothing of the metric: the gate is blind to it in this run."""


class GateRow(BaseModel):
    metric: str
    value: float | None
    threshold: float
    tolerance: float
    status: RowStatus = Field(validation_alias=AliasChoices("status", "verdict"))
    """What the gate says of the metric (``RowStatus``); format 6 and before called it
    ``verdict``."""
    test: Literal["threshold", "paired"] = "threshold"
    n: int | None = None
    """Paired: the samples both runs scored."""
    baseline: float | None = None
    """Paired: the baseline's value over those samples."""
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    """Paired: the interval of the difference at the metric's level, inside its range."""
    margin: float | None = None
    detectable: float | None = None
    """Paired: the smallest drop this sample size detects with 80 % power; None when no
    drop within the metric's range is."""
    method: Method | None = None
    """Paired: how it was tested (``paired.Method``)."""
    level: float | None = None
    """Paired: the one-sided level of its tests."""
    p: float | None = None
    """Paired: the exact test's p-value, when the interval lies beyond the margin."""
    span: float | None = None
    """Paired: the width of the metric's range; its change lies within plus or minus it."""
    min_n: int | None = None
    """Paired: the samples both runs scored from which it is gated."""
    lower_is_better: bool = False
    """The metric is better lower (a word error rate): its threshold is a ceiling, its
    margin a rise allowed, and ``detectable`` the smallest rise found."""

    @property
    def delta(self) -> float | None:
        return None if self.value is None else self.value - self.threshold

    @property
    def sign(self) -> int:
        """+1 when higher is better, -1 when lower is: a change times it is a gain."""
        return -1 if self.lower_is_better else 1

    @property
    def limit(self) -> float:
        """The change that is allowed at worst, signed: minus the margin (paired) or the
        tolerance (a threshold), plus it when lower is better."""
        allowed = (self.margin or 0.0) if self.test == "paired" else self.tolerance
        return -self.sign * allowed


class Gate(BaseModel):
    """The gate's decision for one benchmark."""

    rows: list[GateRow]
    missing: int
    """Selected samples without a score (errors, skips, not run)."""
    allowed: int
    """How many may be missing (the baseline's max_errors, or --audiobench-max-errors)."""
    judge_mismatch: str | None = None
    other_model: str | None = None
    """How the baseline's model differs from this run's (revision, weights): said, not a
    failure (a new checkpoint is what a gate is for)."""

    @property
    def held(self) -> bool:
        return (all(row.status in HOLDING for row in self.rows)
                and self.missing <= self.allowed and self.judge_mismatch is None)

    def reasons(self) -> list[str]:
        out = [f"{row.metric} {row.status}" + _why(row) for row in self.rows
               if row.status not in HOLDING]
        if self.missing > self.allowed:
            out.append(f"{self.missing} samples without a score, {self.allowed} allowed")
        if self.judge_mismatch:
            out.append(self.judge_mismatch)
        return out


class Pairs(Protocol):
    """What a benchmark tells the paired gate: how it makes each metric from sample lines,
    and each metric's default margin."""

    def linear(self, metric: str) -> Linear | None: ...

    def margin(self, metric: str) -> float: ...


@dataclass(frozen=True)
class Pairing:
    """What the paired gate needs of one benchmark: both runs' sample lines, how the benchmark
    makes each metric from them and its default margins, and the judge's noise."""

    base: Mapping[str, SampleLine]
    new: Mapping[str, SampleLine]
    linear: Callable[[str], Linear | None]
    margin: Callable[[str], float]
    noise: float | None = None

    @classmethod
    def of(cls, bench: Pairs, base: Mapping[str, SampleLine], new: Mapping[str, SampleLine],
           noise: float | None, margins: Mapping[str, float] | None = None) -> Pairing:
        """``new`` held against ``base``, the run's and a baseline's or two reports', as
        ``bench`` makes its metrics; ``noise`` is the judge's, measured on the side held
        against; ``margins`` given replace the benchmark's defaults."""
        given = dict(margins or {})
        return cls(base, new, bench.linear, noise=noise, margin=lambda metric: given[metric]
                   if metric in given else bench.margin(metric))


def candidates(pairing: Pairing, limits: Mapping[str, Threshold | None]
               ) -> dict[str, Candidate]:
    """The metrics of ``limits`` (a baseline's entries, or None for a default one) that can
    be held paired, with their margins and minimum n: a linear metric of which every weighed
    group has a sample both runs scored."""
    out = {}
    for name, limit in limits.items():
        spec = pairing.linear(name)
        result = paired(spec, pairing.base, pairing.new, pairing.noise) if spec else None
        if result is None:
            continue
        margin = limit.margin if limit and limit.margin is not None else pairing.margin(name)
        out[name] = Candidate(result, margin, limit.min_n if limit and limit.min_n else MIN_N)
    return out


def assess_all(pairings: Mapping[str, Pairing],
               limits: Mapping[str, Mapping[str, Threshold | None]], confidence: float,
               gate_small: bool = False) -> dict[str, dict[str, Assessed]]:
    """Per benchmark, its metrics of ``limits`` that can be held paired, assessed as one
    family: every benchmark of the run shares the confidence level."""
    # Keyed by benchmark too: two benchmarks may name a metric alike, and all of them are one
    # family, so each takes its share of one level.
    found = {(name, metric): candidate for name, chosen in limits.items()
             for metric, candidate in candidates(pairings[name], chosen).items()}
    out: dict[str, dict[str, Assessed]] = {name: {} for name in pairings}
    for (name, metric), assessed in plan(found, confidence, gate_small).items():
        out[name][metric] = assessed
    return out


@dataclass(frozen=True, slots=True)
class Measured:
    """What a run measured of one benchmark, as a baseline is held against it."""

    metrics: Mapping[str, Metric]
    missing: int
    """Selected samples without a score (errors, skips, not run)."""
    judge_model: str | None = None
    judge: JudgeIdentity | None = None
    """Today's judge's identity, held against the baseline's by ``drift.other_judge``."""
    identity: ModelIdentity | None = None
    """What identified the model, held against the baseline's (said, not a failure)."""
    assessed: Mapping[str, Assessed] = field(default_factory=dict)
    """Its metrics held paired (``family.plan``); the others are held by threshold."""
    narrowed: bool = False
    """The run's selection left some of the benchmark's samples out, so a metric without a
    value was not selected (held), not lost (failed)."""


def evaluate(baseline: Baseline, measured: Measured, *, allowed: int | None = None,
             stale: frozenset[str] | None = None, lower: Collection[str] = frozenset()
             ) -> Gate:
    """Hold every metric of the baseline against what this run ``measured``: paired where it
    has the metric assessed, else against its threshold, unless it is in ``stale``: a judge
    decides it and every baseline answer was judged again today, so the threshold the
    baseline's judge set says nothing (reported, not held; nor is another judge model a
    mismatch). ``allowed``: the samples without a score it allows (else the baseline's
    max_errors); ``lower``: the metrics better lower, whose thresholds are ceilings
    (``baseline.lower_better``)."""
    metrics, assessed, narrowed = measured.metrics, measured.assessed, measured.narrowed
    judge_model, judge, identity = measured.judge_model, measured.judge, measured.identity
    rows = []
    for name, limit in baseline.metrics.items():
        metric = metrics.get(name)
        if assessed and name in assessed:
            rows.append(paired_row(name, assessed[name], limit, metric))
            continue
        if metric is None:
            status: RowStatus = "not selected" if narrowed else "not measured"
        elif stale is not None and name in stale:
            status = "judge changed"
        else:
            status = _threshold_status(metric.value, limit, name in lower)
        rows.append(GateRow(metric=name, value=metric.value if metric else None,
                            threshold=limit.threshold, tolerance=limit.tolerance,
                            status=status, lower_is_better=name in lower))
    mismatch = None
    # A run with no judge measured nothing a judge decides (those metrics are not measured,
    # and fail as such): the rest is comparable whoever judged the baseline.
    other = None if baseline.judge_model is None or stale is not None or judge_model is None \
        else other_judge(baseline.judge_model, baseline.judge, judge_model, judge)
    if other is not None:
        # Two model names already say the difference; one name with another identity (a snapshot,
        # a sampling, a prompt) says which field moved.
        how = "" if baseline.judge_model != judge_model else f" ({other})"
        mismatch = (f"baseline judged by {baseline.judge_model}, this run by {judge_model}"
                    f"{how}: scores are not comparable")
    other = None
    if identity is not None and baseline.identity is not None:
        other = identity.differs_from(baseline.identity)
    return Gate(rows=rows, missing=measured.missing,
                allowed=baseline.max_errors if allowed is None else allowed,
                judge_mismatch=mismatch, other_model=other)


def _threshold_status(value: float, limit: Threshold, lower: bool) -> RowStatus:
    """A value against its threshold: a floor less the tolerance, or a ceiling plus it."""
    if lower:
        # The 1e-9: float arithmetic (the threshold plus or less its tolerance) must not fail a
        # value that sits exactly on the limit.
        return "over" if value > limit.threshold + limit.tolerance + 1e-9 else "under"
    return "below" if value < limit.threshold - limit.tolerance - 1e-9 else "above"


def paired_row(name: str, test: Assessed, limit: Threshold | None = None,
               metric: Metric | None = None) -> GateRow:
    """``name`` as the paired gate held it. ``limit`` is the baseline's entry; ``metric``
    this run's value over all its samples. Without them (two reports compared) both sides
    are the paired values."""
    result = test.paired
    return GateRow(
        metric=name, value=metric.value if metric else result.new,
        threshold=limit.threshold if limit else result.baseline,
        tolerance=limit.tolerance if limit else 0.0, status=_paired_status(test), test="paired",
        n=result.n, baseline=result.baseline, difference=result.difference, low=test.low,
        high=test.high, margin=test.margin, detectable=test.detectable, method=result.method,
        # An open range (a word error rate) has no width to write: JSON holds no infinity.
        level=test.level, p=test.p, span=result.span if math.isfinite(result.span) else None,
        min_n=limit.min_n if limit and limit.min_n else MIN_N,
        lower_is_better=result.sign < 0)


def _paired_status(test: Assessed) -> RowStatus:
    """Regressed when the exact tests say so; else can't tell when its interval reaches past
    the margin (or cannot be had): no drop beyond it is ruled out; else worse within the
    margin when the whole interval lies below zero; else ok: the interval rules out a drop
    beyond the margin."""
    if not test.gated:
        return "too small"
    if test.regressed:
        return "regressed"
    worst, best = test.gains
    # The regression test comes first: an interval reaching past the margin is not enough to
    # fail, only the exact tests fail a metric; here it means the drop cannot be ruled out.
    if worst is None or best is None or worst < -test.margin - 1e-12:
        return "can't tell"
    return "worse within margin" if best < 0 else "ok"


def _why(row: GateRow) -> str:
    if row.status == "below" and row.value is not None:
        return f" ({row.value:.3f} < {row.threshold:g} - {row.tolerance:g})"
    if row.status == "over" and row.value is not None:
        return f" ({row.value:.3f} > {row.threshold:g} + {row.tolerance:g})"
    bound = row.high if row.sign > 0 else row.low
    if row.status == "regressed" and row.difference is not None and bound is not None:
        return (f" (changed {row.difference:+.3f}; at {'most' if row.sign > 0 else 'least'} "
                f"{bound:+.3f}, beyond the margin {row.limit:+g}; p {row.p:.2g} at level "
                f"{row.level:.2g})")
    return ""


def paired_notes(rows: Sequence[GateRow], gate_small: str = "--audiobench-gate-small"
                 ) -> list[str]:
    """What a paired table cannot say in its cells: the metrics too small to gate, drops none
    of which can be detected, an interval below the margin that the exact tests find to be
    chance. ``gate_small`` names the flag that gates the small ones."""
    paired = [r for r in rows if r.test == "paired"]
    small = [r for r in paired if r.status == "too small"]
    lines = []
    if small:
        floors = sorted({r.min_n for r in small if r.min_n is not None})
        below = f"n below {floors[0]}" if len(floors) == 1 else "n below their minimum"
        lines.append(f"too small: {len(small)} metric(s) with too few samples to detect a drop "
                     f"({below}, or no drop in their range could be told from chance): "
                     f"reported, not gated ({gate_small} gates them)")
    if any(r.detectable is None and r.status != "too small" for r in paired):
        lines.append("detects -: no drop within the metric's range is found 80 % of the time "
                     "with these samples")
    changed = [r.metric for r in rows if r.status == "judge changed"]
    if changed:
        lines.append(f"judge changed: {', '.join(changed)} held against a threshold the "
                     "baseline's judge set, while every baseline answer was judged again "
                     "today: reported, not held")
    lines += [f"{r.metric}: its interval lies {'below' if r.sign > 0 else 'above'} the "
              f"margin, but the exact tests say the {'drop' if r.sign > 0 else 'rise'} could "
              f"be chance (p {r.p:.2g} at level {r.level:.2g}): not a regression"
              for r in paired if r.status == "can't tell" and r.low is not None
              and r.high is not None and r.margin is not None
              and (r.high if r.sign > 0 else -r.low) < -r.margin and r.p is not None
              and r.level is not None]
    lower = [r.metric for r in rows if r.lower_is_better]
    if lower:
        lines.append(f"lower is better: {some(lower)}: a rise is a regression, and its margin "
                     "and detects are rises")
    unclear = [r for r in paired if r.status == "can't tell"]
    if unclear:
        lines.append(f"can't tell: {len(unclear)} metric(s) whose interval reaches past the "
                     "margin with no regression found: this run cannot rule out such a drop "
                     "(more samples, runs or judge draws narrow it; detects says how far)")
    return lines


def some(names: Sequence[str], shown: int = 4) -> str:
    """A few names and how many more."""
    rest = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {rest} more" if rest > 0 else "")
