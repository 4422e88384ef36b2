"""The gate's decision for one benchmark: every baselined metric held against this run (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench.gate.baseline import Baseline
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import ModelIdentity

RowVerdict = Literal["ok", "below", "not measured"]


class GateRow(BaseModel):
    metric: str
    value: float | None
    threshold: float
    tolerance: float
    verdict: RowVerdict

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
        out = [f"{row.metric} {row.verdict}" + (
            f" ({row.value:.3f} < {row.threshold:g} - {row.tolerance:g})"
            if row.verdict == "below" and row.value is not None else "")
            for row in self.rows if row.verdict != "ok"]
        if self.missing > self.allowed:
            out.append(f"{self.missing} samples without a score, {self.allowed} allowed")
        if self.judge_mismatch:
            out.append(self.judge_mismatch)
        return out


def evaluate(baseline: Baseline, metrics: Mapping[str, Metric], missing: int,
             judge_model: str | None, allowed: int | None = None,
             identity: ModelIdentity | None = None) -> Gate:
    """Hold every metric of the baseline against this run's values."""
    rows = []
    for name, limit in baseline.metrics.items():
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
