"""How fast and how much a process may ask: the in-flight limit that halves on HTTP 429 and
grows back, an overall deadline, and a budget of requests and tokens."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from pytest_audiobench.errors import BudgetExhausted, DeadlineReached


class Pacer:
    """Shared by every endpoint of one process; lives on the engine's event loop."""

    def __init__(self, concurrency: int, *, deadline: float | None = None,
                 max_requests: int | None = None, max_tokens: int | None = None) -> None:
        self.capacity = concurrency
        self.limit = concurrency
        """Requests allowed in flight now: halved on 429, grown by one per window of successes."""
        self.in_flight = 0
        self.deadline = deadline
        """Wall-clock time (``time.time()``) after which no request is sent."""
        self.max_requests = max_requests
        self.max_tokens = max_tokens
        self.requests = 0
        self.tokens = 0
        self.throttled = 0
        """How many times a 429 lowered the limit."""
        self._successes = 0
        self._changed = asyncio.Condition()

    def remaining(self) -> float | None:
        """Seconds until the deadline, or None without one."""
        return None if self.deadline is None else self.deadline - time.time()

    def check(self) -> None:
        """Raise when no further request may be sent."""
        self.check_deadline()
        if self.max_requests is not None and self.requests >= self.max_requests:
            raise BudgetExhausted(f"request budget spent ({self.requests} of "
                                  f"--audiobench-budget-requests {self.max_requests})")
        if self.max_tokens is not None and self.tokens >= self.max_tokens:
            raise BudgetExhausted(f"token budget spent ({self.tokens} of "
                                  f"--audiobench-budget-tokens {self.max_tokens})")

    def check_deadline(self) -> None:
        """Raise when the run's deadline has passed: nothing more is asked, of a server or of
        a model that runs here (the budgets count what is paid, the deadline all)."""
        left = self.remaining()
        if left is not None and left <= 0:
            raise DeadlineReached("the run's deadline (--audiobench-deadline) has passed: no "
                                  "further request is sent")

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for room under the limit, then hold one request's place."""
        async with self._changed:
            await self._changed.wait_for(lambda: self.in_flight < self.limit)
            try:
                self.check()
            except BaseException:
                # This waiter was woken for a free place it will not take: pass the wake-up
                # on, or the next waiter would sleep forever.
                self._changed.notify()
                raise
            self.in_flight += 1
            self.requests += 1
        try:
            yield
        finally:
            async with self._changed:
                self.in_flight -= 1
                self._changed.notify()

    def spend(self, tokens: int) -> None:
        self.tokens += tokens

    async def throttle(self) -> None:
        """A 429: halve the limit (multiplicative decrease)."""
        async with self._changed:
            # Never below one: at zero nothing would be sent, and no success would ever raise it.
            self.limit = max(1, self.limit // 2)
            # A window counts from the latest 429: successes before it say nothing of the new limit.
            self._successes = 0
            self.throttled += 1

    async def relax(self) -> None:
        """A success: after a full window of them, allow one more (additive increase)."""
        if self.limit >= self.capacity:
            return
        async with self._changed:
            self._successes += 1
            # A window is as many successes as the limit allows in flight: about one round of
            # requests per step up, the additive increase of AIMD.
            if self._successes >= self.limit:
                self.limit += 1
                self._successes = 0
                # The limit grew by one: one more waiter may take a place.
                self._changed.notify()
