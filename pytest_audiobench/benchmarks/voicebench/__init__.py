"""VoiceBench: spoken instructions to a voice assistant, nine subsets scored as its
leaderboard scores them.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.VoiceBench``. Its tasks are the leaderboard's nine subsets.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.voicebench.facts import CONVERTED, HUB_REPO, NAME, SUBSETS
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(SUBSETS),
    benchmark="pytest_audiobench.benchmarks.voicebench.benchmark:VoiceBench",
    sources=("huggingface",),
    needs_judge=True,
    layout=f"a snapshot of the hub repo {HUB_REPO} (a folder of parquet files per subset), or "
           f"a folder holding <subset>/{CONVERTED} and <subset>/audio/ for each subset chosen",
)

__all__ = ["NAME", "SPEC"]
