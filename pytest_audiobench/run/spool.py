"""Where the controller keeps a run's records: one JSON line per sample in a file, so that its
memory does not grow with the samples' answers and grades.

In memory stay each node id's place in the file and the node ids that did not run. The report,
the gate and the HTML page read the records back one at a time, in the order they ask for.

With the cache on, the file is the run's own under ``<cache>/runs/`` (``keep_in``), written as
each record arrives: a resume reads back the records an earlier session of the run made, and
the items of the samples they show done take them whole (``Settled``) instead of reading the
audio, asking and grading again. Without the cache, or once that file cannot be written (a
full disk), the records live in an anonymous temporary file: nothing recorded is lost, and a
resume then asks the run's cache for what its records file misses.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from pytest_audiobench.outcome.records import SampleRecord

_UNDONE = frozenset({"error", "not_run"})

_CHUNK = 1 << 20

Place = tuple[int, int]
"""A record's offset and length in its file."""

_LENGTH_BITS = 40
"""A place is kept as one int, ``offset << _LENGTH_BITS | length``: the spool keeps one for
every sample to the end of the run, and a tuple of two ints cost about 120 bytes, one int 36."""


def _packed(place: Place) -> int:
    offset, length = place
    if not 0 <= length < 1 << _LENGTH_BITS or offset < 0:
        raise ValueError(f"not a place in a records file: {place}")
    return offset << _LENGTH_BITS | length


def _unpacked(packed: int) -> Place:
    return packed >> _LENGTH_BITS, packed & ((1 << _LENGTH_BITS) - 1)


