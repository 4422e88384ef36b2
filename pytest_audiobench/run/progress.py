"""A progress line a person can follow on a long run: done, in flight, errors, cached, and
the time left once it can be told.

The first samples finish late (every request of the first ones is in flight at once), so the
rate is measured from the first sample done, not from the start, and the time left is said
only once ``ESTIMATE_AFTER`` samples (and ``ESTIMATE_SHARE`` of them) are done: before that,
a run of 100 s was once predicted to take a quarter of an hour.

An endpoint that went away (a server restarting, waited out: ``transport/ledger.py``) stops
the run for as long as it is away, and that time says nothing of the rate: while one is away
the line says what it waits for instead of a time left, and the time the processes report
their endpoints away is left out of the rate."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from typing import Any

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
        self.away: dict[object, Mapping[str, Any]] = {}
        """Per process, as its latest report said (``Ledger.away``): ``seconds`` its endpoints
        were away so far, ``now`` those away now with their seconds."""
        self._write = write
        self._clock = clock
        self._started = clock()
        self._last = self._started
        self._first: float | None = None
        """When the first sample was done."""
        self._away_before = 0.0
        """The seconds away the reports had said when the first sample was done."""

    def record(self, outcome: str, cached: int, process: object, in_flight: int | None,
               away: Mapping[str, Any] | None = None) -> None:
        """One sample done: its outcome, how many of its answers came from the cache, the
        requests its process had in flight and what its endpoints were away."""
        self.done += 1
        now = self._clock()
        if in_flight is not None:
            self.in_flight[process] = in_flight
        if away is not None:
            self.away[process] = away
        if self._first is None:
            self._first, self._away_before = now, self._away_seconds()
        self.errors += outcome == "error"
        self.cached += cached
        if self.interval > 0 and now - self._last >= self.interval:
            self._last = now
            self._write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = now - self._started
        share = f" ({100 * self.done / self.total:.0f}%)" if self.total else ""
        waiting = self._waiting()
        left = "" if (seconds := self.left(now)) is None else f", ~{_duration(seconds)} left"
        return (f"audiobench: {self.done}/{self.total or '?'} samples done{share}, "
                f"{sum(self.in_flight.values())} requests in flight, {self.errors} errors, "
                f"{self.cached} answers from the cache, {_duration(elapsed)} elapsed"
                f"{waiting or left}")

    def left(self, now: float) -> float | None:
        """Seconds left at the rate since the first sample was done, the time endpoints were
        away since then left out; None until enough are done, and while one is away."""
        enough = max(ESTIMATE_AFTER, math.ceil(ESTIMATE_SHARE * self.total))
        if self._first is None or not enough <= self.done < self.total or self._waiting():
            return None
        # The processes ask the same servers at once: they see one outage together, so the
        # most any of them reports is the time the run stood still.
        stood = max(0.0, self._away_seconds() - self._away_before)
        working = max(0.0, now - self._first - stood)
        return working / (self.done - 1) * (self.total - self.done)

    def _away_seconds(self) -> float:
        return max((float(away["seconds"]) for away in self.away.values()), default=0.0)

    def _waiting(self) -> str:
        """", waiting for ..." with each endpoint some process reports away now, and for how
        long; empty when none is."""
        away: dict[str, float] = {}
        for reported in self.away.values():
            for label, seconds in reported["now"].items():
                away[label] = max(away.get(label, 0.0), float(seconds))
        return "".join(f", waiting for {label} (away {_duration(seconds)})"
                       for label, seconds in away.items())


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"
