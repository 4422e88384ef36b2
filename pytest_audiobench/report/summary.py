"""The end of a run as data: metrics, counts, the gate's decision and the exit status.

Pure of pytest's session: a plain run, the xdist controller and the merge of shard reports
(``audiobench-merge``) all build the same report from the same records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from pytest_audiobench.benchmarks.base import Benchmark, Release, Tally, line_judged_again
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.baseline import spans_of
from pytest_audiobench.gate.decision import (
    BaselineUpdate,
    Decided,
    Decision,
    decide,
    exit_status,
    run_verdict,
)
from pytest_audiobench.gate.drift import judge_drift, judge_identity
from pytest_audiobench.gate.evaluation import Pairing, assess_all
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.paired import Assessed
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import SampleLine, without_texts
from pytest_audiobench.outcome.metrics import combine_runs
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import (
    BenchmarkSummary,
    Counting,
    Counts,
    RunInfo,
    RunReport,
    TokenUsage,
    add_usage,
)
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity, Traffic


@dataclass
class _Folded:
    """One benchmark's records after the pass: where they ended up, their numbers and, when
    a per-sample baseline or an update needs them, their sample lines."""

    counting: Counting
    tally: Tally
    lines: dict[str, SampleLine] | None
    judged_again: dict[str, SampleLine] = field(default_factory=dict)
    """The baseline's answers today's judge graded again, as lines (``gate/drift.py``)."""
    judged_again_asked: int = 0
    baseline_tally: Tally | None = None
    """Head to head: the live baseline model's numbers, folded from its side of the records."""


def build_report(settings: Settings, benchmarks: Mapping[str, Benchmark],
                 releases: Mapping[str, Release], records: Iterable[SampleRecord],
                 selected: Sequence[str], loaded: Mapping[str, LoadedBaseline],
                 traffic: Traffic, run: RunInfo | None, seconds: float | None = None,
                 left_out: Mapping[str, int] | None = None, scope: Scope | None = None
                 ) -> tuple[RunReport, dict[str, BaselineUpdate]]:
    """The report of ``records`` out of the ``selected`` node ids (missing ones did not run).
    With per-sample baseline lines, the metrics the benchmarks can pair are gated paired; all
    of them at once count as one family for the confidence level.

    ``records`` is read in one pass (again only by a benchmark that exports them), so it may
    stream from disk; the report holds none of them (``RunReport.write`` takes them). With the
    report come the baselines the gate decided to write, which the caller writes
    (``gate.writing.apply``) and says with ``baselines_unwritten`` when it cannot.
    ``left_out``: per benchmark, the release's samples the run's selection left out.
    ``scope``: whether the run measured the benchmark whole (``gate/scope.py``)."""
    scope = scope or Scope()
    identity = run.identity if run is not None else None
    folded, total = _fold(settings, benchmarks, records, selected, loaded)
    judges = {name: judge_identity(settings, bench.judge_prompt(), traffic)
              for name, bench in benchmarks.items()}
    # Head to head, the live model's numbers make the baseline the gate holds against.
    loaded = {name: baseline if (tally := folded[name].baseline_tally) is None
              else baseline.answered(
        settings, name, combine_runs([tally.metrics(run) for run in range(settings.runs)]),
        releases[name].headline, judges[name],
        spans_of(releases[name].headline, benchmarks[name].linear))
        for name, baseline in loaded.items()}
    # Against the baseline's answers judged again today, when that was decided (drift.py).
    pairings = {name: Pairing.of(bench, folded[name].judged_again if loaded[name].rejudged
                                 else loaded[name].lines, folded[name].lines or {},
                                 loaded[name].noise)
                for name, bench in benchmarks.items()}
    limits = {name: baseline.metrics for name, pairing in pairings.items()
              if (baseline := loaded[name].file) is not None and pairing.base}
    assessed = assess_all(pairings, limits, settings.confidence, settings.gate_small)
    summaries, updates = [], {}
    for name, bench in benchmarks.items():
        mine = folded[name]
        counts = mine.counting.done().model_copy(update={
            "left_out": (left_out or {}).get(name, 0)})
        summary, decision = summarise(settings, bench, releases[name], counts,
                                      mine.tally, loaded[name], (identity, judges[name]),
                                      pairings[name], assessed[name], scope.partial)
        live = loaded[name].baseline_endpoint
        drift = None if not mine.judged_again_asked or live else judge_drift(
            bench.judged_metrics(releases[name]), bench.linear, loaded[name].lines,
            mine.judged_again, mine.judged_again_asked, settings.confidence)
        summary = summary.model_copy(update={"judge_drift": drift,
                                             "judge_comparison": loaded[name].comparison})
        summaries.append(summary)
        if decision.update is not None:
            updates[name] = decision.update
    verdict = run_verdict([Decided(s.baseline_status, s.gate, s.counts.failed,
                                   s.counts.regressed, s.counts.missing) for s in summaries],
                          scope, settings.shard is not None)
    protocol = [words for bench in benchmarks.values() for words in bench.judge_protocol()]
    report = RunReport(settings=settings, run=run, benchmarks=summaries,
                       judge_protocol=protocol, usage=total.priced(settings), traffic=traffic,
                       gate_held=verdict.held, verdict=verdict.kind, scope=scope,
                       selected=list(selected), samples=[], seconds=seconds)
    return report, updates


