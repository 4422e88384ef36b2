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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import (
    Release,
    judged_by,
    line_baseline_grades,
)
from pytest_audiobench.benchmarks.release import locate
from pytest_audiobench.benchmarks.sample import NodeId, Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.loaded import LoadedBaseline, load_all
from pytest_audiobench.gate.sample_change import Change, Confirming
from pytest_audiobench.outcome.lines import JudgedBy
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.terminal import render
from pytest_audiobench.run.calibration import decide_judge_comparisons
from pytest_audiobench.run.collecting import Collected
from pytest_audiobench.run.dryrun import DryRun, forecast
from pytest_audiobench.run.finishing import Finishing
from pytest_audiobench.run.fresh import FreshDraws
from pytest_audiobench.run.gear import Gear
from pytest_audiobench.run.internals import in_xdist_worker, xdist_workers
from pytest_audiobench.run.keeping import freeze_kept, unfreeze
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.run.progress import Progress
from pytest_audiobench.run.releases import Releases
from pytest_audiobench.run.runs import RunBook, RunStart, model_identity
from pytest_audiobench.run.scoping import rerun_of
from pytest_audiobench.run.shards import slice_of
from pytest_audiobench.run.spool import Settled
from pytest_audiobench.run.starting import cache_note, check_outputs, keep_records
from pytest_audiobench.run.worker import Rejudging, Worker
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
        raise pytest.UsageError(one_line(str(exc))) from exc


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
            # Shown on one line, made safe: a data record, a baseline or a server's answer to
            # the checks may be quoted in it, and pytest prints a usage error raw.
            raise pytest.UsageError(one_line(str(exc))) from exc
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
        return load_all(self.settings, self._judged_by(),
                        {name: bench.gating().linear for name, bench in self.benchmarks.items()},
                        withheld)

    def releases(self) -> dict[str, Release]:
        """Every benchmark's release, its samples narrowed to the selected tasks and limit."""
        assert self._releases is not None, "the session has not started"
        return self._releases.loaded()

    def change_of(self, sample: Sample, record: SampleRecord,
                  fails_now: bool) -> tuple[Change | None, SampleRecord]:
        """The sample's change against its per-sample baseline line, if it has one, a
        suggested drop confirmed by fresh draws first; and the record with those draws."""
        bench, baseline = self.benchmarks[sample.benchmark], self.baselines[sample.benchmark]
        again = line_baseline_grades(bench, record) if baseline.rejudged else None
        fresh = FreshDraws(self.worker, bench, sample, record, baseline)
        confirming = Confirming(self.settings.confirm_draws, fresh.draw) \
            if baseline.holds_items and len(record.answers) == 1 else None
        found = baseline.change(sample.nodeid, bench.gating().line(record), fails_now, again,
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
            self._close()
            if self._worker is not None:
                self.worker.settled.close()
            for baseline in self.baselines.values():
                baseline.close()
            if self._frozen:
                unfreeze()
                self._frozen = False

    @abstractmethod
    def _finish(self, session: pytest.Session) -> None: ...

    def _close(self) -> None:
        """Close the endpoints (the one place that does; closing twice does nothing): their
        traffic is whole once they are closed."""
        if self._worker is not None:
            self.gear.close()

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
            self._close()
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
        self.runs = RunBook(settings.cache_dir / "runs", keep=settings.cache)
        """The run records of the cache folder."""

    # -- start -------------------------------------------------------------------------

    def _start(self) -> None:
        """Locate (download) and validate the data, begin the run, check the endpoints and
        record what identifies the model; decide what each gate pairs against; make the plan
        the workers are sent."""
        settings = self.settings
        check_outputs(settings, self.config, self.benchmarks)
        if settings.clear_cache:
            ResponseCache(settings.cache_dir / "responses").clear()
        catalog = registry.catalog()
        self._releases = Releases(settings, self.benchmarks, {
            name: locate(bench, settings.data[name], catalog)
            for name, bench in self.benchmarks.items()})
        self.releases()
        self.baselines = self._baselines()
        self.run_start = start = self.runs.begin(settings)
        note = cache_note(settings)
        if note is not None:
            self.run_start = start = replace(start, notes=[*start.notes, note])
        cached = settings.cache
        settled_in, settled = keep_records(settings, self.config, self.runs, start,
                                           self.collected.records, self.baselines)
        # Without the cache nothing is kept, and a run's answers are nobody's to reuse.
        plan = RunPlan(roots=self._releases.roots,
                       run_id=self.run_start.record.run_id if cached else None,
                       reuse=self.run_start.reused if cached else None,
                       deadline_at=None if settings.deadline is None
                       else time.time() + settings.deadline,
                       settled_in=settled_in, settled=settled)
        measure = self.runs.earlier(self.run_start.record) if settings.dry_run and cached else ()
        gear = Gear(settings, plan, measure)
        self._worker = deciding = self._made_worker(gear, plan)
        if not self.config.option.collectonly:
            if not settings.dry_run:
                self.run_start = self.runs.confirm(
                    self.run_start, model_identity(settings, served=gear.check()))
            kept = self.run_start.record.comparisons
            plan = decide_judge_comparisons(settings, self.benchmarks, self.releases(),
                                      self.baselines, kept, deciding, not settings.dry_run)
            if not settings.dry_run and plan.comparisons != kept:
                self.run_start = self.runs.decided(self.run_start, plan.comparisons)
            self.baselines = plan.decide(self.baselines)
            self._worker = self._made_worker(gear, plan)
        self.worker_plan = plan.model_copy(update={
            "budget_share": max(1, xdist_workers(self.config)), "spent": gear.spent()})

    def start_lines(self) -> list[str]:
        """What a person should know before the items run (an unwritable cache)."""
        notes = self.run_start.notes if self.run_start is not None else []
        return [f"audiobench: {note}" for note in notes if note.startswith("cache: ")]

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
            away: Mapping[str, Any] | None = None, nodeid: str | None = None) -> None:
        """Keep one sample's record (``SampleRecord`` as JSON, as its item sent it); ``nodeid``:
        its report's."""
        self.collected.add(record, process, in_flight, away, nodeid)

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
        selected, settings = self.collected.selected, self.settings
        only_collected = self.config.option.collectonly
        if selected is not None and settings.dry_run and not only_collected:
            wanted = set(selected)
            self.would_send = forecast(settings, self.benchmarks, self.baselines,
                                       [s for s in self.samples() if s.nodeid in wanted],
                                       self.worker)
            if settings.report is not None:
                with replacing(settings.report) as out:
                    out.write(self.would_send.model_dump_json(indent=1))
        if self._worker is None:
            return  # the start failed: nothing ran
        self._close()
        self.collected.traffic += self.gear.traffic()
        if selected is None or only_collected or settings.dry_run:
            return
        assert self.run_start is not None and self._releases is not None
        finishing = Finishing(settings, self.benchmarks, self._releases, self.baselines,
                              self.collected, self.runs, self.run_start, self.worker_plan,
                              [sample.nodeid for sample in self.samples()], self._sharded,
                              xdist_workers(self.config), self.written)
        self.report = finishing.finish(session, selected)

    def add_worker_output(self, worker: str, workeroutput: dict[str, Any]) -> None:
        """What an xdist worker handed over when it finished: its endpoints' traffic; a worker
        that crashed hands over nothing, and the counts say whose are missing."""
        if _TRAFFIC in workeroutput:
            self.collected.traffic += Traffic.model_validate(workeroutput[_TRAFFIC])
        else:
            self.collected.traffic += Traffic(missing=[worker])

    def terminal_lines(self) -> list[str]:
        """The summary's lines: the dry run's plan, or the report's."""
        if self.would_send is not None:
            return self.would_send.lines()
        if self.report is None:
            return []
        return render(self.report, self.config.option.verbose > 0, list(self.written))

