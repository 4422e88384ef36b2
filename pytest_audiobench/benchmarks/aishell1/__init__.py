"""AISHELL-1: Mandarin read speech, character error rate on its test split (7,176 utterances
of 20 speakers).

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Aishell1``. Its one task is the test split.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.aishell1.facts import NAME, SPLIT
from pytest_audiobench.benchmarks.aishell1.options import Aishell1Options
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=(SPLIT,),
    benchmark="pytest_audiobench.benchmarks.aishell1.benchmark:Aishell1",
    options=Aishell1Options,
    sources=("huggingface",),
    layout="the data_aishell folder openslr's data_aishell.tgz extracts to (or the folder "
           "holding it), with transcript/aishell_transcript_v0.8.txt and the test speakers "
           "in wav/test/<speaker>/ or still packed as wav/<speaker>.tar.gz",
)

__all__ = ["NAME", "SPEC", "SPLIT"]
