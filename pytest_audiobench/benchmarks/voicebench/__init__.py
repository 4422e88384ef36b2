"""VoiceBench: spoken instructions to a voice assistant, nine leaderboard subsets, each scored
by its own evaluator (a judge's rating, a judge's Yes or No with PEDANT, multiple-choice
rules, IFEval's checker, bbh's rules, refusal strings).

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.VoiceBench``. Its tasks are the nine subsets.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.voicebench.facts import (
    CONVERTED,
    HUB_REPO,
    JUDGED,
    NAME,
    SUBSETS,
)
from pytest_audiobench.benchmarks.voicebench.options import VoiceBenchOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(SUBSETS),
    benchmark="pytest_audiobench.benchmarks.voicebench.benchmark:VoiceBench",
    options=VoiceBenchOptions,
    sources=("huggingface",),
    needs_judge=True,
    judged_tasks=tuple(JUDGED),
    layout=f"a snapshot of the hub repo {HUB_REPO} (a folder of parquet files per subset), "
           f"or a folder holding <subset>/{CONVERTED} and <subset>/audio/",
)

__all__ = ["NAME", "SPEC"]
