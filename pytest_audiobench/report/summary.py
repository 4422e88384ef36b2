"""The end of a run as data: metrics, counts, the gate's decision and the exit status.

Pure of pytest's session: a plain run, the xdist controller and the merge of shard reports
(``audiobench-merge``) all build the same report from the same records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.benchmarks.sample import ROOT_NODE
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate import baseline as baselines
from pytest_audiobench.gate.decision import evaluate
from pytest_audiobench.outcome.metrics import combine_runs
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import BenchmarkSummary, RunReport, count, usage

Baselines = Mapping[str, "baselines.Baseline | None"]


def load_baselines(settings: Settings, benchmarks: Mapping[str, Benchmark]) -> dict[
        str, baselines.Baseline | None]:
    """Every benchmark's baseline, read (and checked) once, before any request."""
    return {name: baselines.load(baseline_path(settings, name)) for name in benchmarks}


def baseline_path(settings: Settings, benchmark: str) -> Path:
    return baselines.path_for(settings.baselines_dir, benchmark, settings.model)


def build_report(settings: Settings, benchmarks: Mapping[str, Benchmark],
                 records: Sequence[SampleRecord], selected: Sequence[str],
                 current: Baselines) -> RunReport:
    """The report of ``records`` out of the ``selected`` node ids (missing ones did not run)."""
    summaries = [summarise(settings, name, bench, records, selected, current.get(name))
                 for name, bench in benchmarks.items()]
    held = all(s.gate is None or s.gate.held for s in summaries)
    return RunReport(settings=settings, benchmarks=summaries, usage=usage(records),
                     gate_held=held, selected=list(selected), samples=list(records))


def summarise(settings: Settings, name: str, bench: Benchmark, records: Sequence[SampleRecord],
              selected: Sequence[str], current: baselines.Baseline | None) -> BenchmarkSummary:
    mine = [r for r in records if r.benchmark == name]
    counts = count(mine, sum(1 for n in selected if n.startswith(f"{ROOT_NODE}::{name}::")))
    per_run = [bench.metrics(mine, run) for run in range(settings.runs)]
    metrics = combine_runs(per_run)
    path = baseline_path(settings, name)
    judge_model = settings.judge.endpoint.model if settings.judge else None
    summary = BenchmarkSummary(
        benchmark=name, metrics=metrics, runs=per_run if len(per_run) > 1 else [],
        notes=bench.notes(settings) + bench.finish(mine, settings),
        headline=list(bench.headline()), counts=counts,
        failed_means=bench.failed_means(settings), baseline_path=str(path), baseline="missing")
    if settings.shard is not None:
        summary.baseline = "shard"
    elif settings.update_baseline:
        fresh = baselines.from_run(name, settings.model, judge_model, metrics, bench.headline(),
                                   settings.tolerance, current)
        gate = evaluate(fresh, metrics, counts.gate_errors, judge_model,
                                  settings.max_errors)
        if gate.held:
            baselines.write(path, fresh)
        summary.baseline = "written" if gate.held else "refused"
        summary.gate = gate
    elif current is not None:
        summary.gate = evaluate(current, metrics, counts.gate_errors, judge_model,
                                          settings.max_errors)
        summary.baseline = "applied"
    return summary


def exit_status(report: RunReport, status: int | pytest.ExitCode,
                foreign_failures: int = 0) -> int | pytest.ExitCode:
    """The gate decides: non-zero when it failed, zero when it held even if samples failed
    (unless --audiobench-fail-on-samples); pytest's own status stands without a gate, and for
    interruptions, usage errors and other tests' failures."""
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return status
    settings = report.settings
    summaries = report.benchmarks
    gated = [s for s in summaries if s.gate is not None]
    if not report.gate_held or foreign_failures:
        return pytest.ExitCode.TESTS_FAILED
    if settings.require_baseline and any(s.baseline == "missing" for s in summaries):
        return pytest.ExitCode.TESTS_FAILED
    if settings.fail_on_samples or len(gated) < len(summaries):
        return status
    return pytest.ExitCode.OK
