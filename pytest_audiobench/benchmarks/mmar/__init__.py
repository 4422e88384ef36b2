"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Mmar``. Its tasks are the seven modalities.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.mmar.facts import (
    MODALITIES,
    MODALITY_COUNTS,
    NAME,
    REASONING_LIMIT,
)
from pytest_audiobench.benchmarks.mmar.options import MmarOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=MODALITIES,
    benchmark="pytest_audiobench.benchmarks.mmar.benchmark:Mmar",
    options=MmarOptions,
    sources=("huggingface",),
    layout="the folder holding MMAR-meta.jsonl and audio/",
)

__all__ = ["MODALITIES", "MODALITY_COUNTS", "NAME", "REASONING_LIMIT", "SPEC"]
