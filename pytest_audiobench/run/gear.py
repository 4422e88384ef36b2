"""The gear of one process that asks: its event loop and pacing, the model's, the judge's and
(head to head) the live baseline model's endpoints, the response cache and the ledger of what
they took. Made from the run plan; the endpoints open on first use.

The controller asks with it before the items (the endpoints' check, the calibration), and then
its items do; an xdist worker makes its own from the plan it received.
"""

from __future__ import annotations

from typing import Any

from pytest_audiobench.benchmarks.base import Runtime
from pytest_audiobench.config.settings import EndpointSettings, ProviderChoice, Settings
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.transport.cache import ResponseCache
from pytest_audiobench.transport.engine import Engine
from pytest_audiobench.transport.ledger import Ledger
from pytest_audiobench.transport.pacing import Pacer
from pytest_audiobench.transport.types import Provider, Traffic


class Gear:
    def __init__(self, settings: Settings, plan: RunPlan, measure: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.plan = plan
        self._measure = measure
        """A dry run's earlier runs, on whose answers it measures what its calls would cost."""
        self._runtime: Runtime | None = None
        self._baseline_runtime: Runtime | None = None
        """Head to head: the live baseline model's endpoint, judged by the same judge."""
        self.engine: Engine | None = None
        self._ledger = Ledger()
        self._cache = (ResponseCache(settings.cache_dir / "responses") if settings.cache
                       else None)

    @property
    def run_id(self) -> str | None:
        """The run the model's answers belong to (None without the cache)."""
        return self.plan.run_id

    def _make_pacer(self) -> Pacer:
        settings, (requests, tokens) = self.settings, self.plan.spent
        return Pacer(settings.concurrency, deadline=self.plan.deadline_at,
                     max_requests=self._share_of(settings.budget_requests, requests),
                     max_tokens=self._share_of(settings.budget_tokens, tokens))

    def _share_of(self, budget: int | None, spent: int) -> int | None:
        """This process's part of what is left of a budget (at least one when any is left)."""
        if budget is None:
            return None
        left = budget - spent
        return max(1, left // self.plan.budget_share) if left > 0 else 0

    def spent(self) -> tuple[int, int]:
        """The requests and tokens this process has spent so far."""
        pacer = self.engine.pacer if self.engine is not None else None
        return (pacer.requests, pacer.tokens) if pacer is not None else (0, 0)

    def runtime(self) -> Runtime:
        if self._runtime is None:
            from pytest_audiobench.transport.endpoint import Endpoint

            self.engine = Engine(self._make_pacer)
            settings, judge, plan = self.settings, self.settings.judge, self.plan
            self._runtime = Runtime(
                settings, Endpoint(settings.endpoint, *self._kit(),
                                   self._provider(settings.model_provider, settings.endpoint),
                                   self._ledger, run_id=plan.run_id, reuse=plan.reuse,
                                   measure=self._measure),
                None if judge is None else Endpoint(
                    judge.endpoint, *self._kit(),
                    self._provider(judge.provider, judge.endpoint), self._ledger))
            if settings.baseline_endpoint is not None:
                self._baseline_runtime = Runtime(settings, Endpoint(
                    settings.baseline_endpoint, *self._kit(), ledger=self._ledger,
                    run_id=plan.run_id, reuse=plan.reuse, measure=self._measure),
                    self._runtime.judge)
        return self._runtime

    def baseline_runtime(self) -> Runtime | None:
        """Head to head: the live baseline model's endpoints (None otherwise)."""
        self.runtime()
        return self._baseline_runtime

    def _kit(self) -> tuple[Pacer, ResponseCache | None]:
        assert self.engine is not None
        return self.engine.pacer, self._cache

    def _provider(self, choice: ProviderChoice | None,
                  endpoint: EndpointSettings) -> Provider | None:
        """The in-process model or judge ``choice`` names (None: a server answers); a served
        model it asks shares this run's pacing, cache and ledger."""
        if choice is None:
            return None
        from pytest_audiobench.benchmarks import registry
        from pytest_audiobench.builtin.registry import make
        from pytest_audiobench.transport.endpoint import Endpoint, ProviderSetup

        served = None if choice.served is None else Endpoint(choice.served, *self._kit(),
                                                               ledger=self._ledger)
        spec = registry.catalog().providers[choice.name]
        # An offline judge answers as each benchmark of the run says it would (JudgeUse.offline);
        # a model is given none, and the run's benchmarks are not built again for it.
        offline = {name: registry.create(name, self.settings).judge_use().offline
                   for name in self.settings.benchmarks} if spec.role == "judge" else {}
        return make(spec, ProviderSetup(endpoint=endpoint, own=choice.own, served=served,
                                        offline=offline))

    def check(self) -> dict[str, Any] | None:
        """Fail fast when an endpoint is unreachable or does not serve its model; return what
        the model's server says of it."""
        runtime = self.runtime()
        served = runtime.model.check()
        if self._baseline_runtime is not None:
            self._baseline_runtime.model.check()
        if runtime.judge is not None:
            runtime.judge.check()
        return served

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
        return self.engine.pacer.in_flight if self.engine is not None else 0

    def away(self) -> dict[str, Any] | None:
        """How long this process's endpoints were away so far and which are now
        (``Ledger.away``), for the progress line; None while none ever was."""
        away = self._ledger.away()
        return away if away["seconds"] or away["now"] else None

    def close(self) -> None:
        """Close every endpoint, then stop the loop."""
        if self.engine is None or self._runtime is None:
            return
        endpoints = self._runtime.endpoints() + (
            [] if self._baseline_runtime is None else [self._baseline_runtime.model])

        async def close() -> None:
            for endpoint in endpoints:
                await endpoint.close()

        self.engine.close(close)
        self.engine = None
