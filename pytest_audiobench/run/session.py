"""The one object a run keeps in ``config.stash``, in one of two roles.

Every process that runs items has an ``AudiobenchSession``: the benchmarks, their releases,
the baselines as the run pairs against them, and the worker that asks and grades. On an xdist
worker it is a ``WorkerSession``, built whole from the run plan the controller sent
(``run/plan.py``). In a plain run, or on the xdist controller, it is the ``Controller``: it
locates the data, checks the endpoints, decides what each gate pairs against and makes the
plan; then it gathers every sample's record from the test reports and, at the end, decides the
gate once and writes the reports.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench import ending
from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.asking import baseline_answer
from pytest_audiobench.benchmarks.base import (
    Release,
    judged_by,
    line_judged_again,
)
from pytest_audiobench.benchmarks.release import locate
from pytest_audiobench.benchmarks.sample import NodeId, Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.files import cannot_write, cannot_write_in, replacing
from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.items import Change, Confirming
from pytest_audiobench.gate.loaded import LoadedBaseline, baseline_path, load_all
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import JudgedBy
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord
from pytest_audiobench.report import html
from pytest_audiobench.report.html import Written
from pytest_audiobench.report.model import RunInfo, RunReport
from pytest_audiobench.report.terminal import render
from pytest_audiobench.run.calibration import Calibrated, calibrate, head_to_head
from pytest_audiobench.run.collecting import Collected
from pytest_audiobench.run.dryrun import DryRun
from pytest_audiobench.run.fresh import FreshDraws
from pytest_audiobench.run.gear import Gear
from pytest_audiobench.run.internals import in_xdist_worker
from pytest_audiobench.run.keeping import freeze_kept, unfreeze
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.run.progress import Progress
from pytest_audiobench.run.releases import Releases
from pytest_audiobench.run.runs import RunBook, RunStart, model_identity, settled_fingerprint
from pytest_audiobench.run.scoping import beside, rerun_of, stopped_by
from pytest_audiobench.run.shards import slice_of
from pytest_audiobench.run.spool import Settled
from pytest_audiobench.run.worker import JudgedAgain, Rejudging, Worker
from pytest_audiobench.transport.cache import ResponseCache
from pytest_audiobench.transport.types import Traffic
from pytest_audiobench.untrusted import one_line

_TRAFFIC = "audiobench_traffic"
"""The key of ``workeroutput`` under which a worker hands its endpoints' traffic back."""


def session_for(config: pytest.Config, settings: Settings) -> AudiobenchSession:
    """The session of this process's role: an xdist worker's, or the controller; a benchmark
    that cannot be built is one usage error."""
    role = WorkerSession if in_xdist_worker(config) else Controller
    try:
        return role(config, settings)
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc


