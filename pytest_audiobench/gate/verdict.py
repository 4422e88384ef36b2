"""What the gate decides for a run: per benchmark, hold the numbers against its baseline (or
write a new one), and from those decisions the run's exit status."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from pytest_audiobench.config.names import MINI
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate import baseline as baselines
from pytest_audiobench.gate.decision import Gate, Pairing, evaluate
from pytest_audiobench.gate.paired import Assessed, judge_noise
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import ModelIdentity

BaselineStatus = Literal["applied", "missing", "written", "refused", "unwritten", "shard"]


@dataclass(frozen=True, slots=True)
class Decision:
    """One benchmark's baseline: what happened to it, and the gate it gave."""

    status: BaselineStatus
    path: Path
    gate: Gate | None = None
    error: str | None = None
    """Why a baseline that would hold could not be written (``unwritten``)."""


def baseline_path(settings: Settings, benchmark: str) -> Path:
    """``<baselines>/<benchmark>/<model>.json``, under ``mini/`` for a run on the bundled mini
    data (its numbers say nothing of the full release); the model is --audiobench-gate-against
    when given."""
    folder = settings.baselines_dir
    if settings.data.get(benchmark) == MINI:
        folder = folder / MINI
    return baselines.path_for(folder, benchmark, settings.gate_against or settings.model)


def load_baselines(settings: Settings, benchmarks: Sequence[str]
                   ) -> dict[str, baselines.Baseline | None]:
    """Every benchmark's baseline, read (and checked) once, before any request."""
    return {name: baselines.load(baseline_path(settings, name)) for name in benchmarks}


def load_lines(settings: Settings, benchmarks: Sequence[str]
               ) -> dict[str, baselines.BaseLines]:
    """Every benchmark's per-sample baseline lines (empty for a threshold-only baseline)."""
    return {name: baselines.load_samples(baseline_path(settings, name)) for name in benchmarks}


def decide(settings: Settings, benchmark: str, headline: Sequence[str],
           metrics: Mapping[str, Metric], missing: int,
           current: baselines.Baseline | None, identity: ModelIdentity | None,
           pairing: Pairing | None = None, assessed: Mapping[str, Assessed] | None = None
           ) -> Decision:
    """Hold ``metrics`` against the baseline (paired where ``assessed`` has them); with
    --audiobench-update-baseline write a new one, with this run's sample lines (and the old
    lines of samples this run did not score), when they would hold against it (a shard never
    gates: its merge does)."""
    path = baseline_path(settings, benchmark)
    judge_model = settings.judge.endpoint.model if settings.judge else None
    if settings.shard is not None:
        return Decision("shard", path)
    if settings.update_baseline:
        base, new = (pairing.base, pairing.new) if pairing else ({}, {})
        lines = {**base, **new}  # the old lines without their texts: the noise needs draws
        fresh = baselines.from_run(benchmark, settings.model, judge_model, metrics,
                                   tuple(headline), settings.tolerance, current,
                                   settings.max_errors, identity, judge_noise(lines.values()))
        gate = evaluate(fresh, metrics, missing, judge_model)
        if not gate.held:
            return Decision("refused", path, gate)
        # Samples this run did not score keep their old lines, texts read back one by one.
        kept = (new.get(nodeid) or baselines.whole(base, nodeid) for nodeid in sorted(lines))
        try:
            baselines.write(path, fresh, (line for line in kept if line is not None))
        except OSError as exc:
            return Decision("unwritten", path, gate, exc.strerror or str(exc))
        return Decision("written", path, gate)
    if current is None:
        return Decision("missing", path)
    return Decision("applied", path,
                    evaluate(current, metrics, missing, judge_model, settings.max_errors,
                             identity, assessed))


def exit_status(settings: Settings, decisions: Sequence[Decision], status: int | pytest.ExitCode,
                foreign_failures: int = 0) -> int | pytest.ExitCode:
    """The gate decides: non-zero when it failed, zero when it held even if samples failed
    (unless --audiobench-fail-on-samples); pytest's own status stands without a gate, and for
    interruptions, usage errors and other tests' failures."""
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return status
    gated = [d for d in decisions if d.gate is not None]
    if not all(d.gate.held for d in gated if d.gate is not None) or foreign_failures:
        return pytest.ExitCode.TESTS_FAILED
    if settings.require_baseline and any(d.status == "missing" for d in decisions):
        return pytest.ExitCode.TESTS_FAILED
    if settings.fail_on_samples or len(gated) < len(decisions):
        return status
    return pytest.ExitCode.OK
