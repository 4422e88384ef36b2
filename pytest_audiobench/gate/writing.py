"""Writing a baseline: the one place a run writes or updates one, once, when its session (or
a merge of shards) ends, after the gate decided it (``decision.BaselineUpdate``). The report
never reaches this module (an import-linter contract says so): building a report writes no
gate file.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path

from pytest_audiobench.files import replacing
from pytest_audiobench.gate.baseline import Baseline, LinesDigest, SamplesFile, samples_path
from pytest_audiobench.gate.decision import BaselineUpdate
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.untrusted import json_safe


def apply(updates: Mapping[str, BaselineUpdate]) -> dict[str, str]:
    """Write every benchmark's update; per benchmark whose baseline could not be written, why
    (the system's words)."""
    failed = {}
    for name, update in updates.items():
        try:
            write(update.path, update.baseline, update.lines())
        except OSError as exc:
            failed[name] = exc.strerror or str(exc)
    return failed


def write(path: Path, baseline: Baseline, lines: Iterable[SampleLine] = ()) -> None:
    """The baseline file, and beside it its sample lines (one JSON line per sample, given in
    node id order, reviewable in a pull request) when there are any, which the baseline names
    with their count and hash (a baseline that loses them is refused, not held by thresholds);
    stamped with when it was written. Each file is replaced whole, the lines first: a run
    still reading the old lines' texts keeps reading the old file, and a baseline never names
    lines that are not there."""
    named = _write_lines(samples_path(path), lines)
    stamped = baseline.model_copy(update={
        "samples": named, "written": datetime.now(UTC).isoformat(timespec="seconds")})
    with replacing(path) as out:
        out.write(json_safe(stamped.model_dump_json(indent=2, exclude_none=True)) + "\n")


def _write_lines(path: Path, lines: Iterable[SampleLine]) -> SamplesFile | None:
    """The sample lines at ``path``, and what names them; None (nothing written) without any."""
    given = iter(lines)
    first = next(given, None)
    if first is None:
        return None
    digest = LinesDigest()
    with replacing(path) as out:
        for line in itertools.chain([first], given):
            # A line without reasoning writes none: the files of models that give none stay
            # as they were.
            text = json_safe(line.model_dump_json(
                exclude=None if line.reasoning else {"reasoning"}))
            digest.add(text.encode("utf-8"))
            out.write(text + "\n")
    return SamplesFile(file=path.name, lines=digest.count, sha256=digest.hexdigest())
