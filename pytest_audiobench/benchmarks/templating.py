"""Reading a user's prompt template once at the start (a judge's, a multiple-choice
question's): UTF-8 text that must carry every placeholder the benchmark fills in."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.errors import DataError


def read_template(path: Path, flag: str, placeholders: Sequence[str]) -> str:
    """The text at ``path``; DataError naming ``flag``, the file and what it lacks."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{flag} {path}: cannot read it as UTF-8 text ({exc})") from exc
    missing = [name for name in placeholders if name not in text]
    if missing:
        raise DataError(f"{flag} {path}: missing placeholder(s) {', '.join(missing)}; the "
                        f"template must contain {', '.join(placeholders)}")
    return text
