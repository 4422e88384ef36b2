"""AIR-Bench Foundation's own options: which matcher decides correctness."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from pytest_audiobench import BenchmarkOptions, Flag, convert
from pytest_audiobench.benchmarks.air_bench_foundation.facts import MATCHERS, Matcher

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.air_bench_foundation.benchmark import FoundationSettings


class FoundationOptions(BenchmarkOptions):
    foundation_matcher: Annotated[Matcher, Flag(
        "AIR-Bench Foundation matcher that decides correctness: official (the align judge "
        "names the chosen option, the official scorer reads its letter; needs a judge) or "
        "strict (no judge: the reply names exactly one option); both are reported",
        convert.choice(MATCHERS), "NAME")] = "official"

    def settings(self) -> FoundationSettings:
        from pytest_audiobench.benchmarks.air_bench_foundation.benchmark import (
            FoundationSettings,
        )

        return FoundationSettings(matcher=self.foundation_matcher)
