"""MMAR's fixed facts: its name, its modalities with their item counts, the reasoning limit.
A leaf: the package's spec and every module of the benchmark read them from here."""

from __future__ import annotations

NAME = "mmar"
REASONING_LIMIT = 10_000
"""The challenge's limit on a submission's reasoning (thinking_prediction), in characters."""

# In the official evaluation.py's order, which is also the order it prints them in.
MODALITY_COUNTS: dict[str, int] = {
    "sound": 165,
    "music": 206,
    "speech": 294,
    "mix-sound-music": 11,
    "mix-sound-speech": 218,
    "mix-music-speech": 82,
    "mix-sound-music-speech": 24,
}
MODALITIES: tuple[str, ...] = tuple(MODALITY_COUNTS)
