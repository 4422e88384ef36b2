"""Names known before any data is read: audio modes, built-in models and judges, data sources.

Kept free of heavy imports: the option converters use it in every pytest start.
"""

from __future__ import annotations

from typing import Literal

AudioMode = Literal["input_audio", "data-uri", "audio-url"]
AUDIO_MODES: tuple[AudioMode, ...] = ("input_audio", "data-uri", "audio-url")

BuiltinName = Literal["cascade", "random"]
BUILTIN_MODELS: tuple[BuiltinName, ...] = ("cascade", "random")
"""--audiobench-model names that run in this process instead of at --audiobench-api-url."""
OFFLINE_JUDGES: tuple[str, ...] = ("overlap",)
"""--audiobench-judge-model names that judge in this process, without a server."""
IN_PROCESS = "in-process"
"""The endpoint URL recorded for built-in models and offline judges."""

MINI = "mini"
"""The ``--audiobench-data`` value that selects the mini benchmark bundled in the package."""
