"""The circuit breaker in front of one endpoint: after ``max_failures`` connection failures in
a row the endpoint is taken for away. Nothing more is sent to it while one probe at a time
asks its models listing, with a backoff, whether it is back (a server being restarted); when
it answers, the requests that waited go on and the attempts its outage took are given back to
them (``endpoint.py``). Past the allowance (``--audiobench-outage-wait``; at once when it is
0), or when for the whole allowance its listing answers while no request gets a reply
(``Breaker._there``), it is taken for gone: every sample still waiting for it ends as not
run. Its outages are counted in the endpoint's traffic, which it writes into."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

from pytest_audiobench.errors import EndpointDown
from pytest_audiobench.transport.types import AWAY_SPANS, EndpointTraffic

Probe = Callable[[float], Awaitable[str | None]]
"""Asks once, within the seconds given, whether the server answers at all: None when it does,
else why not, in one line (``ServedModel.probe``)."""
PROBE_TIMEOUT = 5.0
"""The longest one probe waits: a listing takes milliseconds on a server that is up."""


@dataclass(frozen=True)
class Backoff:
    """The pauses between probes of an endpoint taken for away: ``first`` seconds, twice as
    long each time after, at most ``cap``; a restart of a few seconds is seen within a second
    of its end, a long one costs the server a request every ``cap`` seconds."""

    first: float = 0.5
    cap: float = 5.0


PROBING = Backoff()
"""The backoff every endpoint's breaker probes with."""


State = Literal["up", "checking", "away", "gone"]


