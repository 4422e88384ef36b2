"""What a process's endpoints cost: per endpoint its requests, replies, failures by reason,
retries and waits, the model ids its replies named and the cached replies a dry run looked
at (``Line``), with the circuit breaker in front of it (``breaker.py``)."""

from __future__ import annotations

import time
from typing import Any

from pytest_audiobench.transport.breaker import PROBING, Backoff, Breaker
from pytest_audiobench.transport.types import (
    OTHER_IDS,
    SERVED_IDS,
    EndpointTraffic,
    Traffic,
    Usage,
    endpoint_label,
    joined,
    span_seconds,
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
    """One endpoint's traffic, and the circuit breaker in front of it (``breaker.py``)."""

    def __init__(self, label: str, max_failures: int, outage_wait: float = 0.0,
                 backoff: Backoff = PROBING) -> None:
        self.label = label
        self.traffic = EndpointTraffic()
        self.peeked = Peeked()
        self.breaker = Breaker(label, self.traffic, max_failures, outage_wait, backoff)

    def answered(self, failure: str | None = None) -> None:
        """Any HTTP reply, even an error status or one without an answer (``failure`` names
        what was wrong): the endpoint is there."""
        self.breaker.replied()
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
        self.breaker.failed(reason, dropped=kind == "connection")


    def counts(self) -> EndpointTraffic:
        """Its traffic, an outage going on counted up to now (a run that ends during one)."""
        return self.traffic + self.breaker.going_on(time.time())


class Ledger:
    """Every endpoint's line in this process, by ``"<model> at <url>"``: the variants of one
    endpoint (a judge at other sampling settings) share one."""

    def __init__(self) -> None:
        self.lines: dict[str, Line] = {}

    def line(self, model: str, url: str, max_failures: int, outage_wait: float = 0.0) -> Line:
        label = endpoint_label(model, url)
        if label not in self.lines:
            self.lines[label] = Line(label, max_failures, outage_wait)
        return self.lines[label]

    def traffic(self) -> Traffic:
        return Traffic(endpoints={label: line.counts() for label, line in self.lines.items()})

    def away(self) -> dict[str, Any]:
        """What the progress line reads of this process's outages: ``seconds``, how long any
        of its endpoints was away so far (an outage of two at once counted once), and ``now``,
        each endpoint away now with the seconds it has been."""
        now = time.time()
        spans = [span for line in self.lines.values() for span in line.breaker.spans(now)]
        going_on = {label: line.breaker.away_for(now) for label, line in self.lines.items()}
        return {"seconds": span_seconds(joined(spans)),
                "now": {label: seconds for label, seconds in going_on.items()
                        if seconds is not None}}
