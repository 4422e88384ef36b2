"""What grading one AIR-Bench Foundation answer gives: the option each matcher read, and
whether the deciding one found it right."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench import Completion, Usage, Verdict
from pytest_audiobench.benchmarks.air_bench_foundation.facts import Matcher


class Alignment(BaseModel):
    """The official align step on one reply: the judge's reply and the letter read from it
    (None: the scorer's failure, left out of the official count)."""

    reply: Completion
    letter: str | None


class FoundationVerdict(Verdict):
    """One answer's grading by both matchers; ``matcher`` decides."""

    kind: Literal["air_bench_foundation"] = "air_bench_foundation"
    matcher: Matcher
    answer: str
    """The correct option's letter."""
    strict: str | None
    """The letter the strict matcher read from the model's reply; None: unanswered."""
    strict_reason: str
    align: Alignment | None = None
    """The official align step; None without a judge (the official numbers need one)."""

    @property
    def official(self) -> str | None:
        return self.align.letter if self.align is not None else None

    @property
    def official_counted(self) -> bool:
        """Whether the official scorer counts it: aligned to a letter (its failures are left
        out of the denominator)."""
        return self.align is not None and self.align.letter is not None

    @property
    def correct(self) -> bool:
        """Right by the deciding matcher (an official failure is not right)."""
        chosen = self.official if self.matcher == "official" else self.strict
        return chosen == self.answer

    @property
    def judge_usage(self) -> Usage:
        return self.align.reply.usage if self.align is not None else Usage()

    @property
    def judge_sent_usage(self) -> Usage:
        reply = self.align.reply if self.align is not None else None
        return reply.usage if reply is not None and not reply.cached else Usage()

    @property
    def judge_calls(self) -> int:
        return 0 if self.align is None else self.align.reply.attempts

    @property
    def judge_cached(self) -> int:
        return int(self.align is not None and self.align.reply.cached)

    @property
    def judge_failures(self) -> int:
        return int(self.align is not None and self.align.letter is None)


def foundation_verdicts(verdicts: Sequence[object]) -> list[FoundationVerdict]:
    """The Foundation verdicts among a record's verdicts."""
    return [v for v in verdicts if isinstance(v, FoundationVerdict)]
