"""The pipelines a transcript goes through before its words are compared, the same for the
reference and the model's answer (facts in PROTOCOLS.md, "Speech recognition").

``reference`` is the one the audio-model reports share (Qwen2-Audio's evaluation,
Kimi-Audio-Evalkit, lmms-eval): special ``<|...|>`` tags removed, Whisper's English text
normaliser, then its basic normaliser, tokens made only of punctuation dropped, lower case.
``english`` is Whisper's English normaliser alone, as the Whisper paper and evalscope use it.
The normalisers are whisper-normalizer 0.1.1's, which equal openai-whisper's own (a test holds
it); from 0.1.2 on that package rewrites "cause" to "because", and is not equal."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal, get_args

from whisper_normalizer.basic import BasicTextNormalizer
from whisper_normalizer.english import EnglishTextNormalizer

Pipeline = Literal["reference", "english"]
PIPELINES: tuple[Pipeline, ...] = get_args(Pipeline)

_TAG = re.compile(r"<\|.*?\|>")


@functools.cache
def _english() -> EnglishTextNormalizer:
    return EnglishTextNormalizer()  # reads its spelling map once


@functools.cache
def _basic() -> BasicTextNormalizer:
    return BasicTextNormalizer()


def words(text: str, pipeline: Pipeline = "reference") -> list[str]:
    """``text``'s words as ``pipeline`` makes them."""
    if pipeline == "english":
        return str(_english()(text)).split()
    untagged = " ".join(_TAG.sub(" ", text).split())
    return [word.lower() for word in str(_basic()(_english()(untagged))).split()
            if not _punctuation_only(word)]


def _punctuation_only(word: str) -> bool:
    return all(unicodedata.category(char).startswith("P") for char in word)
