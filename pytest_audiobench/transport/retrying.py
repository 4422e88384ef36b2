"""One request to a served model, sent until it is answered: the retry policy, apart from the
endpoint's caching views (``endpoint.py``), which make one for each request they send.

We retry ourselves (the ``openai`` client's own retries are off) so that every attempt is
counted, ``Retry-After`` is honoured, and the in-flight limit of the run applies to each
attempt rather than to each sample. tenacity would hand over the waits and the stop, but not
what makes this loop: an attempt lost to an outage is given back to its request once the
endpoint comes back (``Tries.give_back``), a request waits while its endpoint is taken for
away (``breaker.py``), and a model's empty answer is asked again once, at once.
"""

from __future__ import annotations

import asyncio
import email.utils
import math
import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.errors import DeadlineReached, EndpointError, NotRun
from pytest_audiobench.transport.replies import (
    AttemptFailed,
    NoReply,
    StatusFailure,
    Unusable,
)
from pytest_audiobench.transport.types import Completion, Usage

if TYPE_CHECKING:
    from pytest_audiobench.transport.ledger import Line
    from pytest_audiobench.transport.pacing import Pacer
    from pytest_audiobench.transport.served import ServedModel

# Statuses the same request may get past later: a timeout, a conflict, too early, throttled,
# a server error or gateway. Any other status (400, 401, 404, 422...) would be refused again.
_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
# Caps a server's Retry-After as well as our own doubling: one header cannot park a request
# for longer than our own backoff ever would.
_BACKOFF_CAP = 30.0


