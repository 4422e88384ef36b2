"""What the controller (or a run without xdist) gathers while the items run: when it started,
the samples it expects, each one's record as its item sent it (kept on disk, ``spool.py``),
the failures of other tests in the same session, the endpoints' traffic of every process that
ran items, and the progress line that shows it."""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.run.progress import Progress
from pytest_audiobench.run.spool import RecordSpool
from pytest_audiobench.transport.types import Traffic


@dataclass(frozen=True)
class Started:
    """When the run started: the wall-clock time reports show, and the clock its length is
    measured with."""

    at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    clock: float = field(default_factory=time.monotonic)

    def seconds(self) -> float:
        return time.monotonic() - self.clock


class Collected:
    """The controller's side of the run while the items run (see the module)."""

    def __init__(self) -> None:
        self.started = Started()
        self.records = RecordSpool()
        self.selected: list[str] | None = None
        """The sample items this run runs, once collection is over."""
        self.foreign_failures = 0
        """Failed tests and collection errors that are not samples: they fail the run."""
        self.traffic = Traffic()
        """What the endpoints took, summed over the processes that ran items."""
        self.progress: Progress | None = None
        self.rerun: str | None = None
        """Why the selection was made from earlier outcomes (``scoping.rerun_of``), if it was."""
        self.interrupted: str | None = None
        """What pytest said when the run was interrupted (Ctrl-C, xdist's stop)."""
        self.first_not_run: str | None = None
        """Why the first sample that was not run was not (the deadline, a budget)."""
        self.settled = 0
        """The items that took their sample's record whole from the run's records (a
        resume: ``run/spool.py``)."""

    def expect(self, nodeids: Iterable[str]) -> None:
        self.selected = [n for n in nodeids if NodeId.names_a_sample(n)]
        if self.progress is not None:
            self.progress.total = len(self.selected)

    def add(self, record: str, process: object = None, in_flight: int | None = None,
            away: Mapping[str, Any] | None = None, nodeid: str | None = None) -> None:
        """Keep one sample's record (``SampleRecord`` as JSON, as its item sent it), and what
        its process said of its requests in flight and its endpoints' outages; ``nodeid``:
        its report's (``RecordSpool.add``)."""
        data: dict[str, Any] = self.records.add(record, nodeid)
        if data["outcome"] == "not_run" and self.first_not_run is None:
            self.first_not_run = data.get("message")
        if self.progress is not None:
            cached = sum(bool(a["completion"]["cached"]) for a in data["answers"])
            self.progress.record(data["outcome"], cached, process, in_flight, away)

    def settle(self, outcome: str, process: object = None, in_flight: int | None = None,
               away: Mapping[str, Any] | None = None) -> None:
        """One item took its sample's record, kept already, whole (``Controller.settle``)."""
        self.settled += 1
        if self.progress is not None:
            self.progress.record(outcome, 0, process, in_flight, away)
