"""Which samples flip between good and bad over the runs, ranked; and a metric's value and
gate row as a run's summary holds them."""


from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_audiobench.gate.evaluation import GateRow
from pytest_audiobench.outcome.records import Outcome
from pytest_audiobench.report.model import BenchmarkSummary

GOOD: frozenset[Outcome] = frozenset({"passed", "xpassed"})


BAD: frozenset[Outcome] = frozenset({"failed", "xfailed"})
"""A sample's outcome as a flip counts it; error, skipped and not run are no outcome."""


def good(outcome: Outcome | None) -> bool | None:
    """True for a good outcome, False for a bad one, None for no outcome (``GOOD``, ``BAD``)."""
    return True if outcome in GOOD else False if outcome in BAD else None


def flip_runs(strip: Sequence[Outcome | None]) -> list[int]:
    """The runs (places in ``strip``) at which the sample turned from good to bad or back
    since the last run in which it had an outcome; runs without one flip nothing."""
    flips, last = [], None
    for index, now in enumerate(map(good, strip)):
        if now is None:
            continue
        if last is not None and now != last:
            flips.append(index)
        last = now
    return flips


@dataclass(frozen=True)
class Flipped:
    """A sample that flipped: its outcome per run and the runs at which it flipped."""

    nodeid: str
    strip: list[Outcome | None]
    flips: list[int]


def flipped(strips: Mapping[str, Sequence[Outcome | None]]) -> list[Flipped]:
    """The samples that flipped at least once, the most flips first; ties: the most recent
    flip first, then by node id."""
    every = (Flipped(nodeid, list(strip), flip_runs(strip)) for nodeid, strip in strips.items())
    return sorted((f for f in every if f.flips),
                  key=lambda f: (-len(f.flips), -f.flips[-1], f.nodeid))


def baseline_changed(before: BenchmarkSummary, after: BenchmarkSummary) -> bool:
    """Whether ``after``'s run was held against another baseline than ``before``'s (the run
    before it): by the files' digests when both are known, else when the path changed or
    ``before`` wrote a new baseline."""
    if before.baseline_digest is not None and after.baseline_digest is not None:
        return before.baseline_digest != after.baseline_digest
    return before.against != after.against or before.baseline_status == "written"


def gate_row(summary: BenchmarkSummary | None, metric: str) -> GateRow | None:
    """The gate's row for ``metric`` in a run, if it gated it."""
    rows = summary.gate.rows if summary is not None and summary.gate is not None else []
    return next((row for row in rows if row.metric == metric), None)


def value_of(summary: BenchmarkSummary | None, metric: str) -> float | None:
    """The metric's value in a run; None when the run did not measure it."""
    found = summary.metrics.get(metric) if summary is not None else None
    return found.value if found is not None else None
