"""The end of a run as data: metrics, counts, the gate's decision and the exit status.

Pure of pytest's session: a plain run, the xdist controller and the merge of shard reports
(``audiobench-merge``) all build the same report from the same records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.base import Benchmark, Release
from pytest_audiobench.benchmarks.sample import ROOT_NODE
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.baseline import Baseline
from pytest_audiobench.gate.decision import Pairing, paired_metrics
from pytest_audiobench.gate.paired import items_comparable, noise_of
from pytest_audiobench.gate.verdict import Decision, decide, exit_status
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.metrics import combine_runs
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import BenchmarkSummary, RunInfo, RunReport, count, usage
from pytest_audiobench.transport.types import ModelIdentity, Traffic

Baselines = Mapping[str, "Baseline | None"]

ITEMS_BY_THE_BAR = (
    "items: held against the bar, not the per-sample baseline: the baseline has one judge draw "
    "per sample, so the judge's noise is unknown and no sample's drop can be told from it "
    "(write the baseline with the swap on, the default, or --audiobench-judge-repeats 2)")


def build_report(settings: Settings, benchmarks: Mapping[str, Benchmark],
                 releases: Mapping[str, Release], records: Sequence[SampleRecord],
                 selected: Sequence[str], current: Baselines, traffic: Traffic,
                 run: RunInfo | None,
                 base_lines: Mapping[str, Mapping[str, SampleLine]] | None = None,
                 seconds: float | None = None) -> RunReport:
    """The report of ``records`` out of the ``selected`` node ids (missing ones did not run).
    With per-sample baseline lines, the metrics the benchmarks can pair are gated paired; all
    of them at once count as one family for the confidence level."""
    identity = run.identity if run is not None else None
    base_lines = base_lines or {}
    family = sum(len(paired_metrics(current.get(name), bench.linear, bool(base_lines.get(name))))
                 for name, bench in benchmarks.items())
    summaries = []
    for name, bench in benchmarks.items():
        mine = [r for r in records if r.benchmark == name]
        # Sample lines serve a per-sample baseline or the one being written; else none.
        wanted = bool(base_lines.get(name)) or settings.update_baseline
        new = {line.id: line for line in map(bench.sample_line, mine)
               if line is not None} if wanted else {}
        pairing = Pairing(base=base_lines.get(name, {}), new=new, linear=bench.linear,
                          margin=bench.margin, confidence=settings.confidence, family=family)
        summaries.append(summarise(settings, bench, releases[name], mine, selected,
                                   current.get(name), identity, pairing))
    held = all(s.gate is None or s.gate.held for s in summaries)
    protocol = [words for bench in benchmarks.values() for words in bench.judge_protocol()]
    return RunReport(settings=settings, run=run, benchmarks=summaries, judge_protocol=protocol,
                     usage=usage(records), traffic=traffic, gate_held=held,
                     selected=list(selected), samples=list(records), seconds=seconds)


def summarise(settings: Settings, bench: Benchmark, release: Release,
              mine: Sequence[SampleRecord], selected: Sequence[str],
              current: Baseline | None, identity: ModelIdentity | None,
              pairing: Pairing) -> BenchmarkSummary:
    """One benchmark's numbers, counts and gate from its own ``mine`` records."""
    name = bench.name
    counts = count(mine, [n for n in selected if n.startswith(f"{ROOT_NODE}::{name}::")])
    per_run = [bench.metrics(mine, run) for run in range(settings.runs)]
    metrics = combine_runs(per_run)
    decision = decide(settings, name, release.headline, metrics, counts.missing, current,
                      identity, pairing)
    notes = bench.notes(release) + bench.finish(mine)
    failed_means = bench.failed_means()
    if pairing.base:
        noise = noise_of(current.noise if current else None, pairing.base.values())
        if items_comparable(noise, pairing.base.values()):
            failed_means = "regressed"
        else:
            notes.append(ITEMS_BY_THE_BAR)
    return BenchmarkSummary(
        benchmark=name, metrics=metrics, runs=per_run if len(per_run) > 1 else [],
        notes=notes, headline=list(release.headline),
        release_notes=list(release.notes), counts=counts, failed_means=failed_means,
        baseline_path=str(decision.path), baseline=decision.status, gate=decision.gate)


def report_status(report: RunReport, status: int | pytest.ExitCode,
                  foreign_failures: int = 0) -> int | pytest.ExitCode:
    """The run's exit status from its report (see ``gate.verdict.exit_status``)."""
    decisions = [Decision(s.baseline, Path(s.baseline_path), s.gate) for s in report.benchmarks]
    return exit_status(report.settings, decisions, status, foreign_failures)