class Breaker:
    """One endpoint's breaker. Its states: ``up``, requests are sent; ``checking``, taken for
    away, the first probe not yet back; ``away``, that probe got no answer: an outage, waited
    for; ``gone``, given up on (``traffic.stopped`` says why)."""

    def __init__(self, label: str, traffic: EndpointTraffic, max_failures: int,
                 outage_wait: float = 0.0, backoff: Backoff = PROBING) -> None:
        self.label = label
        self.traffic = traffic
        """The endpoint's counts, where its outages and its stop are written."""
        self.probe: Probe | None = None
        """How the server is asked whether it is there (its served model's); without one an
        endpoint taken for away is gone at once."""
        self.comebacks = 0
        """Times it answered again after it was taken for away: an attempt sent before the
        latest of them and lost to it is given back to its request."""
        self._max_failures = max_failures
        self._outage_wait = outage_wait
        self._backoff = backoff
        self._in_a_row = 0
        self._dropped = False
        """The latest failure was a connection refused or dropped (not a timeout)."""
        self._seen_there = False
        """The last probe found it there, and no request got a reply since."""
        self._silent_since: float | None = None
        """When the breaker first tripped with no reply to a request since (``monotonic``):
        from then on the allowance runs for a server there that does not answer."""
        self._state: State = "up"
        self._tripped = ""
        """What took it for away, for the line that says it stopped."""
        self._since = 0.0
        """When it was taken for away (``time.time()``)."""
        self._spans: list[tuple[float, float]] = []
        """Every outage it came back from or was given up in, from its start to its end."""
        self._settled = asyncio.Event()
        """Set while it is up or gone: what the requests waiting for it wait on."""
        self._settled.set()
        self._gone = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None
        """The probes of the outage going on (held, or the loop could drop the task)."""

    @property
    def up(self) -> bool:
        """Whether a request may be sent to it now."""
        return self._state == "up"

    def check(self) -> None:
        """Raise EndpointDown when the breaker has stopped this endpoint."""
        if self.traffic.stopped is not None:
            raise EndpointDown(self.traffic.stopped)

    async def until_up(self, timeout: float | None) -> None:
        """Wait while it is taken for away, at most ``timeout`` seconds (what is left of the
        run's deadline); EndpointDown once it is gone."""
        if not self._settled.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._settled.wait(), timeout)
        self.check()

    def suspect(self, reason: str) -> None:
        """A request used up its attempts with no reply (``reason``, the last): when nothing
        answered since and outages are waited for, the server is asked whether it is there
        before the request fails, for it may be restarting."""
        if self.up and self._in_a_row and self._outage_wait > 0:
            self._take_for_away(reason, tripped=False)

    def _take_for_away(self, reason: str, *, tripped: bool) -> None:
        """Stop sending to it and probe it (``reason``: the last connection failure);
        ``tripped``: by the breaker, not by a request out of attempts."""
        self._tripped = f"{self._in_a_row} connection failures in a row, the last: {reason}"
        if tripped and self._silent_since is None:
            self._silent_since = time.monotonic()
        if self._outage_wait <= 0 or self.probe is None:
            self._stop("")
            return
        self._state, self._since = "checking", time.time()
        self._settled.clear()
        self._watch = asyncio.get_running_loop().create_task(
            self._wait_out(self.probe, tripped=tripped))

    async def _wait_out(self, probe: Probe, *, tripped: bool) -> None:
        """Probe at once, then with the backoff until it answers or the allowance is spent.
        An answer at once says it is there (``_there``)."""
        began = time.monotonic()
        # At once, before any backoff: a server restarted faster than the trip is seen back
        # at the first look.
        missing = await _probed(probe, self._outage_wait)
        if missing is None:
            self._there(tripped=tripped)
            return
        self._state = "away"
        pause = self._backoff.first
        while (left := self._outage_wait - (time.monotonic() - began)) > 0:
            await asyncio.sleep(min(pause, left))
            # The last probe is given only what is left, so the allowance bounds the whole wait.
            missing = await _probed(probe, self._outage_wait - (time.monotonic() - began))
            if missing is None:
                self._came_back()
                return
            pause = min(2 * pause, self._backoff.cap)
        self._give_up(missing, time.monotonic() - began)

    def _there(self, *, tripped: bool) -> None:
        """It answered the first probe. When the requests' connections were dropped, it may
        have been restarted faster than it was looked at (or dropped them an instant before
        its port closed): the requests go on, their lost attempts given back. When they timed
        out, or it was there at the last look too with no reply to a request since, it is
        there and does not answer them, for now: a server loaded past the timeout, or one
        stalled for a moment, answers again. The requests go on, their attempts counted, and
        the breaker must trip again for the next look; once a trip finds it there with no
        reply to any request for the whole allowance, it is taken for gone, as the requests
        would be sent in vain."""
        # Once per silence: a second trip that finds it there with no reply to a request since
        # is no restart, and falls to the timeout case below.
        if self._dropped and not self._seen_there:
            self._seen_there = True
            self.comebacks += 1
            self._in_a_row = 0
        elif tripped:
            silent = time.monotonic() - (self._silent_since or time.monotonic())
            if silent >= self._outage_wait:
                self._stop(f", while its models listing answered, with no reply to a request "
                           f"for {silent:.1f} s (--audiobench-outage-wait "
                           f"{self._outage_wait:g})")
                return
            self._in_a_row = 0
        self._state = "up"
        self._settled.set()

    def _came_back(self) -> None:
        self._outage_ended()
        self.comebacks += 1
        self._in_a_row = 0
        self._silent_since = None  # back from an outage: the next silence has its allowance
        self._state = "up"
        self._settled.set()

    def _give_up(self, missing: str, waited: float) -> None:
        self._outage_ended()
        self._stop(f" and was not back after {waited:.1f} s of waiting for it "
                   f"(--audiobench-outage-wait {self._outage_wait:g}; its models listing: "
                   f"{missing})")

    def _outage_ended(self) -> None:
        span = (self._since, time.time())
        self._spans.append(span)
        self.traffic.outages += 1
        self.traffic.away_seconds += span[1] - span[0]
        self.traffic.away_spans = [*self.traffic.away_spans, span][-AWAY_SPANS:]

    def _stop(self, how: str) -> None:
        self._state = "gone"
        self.traffic.stopped = (f"{self.label} stopped answering ({self._tripped}){how}; no "
                                "further request was sent to it")
        # Both events: the requests waiting for it to come back and those sleeping before a
        # retry wake now, and ``check`` ends them as not run.
        self._settled.set()
        self._gone.set()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, or less if the breaker stops the endpoint."""
        started = time.monotonic()
        try:
            # Wakes early only for ``gone``: a comeback does not cut a backoff short.
            await asyncio.wait_for(self._gone.wait(), timeout=seconds)
        except TimeoutError:
            pass
        finally:
            self.traffic.waited_seconds += time.monotonic() - started
        self.check()

    def away_for(self, now: float) -> float | None:
        """Seconds it has been away in the outage going on (``now`` from ``time.time()``),
        None when there is none."""
        return now - self._since if self._state == "away" else None

    def spans(self, now: float) -> list[tuple[float, float]]:
        """Its outages, the one going on until ``now``."""
        going_on = [(self._since, now)] if self._state == "away" else []
        return [*self._spans, *going_on]

    def replied(self) -> None:
        """Any HTTP reply: the endpoint is there, and the failures in a row start again."""
        self._in_a_row = 0
        self._seen_there = False
        self._silent_since = None

    def failed(self, reason: str, dropped: bool) -> None:
        """A connection failure (``dropped``: refused or dropped, else a timeout): after
        ``max_failures`` in a row the endpoint is taken for away."""
        self._in_a_row += 1
        self._dropped = dropped
        # Only while up: the failures of attempts that were in flight when it was taken for away
        # start no second watch.
        if self._in_a_row >= self._max_failures and self.up:
            self._take_for_away(reason, tripped=True)

    def going_on(self, now: float) -> EndpointTraffic:
        """The outage going on, counted up to ``now`` (none: empty counts)."""
        if self._state != "away":
            return EndpointTraffic()
        return EndpointTraffic(outages=1, away_seconds=now - self._since,
                               away_spans=[(self._since, now)])


async def _probed(probe: Probe, left: float) -> str | None:
    """One probe, given what is left of the allowance (a second at least, so that the last
    one can be answered) up to ``PROBE_TIMEOUT``."""
    timeout = min(PROBE_TIMEOUT, max(left, 1.0))
    try:
        # The client's timeout is the one that decides; this bounds the whole call as well.
        return await asyncio.wait_for(probe(timeout), timeout + 1.0)
    except TimeoutError:
        return f"no reply within {timeout:g} s"
