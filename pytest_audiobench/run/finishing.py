"""The controller's end of a run once its items ran: what part of the benchmark it measured,
its report through ``ending.py`` (the records folded, the gate's ruling, the baselines and
exports written), the JSON report and the page, the run's record in the cache, and the exit
status. One owner, called once by ``Controller._finish``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from pytest_audiobench import ending
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report import html
from pytest_audiobench.report.html import Written
from pytest_audiobench.report.model import RunInfo, RunReport
from pytest_audiobench.report.summary import Finished
from pytest_audiobench.run.collecting import Collected
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.run.releases import Releases
from pytest_audiobench.run.runs import RunBook, RunStart
from pytest_audiobench.run.scoping import beside, stopped_by
from pytest_audiobench.run.shards import slice_of


@dataclass
class Finishing:
    """What the end of a run reads: the run's settings and benchmarks, what the controller
    gathered, and what it began with."""

    settings: Settings
    benchmarks: Mapping[str, Benchmark]
    releases: Releases
    baselines: Mapping[str, LoadedBaseline]
    collected: Collected
    runs: RunBook
    run_start: RunStart
    plan: RunPlan | None
    """What the workers were sent (its samples run before the items, head to head)."""
    configured: Sequence[str]
    """The node ids of every sample the settings select, before pytest's own selection."""
    sharded: Sequence[str]
    """The sample items a shard's split left to the other shards."""
    workers: int
    written: dict[str, bool] = field(default_factory=dict)
    """The outputs of the end of the run, a line each, and whether each was written."""

    def finish(self, session: pytest.Session, selected: list[str]) -> RunReport:
        """The run's report, its outputs written and said in ``written``, the run's record
        ended and ``session.exitstatus`` set."""
        settings, records = self.settings, self.collected.records
        ordered = records.ordered(selected)
        scope = self._scope(session, selected)
        finished = Finished(selected, self.collected.traffic, self._run_info(session, selected),
                            self.collected.started.seconds(), self._left_out(selected), scope)
        report = ending.conclude(settings, self.benchmarks, self.releases.loaded(), ordered,
                                 self.baselines, finished)
        if not selected:
            # A run that asked nothing (its selection held no sample) leaves what an earlier
            # run wrote as it was, and it is no failure: what was not selected is not measured.
            self.written.update({f"{what}: not written, no benchmark sample was selected; "
                                 f"{path} is left as it was": True for what, path in (
                                     ("JSON report", settings.report),
                                     ("HTML page", settings.html)) if path is not None})
            if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
                session.exitstatus = pytest.ExitCode.OK
            return report
        self._write_outputs(report, ordered, ending.aside(settings, scope))
        unwritten = sum(not done for done in self.written.values())
        short = unwritten or any(s.unwritten for s in report.benchmarks)
        if session.exitstatus != pytest.ExitCode.INTERRUPTED:
            # Short of what it was asked for, a resume continues it, its answers served
            # again, to write what is missing; a whole run's verdict is what a rerun of its
            # failures is held to.
            whole = not scope.partial and settings.shard is None
            self.runs.end(self.run_start.record, records.undone(selected), not short,
                          report.verdict.held if whole else None)
        session.exitstatus = ending.status_of(report, session.exitstatus,
                                              self.collected.foreign_failures, unwritten)
        return report

    def _scope(self, session: pytest.Session, selected: list[str]) -> Scope:
        """What part of the benchmark this run measured (``gate/scope.py``)."""
        collected = self.collected
        stopped = stopped_by(session, collected.interrupted,
                             collected.records.not_run(selected), len(selected),
                             collected.first_not_run)
        last = self.runs.last_whole(self.run_start.record) if collected.rerun else None
        configured = list(self.configured)
        if self.settings.shard is not None:  # under xdist the workers split it, not here
            configured = slice_of(configured, *self.settings.shard)
        out = len(configured) - len(selected)
        narrowed = (f"-k, -m, --deselect or paths left {out} of the {len(configured)} "
                    "configured samples out") if out > 0 and not collected.rerun else None
        return Scope(rerun=collected.rerun, stopped=stopped, last_whole=last, narrowed=narrowed)

    def _write_outputs(self, report: RunReport, ordered: Iterable[SampleRecord],
                       aside: bool) -> None:
        """The JSON report and the page; a partial run's beside the configured ones (``aside``),
        which stay as the last whole run left them."""
        settings = self.settings
        where = {what: path if path is None or not aside else beside(path)
                 for what, path in (("JSON report", settings.report),
                                    ("HTML page", settings.html))}
        report_path, page_path = where["JSON report"], where["HTML page"]
        if report_path is not None:
            self._keep("JSON report", report_path, lambda path: report.write(path, ordered))
        if page_path is not None:
            page = html.run_page(report, ordered, self.benchmarks,
                                 {name: b.lines for name, b in self.baselines.items()})
            self._keep("HTML page", page_path, lambda path: html.write(page, path))
        if not aside:
            return
        paths = [path for path in (settings.report, settings.html) if path is not None]
        kept = [str(path) for path in paths if path.exists()]
        if kept:
            self.written[f"partial run: {' and '.join(kept)} left as the last whole run wrote "
                         "them (--audiobench-partial-report replace writes over them)"] = True
        if len(kept) < len(paths):
            none = " and ".join(str(path) for path in paths if not path.exists())
            self.written[f"partial run: {none} not written, as no whole run has written it yet "
                         "(--audiobench-partial-report replace writes it)"] = True

    def _left_out(self, selected: list[str]) -> dict[str, int]:
        """Per benchmark, the release's samples the run's selection left out (a shard's split
        is not a selection: its merge gates the union)."""
        self.releases.loaded()  # counts each release whole, once
        taken = Counter(NodeId.parse(nodeid).benchmark for nodeid in [*selected, *self.sharded])
        return {name: whole - taken[name] for name, whole in self.releases.whole.items()}

    def _keep(self, what: str, path: Path, write: Callable[[Path], object]) -> None:
        """Write one output and say so; what could not be written is said in the summary
        too, never lost in a traceback that hides the rest."""
        try:
            said = write(path)
        except OSError as exc:
            self.written[f"{what}: NOT written to {path} ({exc.strerror or exc})"] = False
            return
        line = said.line() if isinstance(said, Written) else f"{what}: {path}"
        self.written[line] = True

    def _run_info(self, session: pytest.Session, selected: list[str]) -> RunInfo:
        """The run's id and what it took from others. Unless it was interrupted, its record
        says how many samples it left undone (errors, not run, no record): finished when
        none, else a resume asks for those."""
        start, collected = self.run_start, self.collected
        notes = [*start.notes, *self._unselected_ahead(selected)]
        if collected.settled:
            notes.append(f"{collected.settled} samples done before took their records "
                         "from the run's records, neither asked nor graded again")
        undone = collected.records.undone(selected)
        if session.exitstatus != pytest.ExitCode.INTERRUPTED:
            unsaved = self.runs.end(start.record, undone)
            notes += [unsaved] if unsaved else []
        return RunInfo(id=start.record.run_id, resumed=start.resumed, reused=start.reused,
                       notes=notes, settled=collected.settled,
                       finished=undone == 0 and session.exitstatus != pytest.ExitCode.INTERRUPTED,
                       identity=start.record.identity, started=collected.started.at,
                       workers=self.workers)

    def _unselected_ahead(self, selected: list[str]) -> list[str]:
        """Head to head: what the share run before the items cost outside the selection (it is
        picked before pytest's -k, -m or --deselect are known)."""
        chosen = set(selected)
        done = self.plan.done_ahead if self.plan is not None else {}
        outside = sum(nodeid not in chosen for nodeid in done)
        if not outside:
            return []
        return [f"head to head: {outside} of the {len(done)} samples run before the items "
                "to measure the judge's noise are outside this run's selection (-k, -m, "
                "--deselect); --audiobench-tasks and --audiobench-limit narrow what is picked"]
