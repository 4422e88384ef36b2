"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Mmar``. Its tasks are the seven modalities.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.mmar.options import MmarOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

NAME = "mmar"
REASONING_LIMIT = 10_000
"""The challenge's limit on a submission's reasoning (thinking_prediction), in characters."""

# In the official evaluation.py's order, which is also the order it prints them in.
MODALITY_COUNTS: dict[str, int] = {
    "sound": 165,
    "music": 206,
    "speech": 294,
    "mix-sound-music": 11,
    "mix-sound-speech": 218,
    "mix-music-speech": 82,
    "mix-sound-music-speech": 24,
}
MODALITIES: tuple[str, ...] = tuple(MODALITY_COUNTS)

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=MODALITIES,
    benchmark="pytest_audiobench.benchmarks.mmar.benchmark:Mmar",
    options=MmarOptions,
    sources=("huggingface",),
    layout="the folder holding MMAR-meta.jsonl and audio/",
)
