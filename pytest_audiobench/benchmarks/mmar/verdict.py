"""What grading one MMAR answer gives."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pytest_audiobench.benchmarks.matching import MatchDecision
from pytest_audiobench.benchmarks.mmar.rubrics import RubricVerdict
from pytest_audiobench.outcome.records import Verdict
from pytest_audiobench.transport.types import Usage


class MmarVerdict(Verdict):
    """One answer's grading: what was extracted, both matchers' decisions, the rubric."""

    kind: Literal["mmar"] = "mmar"
    matcher: Literal["official", "strict"]
    reasoning: str
    prediction: str
    """The final answer taken from the reply (the whole reply when it has no answer line)."""
    official: MatchDecision
    strict: MatchDecision
    rubric: RubricVerdict | None = None
    """None without a judge or without rubrics in the release."""

    @property
    def correct(self) -> bool:
        return (self.official if self.matcher == "official" else self.strict).correct

    @property
    def judge_failures(self) -> int:
        return int(self.rubric is not None and self.rubric.score is None)

    @property
    def judge_usage(self) -> Usage:
        raters = self.rubric.raters if self.rubric else []
        return sum((r.usage for r in raters), Usage())

    @property
    def judge_sent_usage(self) -> Usage:
        raters = self.rubric.raters if self.rubric else []
        return sum((r.sent_usage for r in raters), Usage())

    @property
    def judge_calls(self) -> int:
        return sum(len(r.outputs) for r in (self.rubric.raters if self.rubric else []))

    @property
    def judge_cached(self) -> int:
        return sum(r.cached for r in (self.rubric.raters if self.rubric else []))


def mmar_verdicts(verdicts: Sequence[object]) -> list[MmarVerdict]:
    """The MMAR verdicts among a record's verdicts."""
    return [v for v in verdicts if isinstance(v, MmarVerdict)]
