"""An endpoint: a model or judge as the run asks it, in front of its provider (the served
model of ``served.py``, or one that answers in this process), with the response cache and the
views one sample, one run or one sampling asks through, the pacing, the ledger and, for a
server, each request sent until it is answered (``retrying.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.frozen import OwnSettings
from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.transport.ledger import Ledger, Peeked
from pytest_audiobench.transport.retrying import Retrying
from pytest_audiobench.transport.served import ServedModel
from pytest_audiobench.transport.types import Completion, Provider

if TYPE_CHECKING:
    from pytest_audiobench.transport.cache import ResponseCache
    from pytest_audiobench.transport.pacing import Pacer

@dataclass(frozen=True)
class ProviderSetup:
    """What a provider is built with (its spec's ``provider`` is called with it)."""

    endpoint: EndpointSettings
    """The endpoint it stands for: the name it was given and the sampling asked of it."""
    own: OwnSettings | None
    """What its own options resolved into (None when it declares none)."""
    served: Endpoint | None
    """The model served at ``--audiobench-api-url`` that it asks (the cascade's text model),
    sharing the run's pacing, cache and ledger; None when it asks none."""
    offline: Mapping[str, Callable[[Mapping[str, Any]], str | None]] = field(
        default_factory=dict)
    """Each benchmark of the run by name, with its offline judge's reply to a request's
    fingerprint (None: not its request): what an offline judge answers with."""


class Endpoint:
    """Chat completions from one provider: a server (``ServedModel``, made here when no
    provider is given), at most the pacer's limit of requests in flight, each retried; or a
    provider that answers in this process, with the same response cache in front of it.

    The model's endpoint is given the run its answers belong to (``run_id``): its cache entries
    are that run's, so another run never replays them unless it names the run in ``reuse``
    (or resumes it). A judge's endpoint has no run: its replies may serve any run whose request
    is the same in every input. ``scoped`` gives the view that one sample asks through, so that
    two samples sending the same request draw separately.
    """

    def __init__(self, settings: EndpointSettings, pacer: Pacer,
                 cache: ResponseCache | None = None, provider: Provider | None = None,
                 ledger: Ledger | None = None, *, run_id: str | None = None,
                 reuse: str | None = None, measure: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self._pacer = pacer
        self._cache = cache
        self._ledger = ledger or Ledger()
        self._line = self._ledger.line(settings.model, settings.url,
                                       settings.max_connection_failures, settings.outage_wait)
        self._served: ServedModel | None = None
        """The server, when the provider is one: asked with retries, a request at a time."""
        if provider is None:
            provider = self._served = ServedModel(settings, self._line.named)
            # Variants of one endpoint share its line and breaker: the first one's served model
            # probes for all.
            self._line.breaker.probe = self._line.breaker.probe or self._served.probe
        self._provider: Provider = provider
        self._owner = True
        """Closes the client and the in-process model; the views made from it do not."""
        self._run_id = run_id
        self._reuse = reuse
        self._measure = measure
        """Earlier runs whose answers only measure tokens (a dry run's estimate): never served."""
        self._scope: str | None = None

    def _view(self, settings: EndpointSettings, scope: str | None) -> Endpoint:
        view = copy.copy(self)
        view.settings, view._scope, view._owner = settings, scope, False
        return view

    def resampled(self, sampling: Mapping[str, Any]) -> Endpoint:
        """The same endpoint (client, pacing, cache, in-process model) with these sampling
        settings changed, e.g. a judge at the temperature and seed another protocol asks for."""
        changed = self.settings.sampling.model_copy(update=dict(sampling))
        return self._view(self.settings.model_copy(update={"sampling": changed}), self._scope)

    def scoped(self, sample: str) -> Endpoint:
        """The view one sample asks through: its requests are cached under its id."""
        return self._view(self.settings, sample)

    def owned_by(self, run_id: str | None) -> Endpoint:
        """The view whose replies belong to run ``run_id`` in the cache (a resume of it reuses them,
        no other run does): a judge asked for fresh replies in every run."""
        view = self._view(self.settings, self._scope)
        # No ``reuse``: a judge's fresh replies must not come from the run being reused.
        view._run_id, view._reuse = run_id, None
        return view

    async def close(self) -> None:
        if not self._owner:
            return
        await self._provider.close()

    def check(self) -> dict[str, Any] | None:
        """Fail fast when the server is unreachable or does not serve the model (or the
        in-process model cannot run here); return what the server says of the model (its
        ``/models`` entry), or the in-process model's identity. The server's check takes no
        longer than --audiobench-timeout, nor past the run's deadline."""
        if self._served is not None:
            return self._served.listed(self._pacer.remaining())
        self._provider.check()
        return dict(self._provider.identity)

    async def complete(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
                       fingerprint: Mapping[str, Any] | None = None,
                       cache_tag: str | None = None) -> Completion:
        """Send one chat request, retrying transient failures; EndpointError when all fail.

        ``seed_offset`` tells repeated runs and judge retries apart (it moves the seed when one
        is set, and is part of the cache key always); ``fingerprint`` stands for the messages
        in the cache key when hashing them whole would be wasteful (audio); ``cache_tag`` tells
        apart identical requests that must each get their own reply (rubric raters)."""
        extra = self._sampling(seed_offset)
        if self._cache is None:
            return await self._reply(messages, extra, fingerprint)
        key = self.cache_key(messages, seed_offset, fingerprint=fingerprint, cache_tag=cache_tag)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._reused(key, messages, seed_offset, fingerprint, cache_tag)
        if hit is not None:
            return hit
        completion = await self._reply(messages, extra, fingerprint)
        self._cache.put(key, completion)
        return completion

    def _reused(self, key: str, messages: list[dict[str, Any]], seed_offset: int,
                fingerprint: Mapping[str, Any] | None, cache_tag: str | None
                ) -> Completion | None:
        """The answer the run named in ``reuse`` got to this request, kept for this run too."""
        if self._cache is None or self._reuse is None:
            return None
        earlier = self._cache.get(self.cache_key(messages, seed_offset, fingerprint=fingerprint,
                                                 cache_tag=cache_tag, run_id=self._reuse))
        if earlier is None:
            return None
        # Stored under this run's key too, so a resume of this run finds it without ``reuse``.
        self._cache.put(key, earlier.model_copy(update={"cached": False}))
        return earlier.model_copy(update={"reused_from": self._reuse})

    async def _reply(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        if self._served is not None:
            return await Retrying(self.settings, self._served, self._line, self._pacer,
                                  messages, extra).answer()
        # No slot of the in-flight limit: it limits requests to servers, and a cascade's own
        # request to its text model takes one. The deadline bounds it all the same.
        self._pacer.check_deadline()
        return await self._provider.answer(messages, extra, fingerprint)

    def cached(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
               fingerprint: Mapping[str, Any] | None = None,
               cache_tag: str | None = None) -> Completion | None:
        """The reply ``complete`` would serve without sending anything (this run's, or the
        reused run's). On a miss, an earlier run's answer to the same request (``measure``)
        counts in ``peeked`` for the tokens such a call takes, and is not served."""
        if self._cache is None:
            return None
        own = [self._run_id] + ([self._reuse] if self._reuse else [])
        for run_id in [*own, *self._measure]:
            hit = self._cache.get(self.cache_key(messages, seed_offset, fingerprint=fingerprint,
                                                 cache_tag=cache_tag, run_id=run_id))
            if hit is not None:
                self._line.peeked.add(hit.usage)
                return hit if run_id in own else None
        return None

    @property
    def peeked(self) -> Peeked:
        """The replies ``cached`` found, in every view of this endpoint, and their tokens."""
        return self._line.peeked

    def cache_key(self, messages: list[dict[str, Any]], seed_offset: int, *,
                  fingerprint: Mapping[str, Any] | None, cache_tag: str | None,
                  run_id: str | None = None) -> str:
        """Everything a reply depends on: the endpoint (URL and model id), the sampling, which
        run or retry it is, the request, the sample asking, and for the model the run whose
        answers these are (``run_id``, by default this endpoint's own)."""
        from pytest_audiobench.transport.cache import request_key

        key: dict[str, Any] = {"url": self.settings.url, "model": self.settings.model,
                               "sampling": self._sampling(seed_offset), "offset": seed_offset,
                               "tag": cache_tag, "request": fingerprint or messages,
                               "sample": self._scope, "run": run_id or self._run_id}
        if self._served is None:
            key["in_process"] = self._provider.identity
        # Only when given: the keys of the replies asked without them stay as they were.
        if self.settings.extra_body:
            key["body"] = self.settings.extra_body
        if self.settings.headers is not None and self.settings.headers.sha256:
            key["headers"] = self.settings.headers.sha256
        return request_key(key)

    def _sampling(self, seed_offset: int) -> dict[str, Any]:
        return self.settings.sampling.drawn(seed_offset).sent()
