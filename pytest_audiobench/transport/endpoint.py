"""An endpoint: a model or judge as the run asks it, in front of its provider (the served
model of ``served.py``, or one that answers in this process), with the response cache, the
pacing, the ledger and, for a server, the retries.

We retry ourselves (the ``openai`` client's own retries are off) so that every attempt is
counted, ``Retry-After`` is honoured, and the in-flight limit of the run applies to each
request rather than to each sample.
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import math
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.frozen import OwnSettings
from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.errors import DeadlineReached, EndpointError, NotRun
from pytest_audiobench.transport.ledger import Ledger, Peeked
from pytest_audiobench.transport.replies import (
    AttemptFailed,
    NoReply,
    StatusFailure,
    Unusable,
)
from pytest_audiobench.transport.served import ServedModel
from pytest_audiobench.transport.types import Completion, Provider, Usage

if TYPE_CHECKING:
    from pytest_audiobench.transport.cache import ResponseCache
    from pytest_audiobench.transport.pacing import Pacer

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_BACKOFF_CAP = 30.0


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
            self._line.probe = self._line.probe or self._served.probe
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
        self._cache.put(key, earlier.model_copy(update={"cached": False}))
        return earlier.model_copy(update={"reused_from": self._reuse})

    async def _reply(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        if self._served is not None:
            return await self._send(messages, extra)
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

    async def _send(self, messages: list[dict[str, Any]], extra: dict[str, Any]) -> Completion:
        """Ask the server until it answers: a transient failure, and a judge's empty reply (no
        grade can be read from it), again after a backoff while retries are left; a model's
        empty answer again once, at once (``_asked_again``), unless the token limit cut it."""
        tries = Tries(self.settings.retries + 1)
        spent = Usage()  # every reply's tokens, an empty one asked again included
        while True:
            completion = await self._replied(messages, extra, tries)
            spent = spent + completion.usage
            got = completion.model_copy(update={"usage": spent, "attempts": tries.sent})
            if completion.empty and self.settings.role == "judge":
                self._line.answered("empty answer")
                if tries.last:
                    raise self._failure(self._judge_said_nothing(completion), tries.sent)
                await self._sleep(self._wait(tries.counted, None))
                continue
            if completion.empty and not completion.cut and not tries.last:
                self._line.answered("empty answer")
                return await self._asked_again(messages, extra, got, tries)
            self._line.answered()
            return got

    async def _replied(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                       tries: Tries) -> Completion:
        """The next reply to the request, a failed attempt retried while ``tries`` allows;
        the request's failure (EndpointError) when none is left or it cannot succeed."""
        while True:
            try:
                completion = await self._ask(messages, extra, tries)
            except AttemptFailed as exc:
                await self._before_retry(exc, tries)
                continue
            tries.replied()
            return completion

    async def _before_retry(self, exc: AttemptFailed, tries: Tries) -> None:
        """Wait before the next attempt, or raise ``exc`` as the request's failure when none
        is left. An attempt with no reply may be lost to an outage: waited out, it is given
        back and the next goes at once (as it is when the outage comes while this waits out
        its backoff: ``_sent``)."""
        if isinstance(exc, NoReply):
            tries.unanswered += 1
            if tries.last:
                self._line.suspect(str(exc))
            if not self._line.up:
                await self._until_up()
            if self._given_back(tries):
                return
        else:
            tries.replied()
        if tries.last or not _transient(exc):
            raise self._failure(exc, tries.sent) from exc
        await self._sleep(self._wait(tries.counted, exc))

    def _given_back(self, tries: Tries) -> bool:
        """Whether the endpoint came back (answered again after it was taken for away) since
        the request's latest attempt was sent, and so its attempts with no reply were given
        back."""
        return self._line.comebacks > tries.era and tries.give_back()

    async def _until_up(self) -> None:
        """Wait while the endpoint is away, no longer than the run's deadline."""
        await self._line.until_up(self._pacer.remaining())
        if not self._line.up:
            raise DeadlineReached(_DEADLINE_WAITING)

    async def _ask(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                   tries: Tries) -> Completion:
        """One attempt under the in-flight limit, counted in the ledger and the pacing; a
        failed one is counted (a lost connection told to the breaker) before it is raised."""
        try:
            completion = await self._sent(messages, extra, tries)
        except AttemptFailed as exc:
            await self._counted(exc)
            raise
        await self._pacer.relax()
        self._pacer.spend(completion.usage.prompt_tokens + completion.usage.completion_tokens)
        return completion

    async def _sent(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                    tries: Tries) -> Completion:
        """The attempt, sent only while the endpoint is up: one that waited for a place
        while the endpoint went away waits for it again, and the attempts an outage took
        since the request's latest are given back first."""
        while True:
            await self._until_up()
            async with self._pacer.slot():
                if self._line.up:
                    self._given_back(tries)
                    self._line.traffic.requests += 1
                    tries.sending(self._line.comebacks)
                    return await self._attempt(messages, extra)

    async def _counted(self, exc: AttemptFailed) -> None:
        if isinstance(exc, NoReply):  # connection refused or dropped, timeout
            self._line.connection_failed(str(exc), exc.reason)
            self._line.check()
            return
        self._line.answered(exc.reason)  # an error status, or an HTTP 200 that holds no answer
        if isinstance(exc, StatusFailure) and exc.status == 429:
            self._line.traffic.throttled += 1
            await self._pacer.throttle()

    async def _asked_again(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                           empty: Completion, tries: Tries) -> Completion:
        """A model's empty answer asked once more, at once, in case it was a glitch: a model
        that ended at once at temperature 0 does so again, and a wait or more asks would only
        cost. A transient failure of that request is retried as any is, with what is left of
        the request's attempts (a 503 says nothing of the answer). What came back whole is
        kept: the empty answer stands if the retry is empty too, fails for good, or may not
        be sent (the deadline, the budget, the breaker)."""
        try:
            self._line.check()
            self._pacer.check()
        except NotRun:
            return empty
        self._line.traffic.retries += 1
        try:
            again = await self._replied(messages, extra, tries)
        except (EndpointError, NotRun):
            return empty.model_copy(update={"attempts": tries.sent})
        self._line.answered()
        return again.model_copy(update={"usage": empty.usage + again.usage,
                                        "attempts": tries.sent})

    def _judge_said_nothing(self, completion: Completion) -> Unusable:
        """A judge's empty reply as a failure of the judge: no grade can be read from it."""
        said = "null" if not completion.text else "empty"
        cut = (f", finish_reason length: it used the whole token limit, max_tokens "
               f"{self.settings.sampling.max_tokens}" if completion.cut else "")
        return Unusable(f"an empty answer (content {said}{cut})", "empty answer")

    async def _attempt(self, messages: list[dict[str, Any]], extra: dict[str, Any]
                       ) -> Completion:
        """One request, from sending to the last byte of its reply within the timeout (and
        the run's deadline); the reply checked to be an answer."""
        assert self._served is not None
        left = self._pacer.remaining()
        timeout = self.settings.timeout if left is None else max(
            0.01, min(self.settings.timeout, left))
        try:
            # The client's timeout bounds each read; a reply whose bytes keep trickling in
            # would never end without this bound on the whole exchange (the client's is set
            # past it, so that one bound decides and says so).
            return await asyncio.wait_for(
                self._served.answer(messages, extra, None, timeout=timeout + 1.0), timeout)
        except TimeoutError:
            if left is not None and left <= self.settings.timeout:
                raise DeadlineReached(_DEADLINE_PASSED) from None
            raise NoReply(f"no whole reply within {timeout:g} s (--audiobench-timeout)",
                          "timeout") from None

    async def _sleep(self, seconds: float) -> None:
        """Wait before a retry: never past the deadline (the next attempt would be refused
        anyway), and no longer once the endpoint is taken for gone."""
        left = self._pacer.remaining()
        self._line.traffic.retries += 1
        await self._line.sleep(seconds if left is None else max(0.0, min(seconds, left)))

    def _wait(self, attempt: int, exc: AttemptFailed | None) -> float:
        told = _parse_retry_after(exc.retry_after if isinstance(exc, StatusFailure) else None)
        if told is not None:
            return min(told, _BACKOFF_CAP)
        ceiling = min(_BACKOFF_CAP, self.settings.retry_wait * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + random.random() / 2)

    def _failure(self, exc: AttemptFailed, attempt: int) -> EndpointError:
        if isinstance(exc, StatusFailure) and exc.refused is not None:
            return EndpointError(exc.refused)
        return EndpointError(
            f"{self.settings.named} failed after {attempt} "
            f"attempt{'s' if attempt > 1 else ''}: {exc}"
        )


