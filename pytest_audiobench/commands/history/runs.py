"""The runs of a history: the reports read, one at a time, into their summaries and their
samples' outcomes, and in order of their start."""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

from pytest_audiobench.commands.history.flips import Flipped, baseline_changed, flipped
from pytest_audiobench.errors import ReportError
from pytest_audiobench.outcome.records import Outcome, SampleRecord
from pytest_audiobench.report.model import BenchmarkSummary, RunReport
from pytest_audiobench.report.reading import read_report

PROG = "audiobench-history"


ORDER = ("oldest first, by the run's start time (UTC); a report without one (a merge of "
         "shards) is placed by its file's modification time")


_CANONICAL: dict[str, Outcome] = {o: o for o in get_args(Outcome)}
"""One string object per outcome: twenty reports of 22,000 samples keep 440,000 outcomes, not
440,000 strings."""


@dataclass(frozen=True)
class Run:
    """One report as the history keeps it: where and when it ran, and its benchmarks'
    summaries (no sample records)."""

    path: Path
    place: int
    """Its place in the order the reports were read."""
    id: str
    started: str | None
    modified: float
    """Its file's modification time (seconds since the epoch)."""
    model: str
    revision: str | None
    gate_held: bool
    benchmarks: dict[str, BenchmarkSummary]

    @property
    def when(self) -> datetime:
        """Where it goes in the history (``placed``)."""
        return placed(self.started, self.modified)

    @property
    def gate(self) -> str:
        """held, FAILED, or no gate (no benchmark had one)."""
        if not any(s.gate is not None for s in self.benchmarks.values()):
            return "no gate"
        return "held" if self.gate_held else "FAILED"


def run_of(path: Path, place: int, report: RunReport, modified: float) -> Run:
    """What the history keeps of ``report``, read from ``path``."""
    info = report.run
    identity = info.identity if info else None
    return Run(path=path, place=place, id=info.id if info else path.name,
               started=info.started if info else None, modified=modified,
               model=report.settings.model,
               revision=identity.revision if identity else None, gate_held=report.verdict.held,
               benchmarks={s.benchmark: s for s in report.benchmarks})


def placed(started: str | None, modified: float) -> datetime:
    """Where a run goes in the history: its start time (ISO 8601, UTC when it names no zone)
    when known (and readable as such), else its file's modification time."""
    if started:
        try:
            when = datetime.fromisoformat(started)
        except ValueError:
            pass
        else:
            return when if when.tzinfo else when.replace(tzinfo=UTC)
    return datetime.fromtimestamp(modified, UTC)


def in_order(runs: Iterable[Run]) -> list[Run]:
    """The runs oldest first (``placed``); ties by file time, then by path."""
    return sorted(runs, key=lambda run: (run.when, run.modified, str(run.path)))


@dataclass
class Outcomes:
    """Per sample node id, its benchmark and its outcome in each run that has a record of it
    (by the run's ``place``); nothing else of a record is kept."""

    benchmark: dict[str, str] = field(default_factory=dict)
    by_run: dict[str, dict[int, Outcome]] = field(default_factory=dict)

    def add(self, place: int, records: Iterable[SampleRecord]) -> None:
        """Note each record's outcome in the run read at ``place``."""
        for record in records:
            self.benchmark.setdefault(record.nodeid, record.benchmark)
            self.by_run.setdefault(record.nodeid, {})[place] = _CANONICAL[record.outcome]

    def strips(self, benchmark: str, runs: Sequence[Run]) -> dict[str, list[Outcome | None]]:
        """The benchmark's samples, each with its outcome in ``runs`` (None: no record)."""
        return {nodeid: [seen.get(run.place) for run in runs]
                for nodeid, seen in self.by_run.items() if self.benchmark[nodeid] == benchmark}


@dataclass(frozen=True)
class History:
    """The runs, oldest first, their samples' outcomes, and per benchmark the samples that
    flipped, ranked once for the table and the page (``flipped``)."""

    runs: list[Run]
    outcomes: Outcomes
    ranked: dict[str, list[Flipped]]

    def benchmarks(self) -> list[str]:
        """Every benchmark of any run, in the order they first appear."""
        return list(self.ranked)


def reports_in(paths: Sequence[Path]) -> list[Path]:
    """The reports named: files as they are, a folder's ``*.json`` files by name; a path
    named twice is read once."""
    if not paths:
        raise ReportError("no reports given: pass JSON reports (--audiobench-report) or "
                          "folders of them")
    found: list[Path] = []
    for path in paths:
        found += _folder(path) if path.is_dir() else [path]
    return list({p.resolve(): p for p in found}.values())


def _folder(path: Path) -> list[Path]:
    found = sorted(p for p in path.glob("*.json") if p.is_file())
    if not found:
        raise ReportError(f"{path}: a folder without a JSON report (*.json) in it")
    return found


def read_history(paths: Sequence[Path]) -> History:
    """Every report's summaries and its samples' outcomes, one report in memory at a time."""
    outcomes = Outcomes()
    runs = in_order(_read_one(path, place, outcomes) for place, path in enumerate(paths))
    names = dict.fromkeys(name for run in runs for name in run.benchmarks)
    return History(runs, outcomes, {name: flipped(outcomes.strips(name, runs)) for name in names})


def _read_one(path: Path, place: int, outcomes: Outcomes) -> Run:
    report = read(path)
    outcomes.add(place, report.samples)
    return run_of(path, place, report, path.stat().st_mtime)


def changes(runs: Sequence[Run], benchmark: str) -> list[bool]:
    """Per run, whether its baseline for ``benchmark`` changed since the last run that ran
    the benchmark (False for the first, and for a run without it)."""
    out, before = [], None
    for run in runs:
        summary = run.benchmarks.get(benchmark)
        out.append(summary is not None and before is not None
                   and baseline_changed(before, summary))
        before = summary or before
    return out


def metric_names(runs: Sequence[Run], benchmark: str) -> list[str]:
    """The benchmark's headline metrics in any run, in the order they first appear."""
    return list(dict.fromkeys(name for run in runs if benchmark in run.benchmarks
                              for name in run.benchmarks[benchmark].headline))


def read(path: Path) -> RunReport:
    """One report, read whole (its records too), as this command reads it."""
    return read_report(path, PROG)
