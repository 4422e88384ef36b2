"""A release's meta file that is one JSON array of records (AIR-Bench's halves), read with
one clear line for each way it can be wrong; each benchmark validates the records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pytest_audiobench.errors import DataError


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