_DEADLINE_PASSED = ("the run's deadline (--audiobench-deadline) has passed while the request "
                    "was in flight: it was abandoned")
_DEADLINE_WAITING = ("the run's deadline (--audiobench-deadline) has passed while the request "
                     "waited for its endpoint to come back (--audiobench-outage-wait)")


@dataclass
class Tries:
    """One request's attempts: those that count against its retries, those sent, and those
    an outage may give back."""

    allowed: int
    counted: int = 0
    sent: int = 0
    unanswered: int = 0
    """Its latest attempts in a row that got no reply at all."""
    era: int = 0
    """The endpoint's comebacks when its latest attempt was sent."""
    given_back: int = 0
    """Times its attempts were given back."""

    @property
    def last(self) -> bool:
        """Whether no attempt that counts is left."""
        return self.counted >= self.allowed

    def sending(self, era: int) -> None:
        self.counted += 1
        self.sent += 1
        self.era = era

    def replied(self) -> None:
        self.unanswered = 0

    def give_back(self) -> bool:
        """Give back the attempts lost to an outage, ``GIVE_BACKS`` times at most: a request
        that brings its server down each time it is sent still ends after its retries."""
        if self.given_back >= GIVE_BACKS or not self.unanswered:
            return False
        self.counted -= self.unanswered
        self.unanswered = 0
        self.given_back += 1
        return True


GIVE_BACKS = 3
"""How many times one request's attempts are given back: a restart seen as two (its requests
dropped an instant before its port closed), and one more."""


def _transient(exc: AttemptFailed) -> bool:
    """Whether another attempt may succeed: a refusal or a bad request would be sent again."""
    return not isinstance(exc, StatusFailure) or exc.status in _RETRY_STATUS


def _parse_retry_after(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks to wait, or None when it says none (a NaN or
    an infinity from a server is no number of seconds)."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
