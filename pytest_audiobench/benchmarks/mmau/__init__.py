"""MMAU: audio understanding and reasoning, multiple choice over speech, sound and music.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Mmau``. Its tasks are MMAU's three: sound, music and speech.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.mmau.facts import NAME, RELEASE, TASKS
from pytest_audiobench.benchmarks.mmau.options import MmauOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=TASKS,
    benchmark="pytest_audiobench.benchmarks.mmau.benchmark:Mmau",
    options=MmauOptions,
    sources=("huggingface",),
    layout="the MMAU release root, holding mmau-test-mini.json (or mmau-test.json) and the "
           "audio its records name",
)

__all__ = ["NAME", "RELEASE", "SPEC", "TASKS"]
