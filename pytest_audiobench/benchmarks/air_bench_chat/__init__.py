"""AIR-Bench Chat: open questions about speech, sound and music, graded by an LLM judge.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.AirBenchChat``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pytest_audiobench.benchmarks.air_bench_chat.options import ChatOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

NAME = "air_bench_chat"
TASK_CATEGORY: Mapping[str, str] = {
    "speech_QA": "speech",
    "speech_dialogue_QA": "speech",
    "sound_QA": "sound",
    "sound_generation_QA": "sound",
    "music_QA": "music",
    "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}
"""Every task and the leaderboard category it counts in."""

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(TASK_CATEGORY),
    benchmark="pytest_audiobench.benchmarks.air_bench_chat.benchmark:AirBenchChat",
    options=ChatOptions,
    sources=("modelscope",),
    needs_judge=True,
    default=True,
    layout="the folder holding Chat/Chat_meta.json",
)
