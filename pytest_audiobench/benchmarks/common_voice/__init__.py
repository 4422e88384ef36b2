"""Common Voice 15: sentences read by volunteers, the test splits of the four locales the
reports score (``en``, ``zh-CN``, ``yue``, ``fr``; ``--audiobench-common-voice-locale`` picks
some), each a task scored on its own: word error rate, character error rate for Chinese and
Cantonese.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.CommonVoice``. Its tasks are the locales it scores.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.common_voice.facts import LOCALES, NAME
from pytest_audiobench.benchmarks.common_voice.options import CommonVoiceOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=LOCALES,
    benchmark="pytest_audiobench.benchmarks.common_voice.benchmark:CommonVoice",
    options=CommonVoiceOptions,
    sources=("huggingface",),
    layout="Mozilla's cv-corpus-15.0-2023-09-08 folder (or its parent) with <locale>/test.tsv "
           "and <locale>/clips/, or a snapshot of the hub copy lmms-lab/common_voice_15",
)

__all__ = ["LOCALES", "NAME", "SPEC"]
