"""Which paired metrics a run gates, and at which level (pure): the family-wise promise.

An unchanged model fails the gate in at most ``1 - confidence`` of runs, all gated metrics
together: each of the ``m`` gated metrics is tested at ``(1 - confidence) / m`` (Bonferroni),
and each test keeps its level at any n (``paired.py``). A metric is gated when it has at
least its minimum n of samples both runs scored (``MIN_N``, or ``min_n`` in the baseline
file) and some outcome in its range could reject at all; the others are reported, not gated
(``--audiobench-gate-small`` gates them too). Both rules read n and the baseline only, never
the new run's scores, so choosing the family cannot favour a status.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

from pytest_audiobench.gate.paired import Assessed, Paired, assess

MIN_N = 10
"""The samples both runs scored from which a metric is gated, unless its baseline entry sets
``min_n``: fewer can detect only drops close to the whole range, and would take a share of
the family's level from the metrics that can."""

Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A metric the paired gate can test: its paired result, margin and minimum n."""

    paired: Paired
    margin: float
    min_n: int = MIN_N


def plan(candidates: Mapping[Key, Candidate], confidence: float,
         gate_small: bool = False) -> dict[Key, Assessed]:
    """Every candidate tested at the level the gated ones share; those not gated are tested
    at it too, for the report."""
    alpha = 1.0 - confidence
    sized = [key for key, c in candidates.items() if gate_small or c.paired.n >= c.min_n]
    # Whether a metric can reject is asked at the strictest level the family could give it.
    # Those that cannot are dropped and the rest share alpha: the level only grows, so each
    # metric kept can still reject, and a metric that never could takes no share.
    first = alpha / max(1, len(sized))
    gated = {key for key in sized
             if gate_small or candidates[key].paired.detects_at_all(first, candidates[key].margin)}
    level = alpha / max(1, len(gated))
    return {key: assess(c.paired, c.margin, level, key in gated)
            for key, c in candidates.items()}
