"""What grading one AIR-Bench Foundation answer gives: the option each matcher read, and
whether the deciding one found it right."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench import ChoiceGrade, Completion, Detail, Usage
from pytest_audiobench.benchmarks.air_bench_foundation.facts import LETTERS, Matcher


class Alignment(BaseModel):
    """The official align step on one reply: the judge's reply and the letter read from it
    (None: the scorer's failure, left out of the official count)."""

    reply: Completion
    letter: str | None


class FoundationGrade(ChoiceGrade):
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
    def decisions(self) -> dict[str, bool | None]:
        # The official scorer's failure (no letter read) is left out of its count.
        decisions: dict[str, bool | None] = {"strict": self.strict == self.answer}
        if self.align is not None:
            decisions["official"] = None if self.official is None else \
                self.official == self.answer
        return decisions

    def chosen(self, choices: Sequence[str]) -> int | None:
        letter = self.official if self.matcher == "official" else self.strict
        return None if letter is None else LETTERS.index(letter)

    def counts(self) -> dict[str, int]:
        return {"strict.unanswered": int(self.strict is None)}

    def readings(self) -> list[Detail]:
        lines = [Detail(label="strict", text=f"{self.strict or 'none'} ({self.strict_reason})")]
        if self.align is None:
            return [*lines, Detail(label="official", text="not aligned (no judge)")]
        read = self.official or "none: the scorer's failure, left out of the count"
        return [*lines, Detail(label="official",
                               text=f"{read} (align judge replied {self.align.reply.text!r})")]

    @property
    def judge_reply(self) -> str | None:
        return self.align.reply.text if self.align is not None else None

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
