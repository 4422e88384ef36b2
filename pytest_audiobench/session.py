"""The one object a run keeps in ``config.stash``: data, engine, results, gate and report.

On an xdist worker it loads the samples and runs the items' pipelines; on the controller (or
in a run without xdist) it also checks the endpoints at start, collects every sample's record
from the test reports, and decides the gate once, at the end.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Iterable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import pytest

from pytest_audiobench import baseline as baselines
from pytest_audiobench import benchmarks
from pytest_audiobench.benchmarks import ROOT_NODE, Runtime, Sample
from pytest_audiobench.cache import ResponseCache
from pytest_audiobench.engine import Engine, Pipeline
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.lookahead import Lookahead
from pytest_audiobench.report import BenchmarkSummary, RunReport, count, render, usage
from pytest_audiobench.results import ModelAnswer, SampleRecord, Verdict
from pytest_audiobench.scoring import combine_runs
from pytest_audiobench.settings import Settings

T = TypeVar("T")
_WORKER_ROOTS = "audiobench_roots"


class AudiobenchWarning(UserWarning):
    """Something a person should know about a sample that does not change its outcome."""


class AudiobenchSession:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.benchmarks = {name: benchmarks.get(name) for name in settings.benchmarks}
        self._roots: dict[str, Path] = {}
        self._samples: dict[str, list[Sample]] | None = None
        self._runtime: Runtime | None = None
        self._engine: Engine | None = None
        self._lookahead: Lookahead | None = None
        self.records: dict[str, SampleRecord] = {}
        self.selected: list[str] | None = None
        self.foreign_failures = 0
        self.report: RunReport | None = None
        self._baselines: dict[str, baselines.Baseline | None] = {}

    # -- start -------------------------------------------------------------------------

    def start(self) -> None:
        """Locate (download) and validate the data; on the controller check the endpoints."""
        workerinput: dict[str, Any] | None = getattr(self.config, "workerinput", None)
        try:
            if workerinput is not None:
                self._roots = {k: Path(v) for k, v in workerinput[_WORKER_ROOTS].items()}
                return
            if self.settings.clear_cache:
                ResponseCache(self.settings.cache_dir / "responses").clear()
            self._roots = {name: b.locate(self.settings) for name, b in self.benchmarks.items()}
            self.samples()
            self._baselines = {name: baselines.load(self._baseline_path(name))
                               for name in self.benchmarks}
            if not self.config.option.collectonly:
                runtime = self.runtime()
                runtime.model.check()
                if runtime.judge is not None:
                    runtime.judge.check()
        except AudiobenchError as exc:
            raise pytest.UsageError(str(exc)) from exc

    def worker_input(self) -> dict[str, Any]:
        """What a worker needs from the controller: the data roots, downloaded once."""
        return {_WORKER_ROOTS: {name: str(path) for name, path in self._roots.items()}}

    def samples(self) -> dict[str, list[Sample]]:
        if self._samples is None:
            self._samples = {name: b.load(self._roots[name], self.settings)
                             for name, b in self.benchmarks.items()}
        return self._samples

    def response_cache(self) -> ResponseCache | None:
        return ResponseCache(self.settings.cache_dir / "responses") if self.settings.cache else None

    def runtime(self) -> Runtime:
        if self._runtime is None:
            from pytest_audiobench.client import Endpoint
            from pytest_audiobench.judge import load_template

            self._engine = Engine(self.settings.concurrency)
            limit = self._engine.limit
            judge = self.settings.judge
            chat = "air_bench_chat" in self.benchmarks
            cache = self.response_cache()
            rubric_judge = None
            if judge is not None and "mmar" in self.benchmarks:
                rubric = self.settings.mmar.rubric
                sampling = judge.endpoint.sampling.model_copy(
                    update={"temperature": rubric.temperature, "seed": rubric.seed})
                rubric_judge = Endpoint(judge.endpoint.model_copy(update={"sampling": sampling}),
                                        limit, cache)
            self._runtime = Runtime(
                settings=self.settings,
                model=Endpoint(self.settings.endpoint, limit, cache),
                judge=Endpoint(judge.endpoint, limit, cache) if judge else None,
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
        from pytest_audiobench.items import SAMPLE_KEY

        if self._lookahead is None:
            self._lookahead = Lookahead(item.session)
        window = 2 * self.settings.concurrency
        for upcoming in self._lookahead.upcoming(item, window):
            sample = upcoming.stash.get(SAMPLE_KEY, None)
            if sample is not None:
                self.pipeline(sample)

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

    def expect(self, nodeids: Iterable[str]) -> None:
        self.selected = [n for n in nodeids if n.startswith(ROOT_NODE + "::")]

    def add(self, record: dict[str, Any]) -> None:
        parsed = SampleRecord.model_validate(record)
        self.records[parsed.nodeid] = parsed

    def finish(self, session: pytest.Session) -> None:
        """Aggregate, gate, write the report and baselines, and set the exit status."""
        if self._engine is not None and self._runtime is not None:
            runtime = self._runtime

            async def close() -> None:
                for endpoint in (runtime.model, runtime.judge, runtime.rubric_judge):
                    if endpoint is not None:
                        await endpoint.close()

            self._engine.close(close)
            self._engine = None
        if (hasattr(self.config, "workerinput") or self.selected is None
                or self.config.option.collectonly):
            return
        self.report = self._build_report()
        if self.settings.report_path is not None:
            self.report.write(self.settings.report_path)
        session.exitstatus = self._exit_status(session.exitstatus)

    def _build_report(self) -> RunReport:
        ordered = [self.records[n] for n in self.selected or () if n in self.records]
        summaries = [self._summarise(name, ordered) for name in self.benchmarks]
        held = all(s.gate is None or s.gate.held for s in summaries)
        return RunReport(settings=self.settings, benchmarks=summaries, usage=usage(ordered),
                         gate_held=held, samples=ordered)

    def _summarise(self, name: str, records: list[SampleRecord]) -> BenchmarkSummary:
        bench = self.benchmarks[name]
        mine = [r for r in records if r.benchmark == name]
        selected = sum(1 for n in self.selected or () if n.startswith(f"{ROOT_NODE}::{name}::"))
        counts = count(mine, selected)
        per_run = [bench.metrics(mine, run) for run in range(self.settings.runs)]
        metrics = combine_runs(per_run)
        path = self._baseline_path(name)
        judge_model = self.settings.judge.endpoint.model if self.settings.judge else None
        current = self._baselines.get(name)
        summary = BenchmarkSummary(benchmark=name, metrics=metrics,
                                   notes=bench.notes(self.settings) + bench.finish(
                                       mine, self.settings),
                                   runs=per_run if len(per_run) > 1 else [],
                                   headline=list(bench.headline()), counts=counts,
                                   failed_means=bench.failed_means(self.settings),
                                   baseline_path=str(path), baseline="missing")
        if self.settings.update_baseline:
            fresh = baselines.from_run(name, self.settings.model, judge_model, metrics,
                                       bench.headline(), self.settings.tolerance, current)
            gate = baselines.evaluate(fresh, metrics, counts.gate_errors, judge_model,
                                      self.settings.max_errors)
            if gate.held:
                baselines.write(path, fresh)
            summary.baseline = "written" if gate.held else "refused"
            summary.gate = gate
        elif current is not None:
            summary.gate = baselines.evaluate(current, metrics, counts.gate_errors, judge_model,
                                              self.settings.max_errors)
            summary.baseline = "applied"
        return summary

    def _baseline_path(self, benchmark: str) -> Path:
        return baselines.path_for(self.settings.baselines_dir, benchmark, self.settings.model)

    def _exit_status(self, status: int | pytest.ExitCode) -> int | pytest.ExitCode:
        if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
            return status
        assert self.report is not None
        summaries = self.report.benchmarks
        gated = [s for s in summaries if s.gate is not None]
        if not self.report.gate_held or self.foreign_failures:
            return pytest.ExitCode.TESTS_FAILED
        if self.settings.require_baseline and any(s.baseline == "missing" for s in summaries):
            return pytest.ExitCode.TESTS_FAILED
        if self.settings.fail_on_samples or len(gated) < len(summaries):
            return status
        return pytest.ExitCode.OK

    def terminal_lines(self) -> list[str]:
        if self.report is None:
            return []
        lines = render(self.report, verbose=self.config.option.verbose > 0)
        if self.settings.require_baseline:
            lines += [f"gate: FAILED: --audiobench-require-baseline and no baseline at "
                      f"{s.baseline_path}" for s in self.report.benchmarks
                      if s.baseline == "missing"]
        return lines
