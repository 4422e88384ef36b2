"""AIR-Bench Chat: open questions about speech, sound and music, graded by an LLM judge.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.AirBenchChat``.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.air_bench_chat.facts import NAME, TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.options import ChatOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(TASK_CATEGORY),
    benchmark="pytest_audiobench.benchmarks.air_bench_chat.benchmark:AirBenchChat",
    options=ChatOptions,
    sources=("modelscope",),
    needs_judge=True,
    default=True,
    layout="the folder holding Chat/Chat_meta.json",
)

__all__ = ["NAME", "SPEC", "TASK_CATEGORY"]