class AudiobenchSession(ABC):
    """What every process that runs items keeps; ``start`` builds the rest."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.benchmarks = {name: registry.create(name, settings) for name in settings.benchmarks}
        self._releases: Releases | None = None
        self.baselines: dict[str, LoadedBaseline] = {}
        """Per benchmark, its baseline and per-sample lines, loaded before any request, with
        what its gate pairs against once decided."""
        self._worker: Worker | None = None
        self._sharded: list[str] = []
        """The sample items a shard's split left to the other shards."""
        self._frozen = False

    @property
    def worker(self) -> Worker:
        """The side that asks and grades, made at the session's start."""
        assert self._worker is not None, "the session has not started"
        return self._worker

    @property
    def gear(self) -> Gear:
        return self.worker.gear

    def start(self) -> None:
        """Build what the role needs (``_start``); what is loaded then lives to the end of the
        session, out of the garbage collector's rescans (``run/keeping.py``)."""
        try:
            self._start()
        except AudiobenchError as exc:
            raise pytest.UsageError(str(exc)) from exc
        self._frozen = freeze_kept(self._frozen)

    @abstractmethod
    def _start(self) -> None: ...

    def _made_worker(self, gear: Gear, plan: RunPlan) -> Worker:
        """The worker of the items, judging as ``plan`` decided."""
        return Worker(self.settings, self.benchmarks, gear,
                      Rejudging(dict(self.baselines), plan.judged_again_ahead), plan.done_ahead,
                      Settled(plan.settled_in, plan.settled))

    def _judged_by(self) -> dict[str, JudgedBy]:
        releases = self.releases()
        return {name: judged_by(bench, releases[name]) for name, bench in self.benchmarks.items()}

    def _baselines(self) -> dict[str, LoadedBaseline]:
        """Every benchmark's baseline, loaded once; a release without answers needs none."""
        withheld = {name for name, release in self.releases().items() if release.withheld}
        return load_all(self.settings, self._judged_by(), withheld)

    def releases(self) -> dict[str, Release]:
        """Every benchmark's release, its samples narrowed to the selected tasks and limit."""
        assert self._releases is not None, "the session has not started"
        return self._releases.loaded()

    def change_of(self, sample: Sample, record: SampleRecord,
                  fails_now: bool) -> tuple[Change | None, SampleRecord]:
        """The sample's change against its per-sample baseline line, if it has one, a
        suggested drop confirmed by fresh draws first; and the record with those draws."""
        bench, baseline = self.benchmarks[sample.benchmark], self.baselines[sample.benchmark]
        again = line_judged_again(bench, record) if baseline.rejudged else None
        fresh = FreshDraws(self.worker, bench, sample, record, baseline)
        confirming = Confirming(self.settings.confirm_draws, fresh.draw) \
            if baseline.holds_items and len(record.answers) == 1 else None
        found = baseline.change(sample.nodeid, bench.sample_line(record), fails_now, again,
                                confirming)
        return found, fresh.record

    def samples(self) -> list[Sample]:
        return [sample for release in self.releases().values() for sample in release.samples]

    def shard(self, items: list[pytest.Item]) -> None:
        """Keep slice K of N: every N-th sample item in node id order, from the K-th."""
        if self.settings.shard is None:
            return
        keep = set(slice_of((item.nodeid for item in items
                             if NodeId.names_a_sample(item.nodeid)), *self.settings.shard))
        dropped = [i for i in items if NodeId.names_a_sample(i.nodeid)
                   and i.nodeid not in keep]
        self._sharded = [item.nodeid for item in dropped]
        if dropped:
            gone = set(dropped)
            items[:] = [i for i in items if i not in gone]
            self.config.hook.pytest_deselected(items=dropped)

    def collection_done(self, items: list[pytest.Item]) -> None:
        """Collection is over: every process that runs items keeps them out of the garbage
        collector's rescans too."""
        if not self.config.option.collectonly:
            self._frozen = freeze_kept(self._frozen)

    def finish(self, session: pytest.Session) -> None:
        """The role's end (``_finish``); then close the endpoints and let go of the baseline
        lines and the kept objects, whatever happened."""
        try:
            self._finish(session)
        finally:
            if self._worker is not None:
                self.gear.close()
                self.worker.settled.close()
            for baseline in self.baselines.values():
                baseline.close()
            if self._frozen:
                unfreeze()
                self._frozen = False

    @abstractmethod
    def _finish(self, session: pytest.Session) -> None: ...

    def terminal_lines(self) -> list[str]:
        """The summary's lines (only the controller has any)."""
        return []


class WorkerSession(AudiobenchSession):
    """An xdist worker: it runs the items the controller gives it, as the plan says."""

    def _start(self) -> None:
        plan = RunPlan.received(self.config.workerinput)  # type: ignore[attr-defined]
        self._releases = Releases(self.settings, self.benchmarks, plan.roots)
        self.baselines = plan.decide(self._baselines())
        self._worker = self._made_worker(Gear(self.settings, plan), plan)

    def _finish(self, session: pytest.Session) -> None:
        """Hand the endpoints' traffic back to the controller."""
        if self._worker is not None:
            self.gear.close()
            workeroutput: dict[str, Any] = self.config.workeroutput  # type: ignore[attr-defined]
            workeroutput[_TRAFFIC] = self.gear.traffic().model_dump(mode="json")


