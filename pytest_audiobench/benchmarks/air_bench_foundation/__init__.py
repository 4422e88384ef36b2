"""AIR-Bench Foundation: 19 tasks of single-choice questions over speech, sound and music, in
25 source folders, scored as the official scripts score them (an align judge, then the
scorer's letter rules) and by a strict matcher that needs no judge.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Foundation``. Its pytest tasks are the 25 folders, ``<task_name>_<dataset_name>``.
It is written against the package root alone, as a third party's benchmark would be.
"""

from __future__ import annotations

from pytest_audiobench import BenchmarkSpec
from pytest_audiobench.benchmarks.air_bench_foundation.facts import FOLDERS, NAME
from pytest_audiobench.benchmarks.air_bench_foundation.options import FoundationOptions

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=FOLDERS,
    benchmark="pytest_audiobench.benchmarks.air_bench_foundation.benchmark:Foundation",
    options=FoundationOptions,
    sources=("modelscope",),
    layout="the AIR-Bench release root, the folder holding Foundation/Foundation_meta.json",
)

__all__ = ["FOLDERS", "NAME", "SPEC"]
