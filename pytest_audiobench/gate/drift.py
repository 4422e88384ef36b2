"""The judge's drift, measured every run: today's judge grades again a share of the answers a
per-sample baseline holds, and the change of those scores from the ones the baseline
recorded is the judge's, not the model's (the answers are the same).

Which samples calibrate is decided here (``calibrating``: a fixed pseudo-random share of the
baseline's samples, by node id, the same in every run and process), and so is the measure
(``measure``): a metric the judge decides over those samples, the recorded lines paired with
the new ones, its interval at the run's confidence (two-sided), the smallest drift the share
detects with 80 % power, and whether the exact tests tell it from chance either way (the
paired gate's tests, at half the level on each side).

What the gate holds a run against is decided here too (``judge_comparison``): the scores the
baseline recorded, or, when the judge is not the baseline's (``JudgeIdentity``) or drifted
beyond its noise, or when asked, every baseline answer judged again by today's judge, so that
the judge's change cancels in each sample's difference. ``run/calibration.py`` asks the
calibration share before the items, so that every item and the gate hold against the same
scores.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel

from pytest_audiobench.config.names import Rejudge
from pytest_audiobench.gate.paired import assess, paired
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.outcome.numbers import fixed, signed
from pytest_audiobench.transport.types import JudgeIdentity, Traffic

if TYPE_CHECKING:
    from pytest_audiobench.config.settings import Settings


def calibrating(nodeids: Iterable[str], share: float) -> frozenset[str]:
    """The calibration share of ``nodeids`` (a baseline's samples): the ``floor(share x n)``
    of them first in a fixed pseudo-random order, so that every run and process picks the
    same ones, a larger share holds a smaller one's, and the share costs no more than said."""
    ids = list(nodeids)
    ranked = sorted(ids, key=lambda nodeid: hashlib.sha256(
        f"calibration:{nodeid}".encode()).digest())
    return frozenset(ranked[:math.floor(share * len(ids))])


class Drift(BaseModel):
    """Today's judge on the baseline's own answers, against the scores the baseline recorded."""

    metric: str
    asked: int
    """Baseline answers today's judge was asked to grade again."""
    graded: int = 0
    """Of them, those it scored."""
    n: int
    """Of those, the ones in the metric's groups that both gradings scored (the pairs the
    measure rests on)."""
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
    # Both ways: the gate's tests are one-sided (a drop), and a judge may turn lenient as well as
    # harsh; with the sides swapped, the same tests look for a rise.
    result, back = paired(linear, base, today), paired(linear, today, base)
    if result is None or back is None:
        return Drift(metric=metric, asked=asked, graded=len(today), n=0)
    # Half on each side, so the two one-sided tests together keep the run's level.
    level = (1 - confidence) / 2
    # No margin: any change of the judge told from chance is one the gate must not pair through.
    harsher, lenient = assess(result, 0.0, level), assess(back, 0.0, level)
    return Drift(metric=metric, asked=asked, graded=len(today), n=result.n,
                 difference=result.difference,
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
    return best if best is not None else Drift(metric="", asked=asked, graded=len(today), n=0)


class JudgeComparison(BaseModel):
    """What the gate holds this run's scores against, and why: the scores the baseline
    recorded, or (``rejudged``) its answers judged again by today's judge in this run."""

    rejudged: bool
    why: str
    baseline_model: str | None = None
    """Head to head: the live baseline model ("NAME at URL") whose answers, judged in this
    run, the gate pairs against."""
    noise: float | None = None
    """Head to head: the judge's noise, measured before the items on both models' draws of
    the calibration share (no file holds it); None when it could not be (one draw each)."""

    def line(self) -> str:
        """The summary's line."""
        against = ("every baseline answer judged again by today's judge" if self.rejudged
                   else "the scores the baseline recorded")
        if self.baseline_model is not None:
            against = f"{self.baseline_model}, its answers judged by the same judge in this run"
        return f"judge: the gate pairs this run against {against}: {self.why}"


def judge_identity(settings: Settings, prompt: str | None,
                   traffic: Traffic | None = None) -> JudgeIdentity | None:
    """Today's judge of a benchmark whose judge prompt hashes to ``prompt``
    (``JudgeUse.prompt_sha256``), as a baseline keeps it, with the model ids its replies in
    ``traffic`` named; None without a sampled judge (an offline one, or none)."""
    judge = settings.judge
    if judge is None or judge.offline:
        return None
    endpoint = judge.endpoint
    served = [] if traffic is None else traffic.served_by(endpoint.model, endpoint.url)
    return JudgeIdentity(url=endpoint.url, model=endpoint.model,
                         sampling=endpoint.sampling.model_dump(mode="json", exclude_none=True),
                         extra_body=endpoint.extra_body, prompt=prompt, served=served)


def other_judge(then_model: str | None, then: JudgeIdentity | None,
                today_model: str | None, today: JudgeIdentity | None) -> str | None:
    """How the judge that scored a baseline (or an earlier report) is not today's, in words;
    None when nothing known says so. The one rule the gate, the drift measure and
    ``audiobench-compare`` hold: the whole identities when both sides kept one (endpoint, model
    id, sampling, extra body, prompt, the ids its replies named), else the model ids."""
    if then is not None and today is not None:
        return today.differs_from(then)
    if then_model != today_model:
        return f"model {then_model} (today: {today_model})"
    return None


def judge_comparison(mode: Rejudge, then: JudgeIdentity | None, today: JudgeIdentity | None,
            drift: Drift | None = None) -> JudgeComparison:
    """What the gate holds against, by --audiobench-rejudge-baseline ``mode``, the baseline's
    judge (``then``, None when the file names none), today's, and the drift measured."""
    if mode == "always":
        return JudgeComparison(rejudged=True, why="--audiobench-rejudge-baseline always")
    if mode == "never":
        return JudgeComparison(rejudged=False, why="--audiobench-rejudge-baseline never")
    other = None if then is None or today is None else other_judge(
        then.model, then, today.model, today)
    if other:
        return JudgeComparison(rejudged=True, why=f"the judge is not the baseline's: {other}")
    if drift is not None and drift.changed and drift.difference is not None:
        return JudgeComparison(rejudged=True, why=(
            f"the judge drifted beyond its noise ({signed(drift.difference)} on {drift.metric}, "
            f"{drift.n} of the baseline's answers graded again)"))
    return JudgeComparison(rejudged=False, why=_steady(then, drift))


def _steady(then: JudgeIdentity | None, drift: Drift | None) -> str:
    """Why the recorded scores serve: nothing measured says the judge changed."""
    named = "the judge is the baseline's" if then is not None else (
        "the baseline names no judge identity (written before they were kept)")
    if drift is None or drift.difference is None:
        return f"{named}; no baseline answer was graded again to measure its drift"
    told = f", which would show a drift of {fixed(drift.detectable)}" if drift.detectable else ""
    return (f"{named} and did not drift beyond its noise ({signed(drift.difference)} on "
            f"{drift.n} of the baseline's answers{told})")
