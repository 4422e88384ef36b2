"""pytest-audiobench: AIR-Bench Chat and MMAR as a pytest release gate for audio-language models."""

from __future__ import annotations

from pytest_audiobench.errors import (
    AudiobenchError,
    AudioError,
    BaselineError,
    DataError,
    EmptyAudio,
    EndpointError,
    JudgeError,
)

__version__ = "0.1.0"

__all__ = [
    "AudioError",
    "AudiobenchError",
    "BaselineError",
    "DataError",
    "EmptyAudio",
    "EndpointError",
    "JudgeError",
    "__version__",
]
