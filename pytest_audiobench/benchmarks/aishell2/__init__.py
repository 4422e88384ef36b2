"""AISHELL-2: Mandarin speech recorded on three devices, character error rate on each
device's test set (5,000 utterances each). Licensed on application: read from a local folder
only.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Aishell2``. Its tasks are the devices, each scored on its own.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.aishell2.facts import DEVICES, NAME
from pytest_audiobench.benchmarks.aishell2.options import Aishell2Options
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(DEVICES),
    benchmark="pytest_audiobench.benchmarks.aishell2.benchmark:Aishell2",
    options=Aishell2Options,
    layout="the AISHELL-DEV-TEST-SET folder of the release's evaluation zip (or the folder "
           "holding it), with <iOS|Android|Mic>/test/wav.scp, trans.txt and wav/",
)

__all__ = ["DEVICES", "NAME", "SPEC"]
