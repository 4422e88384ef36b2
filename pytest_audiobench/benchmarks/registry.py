"""The benchmarks by name."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import Benchmark


def get(name: str) -> Benchmark:
    """The benchmark called ``name``; names are checked when options are read."""
    if name == "mmar":
        from pytest_audiobench.benchmarks.mmar.benchmark import Mmar

        return Mmar()
    from pytest_audiobench.benchmarks.air_bench_chat.benchmark import AirBenchChat

    return AirBenchChat()
