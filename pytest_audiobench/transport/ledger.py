"""What a process's endpoints cost, and the circuit breaker that stops asking one that has
gone away: after ``max_failures`` connection failures in a row to an endpoint, no further
request is sent to it, and every sample still waiting for it ends as not run at once."""

from __future__ import annotations

import asyncio
import time

from pytest_audiobench.errors import EndpointDown
from pytest_audiobench.transport.types import (
    OTHER_IDS,
    SERVED_IDS,
    EndpointTraffic,
    Traffic,
    Usage,
    endpoint_label,
)


class Peeked:
    """The cached replies looked at without sending (a dry run's: this run's, or an earlier
    run's answer to the same request): how many, and their tokens, from which a dry run tells
    what the calls it would send cost."""

    def __init__(self) -> None:
        self.replies = 0
        self.usage = Usage()

    def add(self, usage: Usage) -> None:
        self.replies += 1
        self.usage = self.usage + usage


class Line:
    """One endpoint's traffic and breaker."""

    def __init__(self, label: str, max_failures: int) -> None:
        self.label = label
        self.traffic = EndpointTraffic()
        self.peeked = Peeked()
        self._max_failures = max_failures
        self._in_a_row = 0
        self._down: asyncio.Event | None = None

    def check(self) -> None:
        """Raise EndpointDown when the breaker has stopped this endpoint."""
        if self.traffic.stopped is not None:
            raise EndpointDown(self.traffic.stopped)

    def answered(self, failure: str | None = None) -> None:
        """Any HTTP reply, even an error status or one without an answer (``failure`` names
        what was wrong): the endpoint is there."""
        self._in_a_row = 0
        self.traffic.received += 1
        if failure is not None:
            self._failed(failure)

    def named(self, model: object) -> None:
        """A reply with an answer named the model that gave it (a string, when it did): by
        name while fewer than ``SERVED_IDS`` ids are, else under ``OTHER_IDS``."""
        if not isinstance(model, str) or not model:
            return
        served = self.traffic.served
        if model not in served and len(served) - (OTHER_IDS in served) >= SERVED_IDS:
            model = OTHER_IDS
        served[model] = served.get(model, 0) + 1

    def _failed(self, reason: str) -> None:
        self.traffic.failures[reason] = self.traffic.failures.get(reason, 0) + 1

    def connection_failed(self, reason: str, kind: str = "connection") -> None:
        """No reply: refused, dropped, or not whole within the timeout (``kind``)."""
        self._failed(kind)
        self.traffic.connection_failures += 1
        self._in_a_row += 1
        if self._in_a_row >= self._max_failures and self.traffic.stopped is None:
            self.traffic.stopped = (f"{self.label} stopped answering ({self._in_a_row} "
                                    f"connection failures in a row, the last: {reason}); no "
                                    "further request was sent to it")
            self._event().set()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` before a retry, or less if the breaker stops the endpoint."""
        started = time.monotonic()
        try:
            await asyncio.wait_for(self._event().wait(), timeout=seconds)
        except TimeoutError:
            pass
        finally:
            self.traffic.waited_seconds += time.monotonic() - started
        self.check()

    def _event(self) -> asyncio.Event:
        if self._down is None:
            self._down = asyncio.Event()
        return self._down


class Ledger:
    """Every endpoint's line in this process, by ``"<model> at <url>"``: the variants of one
    endpoint (a judge at other sampling settings) share one."""

    def __init__(self) -> None:
        self.lines: dict[str, Line] = {}

    def line(self, model: str, url: str, max_failures: int) -> Line:
        label = endpoint_label(model, url)
        if label not in self.lines:
            self.lines[label] = Line(label, max_failures)
        return self.lines[label]

    def traffic(self) -> Traffic:
        return Traffic(endpoints={label: line.traffic for label, line in self.lines.items()})