class RecordSpool:
    """The records of one run, by node id; a sample recorded twice keeps its last record."""

    def __init__(self) -> None:
        self._opened: IO[bytes] | None = None
        self._kept: Path | None = None
        """The run's records file while it is written, else None (a temporary file)."""
        self._end = 0
        self._begun = 0
        """Where this session's records begin: those before came from an earlier session."""
        self._places: dict[str, int] = {}
        """Each node id's place, packed (``_packed``)."""
        self._undone: set[str] = set()
        self._not_run: set[str] = set()

    def keep_in(self, path: Path) -> bool:
        """Keep the records in ``path``, the run's records file, after those it holds already
        (read back here, once); False, and a temporary file as before, when it cannot be
        opened. Called before the first record."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            kept = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+b", buffering=0)
        except OSError:
            return False
        try:
            with path.open("rb") as reading:
                self._read_back(reading)
            os.ftruncate(kept.fileno(), self._end)  # a line cut short (a killed run) is none
        except OSError:
            kept.close()
            self._forget()
            return False
        self._opened, self._kept, self._begun = kept, path, self._end
        return True

    def _read_back(self, reading: IO[bytes]) -> None:
        """Index every whole line; one that cannot be read is skipped (its sample is asked
        again)."""
        for line in reading:
            # Only the last line can lack its newline (a run killed while writing it): it is
            # cut below and written over.
            if not line.endswith(b"\n"):
                break
            try:
                data = json.loads(line)
                self._index(data["nodeid"], data["outcome"], (self._end, len(line)),
                            data.get("unfinished"))
            except (ValueError, KeyError, TypeError):
                pass
            # Past an unreadable line too: a place is an offset in the file, which keeps the line.
            self._end += len(line)

    def _forget(self) -> None:
        self._end = self._begun = 0
        self._places.clear()
        self._undone.clear()
        self._not_run.clear()

    def _index(self, nodeid: str, outcome: str, place: Place,
               unfinished: str | None = None) -> None:
        self._places[nodeid] = _packed(place)
        if outcome in _UNDONE or unfinished:
            self._undone.add(nodeid)
        else:
            self._undone.discard(nodeid)
        if outcome == "not_run":
            self._not_run.add(nodeid)
        else:
            self._not_run.discard(nodeid)

    def add(self, line: str, nodeid: str | None = None) -> dict[str, Any]:
        """Keep one record (``SampleRecord`` as JSON); returns it as plain data. ``nodeid``: the
        string its item's reports carry, kept in place of the record's own equal one (every
        sample's is kept to the end of the run, and pytest keeps that one anyway)."""
        data: dict[str, Any] = json.loads(line)
        if nodeid is not None and nodeid == data["nodeid"]:
            data["nodeid"] = nodeid
        encoded = line.encode("utf-8") + b"\n"
        try:
            _write_at(self._file, encoded, self._end)
        except OSError:
            # Already in a temporary file: there is nowhere else to go.
            if self._kept is None:
                raise
            self._move_to_temporary()
            _write_at(self._file, encoded, self._end)
        self._index(data["nodeid"], data["outcome"], (self._end, len(encoded)),
                    data.get("unfinished"))
        self._end += len(encoded)
        return data

    def _move_to_temporary(self) -> None:
        """The run's records file refused a record (a full disk): go on in a temporary copy,
        the same records at the same places; the file keeps what it had."""
        kept, copy = self._file, tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
        try:
            for offset in range(0, self._end, _CHUNK):
                chunk = os.pread(kept.fileno(), min(_CHUNK, self._end - offset), offset)
                _write_at(copy, chunk, offset)
        except BaseException:
            copy.close()
            raise
        kept.close()
        self._opened, self._kept = copy, None

    @property
    def _file(self) -> IO[bytes]:
        if self._opened is None:
            # Removed by the system when closed or when the process ends, however it ends.
            self._opened = tempfile.TemporaryFile(buffering=0)  # noqa: SIM115
        return self._opened

    def __len__(self) -> int:
        return len(self._places)

    def __contains__(self, nodeid: object) -> bool:
        return nodeid in self._places

    def recorded_now(self, nodeid: str) -> bool:
        """Whether ``nodeid`` has a record from this session (not only an earlier one's)."""
        place = self._places.get(nodeid)
        return place is not None and _unpacked(place)[0] >= self._begun

    def settled(self) -> dict[str, Place]:
        """The places, in the run's records file, of the done samples an earlier session
        recorded (not an error, not left not run, its grading not left unfinished): their
        items take these whole."""
        if self._kept is None:
            return {}
        places = ((nodeid, _unpacked(packed)) for nodeid, packed in self._places.items())
        return {nodeid: place for nodeid, place in places
                if place[0] < self._begun and nodeid not in self._undone}

    def undone(self, nodeids: Iterable[str]) -> int:
        """How many of ``nodeids`` a resume would ask again: those with no record, an error,
        not run, or a grading left unfinished."""
        return sum(nodeid not in self._places or nodeid in self._undone for nodeid in nodeids)

    def not_run(self, nodeids: Iterable[str]) -> int:
        """How many of ``nodeids`` did not run: no record, or a record that says so."""
        return sum(nodeid not in self._places or nodeid in self._not_run for nodeid in nodeids)

    def get(self, nodeid: str) -> SampleRecord:
        """The record of ``nodeid`` (KeyError when it has none)."""
        offset, length = _unpacked(self._places[nodeid])
        return SampleRecord.model_validate_json(os.pread(self._file.fileno(), length, offset))

    def ordered(self, nodeids: Iterable[str]) -> InOrder:
        """The records of ``nodeids`` that have one, in that order, as often as iterated."""
        return InOrder(self, list(nodeids))

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()


def _write_at(file: IO[bytes], data: bytes, offset: int) -> None:
    """Write all of ``data`` at ``offset``, past any buffer: a controller killed after this
    keeps the record."""
    view = memoryview(data)
    while view:
        written = os.pwrite(file.fileno(), view, offset)
        view, offset = view[written:], offset + written


class InOrder:
    """Records read back from a spool one at a time; each iteration reads the file again."""

    def __init__(self, spool: RecordSpool, nodeids: list[str]) -> None:
        self._spool = spool
        self._nodeids = nodeids

    def __iter__(self) -> Iterator[SampleRecord]:
        spool = self._spool
        return (spool.get(nodeid) for nodeid in self._nodeids if nodeid in spool)


class Settled:
    """The records a resume's items take whole, by node id (``RecordSpool.settled``, as the
    plan sends them): each read from the run's records file when its item asks, once. One
    that cannot be read is no record: its item asks and grades as any other."""

    def __init__(self, path: Path | None = None, places: Mapping[str, Place] | None = None
                 ) -> None:
        self._path = path
        self._places = dict(places or {})
        self._opened: IO[bytes] | None = None

    def __contains__(self, nodeid: object) -> bool:
        return nodeid in self._places

    def __len__(self) -> int:
        return len(self._places)

    def take(self, nodeid: str) -> SampleRecord | None:
        """The record of ``nodeid`` if it is one of these (then no more), else None."""
        place = self._places.pop(nodeid, None)
        if place is None or self._path is None:
            return None
        offset, length = place
        try:
            if self._opened is None:
                self._opened = self._path.open("rb")
            found = SampleRecord.model_validate_json(
                os.pread(self._opened.fileno(), length, offset))
        except (OSError, ValueError):
            return None
        # The place came from the controller's reading of the file: a record there of another
        # sample (the file changed since) is no record of this one.
        return found if found.nodeid == nodeid else None

    def close(self) -> None:
        if self._opened is not None:
            self._opened.close()
            self._opened = None
