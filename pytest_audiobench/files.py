"""Writing a file so that it appears only once it is whole: a run interrupted while writing
leaves the previous file (or none) in place, and a reader that holds the previous file open
keeps reading it. Imports nothing of the package."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def replacing(path: Path) -> Iterator[TextIO]:
    """A text handle on ``.<name>.partial`` beside ``path`` (its folder made if missing),
    renamed over ``path`` when the block ends without an exception, removed when it raises."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            yield out
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(path)
