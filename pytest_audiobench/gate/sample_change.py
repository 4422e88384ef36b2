"""What a per-sample baseline makes of one item (pure): a regression when its score dropped by
more than the judge's noise explains; an expected failure when it is under its bar and did
not drop; an improvement when it was under the bar and now clears it. pytest then reports
them in its own words: failed, xfailed, XPASS."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pytest_audiobench.gate.paired import allowed_drop
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.outcome.records import ItemChange

Kind = Literal["regressed", "xfailed", "xpassed"]
"""Named as pytest reports each item, everywhere: failed (regressed), xfailed, xpassed."""

SUGGESTS = 0.90
"""The one-sided level at which a sample's draws suggest a drop worth fresh draws: an
unchanged sample's first draws do so about one time in ten (docs/statistics.md)."""

Draw = Callable[[int], tuple[list[float], list[float]] | None]
"""Fresh draws of round ``r`` (1, 2, ...): the baseline answer's and the new answer's
scores, or None when none could be had."""


@dataclass(frozen=True)
class ItemDecision:
    """What becomes of one item: its change (None: it passes) and why."""

    kind: ItemChange | None
    reason: str | None = None

    @property
    def fails(self) -> bool:
        """The item fails its test (pytest's failed): a regression, or below the bar."""
        return self.kind in ("regressed", "below the bar")

    @property
    def expected(self) -> bool:
        """The item is marked xfail before its call (pytest's xfailed or xpassed)."""
        return self.kind in ("xfailed", "xpassed")


def item_decision(found: Change | None, shortfall: str | None,
                  writing: bool) -> ItemDecision:
    """The one place that decides what becomes of an item: its change against its baseline
    line when it has one (``change``), else its bar (``shortfall``: how the benchmark says it
    falls short, None when it clears it); a run that writes the baseline (``writing``) records
    a sample under its bar as such, an xfail, not a failure."""
    if found is not None:
        return ItemDecision(found.kind, found.reason)
    if shortfall is None:
        return ItemDecision(None)
    first = shortfall.splitlines()[0]
    if writing:
        return ItemDecision("xfailed", "under its bar, recorded so in the baseline this run "
                                       f"writes: {first}")
    return ItemDecision("below the bar", first)


def unpaired(why: str) -> ItemDecision:
    """An item whose baseline answer could not be graded again, ``why``: it cannot be held."""
    return ItemDecision("unpaired", why)


@dataclass(frozen=True)
class Confirming:
    """How an item's suggested drop is confirmed: up to ``rounds`` rounds of ``draw``."""

    rounds: int
    draw: Draw


@dataclass(frozen=True)
class Change:
    """One item against its baseline line."""

    kind: Kind
    base: SampleLine
    new: SampleLine
    allowed: float
    """How far its score may fall by the judge's noise alone."""
    rounds: int = 0
    """Rounds of fresh draws that confirmed it (their scores are in the lines' draws)."""

    @property
    def reason(self) -> str:
        then, now = f"{self.base.score:g}", f"{self.new.score:g}"
        if self.kind == "xfailed" and self.base.failed:
            return f"under its bar as in the baseline: baseline {then}, now {now}"
        if self.kind == "xfailed":
            return (f"under its bar now, but within the judge's noise of the baseline "
                    f"({fixed(self.allowed)}): baseline {then}, now {now}")
        if self.kind == "xpassed":
            return f"under its bar in the baseline ({then}), clears it now ({now})"
        worse = "a rise" if self.new.lower_is_better else "a drop"
        drop = (f"score {then} in the baseline, {now} now: {worse} of "
                f"{abs(self.base.score - self.new.score):g}")
        confirmed = (f", over {len(self.new.draws)} draws with {self.rounds} fresh round(s)"
                     if self.rounds else "")
        if self.allowed > 0:
            return (f"{drop}, more than the judge's noise explains ({fixed(self.allowed)})"
                    f"{confirmed}")
        return (f"{drop}; its grading does not vary between draws, so any "
                f"{worse.removeprefix('a ')} is a change")


def change(base: SampleLine | None, new: SampleLine | None, fails_now: bool,
           noise: float | None, confidence: float,
           confirming: Confirming | None = None) -> Change | None:
    """The item's change, or None when it simply passes (or has no line on one side, or its
    judge's noise is unknown, and today's bar applies). With ``confirming``, a drop the first
    draws suggest is decided on fresh draws added to them first (``confirmed``)."""
    if base is None or new is None:
        return None
    allowed = allowed_drop(base, new, noise, confidence)
    if allowed is None:
        return None
    rounds = 0
    if confirming is not None:
        base, new, rounds = confirmed(base, new, noise, confidence, confirming)
        allowed = allowed_drop(base, new, noise, confidence) or 0.0
    # A drop beyond the noise fails the item even above its bar; under the bar without one it
    # is an expected failure, whose cause the baseline already had or the noise explains.
    if loss(base, new) > allowed and loss(base, new) > 0:
        return Change("regressed", base, new, allowed, rounds)
    if fails_now:
        return Change("xfailed", base, new, allowed)
    if base.failed:
        return Change("xpassed", base, new, allowed)
    return None


def loss(base: SampleLine, new: SampleLine) -> float:
    """How much worse the item's score is now: its drop, or its rise when lower is better
    (an utterance's word errors)."""
    worse = base.score - new.score
    return -worse if new.lower_is_better else worse


def suggests(base: SampleLine, new: SampleLine, noise: float | None) -> bool:
    """Whether the draws so far suggest a drop: beyond the noise at the one-sided ``SUGGESTS``
    level (a graded rule or a deterministic judge, whose draws never vary, suggests none)."""
    # allowed_drop takes a two-sided confidence: 2 x 0.90 - 1 = 0.80 puts its one side at 90 %.
    spread = allowed_drop(base, new, noise, 2 * SUGGESTS - 1)
    return bool(spread) and loss(base, new) > (spread or 0.0)


def confirmed(base: SampleLine, new: SampleLine, noise: float | None, confidence: float,
              confirming: Confirming) -> tuple[SampleLine, SampleLine, int]:
    """Both lines with fresh draws added, one round after the other, while they suggest a
    drop and (after the first round) do not yet show one beyond the item's level; and the
    rounds drawn. Stopping once the drop is shown or no longer suggested leaves an unchanged
    sample's chance of failing at about the item's level (measured in docs/statistics.md)."""
    for round_ in range(1, confirming.rounds + 1):
        allowed = allowed_drop(base, new, noise, confidence) or 0.0
        # Never shown before the first round: the first draws are what suggested the drop, and an
        # item chosen by its draws is decided on fresh ones added to them.
        shown = round_ > 1 and loss(base, new) > allowed
        drawn = None if shown or not suggests(base, new, noise) else confirming.draw(round_)
        if drawn is None:
            return base, new, round_ - 1
        base = base.model_copy(update={"draws": [*base.draws, *drawn[0]]})
        new = new.model_copy(update={"draws": [*new.draws, *drawn[1]]})
    return base, new, confirming.rounds
