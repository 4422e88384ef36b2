"""FLEURS: sentences read aloud in 102 languages, the test split of each language a run
selects (``--audiobench-fleurs-language``) scored on its own: word error rate, character error
rate for Chinese and Cantonese.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Fleurs``. Its tasks are the languages it scores.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.fleurs.facts import LANGUAGES, NAME
from pytest_audiobench.benchmarks.fleurs.options import FleursOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=LANGUAGES,
    benchmark="pytest_audiobench.benchmarks.fleurs.benchmark:Fleurs",
    options=FleursOptions,
    sources=("huggingface",),
    layout="the folder holding <language>/test.tsv and <language>/audio/test/ (the hub "
           "repo's data/ folder, or its parent)",
)

__all__ = ["LANGUAGES", "NAME", "SPEC"]
