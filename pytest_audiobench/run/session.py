"""The one object a run keeps in ``config.stash``: the benchmarks, their data, the worker side,
and, on the controller (or in a run without xdist), the records, the gate and the report.

On an xdist worker it loads the samples from the data the controller located and runs the
items' pipelines through its ``Worker``; on the controller it also checks the endpoints at the
start, collects every sample's record from the test reports, and decides the gate once, at
the end.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.asking import baseline_answer
from pytest_audiobench.benchmarks.base import Release, export, judged_by, line_judged_again
from pytest_audiobench.benchmarks.release import locate
from pytest_audiobench.benchmarks.sample import ROOT_NODE, Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.files import cannot_write, cannot_write_in, replacing
from pytest_audiobench.gate import writing
from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.items import Change, Confirming
from pytest_audiobench.gate.loaded import LoadedBaseline, baseline_path, load_all
from pytest_audiobench.outcome.lines import JudgedBy
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, read_verdict
from pytest_audiobench.report import html
from pytest_audiobench.report.html import Written
from pytest_audiobench.report.model import RunInfo, RunReport
from pytest_audiobench.report.summary import (
    baselines_unwritten,
    build_report,
    exported,
    report_status,
)
from pytest_audiobench.report.terminal import render
from pytest_audiobench.run.calibration import Calibrated, calibrate, head_to_head
from pytest_audiobench.run.collecting import Collected, Started
from pytest_audiobench.run.dryrun import DryRun
from pytest_audiobench.run.fresh import FreshDraws
from pytest_audiobench.run.keeping import freeze_kept, unfreeze
from pytest_audiobench.run.progress import Progress
from pytest_audiobench.run.releases import Releases
from pytest_audiobench.run.runs import RunBook, RunStart, model_identity
from pytest_audiobench.run.shards import slice_of
from pytest_audiobench.run.worker import Again, Regraded, Worker
from pytest_audiobench.transport.cache import ResponseCache
from pytest_audiobench.transport.types import ModelIdentity, Traffic

_WORKER_ROOTS = "audiobench_roots"
_DEADLINE = "audiobench_deadline"
_SHARE = "audiobench_budget_share"
_TRAFFIC = "audiobench_traffic"
_RUN = "audiobench_run"
_REUSE = "audiobench_reuse"
_COMPARED = "audiobench_compared"
_AHEAD = "audiobench_graded_ahead"
_SPENT = "audiobench_spent"
_DONE = "audiobench_done_ahead"


class AudiobenchSession:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.benchmarks = {name: registry.create(name, settings) for name in settings.benchmarks}
        self._worker: Worker | None = None
        self.run: RunStart | None = None
        """The run this session is (controller): its id, what it resumes or reuses."""
        self.identity: ModelIdentity | None = None
        self._releases: Releases | None = None
        self._sharded: list[str] = []
        """The sample items a shard's split left to the other shards."""
        self.baselines: dict[str, LoadedBaseline] = {}
        """Per benchmark, its baseline and per-sample lines, loaded before any request."""
        self.collected = Collected()
        """What the controller gathers while the items run."""
        self.report: RunReport | None = None
        self.plan: DryRun | None = None
        self.started = Started()
        self.written: dict[str, bool] = {}
        """The outputs of the end of the run, a line each, and whether each was written."""
        self._frozen = False
        self._ahead: dict[str, Regraded] = {}
        """Baseline answers today's judge graded before the items (``run/calibration.py``)."""
        self._done: dict[str, SampleRecord] = {}
        """Head to head: samples run whole before the items (``run/calibration.py``)."""

    # -- start -------------------------------------------------------------------------

    @property
    def worker(self) -> Worker:
        """The side that asks and grades, made at the session's start."""
        assert self._worker is not None, "the session has not started"
        return self._worker

    def start(self) -> None:
        """Locate (download) and validate the data; on the controller begin the run, check
        the endpoints and record what identifies the model. What is loaded then lives to the
        end of the session, out of the garbage collector's rescans (``run/keeping.py``)."""
        workerinput: dict[str, Any] | None = getattr(self.config, "workerinput", None)
        try:
            if workerinput is not None:
                self._start_worker(workerinput)
            else:
                self._start_controller()
        except AudiobenchError as exc:
            raise pytest.UsageError(str(exc)) from exc
        self._frozen = freeze_kept(self._frozen)

    def _start_worker(self, workerinput: dict[str, Any]) -> None:
        self._releases = Releases(self.settings, self.benchmarks, {
            k: Path(v) for k, v in workerinput[_WORKER_ROOTS].items()})
        self.baselines = load_all(self.settings, self._judged_by())
        self._take_comparisons(workerinput[_COMPARED], workerinput[_AHEAD])
        self._done = {nodeid: SampleRecord.model_validate_json(record)
                      for nodeid, record in workerinput[_DONE].items()}
        self._worker = self._make_worker(workerinput[_DEADLINE], workerinput[_SHARE],
                                         workerinput[_RUN], workerinput[_REUSE],
                                         tuple(workerinput[_SPENT]), self._done)

    def _start_controller(self) -> None:
        settings = self.settings
        self._check_outputs()
        if settings.clear_cache:
            ResponseCache(settings.cache_dir / "responses").clear()
        catalog = registry.catalog()
        self._releases = Releases(settings, self.benchmarks, {
            name: locate(bench, settings.data[name], catalog)
            for name, bench in self.benchmarks.items()})
        self.releases()
        self.baselines = load_all(settings, self._judged_by())
        self.run = self._runs.begin(settings)
        self._check_cache()
        deadline = None if settings.deadline is None else time.time() + settings.deadline
        self._worker = self._make_worker(deadline, 1, self.run.record.run_id, self.run.reused)
        if self.config.option.collectonly:
            return
        if not settings.dry_run:
            self.identity = model_identity(settings, served=self.worker.check())
            self.run = self._runs.confirm(self.run, self.identity)
        self._compare(send=not settings.dry_run)

    def _judged_by(self) -> dict[str, JudgedBy]:
        releases = self.releases()
        return {name: judged_by(bench, releases[name]) for name, bench in self.benchmarks.items()}

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
        if junit and not hasattr(config, "workerinput"):
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
        assert self.run is not None
        reason = cannot_write_in(self.settings.cache_dir / "responses") \
            if self.settings.cache else None
        if reason is not None:
            note = (f"cache: {self.settings.cache_dir} cannot be written ({reason}): replies are "
                    "kept in memory for this run only; it cannot be resumed or reused")
            self.run = replace(self.run, notes=[*self.run.notes, note])

    def start_lines(self) -> list[str]:
        """What a person should know before the items run (an unwritable cache)."""
        notes = self.run.notes if self.run is not None else []
        return [f"audiobench: {note}" for note in notes if note.startswith("cache: ")]

    @property
    def _runs(self) -> RunBook:
        return RunBook(self.settings.cache_dir / "runs", keep=self.settings.cache)

    def _make_worker(self, deadline_at: float | None, share: int, run_id: str,
                     reuse: str | None, spent: tuple[int, int] = (0, 0),
                     done: dict[str, SampleRecord] | None = None) -> Worker:
        # Without the cache nothing is kept, and a run's answers are nobody's to reuse.
        cached = self.settings.cache
        measure = self._runs.earlier(self.run.record) if (
            self.settings.dry_run and cached and self.run is not None) else ()
        return Worker(self.settings, self.benchmarks, deadline_at=deadline_at,
                      budget_share=share, run=run_id if cached else None,
                      reuse=reuse if cached else None, to_judge_again=self._to_judge_again,
                      judge_afresh=lambda name: self.baselines[name].rejudged, spent=spent,
                      done_ahead=done, measure=measure)

    def _to_judge_again(self, sample: Sample) -> Again | None:
        baseline = self.baselines.get(sample.benchmark)
        line = None if baseline is None else baseline.to_judge_again(sample.nodeid)
        return None if line is None else Again(line, self._ahead.get(sample.nodeid))

    def _compare(self, send: bool) -> None:
        """Decide, per benchmark, what its gate pairs against, before any item (a resume holds
        to its run's decision); the answers graded to decide it serve the items. ``send``
        False (a dry run): what needs no request."""
        assert self.run is not None
        kept, decided = self.run.record.comparisons, {}
        for name, baseline in self.baselines.items():
            made = Calibrated(kept[name]) if name in kept else self._calibrate(
                name, baseline, send)
            if made is not None:
                decided[name] = made.comparison
                self.baselines[name] = baseline.decided(made.comparison)
                self._ahead.update(made.graded)
                self._done.update(made.done)
        if send and decided != kept:
            self.run = self._runs.decided(self.run, decided)

    def _calibrate(self, name: str, baseline: LoadedBaseline, send: bool) -> Calibrated | None:
        bench, release, worker = self.benchmarks[name], self.releases()[name], self.worker
        if baseline.rival is not None:
            return head_to_head(self.settings, bench, release, baseline,
                                worker.run_ahead if send else None)
        return calibrate(self.settings, bench, release, baseline,
                         worker.grade_again if send else None, worker.traffic)

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

    def _take_comparisons(self, compared: dict[str, Any], ahead: dict[str, Any]) -> None:
        """A worker's side of ``_compare``: the controller's decisions and gradings."""
        for name, comparison in compared.items():
            self.baselines[name] = self.baselines[name].decided(
                JudgeComparison.model_validate(comparison))
        self._ahead = {nodeid: ([read_verdict(v) for v in verdicts], failed)
                       for nodeid, (verdicts, failed) in ahead.items()}

    def worker_input(self) -> dict[str, Any]:
        """What a worker needs from the controller: the data roots, downloaded once."""
        workers = getattr(self.config.option, "numprocesses", None)
        run = self.run
        assert run is not None, "the session has not started"
        assert self._releases is not None
        return {_WORKER_ROOTS: {name: str(path) for name, path in self._releases.roots.items()},
                _DEADLINE: self.worker.deadline_at,
                _SHARE: workers if isinstance(workers, int) and workers > 0 else 1,
                _RUN: run.record.run_id, _REUSE: run.reused, _SPENT: self.worker.spent(),
                _COMPARED: {name: baseline.comparison.model_dump(mode="json")
                            for name, baseline in self.baselines.items()
                            if baseline.comparison is not None},
                _AHEAD: {nodeid: ([v.model_dump(mode="json") for v in verdicts], failed)
                         for nodeid, (verdicts, failed) in self._ahead.items()},
                _DONE: {nodeid: record.model_dump_json() for nodeid, record in self._done.items()}}

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

    # -- results (controller) ----------------------------------------------------------

    def shard(self, items: list[pytest.Item]) -> None:
        """Keep slice K of N: every N-th sample item in node id order, from the K-th."""
        if self.settings.shard is None:
            return
        keep = set(slice_of((item.nodeid for item in items
                             if item.nodeid.startswith(ROOT_NODE + "::")), *self.settings.shard))
        dropped = [i for i in items if i.nodeid.startswith(ROOT_NODE + "::")
                   and i.nodeid not in keep]
        self._sharded = [item.nodeid for item in dropped]
        if dropped:
            gone = set(dropped)
            items[:] = [i for i in items if i not in gone]
            self.config.hook.pytest_deselected(items=dropped)

    def collection_done(self, items: list[pytest.Item]) -> None:
        """Collection is over: the controller learns which samples to expect, and every
        process that runs items keeps them out of the garbage collector's rescans too."""
        if not hasattr(self.config, "workerinput"):
            self.expect(item.nodeid for item in items)
        if not self.config.option.collectonly:
            self._frozen = freeze_kept(self._frozen)

    def expect(self, nodeids: Iterable[str]) -> None:
        self.collected.expect(nodeids)

    def add(self, record: str, process: object = None, in_flight: int | None = None) -> None:
        """Keep one sample's record (``SampleRecord`` as JSON, as its item sent it)."""
        self.collected.add(record, process, in_flight)

    def foreign_failure(self) -> None:
        """A test or collection that is not a sample failed: it fails the run too."""
        self.collected.foreign_failures += 1

    def show_progress(self, write: Callable[[str], None]) -> None:
        """Print a progress line with ``write`` every --audiobench-progress seconds."""
        if self.settings.progress > 0:
            self.collected.progress = Progress(self.settings.progress, write)

    def finish(self, session: pytest.Session) -> None:
        """Aggregate, gate, write the report and baselines, and set the exit status; then let
        go of the records and the baseline lines, whatever happened."""
        try:
            self._finish(session)
        finally:
            self.collected.records.close()
            for baseline in self.baselines.values():
                baseline.close()
            if self.run is not None:
                self.run.claim.release()
            if self._frozen:
                unfreeze()
                self._frozen = False

    def _finish(self, session: pytest.Session) -> None:
        selected = self.collected.selected
        controller = not hasattr(self.config, "workerinput") and selected is not None
        if controller and self.settings.dry_run and not self.config.option.collectonly:
            self._plan()
        if self._worker is None:
            return  # the start failed: nothing ran
        self.worker.close()
        self._hand_over_traffic()
        if (selected is None or not controller or self.config.option.collectonly
                or self.settings.dry_run):
            return
        ordered = self.collected.records.ordered(selected)
        report, updates = build_report(self.settings, self.benchmarks, self.releases(),
                                       ordered, selected, self.baselines,
                                       self.collected.traffic, self._run_info(session, selected),
                                       self.started.seconds(), self._left_out(selected))
        report = baselines_unwritten(report, writing.apply(updates))
        report = exported(report, export(self.benchmarks, ordered))
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
        if settings.report is not None:
            self._keep("JSON report", settings.report,
                       lambda path: report.write(path, ordered))
        if settings.html is not None:
            page = html.run_page(self.report, ordered, self.benchmarks,
                                 {name: b.lines for name, b in self.baselines.items()})
            self._keep("HTML page", settings.html, lambda path: html.write(page, path))
        unwritten = sum(not done for done in self.written.values())
        if (unwritten or any(s.unwritten for s in report.benchmarks)) and self.run is not None:
            # The run could not give what it was asked for: a resume continues it, its
            # answers served again, to write what is missing.
            self._runs.end(self.run.record, self.collected.records.undone(selected), False)
        session.exitstatus = report_status(self.report, session.exitstatus,
                                           self.collected.foreign_failures, unwritten)

    def _left_out(self, selected: list[str]) -> dict[str, int]:
        """Per benchmark, the release's samples the run's selection left out (a shard's split
        is not a selection: its merge gates the union)."""
        self.releases()
        assert self._releases is not None
        taken = Counter(nodeid.split("::")[1] for nodeid in [*selected, *self._sharded])
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
        assert self.run is not None
        notes = [*self.run.notes, *self._unselected_ahead(selected)]
        undone = self.collected.records.undone(selected)
        if session.exitstatus != pytest.ExitCode.INTERRUPTED:
            unsaved = self._runs.end(self.run.record, undone)
            notes += [unsaved] if unsaved else []
        return RunInfo(id=self.run.record.run_id, resumed=self.run.resumed,
                       reused=self.run.reused, notes=notes,
                       finished=undone == 0 and session.exitstatus != pytest.ExitCode.INTERRUPTED,
                       identity=self.identity, started=self.started.at)

    def _unselected_ahead(self, selected: list[str]) -> list[str]:
        """Head to head: what the share run before the items cost outside the selection (it is
        picked before pytest's -k, -m or --deselect are known)."""
        chosen = set(selected)
        outside = sum(nodeid not in chosen for nodeid in self._done)
        if not outside:
            return []
        return [f"head to head: {outside} of the {len(self._done)} samples run before the items "
                "to measure the judge's noise are outside this run's selection (-k, -m, "
                "--deselect); --audiobench-tasks and --audiobench-limit narrow what is picked"]

    def add_worker_output(self, worker: str, workeroutput: dict[str, Any]) -> None:
        """What an xdist worker handed over when it finished: its endpoints' traffic; a worker
        that crashed hands over nothing, and the counts say whose are missing."""
        if _TRAFFIC in workeroutput:
            self.collected.traffic += Traffic.model_validate(workeroutput[_TRAFFIC])
        else:
            self.collected.traffic += Traffic(missing=[worker])

    def _hand_over_traffic(self) -> None:
        workeroutput: dict[str, Any] | None = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:
            workeroutput[_TRAFFIC] = self.worker.traffic().model_dump(mode="json")
        else:
            self.collected.traffic += self.worker.traffic()

    def _plan(self) -> None:
        from pytest_audiobench.run.dryrun import dry_run

        wanted = set(self.collected.selected or ())
        samples = [s for s in self.samples() if s.nodeid in wanted]
        def again(sample: Sample) -> ModelAnswer | None:
            found = self._to_judge_again(sample)
            return None if found is None else baseline_answer(
                sample, self.benchmarks[sample.benchmark].prompt(sample), found.line,
                self.settings)

        plan = dry_run(samples, self.benchmarks, self.worker.runtime(), again,
                       self._judged_if_drifted, self.worker.rival())
        held = any(baseline.holds_items for baseline in self.baselines.values())
        self.plan = plan.model_copy(update={
            "confirm_draws": self.settings.confirm_draws if held else 0})
        if self.settings.report is not None:
            with replacing(self.settings.report) as out:
                out.write(self.plan.model_dump_json(indent=1))

    def terminal_lines(self) -> list[str]:
        if self.plan is not None:
            return self.plan.lines()
        if self.report is None:
            return []
        return render(self.report, self.config.option.verbose > 0, list(self.written))

