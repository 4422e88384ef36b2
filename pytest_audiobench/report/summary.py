"""The end of a run as data: the report of what the gate ruled (``gate/ruling.py``), with the
counts and usage of the records, and the exit status its verdict gives.

Pure of pytest's session: a plain run, the xdist controller and the merge of shard reports
(``audiobench-merge``) all end through ``ending.py``, which folds the records, has the gate
rule and builds this report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_audiobench.benchmarks.base import Benchmark, Release
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.ruling import BenchmarkRuling, Ruling
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.report.model import (
    BenchmarkSummary,
    Counts,
    RunInfo,
    RunReport,
    TokenUsage,
)
from pytest_audiobench.transport.types import Traffic


@dataclass(frozen=True, slots=True)
class Finished:
    """What a run, or the union of its shards, leaves for its end beside its records."""

    selected: Sequence[str]
    """The node ids asked (one without a record did not run)."""
    traffic: Traffic
    """What its endpoints took."""
    run: RunInfo | None
    """Its record (None for a merge of shards)."""
    seconds: float | None
    """Wall-clock seconds from its start to its report (a merge: the longest shard's)."""
    left_out: Mapping[str, int]
    """Per benchmark, the release's samples its selection left out."""
    scope: Scope
    """What part of the benchmark it measured (``gate/scope.py``)."""


def build_report(settings: Settings, benchmarks: Mapping[str, Benchmark],
                 releases: Mapping[str, Release], ruling: Ruling,
                 counted: tuple[Mapping[str, Counts], TokenUsage], finished: Finished
                 ) -> RunReport:
    """The report of a run the gate ruled on (``gate/ruling.py``): each benchmark's numbers,
    counts (``counted``: per benchmark, and the tokens of the whole run) and decision as the
    gate gave them, and the run's one verdict. It decides nothing; the records stay out of it
    (``RunReport.write`` takes them)."""
    counts, usage = counted
    summaries = [summarise(bench, releases[name], counts[name], ruling.benchmarks[name])
                 for name, bench in benchmarks.items()]
    protocol = judge_protocol(benchmarks)
    return RunReport(settings=settings, run=finished.run, benchmarks=summaries,
                     judge_protocol=protocol, usage=usage.priced(settings),
                     traffic=finished.traffic, verdict=ruling.verdict, scope=finished.scope,
                     selected=list(finished.selected), samples=[], seconds=finished.seconds)


def summarise(bench: Benchmark, release: Release, counts: Counts,
              ruled: BenchmarkRuling) -> BenchmarkSummary:
    """One benchmark's numbers, counts and gate as the gate ruled on them."""
    baseline, decision = ruled.baseline, ruled.decision
    return BenchmarkSummary(
        benchmark=bench.name, metrics=ruled.metrics,
        runs=ruled.per_run if len(ruled.per_run) > 1 else [],
        notes=bench.notes(release) + baseline.notes(), headline=list(release.headline),
        release_notes=list(release.notes), withheld=release.withheld, counts=counts,
        failed_means=bench.failed_means(), holds_items=baseline.holds_items,
        baseline_file=None if baseline.baseline_endpoint else str(decision.path),
        baseline_model=baseline.against if baseline.baseline_endpoint else None,
        baseline_digest=baseline.digest, baseline_status=decision.status, gate=decision.gate,
        replaced=decision.replaced, refused_why=decision.why, fell_short=list(decision.short),
        judge_drift=ruled.drift,
        judge_comparison=baseline.comparison)


def exported(report: RunReport, said: Mapping[str, tuple[list[str], str | None]]) -> RunReport:
    """The report once each benchmark's exports were written (``benchmarks.base.export``,
    called by the one who writes: the session, the merge): what they say among its notes,
    what could not be written among what it was asked to write."""
    summaries = [s if s.benchmark not in said else s.model_copy(update={
        "notes": [*s.notes, *said[s.benchmark][0]],
        "unwritten": [*s.unwritten, *([said[s.benchmark][1]] if said[s.benchmark][1] else [])]})
        for s in report.benchmarks]
    return report.model_copy(update={"benchmarks": summaries})


def baselines_unwritten(report: RunReport, failed: Mapping[str, str]) -> RunReport:
    """The report once the baselines the gate decided to write for the benchmarks of
    ``failed`` could not be written (why, in the system's words)."""
    if not failed:
        return report
    summaries = [s if s.benchmark not in failed else s.model_copy(update={
        "baseline_status": "unwritten",
        "unwritten": [f"gate: baseline NOT written to {s.against} ({failed[s.benchmark]})",
                      *s.unwritten]})
        for s in report.benchmarks]
    return report.model_copy(update={"benchmarks": summaries})


def judge_protocol(benchmarks: Mapping[str, Benchmark]) -> list[str]:
    """How the benchmarks ask the judge, for the summary's first line: one benchmark's words as
    they are; several benchmarks' each under its name (``air_bench_chat: both orders``)."""
    asked = {name: words for name, bench in benchmarks.items()
             if (words := bench.judge_use().protocol())}
    if len(asked) == 1:
        return next(iter(asked.values()))
    return [f"{name}: {', '.join(words)}" for name, words in asked.items()]
