"""The end of a run, written once: its records folded in one pass, the gate's ruling on them
(``gate/ruling.py``), the report that renders it, the baselines the gate decided to write and
the benchmarks' exports; then the exit status. A session's end (``run/session.py``) and a
merge of shard reports (``commands/merge.py``) both end here, so a merge ends as a run does:
a partial one (a rerun, or stopped early) writes its exports no more than such a run would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pytest

from pytest_audiobench.benchmarks.base import (
    Benchmark,
    Release,
    Tally,
    export,
    line_baseline_grades,
    unexported,
)
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate import writing
from pytest_audiobench.gate.decision import exit_status
from pytest_audiobench.gate.evidence import Folded
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.ruling import kept_line, rule, wants_lines
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import SampleLine, without_texts
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import (
    Counting,
    Counts,
    RunReport,
    TokenUsage,
    add_usage,
)
from pytest_audiobench.report.summary import (
    Finished,
    baselines_unwritten,
    build_report,
    exported,
)


def conclude(settings: Settings, benchmarks: Mapping[str, Benchmark],
             releases: Mapping[str, Release], records: Iterable[SampleRecord],
             loaded: Mapping[str, LoadedBaseline], finished: Finished) -> RunReport:
    """The run's report once its baselines and exports were written (or said not to be).
    ``records`` are read once for the report, and once more by a benchmark that exports;
    ``finished``: what else the run left (the node ids asked, a missing record being one not
    run; the samples its selection left out; its scope)."""
    selected, scope = finished.selected, finished.scope
    folds = {name: _Fold.of(settings, name, bench, selected, loaded[name])
             for name, bench in benchmarks.items()}
    usage = TokenUsage()
    for record in records:
        folds[record.benchmark].add(settings, benchmarks[record.benchmark], record)
        add_usage(usage, record)
    counts = {name: fold.counting.done().model_copy(
                  update={"left_out": finished.left_out.get(name, 0)})
              for name, fold in folds.items()}
    folded = {name: fold.folded(settings, benchmarks[name], releases[name], counts[name])
              for name, fold in folds.items()}
    gatings = {name: bench.gating() for name, bench in benchmarks.items()}
    ruling = rule(settings, gatings, folded, loaded, finished.traffic,
                  finished.run.identity if finished.run is not None else None, scope)
    report = build_report(settings, benchmarks, releases, ruling, (counts, usage), finished)
    report = baselines_unwritten(report, writing.apply(ruling.updates))
    if aside(settings, scope):
        return exported(report, unexported(benchmarks, scope.words()))
    return exported(report, export(benchmarks, records))


def aside(settings: Settings, scope: Scope) -> bool:
    """Whether the run's outputs go beside the configured ones: a partial run's, unless
    ``--audiobench-partial-report replace`` (``gate/scope.py``)."""
    return scope.partial and settings.partial_report == "beside"


def status_of(report: RunReport, status: int | pytest.ExitCode, foreign_failures: int = 0,
              unwritten: int = 0) -> int | pytest.ExitCode:
    """The exit status of a run or a merge from its report: the verdict the gate gave, and
    the outputs it was asked for and could not write (``unwritten``, beside those its
    benchmarks say) (``gate.decision.exit_status``)."""
    missing = unwritten + sum(len(summary.unwritten) for summary in report.benchmarks)
    return exit_status(report.settings, report.verdict, status, foreign_failures, missing)


@dataclass
class _Fold:
    """One benchmark's records as they are read: where each ended up, its numbers and, when
    the gate wants them, its sample lines."""

    counting: Counting
    tally: Tally
    lines: dict[str, SampleLine] | None
    baseline_tally: Tally | None
    """Head to head: the live baseline model's numbers, from its side of the records."""
    baseline_grades: dict[str, SampleLine] = field(default_factory=dict)
    baseline_grades_asked: int = 0

    @classmethod
    def of(cls, settings: Settings, name: str, bench: Benchmark, selected: Sequence[str],
           loaded: LoadedBaseline) -> _Fold:
        own = [nodeid for nodeid in selected if NodeId.parse(nodeid).benchmark == name]
        live = loaded.baseline_endpoint is not None
        return cls(Counting(own), bench.tally(settings.runs),
                   {} if wants_lines(settings, loaded) else None,
                   bench.tally(settings.runs) if live else None)

    def add(self, settings: Settings, bench: Benchmark, record: SampleRecord) -> None:
        self.counting.add(record)
        self.tally.add(record)
        if self.lines is not None:
            line = bench.gating().line(record)
            if line is not None:
                self.lines[line.id] = kept_line(settings, line)
        if record.baseline_grades or record.baseline_grades_failed is not None:
            # The sample calibrated the judge: the baseline's answer graded again, as the
            # line it makes (its numbers only).
            self.baseline_grades_asked += 1
            again = line_baseline_grades(bench, record)
            if again is not None:
                self.baseline_grades[again.id] = without_texts(again)
        theirs = record.baseline_model_record() if self.baseline_tally is not None else None
        if self.baseline_tally is not None and theirs is not None:
            self.baseline_tally.add(theirs)

    def folded(self, settings: Settings, bench: Benchmark, release: Release,
               counts: Counts) -> Folded:
        """The fold as the gate reads it, with what the release and the judge say and the
        benchmark's final ``counts``."""
        runs = range(settings.runs)
        theirs = self.baseline_tally
        return Folded(
            [self.tally.metrics(index) for index in runs], self.lines, self.baseline_grades,
            self.baseline_grades_asked,
            None if theirs is None else [theirs.metrics(index) for index in runs],
            headline=tuple(m for m in release.headline if m not in release.beside),
            withheld=release.withheld,
            judged_metrics=bench.judge_use().decides(release),
            judge_prompt=bench.judge_use().prompt_sha256(),
            selected=counts.selected, left_out=counts.left_out, missing=counts.missing,
            failed=counts.failed, regressed=counts.regressed)