class Controller(AudiobenchSession):
    """A plain run's one process, or the xdist controller."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        super().__init__(config, settings)
        self.run_start: RunStart | None = None
        """The run this is (an invocation): its id, what it resumes or reuses."""
        self.worker_plan: RunPlan | None = None
        """What the workers are sent (``run/plan.py``), made at the start."""
        self.collected = Collected()
        """What the controller gathers while the items run."""
        self.report: RunReport | None = None
        self.would_send: DryRun | None = None
        """A dry run's forecast of what the run would send."""
        self.written: dict[str, bool] = {}
        """The outputs of the end of the run, a line each, and whether each was written."""

    # -- start -------------------------------------------------------------------------

    def _start(self) -> None:
        """Locate (download) and validate the data, begin the run, check the endpoints and
        record what identifies the model; decide what each gate pairs against; make the plan
        the workers are sent."""
        settings = self.settings
        self._check_outputs()
        if settings.clear_cache:
            ResponseCache(settings.cache_dir / "responses").clear()
        catalog = registry.catalog()
        self._releases = Releases(settings, self.benchmarks, {
            name: locate(bench, settings.data[name], catalog)
            for name, bench in self.benchmarks.items()})
        self.releases()
        self.baselines = self._baselines()
        self.run_start = self._runs.begin(settings)
        self._check_cache()
        cached = settings.cache
        settled_in, settled = self._keep_records()
        # Without the cache nothing is kept, and a run's answers are nobody's to reuse.
        plan = RunPlan(roots=self._releases.roots,
                       run_id=self.run_start.record.run_id if cached else None,
                       reuse=self.run_start.reused if cached else None,
                       deadline_at=None if settings.deadline is None
                       else time.time() + settings.deadline,
                       settled_in=settled_in, settled=settled)
        measure = self._runs.earlier(self.run_start.record) if settings.dry_run and cached else ()
        gear = Gear(settings, plan, measure)
        self._worker = deciding = self._made_worker(gear, plan)
        if not self.config.option.collectonly:
            if not settings.dry_run:
                self.run_start = self._runs.confirm(
                    self.run_start, model_identity(settings, served=gear.check()))
            plan = self._compare(deciding, send=not settings.dry_run)
            self.baselines = plan.decide(self.baselines)
            self._worker = self._made_worker(gear, plan)
        self.worker_plan = plan.model_copy(update={
            "budget_share": max(1, self._workers()), "spent": gear.spent()})

    def _workers(self) -> int:
        """How many xdist workers run the items (0: this process runs them)."""
        workers = getattr(self.config.option, "numprocesses", None)
        return workers if isinstance(workers, int) and workers > 0 else 0

    def _check_outputs(self) -> None:
        """Every file the run writes at its end can be written: found out before the first
        request, not after every one was paid for."""
        for flag, path in self._outputs():
            reason = cannot_write(path)
            if reason is not None:
                raise AudiobenchError(f"{flag} {path}: cannot be written ({reason}); nothing "
                                      "was sent")

    def _outputs(self) -> list[tuple[str, Path]]:
        settings, config = self.settings, self.config
        found = [("--audiobench-report", settings.report),
                 ("--audiobench-html", settings.html)]
        junit = config.getoption("xmlpath", None)
        if junit:
            found.append(("--junitxml", config.invocation_params.dir / junit))
        if settings.update_baseline and settings.shard is None:
            found += [("--audiobench-update-baseline", baseline_path(settings, name))
                      for name in self.benchmarks]
        found += [output for bench in self.benchmarks.values()
                  for output in bench.outputs().items()]
        return [(flag, path) for flag, path in found if path is not None]

    def _check_cache(self) -> None:
        """A cache folder that cannot be written is said at once: the run goes on, keeping
        its replies in memory, but nothing of it can be resumed or reused."""
        assert self.run_start is not None
        reason = cannot_write_in(self.settings.cache_dir / "responses") \
            if self.settings.cache else None
        if reason is not None:
            note = (f"cache: {self.settings.cache_dir} cannot be written ({reason}): replies are "
                    "kept in memory for this run only; it cannot be resumed or reused")
            self.run_start = replace(self.run_start, notes=[*self.run_start.notes, note])

    def _keep_records(self) -> tuple[Path | None, dict[str, tuple[int, int]]]:
        """Keep the run's records in its records file (``run/spool.py``), and on a resume the
        places there of the samples an earlier session did: their items take those whole
        instead of reading the audio, asking and grading again. A dry run's records (nothing
        sent) are nobody's to resume; without the cache nothing is kept."""
        assert self.run_start is not None
        if not self.settings.cache or self.settings.dry_run or self.config.option.collectonly:
            return None, {}
        digests = {name: baseline.digest for name, baseline in self.baselines.items()}
        path = self._runs.records_path(self.run_start.record.run_id,
                                       settled_fingerprint(self.settings, digests))
        if not self.collected.records.keep_in(path) or not self.run_start.resumed:
            return None, {}
        return path, self.collected.records.settled()

    def start_lines(self) -> list[str]:
        """What a person should know before the items run (an unwritable cache)."""
        notes = self.run_start.notes if self.run_start is not None else []
        return [f"audiobench: {note}" for note in notes if note.startswith("cache: ")]

    @property
    def _runs(self) -> RunBook:
        return RunBook(self.settings.cache_dir / "runs", keep=self.settings.cache)

    def _compare(self, deciding: Worker, send: bool) -> RunPlan:
        """Decide, per benchmark, what its gate pairs against, before any item (a resume holds
        to its run's decision); the answers graded to decide it serve the items: the plan with
        them. ``send`` False (a dry run): what needs no request."""
        assert self.run_start is not None
        kept, decided = self.run_start.record.comparisons, {}
        judged_again: dict[str, JudgedAgain] = {}
        done: dict[str, SampleRecord] = {}
        for name, baseline in self.baselines.items():
            made = Calibrated(kept[name]) if name in kept else self._calibrate(
                deciding, name, baseline, send)
            if made is not None:
                decided[name] = made.comparison
                judged_again.update(made.judged_again)
                done.update(made.done)
        if send and decided != kept:
            self.run_start = self._runs.decided(self.run_start, decided)
        return self.gear.plan.model_copy(update={
            "comparisons": decided, "judged_again_ahead": judged_again, "done_ahead": done})

    def _calibrate(self, deciding: Worker, name: str, baseline: LoadedBaseline,
                   send: bool) -> Calibrated | None:
        bench, release, worker = self.benchmarks[name], self.releases()[name], deciding
        if baseline.baseline_endpoint is not None:
            return head_to_head(self.settings, bench, release, baseline,
                                worker.run_ahead if send else None)
        return calibrate(self.settings, bench, release, baseline,
                         worker.judge_again if send else None, self.gear.traffic)

    def _judged_if_drifted(self, sample: Sample) -> bool:
        """Whether a drift found by the calibration would have today's judge grade this
        sample's baseline answer again too (auto, not yet decided: a dry run)."""
        baseline = self.baselines.get(sample.benchmark)
        judge = self.settings.judge
        if baseline is None or baseline.comparison is not None or not baseline.lines \
                or self.settings.rejudge_baseline != "auto" or judge is None or judge.offline:
            return False
        every = baseline.decided(JudgeComparison(rejudged=True, why="drifted"))
        return every.to_judge_again(sample.nodeid) is not None

    def worker_input(self) -> dict[str, str]:
        """What a worker is sent: the plan, whole."""
        assert self.worker_plan is not None, "the session has not started"
        return self.worker_plan.sent()

    # -- results -----------------------------------------------------------------------

    def collection_done(self, items: list[pytest.Item]) -> None:
        """Collection is over: learn which samples to expect."""
        self.expect(item.nodeid for item in items)
        super().collection_done(items)

    def expect(self, nodeids: Iterable[str]) -> None:
        """The sample items the run will report (xdist: as its workers collected them), and
        whether earlier outcomes chose them (--lf, --sw)."""
        self.collected.expect(nodeids)
        known = {sample.nodeid for sample in self.samples()}
        self.collected.rerun = rerun_of(self.config, self.collected.selected or [], known)

    def add(self, record: str, process: object = None, in_flight: int | None = None,
            away: Mapping[str, Any] | None = None) -> None:
        """Keep one sample's record (``SampleRecord`` as JSON, as its item sent it)."""
        self.collected.add(record, process, in_flight, away)

    def settle(self, outcome: str, process: object = None, in_flight: int | None = None,
               away: Mapping[str, Any] | None = None) -> None:
        """An item took its sample's record whole from the run's records (a resume): the
        record is kept already; only the progress counts it."""
        self.collected.settle(outcome, process, in_flight, away)

    def crashed(self, nodeid: str, words: str) -> str | None:
        """The record of a sample whose xdist worker died while running it (``words``: what
        xdist said of it): an error, which the gate counts as every sample without a score, and
        which a resume asks again. None when ``nodeid`` is no sample of the run, when its
        record came before the worker died, or when its item was taking the record an earlier
        session made (that record stands)."""
        settled = self.worker_plan.settled if self.worker_plan is not None else {}
        if self.collected.records.recorded_now(nodeid) or nodeid in settled:
            return None
        sample = next((s for s in self.samples() if s.nodeid == nodeid), None)
        if sample is None:
            return None
        record = sample.to_record(outcome="error",
                                  message=f"its worker crashed: {one_line(words)}")
        return record.model_dump_json()

    def foreign_failure(self) -> None:
        """A test or collection that is not a sample failed: it fails the run too."""
        self.collected.foreign_failures += 1

    def show_progress(self, write: Callable[[str], None]) -> None:
        """Print a progress line with ``write`` every --audiobench-progress seconds."""
        if self.settings.progress > 0:
            self.collected.progress = Progress(self.settings.progress, write)

    def finish(self, session: pytest.Session) -> None:
        """Aggregate, gate, write the report and baselines, and set the exit status; then let
        go of the records and the run's claim, whatever happened."""
        try:
            super().finish(session)
        finally:
            self.collected.records.close()
            if self.run_start is not None:
                self.run_start.claim.release()

    def _finish(self, session: pytest.Session) -> None:
        selected = self.collected.selected
        if selected is not None and self.settings.dry_run \
                and not self.config.option.collectonly:
            self._would_send()
        if self._worker is None:
            return  # the start failed: nothing ran
        self.gear.close()
        self.collected.traffic += self.gear.traffic()
        if selected is None or self.config.option.collectonly or self.settings.dry_run:
            return
        ordered = self.collected.records.ordered(selected)
        scope = self._scope(session, selected)
        report = ending.conclude(self.settings, self.benchmarks, self.releases(), ordered,
                                 selected, self.baselines, self.collected.traffic,
                                 self._run_info(session, selected),
                                 seconds=self.collected.started.seconds(),
                                 left_out=self._left_out(selected), scope=scope)
        self.report, settings = report, self.settings
        if not selected:
            # A run that asked nothing (its selection held no sample) leaves what an earlier
            # run wrote as it was, and it is no failure: what was not selected is not measured.
            self.written.update({f"{what}: not written, no benchmark sample was selected; "
                                 f"{path} is left as it was": True for what, path in (
                                     ("JSON report", settings.report),
                                     ("HTML page", settings.html)) if path is not None})
            if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED:
                session.exitstatus = pytest.ExitCode.OK
            return
        self._write_outputs(report, ordered, ending.aside(settings, scope))
        unwritten = sum(not done for done in self.written.values())
        short = unwritten or any(s.unwritten for s in report.benchmarks)
        if self.run_start is not None and session.exitstatus != pytest.ExitCode.INTERRUPTED:
            # Short of what it was asked for, a resume continues it, its answers served
            # again, to write what is missing; a whole run's verdict is what a rerun of its
            # failures is held to.
            whole = not scope.partial and settings.shard is None
            self._runs.end(self.run_start.record, self.collected.records.undone(selected),
                           not short, report.gate_held if whole else None)
        session.exitstatus = ending.status_of(self.report, session.exitstatus,
                                           self.collected.foreign_failures, unwritten)

    def _scope(self, session: pytest.Session, selected: list[str]) -> Scope:
        """What part of the benchmark this run measured (``gate/scope.py``)."""
        records, collected = self.collected.records, self.collected
        stopped = stopped_by(session, collected.interrupted, records.not_run(selected),
                             len(selected), collected.first_not_run)
        last = self._runs.last_whole(self.run_start.record) \
            if collected.rerun and self.run_start is not None else None
        configured = [sample.nodeid for sample in self.samples()]
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
        self.releases()
        assert self._releases is not None
        taken = Counter(NodeId.parse(nodeid).benchmark
                        for nodeid in [*selected, *self._sharded])
        return {name: whole - taken[name] for name, whole in self._releases.whole.items()}

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
        assert self.run_start is not None
        notes = [*self.run_start.notes, *self._unselected_ahead(selected)]
        if self.collected.settled:
            notes.append(f"{self.collected.settled} samples done before took their records "
                         "from the run's records, neither asked nor graded again")
        undone = self.collected.records.undone(selected)
        if session.exitstatus != pytest.ExitCode.INTERRUPTED:
            unsaved = self._runs.end(self.run_start.record, undone)
            notes += [unsaved] if unsaved else []
        return RunInfo(id=self.run_start.record.run_id, resumed=self.run_start.resumed,
                       reused=self.run_start.reused, notes=notes,
                       settled=self.collected.settled,
                       finished=undone == 0 and session.exitstatus != pytest.ExitCode.INTERRUPTED,
                       identity=self.run_start.record.identity,
                       started=self.collected.started.at,
                       workers=self._workers())

    def _unselected_ahead(self, selected: list[str]) -> list[str]:
        """Head to head: what the share run before the items cost outside the selection (it is
        picked before pytest's -k, -m or --deselect are known)."""
        chosen = set(selected)
        done = self.worker_plan.done_ahead if self.worker_plan is not None else {}
        outside = sum(nodeid not in chosen for nodeid in done)
        if not outside:
            return []
        return [f"head to head: {outside} of the {len(done)} samples run before the items "
                "to measure the judge's noise are outside this run's selection (-k, -m, "
                "--deselect); --audiobench-tasks and --audiobench-limit narrow what is picked"]

    def add_worker_output(self, worker: str, workeroutput: dict[str, Any]) -> None:
        """What an xdist worker handed over when it finished: its endpoints' traffic; a worker
        that crashed hands over nothing, and the counts say whose are missing."""
        if _TRAFFIC in workeroutput:
            self.collected.traffic += Traffic.model_validate(workeroutput[_TRAFFIC])
        else:
            self.collected.traffic += Traffic(missing=[worker])

    def _would_send(self) -> None:
        from pytest_audiobench.run.dryrun import dry_run

        wanted = set(self.collected.selected or ())
        samples = [s for s in self.samples() if s.nodeid in wanted]

        def again(sample: Sample) -> ModelAnswer | None:
            found = self.worker.rejudging.to_judge_again(sample)
            return None if found is None else baseline_answer(
                sample, self.benchmarks[sample.benchmark].prompt(sample), found.line,
                self.settings)

        planned = dry_run(samples, self.benchmarks, self.gear.runtime(), again,
                          self._judged_if_drifted, self.gear.baseline_runtime())
        held = any(baseline.holds_items for baseline in self.baselines.values())
        self.would_send = planned.model_copy(update={
            "confirm_draws": self.settings.confirm_draws if held else 0})
        if self.settings.report is not None:
            with replacing(self.settings.report) as out:
                out.write(self.would_send.model_dump_json(indent=1))

    def terminal_lines(self) -> list[str]:
        """The summary's lines: the dry run's plan, or the report's."""
        if self.would_send is not None:
            return self.would_send.lines()
        if self.report is None:
            return []
        return render(self.report, self.config.option.verbose > 0, list(self.written))