def _fold(settings: Settings, benchmarks: Mapping[str, Benchmark],
          records: Iterable[SampleRecord], selected: Sequence[str],
          loaded: Mapping[str, LoadedBaseline]) -> tuple[dict[str, _Folded], TokenUsage]:
    """Every benchmark's counts, numbers and sample lines, and the tokens of all, in one pass
    over the records."""
    folded = {}
    for name, bench in benchmarks.items():
        own = [n for n in selected if NodeId.parse(n).benchmark == name]
        # Sample lines serve a per-sample baseline or the one being written; else none.
        live = loaded[name].baseline_endpoint is not None
        wanted = bool(loaded[name].lines) or settings.update_baseline or live
        folded[name] = _Folded(Counting(own), bench.tally(settings.runs), {} if wanted else None,
                               baseline_tally=bench.tally(settings.runs) if live else None)
    total = TokenUsage()
    for record in records:
        mine = folded[record.benchmark]
        mine.counting.add(record)
        mine.tally.add(record)
        add_usage(total, record)
        if mine.lines is not None:
            line = benchmarks[record.benchmark].sample_line(record)
            if line is not None:
                # Whole only for the baseline being written; the gate needs no texts.
                mine.lines[line.id] = line if settings.update_baseline else without_texts(line)
        _fold_again(mine, benchmarks[record.benchmark], record)
        theirs = record.baseline_model_record() if mine.baseline_tally is not None else None
        if mine.baseline_tally is not None and theirs is not None:
            mine.baseline_tally.add(theirs)
    return folded, total


def _fold_again(folded: _Folded, bench: Benchmark, record: SampleRecord) -> None:
    """The sample's calibration of the judge, if it has one: the baseline's answer graded
    again, as the line it makes (its numbers only)."""
    if not record.judged_again and record.judged_again_failed is None:
        return
    folded.judged_again_asked += 1
    line = line_judged_again(bench, record)
    if line is not None:
        folded.judged_again[line.id] = without_texts(line)


def summarise(settings: Settings, bench: Benchmark, release: Release, counts: Counts,
              tally: Tally, loaded: LoadedBaseline,
              identities: tuple[ModelIdentity | None, JudgeIdentity | None],
              pairing: Pairing, assessed: Mapping[str, Assessed],
              partial: bool = False) -> tuple[BenchmarkSummary, Decision]:
    """One benchmark's numbers and gate from its folded records, and the gate's decision;
    ``identities``: what identified the model and the judge; ``partial``: the run is a rerun
    of earlier failures or stopped early."""
    name = bench.name
    per_run = [tally.metrics(run) for run in range(settings.runs)]
    metrics = combine_runs(per_run)
    decision = decide(settings, name, release.headline, metrics, counts.missing, loaded,
                      identities, pairing, assessed, selected=counts.selected,
                      left_out=counts.left_out, withheld=release.withheld, partial=partial)
    notes = bench.notes(release) + loaded.notes()
    summary = BenchmarkSummary(
        benchmark=name, metrics=metrics, runs=per_run if len(per_run) > 1 else [],
        notes=notes, headline=list(release.headline),
        release_notes=list(release.notes), withheld=release.withheld, counts=counts,
        failed_means=bench.failed_means(),
        holds_items=loaded.holds_items,
        baseline_file=None if loaded.baseline_endpoint else str(decision.path),
        baseline_model=loaded.against if loaded.baseline_endpoint else None,
        baseline_digest=loaded.digest, baseline_status=decision.status, gate=decision.gate,
        replaced=decision.replaced, refused_why=decision.why)
    return summary, decision


def exported(report: RunReport, said: Mapping[str, tuple[list[str], str | None]]) -> RunReport:
    """The report once each benchmark's exports were written (``benchmarks.base.export``,
    called by the one who writes: the session, the merge): what they say among its notes,
    what could not be written among what it was asked to write."""
    summaries = [s if s.benchmark not in said else s.model_copy(update={
        "notes": [*s.notes, *said[s.benchmark][0]],
        "unwritten": [*s.unwritten, *([said[s.benchmark][1]] if said[s.benchmark][1] else [])]})
        for s in report.benchmarks]
    return report.model_copy(update={"benchmarks": summaries})


def report_status(report: RunReport, status: int | pytest.ExitCode, foreign_failures: int = 0,
                  unwritten: int = 0) -> int | pytest.ExitCode:
    """The exit status of a run or a merge from its report: the gate's decisions kept in it,
    and the outputs it was asked for and could not write (``unwritten``, beside those its
    benchmarks say) (``gate.decision.exit_status``)."""
    missing = unwritten + sum(len(summary.unwritten) for summary in report.benchmarks)
    return exit_status(report.settings, report.run_verdict, status, foreign_failures, missing)


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

