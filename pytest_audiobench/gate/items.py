"""What a per-sample baseline makes of one item (pure): a regression when its score dropped by
more than the judge's noise explains; an expected failure when it is under its bar and did
not drop; an improvement when it was under the bar and now clears it. pytest then reports
them in its own words: failed, xfailed, XPASS."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pytest_audiobench.gate.paired import allowed_drop
from pytest_audiobench.outcome.lines import SampleLine

Kind = Literal["regressed", "expected", "improved"]


@dataclass(frozen=True)
class Change:
    """One item against its baseline line."""

    kind: Kind
    base: SampleLine
    new: SampleLine
    allowed: float
    """How far its score may fall by the judge's noise alone."""

    @property
    def reason(self) -> str:
        then, now = f"{self.base.score:g}", f"{self.new.score:g}"
        if self.kind == "expected" and self.base.failed:
            return f"under its bar as in the baseline: baseline {then}, now {now}"
        if self.kind == "expected":
            return (f"under its bar now, but within the judge's noise of the baseline "
                    f"({self.allowed:.2f}): baseline {then}, now {now}")
        if self.kind == "improved":
            return f"under its bar in the baseline ({then}), clears it now ({now})"
        drop = (f"score {then} in the baseline, {now} now: a drop of "
                f"{self.base.score - self.new.score:g}")
        if self.allowed > 0:
            return f"{drop}, more than the judge's noise explains ({self.allowed:.2f})"
        return f"{drop}; its grading does not vary between draws, so any drop is a change"


def change(base: SampleLine | None, new: SampleLine | None, fails_now: bool,
           noise: float | None, confidence: float) -> Change | None:
    """The item's change, or None when it simply passes (or has no line on one side, or its
    judge's noise is unknown, and today's bar applies)."""
    if base is None or new is None:
        return None
    allowed = allowed_drop(base, new, noise, confidence)
    if allowed is None:
        return None
    if base.score - new.score > allowed and new.score < base.score:
        return Change("regressed", base, new, allowed)
    if fails_now:
        return Change("expected", base, new, allowed)
    if base.failed:
        return Change("improved", base, new, allowed)
    return None
