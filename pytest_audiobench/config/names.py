"""Names known before any data is read: benchmarks, their tasks, audio modes.

Kept free of heavy imports: the option converters use it in every pytest start.
"""

from __future__ import annotations

from typing import Literal

AudioMode = Literal["input_audio", "data-uri", "audio-url"]
AUDIO_MODES: tuple[AudioMode, ...] = ("input_audio", "data-uri", "audio-url")

#: Task names per benchmark, known before any data is read so that flags can be checked.
BENCHMARK_TASKS: dict[str, tuple[str, ...]] = {
    "air_bench_chat": (
        "speech_QA",
        "speech_dialogue_QA",
        "sound_QA",
        "sound_generation_QA",
        "music_QA",
        "music_generation_analysis_QA",
        "speech_and_sound_QA",
        "speech_and_music_QA",
    ),
    # MMAR's items are grouped by modality.
    "mmar": (
        "speech",
        "mix-sound-speech",
        "music",
        "sound",
        "mix-music-speech",
        "mix-sound-music-speech",
        "mix-sound-music",
    ),
}

BuiltinName = Literal["cascade", "random"]
BUILTIN_MODELS: tuple[BuiltinName, ...] = ("cascade", "random")
"""--audiobench-model names that run in this process instead of at --audiobench-api-url."""
OFFLINE_JUDGES: tuple[str, ...] = ("overlap",)
"""--audiobench-judge-model names that judge in this process, without a server."""
IN_PROCESS = "in-process"
"""The endpoint URL recorded for built-in models and offline judges."""

Matcher = Literal["official", "strict"]
MATCHERS: tuple[Matcher, ...] = ("official", "strict")
MmarPrompt = Literal["default", "reasoning"]
MMAR_PROMPTS: tuple[MmarPrompt, ...] = ("default", "reasoning")
MINI = "mini"
"""The ``--audiobench-data`` value that selects the mini benchmark bundled in the package."""
