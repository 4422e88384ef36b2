"""MMSU: spoken-language understanding and reasoning, multiple choice over lettered options.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Mmsu``. Its tasks are the release's 47 task names, read from the data.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.mmsu.facts import NAME
from pytest_audiobench.benchmarks.mmsu.options import MmsuOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=(),
    benchmark="pytest_audiobench.benchmarks.mmsu.benchmark:Mmsu",
    options=MmsuOptions,
    sources=("huggingface",),
    layout="a snapshot of the hub repo ddwang2000/MMSU (its parquet files), or the folder "
           "holding mmsu.jsonl and audio/ that the plugin converts it into",
)

__all__ = ["NAME", "SPEC"]
