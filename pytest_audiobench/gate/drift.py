"""The judge's drift, measured every run: today's judge grades again a share of the answers a
per-sample baseline holds, and the change of those scores from the ones the baseline
recorded is the judge's, not the model's (the answers are the same).

Which samples calibrate is decided here (``calibrates``: a fixed pseudo-random share, by the
sample's node id, so that every run and every process picks the same ones), and so is the
measure (``measure``): the benchmark's headline metric over those samples, the recorded
lines paired with the new ones, its interval at the run's confidence (two-sided), the
smallest drift the share detects with 80 % power, and whether the exact tests tell it from
chance either way (the paired gate's tests, at half the level on each side). It is
reported; the gate does not yet act on it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel

from pytest_audiobench.gate.paired import assess, paired
from pytest_audiobench.outcome.lines import Linear, SampleLine


def calibrates(nodeid: str, share: float) -> bool:
    """Whether ``nodeid`` is in the calibration share (``share`` of the samples, 0 to 1)."""
    digest = hashlib.sha256(f"calibration:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "big") < share * 2**64


class Drift(BaseModel):
    """Today's judge on the baseline's own answers, against the scores the baseline recorded."""

    metric: str
    asked: int
    """Baseline answers today's judge was asked to grade again."""
    n: int
    """Of them, those both gradings scored (the pairs the measure rests on)."""
    difference: float | None = None
    """Today's judge minus the recorded scores, over the ``n`` (None when ``n`` is 0)."""
    low: float | None = None
    high: float | None = None
    """Its interval at the run's confidence, two-sided; None when it cannot be had."""
    detectable: float | None = None
    """The smallest drift, either way, this many pairs find with 80 % power."""
    changed: bool = False
    """The exact tests tell the drift from chance, one way or the other: the judge changed."""


def measure(metric: str, linear: Linear, recorded: Mapping[str, SampleLine],
            today: Mapping[str, SampleLine], asked: int, confidence: float) -> Drift:
    """The drift of ``metric`` from the baseline's ``recorded`` lines to ``today``'s lines of
    the same answers (``asked`` of them were graded again)."""
    base = {k: recorded[k] for k in today if k in recorded}
    result, back = paired(linear, base, today), paired(linear, today, base)
    if result is None or back is None:
        return Drift(metric=metric, asked=asked, n=0)
    level = (1 - confidence) / 2
    harsher, lenient = assess(result, 0.0, level), assess(back, 0.0, level)
    return Drift(metric=metric, asked=asked, n=result.n, difference=result.difference,
                 low=harsher.low, high=harsher.high, detectable=harsher.detectable,
                 changed=harsher.regressed or lenient.regressed)


def judge_drift(headline: Sequence[str], linear: Callable[[str], Linear | None],
                recorded: Mapping[str, SampleLine], today: Mapping[str, SampleLine], asked: int,
                confidence: float) -> Drift:
    """The drift of the headline metric that pairs the most of the answers graded again (the
    overall one: AIR-Bench Chat's average), or of none when none pairs any."""
    found = [measure(metric, made, recorded, today, asked, confidence)
             for metric in headline if (made := linear(metric)) is not None]
    best = max(found, key=lambda drift: drift.n, default=None)
    return best if best is not None else Drift(metric="", asked=asked, n=0)
