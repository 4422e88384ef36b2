"""A release the hub ships as parquet rows that each carry their clip (MMSU, Big Bench Audio),
and the layout a run reads it in: one JSON object a line, each naming its clip under
``audio/``, which reads without pyarrow (the bundled mini data ships in it).

One ``ParquetRelease`` says what is a benchmark's own (its record model, its file, the field
naming the clip, its messages); converting the rows, finding a local snapshot's parquet files
and converting them once into the cache, and the download are written here once for both.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pytest_audiobench.benchmarks.metafile import validated
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    clip_id,
    clip_of,
    convert_snapshot,
    download_parquet_release,
    numbered_rows,
    snapshot_files,
)

AUDIO_FOLDER = "audio"
"""Where the layout keeps the clips, beside its file of records."""


@dataclass(frozen=True)
class ParquetRelease:
    """What a parquet release's conversion needs to know of its benchmark."""

    name: str
    """The benchmark's name: the cache folder of local snapshots and the marker's name."""
    what: str
    """The release as messages name it, e.g. ``Big Bench Audio``."""
    repo: str
    """Its hub repo, e.g. ``ddwang2000/MMSU``."""
    lines: str
    """The layout's file of records, one JSON object a line (``mmsu.jsonl``)."""
    clip_field: str
    """The field of a line that gives its clip's path, relative to the folder."""
    record: type[BaseModel]
    """A row is valid when it validates as this model, its clip's path in `clip_field`."""
    line_of: Callable[[Any], dict[str, Any]]
    """A valid record's fields as its line writes them (the clip's path added after)."""
    expected_row: str
    """What a parquet row must be, for the message that names a row that is not."""
    holding: str
    """The converted folder as a user could pass it instead, for messages."""
    version: int
    """Changes when the conversion writes something else, so that older ones are redone."""
    rows: Callable[[Mapping[str, Path]], Iterator[tuple[str, dict[str, Any]]]] = numbered_rows
    """The parquet files' rows as the conversion takes them, each with where it is (``<file>:
    row <n>``): by default each row as the file holds it. A release whose rows carry no ``id``
    of their own gives each one here, with whatever else the file's name or place says (the
    split a file's name gives, a row's place in it)."""

    @property
    def marker(self) -> str:
        """Written into a converted folder once complete: what it was converted from."""
        return f".{self.name}-converted.json"

    def conversion(self, blobs: Mapping[str, Path], target: Path,
                   stamp: Mapping[str, Any]) -> Conversion:
        """The layout built into `target` from the parquet files `blobs` (a name to show ->
        its file; see ``write``), its marker holding `stamp`, what identifies those files."""
        return Conversion(target, self.marker, {"conversion": self.version, **stamp},
                          lambda folder: self.write(blobs, folder),
                          lambda built: (built / self.lines).is_file())

    def write(self, blobs: Mapping[str, Path], folder: Path) -> None:
        """Write the layout into the empty `folder`, the rows in order: each row's clip into
        ``audio/<id><ext>`` (its original file name's extension, else ``.wav``) and its line.
        BadData naming the file and the row (counted from 1) for a row that is not a valid
        record, an id that cannot name a file or comes twice, or audio without bytes."""
        (folder / AUDIO_FOLDER).mkdir()
        seen: dict[str, str] = {}
        # ``\n`` on every platform: the layout is the same bytes wherever it was converted.
        with (folder / self.lines).open("w", encoding="utf-8", newline="\n") as out:
            for where, row in self.rows(blobs):
                out.write(json.dumps(self._write_row(row, where, folder, seen),
                                     ensure_ascii=False))
                out.write("\n")

    def from_snapshot(self, root: Path, cache_dir: Path, layouts: str) -> Path:
        """The layout converted from the parquet files anywhere below `root` (a local
        snapshot of the hub repo, hidden folders left out), built once into
        ``cache_dir/<name>/<hash>/`` (the hash of the files' paths, sizes and modification
        times, so a changed file is converted again). DataError, one line: no parquet file
        below `root` (`layouts` says what a folder may hold), pyarrow missing, a row not as
        expected."""
        found = snapshot_files(root)
        if not found:
            there = "in it nor below it" if root.is_dir() else "there (no such folder)"
            raise DataError(f"--audiobench-data {root}: neither {self.lines} nor any "
                            f"*{PARQUET_SUFFIX} file {there}; {layouts}")
        return convert_snapshot(root, found, cache_dir, folder=self.name, what=self.what,
                                version=self.version, conversion=self.conversion,
                                instead=self.holding)

    def download(self, cache_dir: Path, endpoint: str | None, expected: str) -> Path:
        """Every parquet file of the hub repo fetched into `cache_dir` and converted once
        (``hub.converting.download_parquet_release``); `expected` says what the repo holds."""
        return download_parquet_release(self.repo, cache_dir, endpoint, what=self.what,
                                        conversion=self.conversion, expected=expected,
                                        holding=f"a snapshot of {self.repo}, or {self.holding}")

    def _write_row(self, row: Mapping[str, Any], where: str, folder: Path,
                   seen: dict[str, str]) -> dict[str, Any]:
        """Write the row's clip into `folder` and return its line; `seen` maps the ids
        written so far to where they were."""
        record_id = clip_id(row, where, self.expected_row)
        # Before its clip is written: a second row of the id would overwrite the first's audio.
        if record_id in seen:
            raise BadData(f"{where}: the id {record_id!r} is {seen[record_id]}'s too; "
                          "expected every id once")
        data, suffix = clip_of(row, where, record_id, self.expected_row)
        relative = f"{AUDIO_FOLDER}/{record_id}{suffix}"
        try:
            record = validated(self.record, {**row, self.clip_field: relative}, where,
                               self.expected_row)
        except DataError as exc:
            # The conversion reports a row as BadData, which names the release and the fix.
            raise BadData(str(exc)) from None
        seen[record_id] = where
        (folder / relative).write_bytes(data)
        return {**self.line_of(record), self.clip_field: relative}
