"""What grading one MMAR answer gives."""

from __future__ import annotations

from typing import Literal

from pytest_audiobench.benchmarks.choice.base import MatchedGrade
from pytest_audiobench.benchmarks.mmar.rubrics import RubricGrade, rubric_lines
from pytest_audiobench.outcome.view import Detail
from pytest_audiobench.transport.types import Usage


class MmarGrade(MatchedGrade):
    """One answer's grading: what was extracted, both matchers' decisions, the rubric."""

    kind: Literal["mmar"] = "mmar"
    matcher: Literal["official", "strict"]
    rubric: RubricGrade | None = None
    """None without a judge or without rubrics in the release."""

    def readings(self) -> list[Detail]:
        rated = self.rubric is not None and self.rubric.raters
        return super().readings() + ([Detail(label="rubric",
                                             text="\n".join(rubric_lines(self.rubric)))]
                                     if rated and self.rubric is not None else [])

    @property
    def judge_failures(self) -> int:
        return int(self.rubric is not None and self.rubric.score is None)

    @property
    def unfinished(self) -> str | None:
        return self.rubric.reason if self.rubric is not None and self.rubric.not_graded \
            else None

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
