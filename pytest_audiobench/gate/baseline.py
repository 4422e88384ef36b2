"""Baseline files (``<dir>/<benchmark>/<model>.json``) and the gate they define (pure)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_audiobench.errors import BaselineError, problems
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import ModelIdentity


class Threshold(BaseModel):
    """The lowest acceptable value of one metric is ``threshold - tolerance``."""

    # Strict: a threshold written as "7.0" or true is a mistake in the file, not a number.
    model_config = ConfigDict(extra="forbid", strict=True)

    # Finite: Python's JSON reader takes NaN, and a NaN threshold would never fail.
    threshold: float = Field(allow_inf_nan=False)
    tolerance: float = Field(default=0.0, ge=0, allow_inf_nan=False)


class Baseline(BaseModel):
    """Per-metric thresholds of one model on one benchmark, and the judge they came from."""

    model_config = ConfigDict(extra="forbid", strict=True)

    benchmark: str
    model: str
    judge_model: str | None = None
    """Judge the thresholds were measured with; another judge's numbers are not comparable."""
    source: str | None = None
    """Where the thresholds come from when no run here wrote them (a paper, a leaderboard)."""
    identity: ModelIdentity | None = None
    """What identified the model of the run that wrote it (revision, weights)."""
    max_errors: int = Field(default=0, ge=0)
    """Selected samples that may be without a score (errors, skips for missing or empty audio,
    not run) before the gate fails."""
    metrics: dict[str, Threshold]


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


def from_run(benchmark: str, model: str, judge_model: str | None, metrics: Mapping[str, Metric],
             names: tuple[str, ...], tolerance: float, previous: Baseline | None,
             allowed: int | None = None, identity: ModelIdentity | None = None) -> Baseline:
    """A baseline of this run's values for ``names`` and for every metric ``previous`` gated;
    tolerances of ``previous`` stay, and so does its allowance unless ``allowed`` is given."""
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
    if allowed is None:
        allowed = previous.max_errors if previous else 0
    return Baseline(benchmark=benchmark, model=model, judge_model=judge_model,
                    identity=identity, max_errors=allowed, metrics=kept)


def _tolerance(name: str, score_tolerance: float) -> float:
    # Win rates are shares (0-1), scores are on the judge's 0-10 scale.
    return round(score_tolerance / 10, 4) if name.endswith(".win_rate") else score_tolerance


def write(path: Path, baseline: Baseline) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(baseline.model_dump_json(indent=2) + "\n", encoding="utf-8")
