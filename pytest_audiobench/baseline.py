"""Baseline files (``<dir>/<benchmark>/<model>.json``) and the gate they define (pure)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_audiobench.errors import BaselineError, problems
from pytest_audiobench.scoring import Metric

Verdict = Literal["ok", "below", "not measured"]


class Threshold(BaseModel):
    """The lowest acceptable value of one metric is ``threshold - tolerance``."""

    # Strict: a threshold written as "7.0" or true is a mistake in the file, not a number.
    model_config = ConfigDict(extra="forbid", strict=True)

    threshold: float
    tolerance: float = Field(default=0.0, ge=0)


class Baseline(BaseModel):
    """Per-metric thresholds of one model on one benchmark, and the judge they came from."""

    model_config = ConfigDict(extra="forbid", strict=True)

    benchmark: str
    model: str
    judge_model: str | None = None
    """Judge the thresholds were measured with; another judge's numbers are not comparable."""
    max_errors: int = Field(default=0, ge=0)
    """Samples that may error (infrastructure, judge failures, not run) before the gate fails."""
    metrics: dict[str, Threshold]


class GateRow(BaseModel):
    metric: str
    value: float | None
    threshold: float
    tolerance: float
    verdict: Verdict

    @property
    def delta(self) -> float | None:
        return None if self.value is None else self.value - self.threshold


class Gate(BaseModel):
    """The gate's decision for one benchmark."""

    rows: list[GateRow]
    errors: int
    max_errors: int
    judge_mismatch: str | None = None

    @property
    def held(self) -> bool:
        return (all(row.verdict == "ok" for row in self.rows)
                and self.errors <= self.max_errors and self.judge_mismatch is None)

    def reasons(self) -> list[str]:
        out = [f"{row.metric} {row.verdict}" + (
            f" ({row.value:.3f} < {row.threshold:g} - {row.tolerance:g})"
            if row.verdict == "below" and row.value is not None else "")
            for row in self.rows if row.verdict != "ok"]
        if self.errors > self.max_errors:
            out.append(f"{self.errors} errors, {self.max_errors} allowed")
        if self.judge_mismatch:
            out.append(self.judge_mismatch)
        return out


def path_for(folder: Path, benchmark: str, model: str) -> Path:
    """Model ids like ``Qwen/Qwen2-Audio-7B-Instruct`` become one safe file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "__", model).strip(".")
    return folder / benchmark / f"{safe}.json"


def load(path: Path) -> Baseline | None:
    """The baseline at ``path``; None when there is none; BaselineError when it is bad."""
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path}: not readable as JSON ({exc})") from exc
    try:
        return Baseline.model_validate(raw)
    except ValidationError as exc:
        raise BaselineError(
            f"baseline {path}: {problems(exc, 'file')}; expected {{benchmark, model, judge_model, "
            "max_errors, metrics: {name: {threshold, tolerance}}}"
        ) from None


def evaluate(baseline: Baseline, metrics: Mapping[str, Metric], errors: int,
             judge_model: str | None, max_errors: int | None = None) -> Gate:
    """Hold every metric of the baseline against this run's values."""
    rows = []
    for name, limit in baseline.metrics.items():
        metric = metrics.get(name)
        if metric is None:
            verdict: Verdict = "not measured"
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
    return Gate(rows=rows, errors=errors,
                max_errors=baseline.max_errors if max_errors is None else max_errors,
                judge_mismatch=mismatch)


def from_run(benchmark: str, model: str, judge_model: str | None, metrics: Mapping[str, Metric],
             names: tuple[str, ...], tolerance: float, previous: Baseline | None) -> Baseline:
    """A baseline of this run's values for ``names`` and for every metric ``previous`` gated;
    tolerances and the error allowance of ``previous`` stay."""
    old = previous.metrics if previous else {}
    kept: dict[str, Threshold] = {}
    for name in dict.fromkeys((*names, *old)):
        if name in metrics:
            kept[name] = Threshold(
                # Rounded down: a baseline must hold against the run that wrote it.
                threshold=math.floor(metrics[name].value * 10_000) / 10_000,
                tolerance=old[name].tolerance if name in old else _tolerance(name, tolerance))
        elif name in old:
            kept[name] = old[name]
    return Baseline(benchmark=benchmark, model=model, judge_model=judge_model,
                    max_errors=previous.max_errors if previous else 0, metrics=kept)


def _tolerance(name: str, score_tolerance: float) -> float:
    # Win rates are shares (0-1), scores are on the judge's 0-10 scale.
    return round(score_tolerance / 10, 4) if name.endswith(".win_rate") else score_tolerance


def write(path: Path, baseline: Baseline) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(baseline.model_dump_json(indent=2) + "\n", encoding="utf-8")
