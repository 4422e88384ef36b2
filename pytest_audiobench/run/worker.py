"""The side of a run that asks and grades: the endpoints, the event loop, and every sample's
pipeline (its answers, then their verdicts), started ahead of its item by the prefetch.

Every process that runs items has one: an xdist worker, or the single process of a plain run.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Mapping
from concurrent.futures import Future
from typing import Any, TypeVar

import pytest

from pytest_audiobench.benchmarks.asking import ask_model
from pytest_audiobench.benchmarks.base import Benchmark, Runtime
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchWarning
from pytest_audiobench.outcome.records import ModelAnswer, Verdict
from pytest_audiobench.run.keys import SAMPLE_KEY
from pytest_audiobench.run.prefetch import Lookahead
from pytest_audiobench.transport.cache import ResponseCache
from pytest_audiobench.transport.engine import Engine, Pipeline
from pytest_audiobench.transport.ledger import Ledger
from pytest_audiobench.transport.pacing import Pacer
from pytest_audiobench.transport.types import Traffic

T = TypeVar("T")


class Worker:
    """Owns the engine and the endpoints of this process; both are made on first use."""

    def __init__(self, settings: Settings, benchmarks: Mapping[str, Benchmark], *,
                 deadline_at: float | None, budget_share: int, run: str | None,
                 reuse: str | None) -> None:
        self.settings = settings
        self.benchmarks = benchmarks
        self.deadline_at = deadline_at
        """Wall-clock time after which no request is sent (the controller's, on a worker)."""
        self._share = budget_share
        self._runtime: Runtime | None = None
        self._engine: Engine | None = None
        self._lookahead: Lookahead | None = None
        self._ledger = Ledger()
        self._run = run
        """The run the model's answers belong to (None without the cache)."""
        self._reuse = reuse
        self._cache = (None if settings.no_cache
                       else ResponseCache(settings.cache_dir / "responses"))

    def _make_pacer(self) -> Pacer:
        settings, share = self.settings, self._share
        return Pacer(
            settings.concurrency, deadline=self.deadline_at,
            max_requests=None if settings.budget_requests is None else max(
                1, settings.budget_requests // share),
            max_tokens=None if settings.budget_tokens is None else max(
                1, settings.budget_tokens // share))

    def runtime(self) -> Runtime:
        if self._runtime is None:
            from pytest_audiobench import builtin
            from pytest_audiobench.transport.endpoint import Endpoint

            self._engine = Engine(self._make_pacer)
            pacer, cache, ledger = self._engine.pacer, self._cache, self._ledger
            settings = self.settings
            model = None if settings.builtin is None else builtin.build(
                settings.builtin, pacer, cache, ledger)
            judge = settings.judge
            offline = builtin.offline_judge(judge.endpoint.model) if judge and judge.offline \
                else None
            self._runtime = Runtime(
                settings, Endpoint(settings.endpoint, pacer, cache, model, ledger,
                                   run=self._run, reuse=self._reuse),
                Endpoint(judge.endpoint, pacer, cache, offline, ledger) if judge else None)
        return self._runtime

    def check(self) -> dict[str, Any] | None:
        """Fail fast when an endpoint is unreachable or does not serve its model; return what
        the model's server says of it."""
        runtime = self.runtime()
        served = runtime.model.check()
        if runtime.judge is not None:
            runtime.judge.check()
        return served

    def pipeline(self, sample: Sample) -> Pipeline[list[ModelAnswer], list[Verdict]]:
        """Every run's answer, then every answer's verdict, each graded as soon as it lands."""
        runtime = self.runtime().for_sample(sample)
        assert self._engine is not None
        bench = self.benchmarks[sample.benchmark]
        prompt = bench.prompt(sample)
        runs = range(self.settings.runs)

        async def answer() -> list[ModelAnswer]:
            return list(await asyncio.gather(*(ask_model(sample, prompt, runtime, r)
                                               for r in runs)))

        async def grade(answers: list[ModelAnswer]) -> list[Verdict]:
            return list(await asyncio.gather(*(bench.grade(sample, a, runtime) for a in answers)))

        return self._engine.start(sample.nodeid, answer, grade)

    def prefetch(self, item: pytest.Item) -> None:
        """Start the pipelines of the items this process runs next, a window at a time."""
        if self.settings.dry_run:
            return
        if self._lookahead is None:
            self._lookahead = Lookahead(item.session)
        window = 2 * self.settings.concurrency
        for upcoming in self._lookahead.upcoming(item, window):
            sample = upcoming.stash.get(SAMPLE_KEY, None)
            # On xdist most of the window is already running: only new items cost anything.
            if sample is not None and (self._engine is None
                                       or not self._engine.running(sample.nodeid)):
                self.pipeline(sample)

    def done(self, sample: Sample) -> None:
        if self._engine is not None:
            self._engine.forget(sample.nodeid)

    @staticmethod
    def wait(future: Future[T]) -> T:
        return future.result()

    @staticmethod
    def warn(sample: Sample, answers: list[ModelAnswer]) -> None:
        for message in dict.fromkeys(m for answer in answers for m in answer.warnings):
            warnings.warn(AudiobenchWarning(f"{sample.nodeid}: {message}"), stacklevel=2)

    def traffic(self) -> Traffic:
        """What this process's endpoints took, and the cache entries it could not read or
        write."""
        cache = self._cache
        unreadable = cache.unreadable if cache is not None else []
        return self._ledger.traffic().model_copy(update={
            "cache_unreadable": len(unreadable),
            "first_unreadable": str(unreadable[0]) if unreadable else None,
            "cache_unwritable": cache.unwritable if cache is not None else 0,
            "first_unwritable": cache.first_unwritable if cache is not None else None})

    def in_flight(self) -> int:
        return self._engine.pacer.in_flight if self._engine is not None else 0

    def close(self) -> None:
        """Close every endpoint, then stop the loop."""
        if self._engine is None or self._runtime is None:
            return
        endpoints = self._runtime.endpoints()

        async def close() -> None:
            for endpoint in endpoints:
                await endpoint.close()

        self._engine.close(close)
        self._engine = None
