"""A release's meta file, one JSON array of records (AIR-Bench's halves, MMAU), one record a
line (MMSU, Big Bench Audio) or tab-separated rows (FLEURS, Common Voice), read with one clear
line for each way it can be wrong; the audio
paths its records give, kept inside the release; the note a partial release gets. Each
benchmark validates its records."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from pytest_audiobench.errors import DataError

M = TypeVar("M", bound=BaseModel)


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


R = TypeVar("R", bound=_Identified)


def read_json_array(root: Path, meta: Path, layout: str, expected: str) -> list[Any]:
    """The records of ``root/meta``. DataError naming the file when it is missing (saying what
    the root should hold, ``layout``, and when the root given is the file's own folder, its
    parent), not JSON, not an array, or empty (``expected``: the records it should hold)."""
    path = root / meta
    if not path.is_file():
        hint = ""
        if (root / meta.name).is_file():
            hint = f" (it holds {meta.name} itself: pass its parent, {root.parent})"
        raise DataError(f"--audiobench-data {root}: no {meta} there{hint}; expected {layout}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not readable as JSON ({exc})") from exc
    if not isinstance(raw, list):
        raise DataError(f"{path}: expected a JSON array of records, found {type(raw).__name__}")
    if not raw:
        raise DataError(f"{path}: holds no records; expected {expected}")
    return raw


def tsv_rows(path: Path, expected: str, encoding: str = "utf-8"
             ) -> Iterator[tuple[int, list[str]]]:
    """Each non-blank row of the tab-separated file ``path`` with its line number, read with
    quoting off: the releases' quotes are text, and CSV quoting would let a cell that opens
    with one swallow the tabs after it. DataError, one line, when the file is not readable
    as UTF-8 tab-separated text (``expected``: what its rows should hold)."""
    try:
        with path.open(encoding=encoding, newline="") as lines:
            reader = csv.reader(lines, delimiter="\t", quoting=csv.QUOTE_NONE)
            for row in reader:
                if any(cell.strip() for cell in row):
                    yield reader.line_num, row
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"{path}: not readable as UTF-8 tab-separated text ({exc}); "
                        f"expected {expected}") from exc


def jsonl_objects(path: Path, expected: str, encoding: str = "utf-8"
                  ) -> Iterator[tuple[str, int, Any]]:
    """Each non-blank line of the JSON-lines file ``path`` decoded: where it is (``<path>: line
    <n>``), its number and its value. DataError, one line, when the file is not readable as
    text or a line is not JSON (``expected``: what a line should hold)."""
    try:
        text = path.read_text(encoding=encoding)
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not readable as UTF-8 text ({exc}); expected one JSON "
                        "object a line") from exc
    # Not splitlines: it also breaks at U+2028, U+0085 and other separators a JSON string may
    # hold unescaped (the layouts are written with ensure_ascii=False), cutting a record in two.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}: line {number}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(f"{where}: not JSON ({exc.msg} at column {exc.colno}); "
                            f"{expected}") from None
        yield where, number, value


def jsonl_records(path: Path, record: Callable[[str, Any], R], expected: str, holds: str,
                  encoding: str = "utf-8") -> tuple[list[R], dict[str, int]]:
    """The records of the JSON-lines file ``path`` (``record`` makes one of a line's value,
    told where it is), in order, and the line each id is on. DataError, one line, as
    ``jsonl_objects`` says, for an id twice, and for a file with no record (``holds``: what
    it should hold)."""
    records: list[R] = []
    first_line: dict[str, int] = {}
    for where, number, value in jsonl_objects(path, expected, encoding):
        made = record(where, value)
        if made.id in first_line:
            raise DataError(f"{where}: the id {made.id!r} already appears on line "
                            f"{first_line[made.id]}; expected every id once")
        first_line[made.id] = number
        records.append(made)
    if not records:
        raise DataError(f"{path}: holds no records; expected {holds}, one JSON object a line")
    return records, first_line


def inside_root(value: str) -> PurePosixPath:
    """A record's audio path ``value`` as a path under the release root, or ValueError saying
    why it is not one."""
    posix = PurePosixPath(value.replace("\\", "/"))
    # ``C:clip.wav`` or ``C:\clip.wav`` is not absolute to a POSIX path, but leaves the root on
    # Windows.
    if posix.is_absolute() or PureWindowsPath(value).drive:
        raise ValueError(f"{value!r} must be relative to the release root, not absolute")
    if ".." in posix.parts:
        raise ValueError(f"{value!r} must stay inside the release root (no '..')")
    if not posix.parts or posix == PurePosixPath("."):
        raise ValueError(f"{value!r} names no file")
    return posix


def clip_inside(folder: Path, where: str, field: str, value: Any, expected: str) -> Path:
    """A record's clip: its path `value` (its field `field`), relative to the resolved
    `folder`, resolved and checked to stay inside it and to be a file; DataError saying
    `where` the record is otherwise."""
    try:
        path = folder.joinpath(*inside_root(str(value)).parts)
    except ValueError as exc:
        raise DataError(f"{where}: {field} {exc}; {expected}") from None
    # Resolved after the text checks: a symbolic link inside the folder can still lead out.
    resolved = path.resolve()
    if not resolved.is_relative_to(folder):
        raise DataError(f"{where}: {field} {str(value)!r} leads to {resolved}, outside "
                        f"{folder}; expected a clip inside the folder")
    if not resolved.is_file():
        raise DataError(f"{where}: no audio file {path}; expected the clip there")
    return resolved


def size_note(name: str, found: int, size: int) -> str | None:
    """What a report must say when benchmark `name`'s release read holds `found` questions
    where the published one holds `size`; None when it holds them all."""
    if found == size:
        return None
    if found < size:
        return (f"{name}: {found:,} of {size:,} questions (not the whole release: its numbers "
                "are not comparable with published ones)")
    return (f"{name}: {found:,} questions where the release has {size:,} (not the published "
            "release: its numbers are not comparable with published ones)")


def validated(model: type[M], raw: Any, where: str, expected: str) -> M:
    """``raw`` as a ``model`` record; DataError saying ``where`` it is (its file and place,
    and its id when it has one), each field that is wrong, and what was ``expected``."""
    if isinstance(raw, dict) and "id" in raw:
        where += f" (id {raw['id']!r})"
    if not isinstance(raw, dict):
        raise DataError(f"{where}: found a JSON {type(raw).__name__}; {expected}")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        found = "; ".join(_problem(error) for error in exc.errors())
        raise DataError(f"{where}: {found}; {expected}") from None


def _problem(error: Any) -> str:
    message = str(error["msg"]).removeprefix("Value error, ")
    message = message[:1].lower() + message[1:]
    field = ".".join(str(part) for part in error["loc"])
    return f"{field}: {message}" if field else message
