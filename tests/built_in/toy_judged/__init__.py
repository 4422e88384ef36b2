"""A toy judged benchmark as a built-in one: a question about a clip, the answer judged
against the reference (yes or no). This module is its spec; the benchmark, its judge request
and the offline judge's reply to it are ``benchmark.py``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, BenchmarkSpec, Flag

if TYPE_CHECKING:
    from .benchmark import ToyJudgedSettings

NAME = "toy_judged"
TASKS = ("colours", "numbers")
LAYOUT = "the folder holding toy_judged.json"


class ToyJudgedOptions(BenchmarkOptions):
    toy_judged_attempts: Annotated[int, Flag(
        "toy_judged judge calls for one answer, until a reply reads yes or no",
        convert.positive_int, "N")] = 2

    def settings(self) -> ToyJudgedSettings:
        from .benchmark import ToyJudgedSettings  # the spec stays cheap to import

        return ToyJudgedSettings(attempts=self.toy_judged_attempts)


SPEC = BenchmarkSpec(name=NAME, tasks=TASKS, options=ToyJudgedOptions, needs_judge=True,
                     benchmark="pytest_audiobench.benchmarks.toy_judged.benchmark:ToyJudged",
                     layout=LAYOUT)

__all__ = ["NAME", "SPEC"]
