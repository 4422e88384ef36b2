"""Writing a file so that it appears only once it is whole: a run interrupted while writing
leaves the previous file (or none) in place, and a reader that holds the previous file open
keeps reading it; and finding out, before a run pays for anything, whether a file it will
write at the end can be written at all. Imports nothing of the package."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO, cast


@contextmanager
def replacing(path: Path) -> Iterator[TextIO]:
    """A text handle on ``.<name>.partial`` beside ``path`` (its folder made if missing),
    renamed over ``path`` when the block ends without an exception, removed when it raises."""
    with _replacing(path, "w") as out:
        yield cast(TextIO, out)


@contextmanager
def replacing_bytes(path: Path) -> Iterator[BinaryIO]:
    """``replacing`` for bytes."""
    with _replacing(path, "wb") as out:
        yield cast(BinaryIO, out)


@contextmanager
def _replacing(path: Path, mode: str) -> Iterator[IO[Any]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open(mode, encoding=None if "b" in mode else "utf-8") as out:
            yield out
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)


def cannot_write(path: Path) -> str | None:
    """Why a file cannot be written at ``path``, or None when it can: a few bytes are written
    in its folder, or in the nearest folder above it that exists (nothing is left behind)."""
    if path.is_dir():
        return "it is a folder"
    return cannot_write_in(path.parent)


def cannot_write_in(folder: Path) -> str | None:
    """Why files cannot be written in ``folder``, or None when they can; a folder that does
    not exist yet is tried at the nearest one above it that does."""
    existing = next((p for p in (folder, *folder.parents) if p.exists()), folder)
    if not existing.is_dir():
        return f"{existing} is a file, not a folder"
    try:
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=existing)
        try:
            os.write(fd, b"probe\n")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
