"""A progress line a person can follow on a long run: done, in flight, errors, cached."""

from __future__ import annotations

import time
from collections.abc import Callable


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

    def record(self, outcome: str, cached: int, process: object, in_flight: int | None) -> None:
        """One sample done: its outcome, how many of its answers came from the cache, and the
        requests its process had in flight."""
        self.done += 1
        self.errors += outcome == "error"
        self.cached += cached
        if in_flight is not None:
            self.in_flight[process] = in_flight
        now = self._clock()
        if self.interval > 0 and now - self._last >= self.interval:
            self._last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = now - self._started
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        left = ""
        if self.total and 0 < self.done < self.total:
            left = f", ~{_duration(elapsed * (self.total - self.done) / self.done)} left"
        return (f"audiobench: {self.done}/{self.total or '?'} samples done{share}, "
                f"{sum(self.in_flight.values())} requests in flight, {self.errors} errors, "
                f"{self.cached} answers from the cache, {_duration(elapsed)} elapsed{left}")


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"
