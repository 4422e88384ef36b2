"""Where the controller keeps a run's records: one JSON line per sample in an anonymous
temporary file, so that its memory does not grow with the samples' answers and verdicts.

In memory stay each node id's place in the file and the node ids that did not run. The report,
the gate and the HTML page read the records back one at a time, in the order they ask for.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

from pytest_audiobench.outcome.records import SampleRecord

_UNDONE = frozenset({"error", "not_run"})


class RecordSpool:
    """The records of one run, by node id; a sample recorded twice keeps its last record."""

    def __init__(self) -> None:
        self._opened: IO[bytes] | None = None
        self._end = 0
        self._places: dict[str, tuple[int, int]] = {}
        self._undone: set[str] = set()
        self._not_run: set[str] = set()

    def add(self, line: str) -> dict[str, Any]:
        """Keep one record (``SampleRecord`` as JSON); returns it as plain data."""
        data: dict[str, Any] = json.loads(line)
        nodeid = data["nodeid"]
        encoded = line.encode("utf-8") + b"\n"
        self._file.seek(self._end)
        self._file.write(encoded)
        self._places[nodeid] = (self._end, len(encoded))
        self._end += len(encoded)
        if data["outcome"] in _UNDONE:
            self._undone.add(nodeid)
        else:
            self._undone.discard(nodeid)
        if data["outcome"] == "not_run":
            self._not_run.add(nodeid)
        else:
            self._not_run.discard(nodeid)
        return data

    @property
    def _file(self) -> IO[bytes]:
        if self._opened is None:
            # Removed by the system when closed or when the process ends, however it ends.
            self._opened = tempfile.TemporaryFile()  # noqa: SIM115
        return self._opened

    def __len__(self) -> int:
        return len(self._places)

    def __contains__(self, nodeid: object) -> bool:
        return nodeid in self._places

    def undone(self, nodeids: Iterable[str]) -> int:
        """How many of ``nodeids`` a resume would ask again: those with no record, an error,
        or not run."""
        return sum(nodeid not in self._places or nodeid in self._undone for nodeid in nodeids)

    def not_run(self, nodeids: Iterable[str]) -> int:
        """How many of ``nodeids`` did not run: no record, or a record that says so."""
        return sum(nodeid not in self._places or nodeid in self._not_run for nodeid in nodeids)

    def get(self, nodeid: str) -> SampleRecord:
        """The record of ``nodeid`` (KeyError when it has none)."""
        offset, length = self._places[nodeid]
        self._file.flush()
        return SampleRecord.model_validate_json(os.pread(self._file.fileno(), length, offset))

    def ordered(self, nodeids: Iterable[str]) -> InOrder:
        """The records of ``nodeids`` that have one, in that order, as often as iterated."""
        return InOrder(self, list(nodeids))

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()


class InOrder:
    """Records read back from a spool one at a time; each iteration reads the file again."""

    def __init__(self, spool: RecordSpool, nodeids: list[str]) -> None:
        self._spool = spool
        self._nodeids = nodeids

    def __iter__(self) -> Iterator[SampleRecord]:
        spool = self._spool
        return (spool.get(nodeid) for nodeid in self._nodeids if nodeid in spool)