class Retrying:
    """One request (``messages`` with the sampling and extra body ``extra``) to ``served``,
    under the run's pacing, counted in the endpoint's line, retried as ``settings`` say."""

    def __init__(self, settings: EndpointSettings, served: ServedModel, line: Line,
                 pacer: Pacer, messages: list[dict[str, Any]], extra: dict[str, Any]) -> None:
        self.settings = settings
        self._served = served
        self._line = line
        self._breaker = line.breaker
        self._pacer = pacer
        self._messages = messages
        self._extra = extra
        # ``retries`` counts the attempts after the first: the allowance is every attempt.
        self._tries = Tries(settings.retries + 1)

    async def answer(self) -> Completion:
        """Ask the server until it answers: a transient failure, and a judge's empty reply (no
        grade can be read from it), again after a backoff while retries are left; a model's
        empty answer again once, at once (``_asked_again``), unless the token limit cut it."""
        spent = Usage()  # every reply's tokens, an empty one asked again included
        while True:
            completion = await self._replied()
            spent = spent + completion.usage
            got = completion.model_copy(update={"usage": spent, "attempts": self._tries.sent})
            # A judge's empty reply is its failure (no grade to read): the backoff and the retry
            # limit of a failure, not the model's one immediate ask.
            if completion.empty and self.settings.role == "judge":
                self._line.answered("empty answer")
                if self._tries.last:
                    raise self._failure(self._judge_said_nothing(completion), self._tries.sent)
                await self._sleep(self._wait(self._tries.counted, None))
                continue
            # An answer cut at the token limit would be cut again at the same max_tokens; with
            # no attempt left, the empty answer received whole stands as the model's answer.
            if completion.empty and not completion.cut and not self._tries.last:
                self._line.answered("empty answer")
                return await self._asked_again(got)
            self._line.answered()
            return got

    async def _replied(self) -> Completion:
        """The next reply to the request, a failed attempt retried while its tries allow;
        the request's failure (EndpointError) when none is left or it cannot succeed."""
        while True:
            try:
                completion = await self._ask()
            except AttemptFailed as exc:
                await self._before_retry(exc)
                continue
            self._tries.replied()
            return completion

    async def _before_retry(self, exc: AttemptFailed) -> None:
        """Wait before the next attempt, or raise ``exc`` as the request's failure when none
        is left. An attempt with no reply may be lost to an outage: waited out, it is given
        back and the next goes at once (as it is when the outage comes while this waits out
        its backoff: ``_sent``)."""
        if isinstance(exc, NoReply):
            # Counted before the breaker is asked: what an outage gives back is this run of
            # attempts with no reply, this one included.
            self._tries.unanswered += 1
            if self._tries.last:
                # Fewer than max_failures in a row (one request alone in flight) never trip the
                # breaker: before this request fails, the server is asked if it is restarting.
                self._breaker.suspect(str(exc))
            if not self._breaker.up:
                await self._until_up()
            # Before the ``last`` test below: a request whose last attempt the outage took has
            # it back, and goes again at once.
            if self._given_back():
                return
        else:
            # An HTTP reply breaks the run of attempts with no reply: only those an outage can
            # explain are given back.
            self._tries.replied()
        if self._tries.last or not _transient(exc):
            raise self._failure(exc, self._tries.sent) from exc
        await self._sleep(self._wait(self._tries.counted, exc))

    def _given_back(self) -> bool:
        """Whether the endpoint came back (answered again after it was taken for away) since
        the request's latest attempt was sent, and so its attempts with no reply were given
        back."""
        return self._breaker.comebacks > self._tries.era and self._tries.give_back()

    async def _until_up(self) -> None:
        """Wait while the endpoint is away, no longer than the run's deadline."""
        await self._breaker.until_up(self._pacer.remaining())
        if not self._breaker.up:
            raise DeadlineReached(_DEADLINE_WAITING)

    async def _ask(self) -> Completion:
        """One attempt under the in-flight limit, counted in the ledger and the pacing; a
        failed one is counted (a lost connection told to the breaker) before it is raised."""
        try:
            completion = await self._sent()
        except AttemptFailed as exc:
            await self._counted(exc)
            raise
        await self._pacer.relax()
        self._pacer.spend(completion.usage.prompt_tokens + completion.usage.completion_tokens)
        return completion

    async def _sent(self) -> Completion:
        """The attempt, sent only while the endpoint is up: one that waited for a place
        while the endpoint went away waits for it again, and the attempts an outage took
        since the request's latest are given back first."""
        while True:
            await self._until_up()
            # The endpoint may go away while this waits for a place: it is asked again inside,
            # and an attempt that finds it away gives its place back and waits for it.
            async with self._pacer.slot():
                if self._breaker.up:
                    # Attempts lost to an outage that ended while this waited for its place.
                    self._given_back()
                    self._line.traffic.requests += 1
                    # The era: only a comeback after this send can have taken this attempt.
                    self._tries.sending(self._breaker.comebacks)
                    return await self._attempt()

    async def _counted(self, exc: AttemptFailed) -> None:
        if isinstance(exc, NoReply):  # connection refused or dropped, timeout
            self._line.connection_failed(str(exc), exc.reason)
            # A connection failure may have stopped the endpoint (no outage wait): the request
            # ends now as not run instead of sitting through its backoff.
            self._breaker.check()
            return
        self._line.answered(exc.reason)  # an error status, or an HTTP 200 that holds no answer
        if isinstance(exc, StatusFailure) and exc.status == 429:
            self._line.traffic.throttled += 1
            # A 429 is the server's word that the run asks too fast: the in-flight limit halves
            # for the whole process (one pacer serves every endpoint), not only this request's wait.
            await self._pacer.throttle()

    async def _asked_again(self, empty: Completion) -> Completion:
        """A model's empty answer asked once more, at once, in case it was a glitch: a model
        that ended at once at temperature 0 does so again, and a wait or more asks would only
        cost. A transient failure of that request is retried as any is, with what is left of
        the request's attempts (a 503 says nothing of the answer). What came back whole is
        kept: the empty answer stands if the retry is empty too, fails for good, or may not
        be sent (the deadline, the budget, the breaker)."""
        # Checked before the retry is counted: one that may not be sent costs nothing.
        try:
            self._breaker.check()
            self._pacer.check()
        except NotRun:
            return empty
        self._line.traffic.retries += 1
        try:
            again = await self._replied()
        # DeadlineReached and the budgets are NotRun: whatever stops the retry, the empty
        # answer received whole is kept (before, a fault here made the sample an error).
        except (EndpointError, NotRun):
            return empty.model_copy(update={"attempts": self._tries.sent})
        self._line.answered()
        return again.model_copy(update={"usage": empty.usage + again.usage,
                                        "attempts": self._tries.sent})

    def _judge_said_nothing(self, completion: Completion) -> Unusable:
        """A judge's empty reply as a failure of the judge: no grade can be read from it."""
        said = "null" if not completion.text else "empty"
        cut = (f", finish_reason length: it used the whole token limit, max_tokens "
               f"{self.settings.sampling.max_tokens}" if completion.cut else "")
        return Unusable(f"an empty answer (content {said}{cut})", "empty answer")

    async def _attempt(self) -> Completion:
        """One request, from sending to the last byte of its reply within the timeout (and
        the run's deadline); the reply checked to be an answer."""
        assert self._served is not None
        left = self._pacer.remaining()
        timeout = self.settings.timeout if left is None else max(
            # A deadline already reached leaves no time: a small positive timeout lets the
            # attempt end below as the deadline's, not as a failure with a retry.
            0.01, min(self.settings.timeout, left))
        try:
            # The client's timeout bounds each read; a reply whose bytes keep trickling in
            # would never end without this bound on the whole exchange (the client's is set
            # past it, so that one bound decides and says so).
            asked = self._served.answer(self._messages, self._extra, None, timeout=timeout + 1.0)
            return await asyncio.wait_for(asked, timeout)
        except TimeoutError:
            # The deadline's bound was the tighter one: not a failure of the endpoint to retry,
            # the request is abandoned and the sample not run.
            if left is not None and left <= self.settings.timeout:
                raise DeadlineReached(_DEADLINE_PASSED) from None
            raise NoReply(f"no whole reply within {timeout:g} s (--audiobench-timeout)",
                          "timeout") from None

    async def _sleep(self, seconds: float) -> None:
        """Wait before a retry: never past the deadline (the next attempt would be refused
        anyway), and no longer once the endpoint is taken for gone."""
        left = self._pacer.remaining()
        self._line.traffic.retries += 1
        await self._breaker.sleep(seconds if left is None else max(0.0, min(seconds, left)))

    def _wait(self, attempt: int, exc: AttemptFailed | None) -> float:
        told = _parse_retry_after(exc.retry_after if isinstance(exc, StatusFailure) else None)
        if told is not None:
            return min(told, _BACKOFF_CAP)
        # ``attempt`` is the counted tries, so a give-back starts the doubling over.
        ceiling = min(_BACKOFF_CAP, self.settings.retry_wait * 2.0 ** (attempt - 1))
        # Half to all of the ceiling: requests that failed together (a 503 burst) do not
        # retry together, and none waits less than half its backoff.
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
        # ``sent`` is kept: the report says how many attempts were really sent.
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
        # A negative delay, or a date already past below, means at once.
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        # Retry-After is delay-seconds or an HTTP-date (RFC 9110, 10.2.3).
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
