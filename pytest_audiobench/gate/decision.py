"""The gate's decision for one benchmark: every baselined metric held against this run (pure).

A metric whose baseline has per-sample lines, and that its benchmark can compute from them,
is held paired: its change over the samples both runs scored, against a margin, at a
family-wise confidence level (``paired.py``). Any other metric is held against its
threshold.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench.gate.baseline import Baseline, Threshold
from pytest_audiobench.gate.paired import decide, paired
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import ModelIdentity

RowVerdict = Literal["ok", "below", "regressed", "not measured"]


class GateRow(BaseModel):
    metric: str
    value: float | None
    threshold: float
    tolerance: float
    verdict: RowVerdict
    test: Literal["threshold", "paired"] = "threshold"
    n: int | None = None
    """Paired: the samples both runs scored."""
    baseline: float | None = None
    """Paired: the baseline's value over those samples."""
    difference: float | None = None
    low: float | None = None
    high: float | None = None
    """Paired: the interval of the difference at the family-wise level."""
    margin: float | None = None
    detectable: float | None = None
    """Paired: the smallest drop this sample size detects with 80 % power."""

    @property
    def delta(self) -> float | None:
        return None if self.value is None else self.value - self.threshold


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
        return (all(row.verdict == "ok" for row in self.rows)
                and self.missing <= self.allowed and self.judge_mismatch is None)

    def reasons(self) -> list[str]:
        out = [f"{row.metric} {row.verdict}" + _why(row) for row in self.rows
               if row.verdict != "ok"]
        if self.missing > self.allowed:
            out.append(f"{self.missing} samples without a score, {self.allowed} allowed")
        if self.judge_mismatch:
            out.append(self.judge_mismatch)
        return out


@dataclass(frozen=True)
class Pairing:
    """What the paired gate needs: both runs' sample lines, how the benchmark makes each
    metric from them and its default margins, the confidence, and how many metrics the run
    tests at once."""

    base: Mapping[str, SampleLine]
    new: Mapping[str, SampleLine]
    linear: Callable[[str], Linear | None]
    margin: Callable[[str], float]
    confidence: float
    family: int


def evaluate(baseline: Baseline, metrics: Mapping[str, Metric], missing: int,
             judge_model: str | None, allowed: int | None = None,
             identity: ModelIdentity | None = None, pairing: Pairing | None = None) -> Gate:
    """Hold every metric of the baseline against this run: paired when it can be."""
    rows = []
    for name, limit in baseline.metrics.items():
        row = paired_row(name, pairing, limit, metrics.get(name)) if pairing else None
        if row is not None:
            rows.append(row)
            continue
        metric = metrics.get(name)
        if metric is None:
            verdict: RowVerdict = "not measured"
        elif metric.value < limit.threshold - limit.tolerance - 1e-9:
            verdict = "below"
        else:
            verdict = "ok"
        rows.append(GateRow(metric=name, value=metric.value if metric else None,
                            threshold=limit.threshold, tolerance=limit.tolerance,
                            verdict=verdict))
    mismatch = None
    if baseline.judge_model is not None and baseline.judge_model != judge_model:
        mismatch = (f"baseline judged by {baseline.judge_model}, this run by {judge_model}: "
                    "scores are not comparable")
    other = None
    if identity is not None and baseline.identity is not None:
        other = identity.differs_from(baseline.identity)
    return Gate(rows=rows, missing=missing,
                allowed=baseline.max_errors if allowed is None else allowed,
                judge_mismatch=mismatch, other_model=other)


def paired_metrics(baseline: Baseline | None, linear: Callable[[str], Linear | None],
                   has_lines: bool) -> list[str]:
    """The metrics of ``baseline`` that the paired gate tests (for the family's size)."""
    if baseline is None or not has_lines:
        return []
    return [name for name in baseline.metrics if linear(name) is not None]


def paired_row(name: str, pairing: Pairing, limit: Threshold | None = None,
               metric: Metric | None = None) -> GateRow | None:
    """``name`` held paired, or None when it cannot be (no such linear metric, no baseline
    lines, a weighed group without a sample both runs scored). ``limit`` is the baseline's
    entry (its margin overrides the benchmark's default); ``metric`` this run's value over
    all its samples. Without them (two reports compared) both sides are the paired values."""
    spec = pairing.linear(name)
    if spec is None or not pairing.base:
        return None
    result = paired(spec, pairing.base, pairing.new)
    if result is None:
        return None
    margin = pairing.margin(name) if limit is None or limit.margin is None else limit.margin
    decision = decide(result, margin, pairing.confidence, pairing.family)
    return GateRow(
        metric=name, value=metric.value if metric else result.new,
        threshold=limit.threshold if limit else result.baseline,
        tolerance=limit.tolerance if limit else 0.0,
        verdict="regressed" if decision.regressed else "ok", test="paired", n=result.n,
        baseline=result.baseline, difference=result.difference, low=decision.low,
        high=decision.high, margin=margin, detectable=decision.detectable)


def _why(row: GateRow) -> str:
    if row.verdict == "below" and row.value is not None:
        return f" ({row.value:.3f} < {row.threshold:g} - {row.tolerance:g})"
    if row.verdict == "regressed" and row.difference is not None and row.high is not None:
        return (f" (changed {row.difference:+.3f}; at most {row.high:+.3f}, beyond the margin "
                f"-{row.margin:g})")
    return ""
