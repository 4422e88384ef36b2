"""A progress line a person can follow on a long run: done, in flight, errors, cached, and
the time left once it can be told.

The first samples finish late (every request of the first ones is in flight at once), so the
rate is measured from the first sample done, not from the start, and the time left is said
only once ``ESTIMATE_AFTER`` samples (and ``ESTIMATE_SHARE`` of them) are done: before that,
a run of 100 s was once predicted to take a quarter of an hour."""

from __future__ import annotations

import math
import time
from collections.abc import Callable

ESTIMATE_AFTER = 10
ESTIMATE_SHARE = 0.05


class Progress:
    """Counts what the controller has seen and says so every ``interval`` seconds."""

    def __init__(self, interval: float, write: Callable[[str], None],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval
        self.total = 0
        self.done = 0
        self.errors = 0
        self.cached = 0
        self.in_flight: dict[object, int] = {}
        """Requests in flight per process, as its latest report said."""
        self._write = write
        self._clock = clock
        self._started = clock()
        self._last = self._started
        self._first: float | None = None
        """When the first sample was done."""

    def record(self, outcome: str, cached: int, process: object, in_flight: int | None) -> None:
        """One sample done: its outcome, how many of its answers came from the cache, and the
        requests its process had in flight."""
        self.done += 1
        now = self._clock()
        if self._first is None:
            self._first = now
        self.errors += outcome == "error"
        self.cached += cached
        if in_flight is not None:
            self.in_flight[process] = in_flight
        if self.interval > 0 and now - self._last >= self.interval:
            self._last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = now - self._started
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = "" if (seconds := self.left(now)) is None else f", ~{_duration(seconds)} left"
        return (f"audiobench: {self.done}/{self.total or '?'} samples done{share}, "
                f"{sum(self.in_flight.values())} requests in flight, {self.errors} errors, "
                f"{self.cached} answers from the cache, {_duration(elapsed)} elapsed{left}")


    def left(self, now: float) -> float | None:
        """Seconds left at the rate since the first sample was done; None until enough are."""
        enough = max(ESTIMATE_AFTER, math.ceil(ESTIMATE_SHARE * self.total))
        if self._first is None or not enough <= self.done < self.total:
            return None
        return (now - self._first) / (self.done - 1) * (self.total - self.done)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"
