"""Big Bench Audio: spoken BIG-Bench Hard questions, answered from the audio alone and
judged CORRECT or INCORRECT against the official answer by an LLM judge.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.BigBenchAudio``. Its tasks are the release's four categories.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.big_bench_audio.facts import (
    CATEGORIES,
    HUB_REPO,
    METADATA,
    NAME,
    TRANSCRIPTS,
)
from pytest_audiobench.benchmarks.big_bench_audio.options import BigBenchAudioOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=CATEGORIES,
    benchmark="pytest_audiobench.benchmarks.big_bench_audio.benchmark:BigBenchAudio",
    options=BigBenchAudioOptions,
    sources=("huggingface",),
    needs_judge=True,
    layout=f"a snapshot of the hub repo {HUB_REPO} (its parquet files), or a folder holding "
           f"{METADATA} with each question's transcript (the original release's, with "
           f"{TRANSCRIPTS} beside it)",
)

__all__ = ["NAME", "SPEC"]
