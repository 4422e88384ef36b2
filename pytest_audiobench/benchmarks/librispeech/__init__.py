"""LibriSpeech: read English audiobooks, word error rate on test-clean and test-other.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Librispeech``. Its tasks are the two test splits, never pooled.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.librispeech.facts import NAME, SPLITS
from pytest_audiobench.benchmarks.librispeech.options import LibrispeechOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(SPLITS),
    benchmark="pytest_audiobench.benchmarks.librispeech.benchmark:Librispeech",
    options=LibrispeechOptions,
    sources=("huggingface",),
    layout="the LibriSpeech folder openslr's test-clean and test-other tarballs extract to "
           "(or the folder holding it), with <split>/<speaker>/<chapter>/ inside",
)

__all__ = ["NAME", "SPEC", "SPLITS"]
