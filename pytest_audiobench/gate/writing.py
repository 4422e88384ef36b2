"""Writing a baseline: the one place a run writes or updates one, once, when its session (or
a merge of shards) ends, after the gate decided it (``decision.BaselineUpdate``). The report
never reaches this module (an import-linter contract says so): building a report writes no
gate file.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from pathlib import Path

from pytest_audiobench.files import replacing
from pytest_audiobench.gate.baseline import Baseline, samples_path
from pytest_audiobench.gate.decision import BaselineUpdate
from pytest_audiobench.outcome.lines import SampleLine


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
    node id order, reviewable in a pull request) when there are any. Each file is replaced
    whole: a run still reading the old lines' texts keeps reading the old file."""
    with replacing(path) as out:
        out.write(baseline.model_dump_json(indent=2, exclude_none=True) + "\n")
    given = iter(lines)
    first = next(given, None)
    if first is None:
        return
    with replacing(samples_path(path)) as out:
        for line in itertools.chain([first], given):
            # A line without reasoning writes none: the files of models that give none stay
            # as they were.
            out.write(line.model_dump_json(exclude=None if line.reasoning else {"reasoning"})
                      + "\n")
