"""The one object a run keeps in ``config.stash``: data, engine, results, gate and report.

On an xdist worker it loads the samples and runs the items' pipelines; on the controller (or
in a run without xdist) it also checks the endpoints at start, collects every sample's record
from the test reports, and decides the gate once, at the end.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Runtime
from pytest_audiobench.benchmarks.sample import ROOT_NODE, Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.gate import baseline as baselines
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Verdict
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.summary import build_report, exit_status, load_baselines
from pytest_audiobench.report.terminal import render
from pytest_audiobench.run.dryrun import DryRun
from pytest_audiobench.run.prefetch import Lookahead
from pytest_audiobench.run.progress import Progress
from pytest_audiobench.transport.cache import ResponseCache
from pytest_audiobench.transport.engine import Engine, Pipeline
from pytest_audiobench.transport.pacing import Pacer

T = TypeVar("T")
_WORKER_ROOTS = "audiobench_roots"
_DEADLINE = "audiobench_deadline"
_SHARE = "audiobench_budget_share"


class AudiobenchWarning(UserWarning):
    """Something a person should know about a sample that does not change its outcome."""


class AudiobenchSession:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.benchmarks = {name: registry.get(name) for name in settings.benchmarks}
        self._roots: dict[str, Path] = {}
        self._samples: dict[str, list[Sample]] | None = None
        self._runtime: Runtime | None = None
        self._engine: Engine | None = None
        self._lookahead: Lookahead | None = None
        self.records: dict[str, SampleRecord] = {}
        self.selected: list[str] | None = None
        self.foreign_failures = 0
        self.report: RunReport | None = None
        self.plan: DryRun | None = None
        self.progress: Progress | None = None
        """Set by the plugin on the controller when a terminal is there to print to."""
        self._baselines: dict[str, baselines.Baseline | None] = {}
        workerinput: dict[str, Any] = getattr(config, "workerinput", {})
        starts_now = None if settings.deadline is None else time.time() + settings.deadline
        self._deadline_at: float | None = workerinput.get(_DEADLINE, starts_now)
        self._budget_share: int = workerinput.get(_SHARE, 1)

    # -- start -------------------------------------------------------------------------

    def start(self) -> None:
        """Locate (download) and validate the data; on the controller check the endpoints."""
        workerinput: dict[str, Any] | None = getattr(self.config, "workerinput", None)
        try:
            if workerinput is not None:
                self._roots = {k: Path(v) for k, v in workerinput[_WORKER_ROOTS].items()}
                return
            if self.settings.clear_cache:
                ResponseCache(self._cache_root).clear()
            self._roots = {name: b.locate(self.settings) for name, b in self.benchmarks.items()}
            self.samples()
            self._baselines = load_baselines(self.settings, self.benchmarks)
            if not self.config.option.collectonly and not self.settings.dry_run:
                runtime = self.runtime()
                runtime.model.check()
                if runtime.judge is not None:
                    runtime.judge.check()
        except AudiobenchError as exc:
            raise pytest.UsageError(str(exc)) from exc

    def worker_input(self) -> dict[str, Any]:
        """What a worker needs from the controller: the data roots, downloaded once."""
        workers = getattr(self.config.option, "numprocesses", None)
        return {_WORKER_ROOTS: {name: str(path) for name, path in self._roots.items()},
                _DEADLINE: self._deadline_at,
                _SHARE: workers if isinstance(workers, int) and workers > 0 else 1}

    def samples(self) -> dict[str, list[Sample]]:
        if self._samples is None:
            self._samples = {name: b.load(self._roots[name], self.settings)
                             for name, b in self.benchmarks.items()}
        return self._samples

    @property
    def _cache_root(self) -> Path:
        return self.settings.cache_dir / "responses"

    def response_cache(self) -> ResponseCache | None:
        return ResponseCache(self._cache_root) if self.settings.cache else None

    def _make_pacer(self) -> Pacer:
        share = self._budget_share
        settings = self.settings
        return Pacer(
            settings.concurrency, deadline=self._deadline_at,
            max_requests=None if settings.budget_requests is None else max(
                1, settings.budget_requests // share),
            max_tokens=None if settings.budget_tokens is None else max(
                1, settings.budget_tokens // share))

    def runtime(self) -> Runtime:
        if self._runtime is None:
            from pytest_audiobench.benchmarks.air_bench_chat.judge import load_template
            from pytest_audiobench.transport.endpoint import Endpoint

            self._engine = Engine(self._make_pacer)
            pacer = self._engine.pacer
            judge = self.settings.judge
            chat = "air_bench_chat" in self.benchmarks
            cache = self.response_cache()
            model = None
            if self.settings.builtin is not None:
                from pytest_audiobench.builtin import build

                model = build(self.settings.builtin, pacer, cache)
            offline = None
            if judge is not None and judge.offline:
                from pytest_audiobench.builtin.overlap import OverlapJudge

                offline = OverlapJudge()
            rubric_judge = None
            if judge is not None and not judge.offline and "mmar" in self.benchmarks:
                rubric = self.settings.mmar.rubric
                sampling = judge.endpoint.sampling.model_copy(
                    update={"temperature": rubric.temperature, "seed": rubric.seed})
                rubric_judge = Endpoint(judge.endpoint.model_copy(update={"sampling": sampling}),
                                        pacer, cache)
            self._runtime = Runtime(
                settings=self.settings,
                model=Endpoint(self.settings.endpoint, pacer, cache, local=model),
                judge=Endpoint(judge.endpoint, pacer, cache, local=offline) if judge else None,
                judge_template=load_template(judge.template_path) if judge and chat else None,
                rubric_judge=rubric_judge,
            )
        return self._runtime

    # -- items -------------------------------------------------------------------------

    def pipeline(self, sample: Sample) -> Pipeline[list[ModelAnswer], list[Verdict]]:
        """Every run's answer, then every answer's verdict, each graded as soon as it lands."""
        runtime = self.runtime()
        assert self._engine is not None
        bench = self.benchmarks[sample.benchmark]
        runs = range(self.settings.runs)

        async def answer() -> list[ModelAnswer]:
            return list(await asyncio.gather(*(bench.answer(sample, runtime, r) for r in runs)))

        async def grade(answers: list[ModelAnswer]) -> list[Verdict]:
            return list(await asyncio.gather(*(bench.grade(sample, a, runtime) for a in answers)))

        return self._engine.start(sample.nodeid, answer, grade)

    def prefetch(self, item: pytest.Item) -> None:
        """Start the pipelines of the items this process runs next, a window at a time."""
        if self.settings.dry_run:
            return
        from pytest_audiobench.run.keys import SAMPLE_KEY

        if self._lookahead is None:
            self._lookahead = Lookahead(item.session)
        window = 2 * self.settings.concurrency
        engine = self._engine
        for upcoming in self._lookahead.upcoming(item, window):
            sample = upcoming.stash.get(SAMPLE_KEY, None)
            # On xdist most of the window is already running: only new items cost anything.
            if sample is not None and (engine is None or not engine.running(sample.nodeid)):
                self.pipeline(sample)
                engine = self._engine

    def done(self, sample: Sample) -> None:
        if self._engine is not None:
            self._engine.forget(sample.nodeid)

    @staticmethod
    def wait(future: Future[T]) -> T:
        return future.result()

    def warn(self, sample: Sample, answers: list[ModelAnswer]) -> None:
        for message in dict.fromkeys(m for answer in answers for m in answer.warnings):
            warnings.warn(AudiobenchWarning(f"{sample.nodeid}: {message}"), stacklevel=2)

    # -- results (controller) ----------------------------------------------------------

    def shard(self, items: list[pytest.Item]) -> None:
        """Keep slice K of N: every N-th sample item in node id order, from the K-th."""
        if self.settings.shard is None:
            return
        k, n = self.settings.shard
        ours = sorted(item.nodeid for item in items if item.nodeid.startswith(ROOT_NODE + "::"))
        keep = {nodeid for index, nodeid in enumerate(ours) if index % n == k - 1}
        dropped = [i for i in items if i.nodeid.startswith(ROOT_NODE + "::")
                   and i.nodeid not in keep]
        if dropped:
            gone = set(dropped)
            items[:] = [i for i in items if i not in gone]
            self.config.hook.pytest_deselected(items=dropped)

    def expect(self, nodeids: Iterable[str]) -> None:
        self.selected = [n for n in nodeids if n.startswith(ROOT_NODE + "::")]
        if self.progress is not None:
            self.progress.total = len(self.selected)

    def add(self, record: dict[str, Any], process: object = None,
            in_flight: int | None = None) -> None:
        parsed = SampleRecord.model_validate(record)
        self.records[parsed.nodeid] = parsed
        if self.progress is not None:
            self.progress.record(parsed, process, in_flight)

    def in_flight(self) -> int:
        return self._engine.pacer.in_flight if self._engine is not None else 0

    def finish(self, session: pytest.Session) -> None:
        """Aggregate, gate, write the report and baselines, and set the exit status."""
        controller = not hasattr(self.config, "workerinput") and self.selected is not None
        if controller and self.settings.dry_run and not self.config.option.collectonly:
            self._plan(session)
        if self._engine is not None and self._runtime is not None:
            runtime = self._runtime

            async def close() -> None:
                for endpoint in (runtime.model, runtime.judge, runtime.rubric_judge):
                    if endpoint is not None:
                        await endpoint.close()

            self._engine.close(close)
            self._engine = None
        if (self.selected is None or not controller or self.config.option.collectonly
                or self.settings.dry_run):
            return
        ordered = [self.records[n] for n in self.selected if n in self.records]
        self.report = build_report(self.settings, self.benchmarks, ordered, self.selected,
                                   self._baselines)
        if self.settings.report_path is not None:
            self.report.write(self.settings.report_path)
        if self.settings.shard is not None:
            # A shard's numbers are partial: the merge gates. Only other tests' failures and
            # interruptions fail the shard's job.
            failed = self.foreign_failures or session.exitstatus not in (
                pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
            session.exitstatus = session.exitstatus if failed else pytest.ExitCode.OK
            return
        session.exitstatus = exit_status(self.report, session.exitstatus, self.foreign_failures)

    def _plan(self, session: pytest.Session) -> None:
        from pytest_audiobench.run.dryrun import dry_run

        wanted = set(self.selected or ())
        samples = [s for group in self.samples().values() for s in group if s.nodeid in wanted]
        self.plan = dry_run(samples, self.benchmarks, self.runtime())
        if self.settings.report_path is not None:
            self.settings.report_path.parent.mkdir(parents=True, exist_ok=True)
            self.settings.report_path.write_text(self.plan.model_dump_json(indent=1),
                                                 encoding="utf-8")

    def terminal_lines(self) -> list[str]:
        if self.plan is not None:
            return self.plan.lines()
        if self.report is None:
            return []
        lines = render(self.report, verbose=self.config.option.verbose > 0)
        if self.settings.require_baseline:
            lines += [f"gate: FAILED: --audiobench-require-baseline and no baseline at "
                      f"{s.baseline_path}" for s in self.report.benchmarks
                      if s.baseline == "missing"]
        return lines
