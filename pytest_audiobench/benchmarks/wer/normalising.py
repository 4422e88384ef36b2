"""The pipelines a transcript goes through before its words are compared, the same for the
reference and the model's answer (facts in PROTOCOLS.md, "Speech recognition").

``reference`` is the one the audio-model reports share (Qwen2-Audio's
``eval_audio/evaluate_asr.py``, copied by Kimi-Audio-Evalkit and lmms-eval): ``remove_sp``
first, then Whisper's English text normaliser, then its basic normaliser, tokens made only of
punctuation dropped, lower case. ``english`` is Whisper's English normaliser alone, as the
Whisper paper's own LibriSpeech notebook applies it, with no ``remove_sp``: the reference runs
``remove_sp`` before every normaliser, but this pipeline is there to give Whisper's own number
beside the reference's (evalscope's English-only scoring, which runs ``remove_sp`` and drops
punctuation-only tokens, is neither). The normalisers are whisper-normalizer 0.1.1's, which
equal openai-whisper's own (a test holds it); from 0.1.2 on that package rewrites "cause" to
"because", and is not equal."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Literal, get_args

from whisper_normalizer.basic import BasicTextNormalizer
from whisper_normalizer.english import EnglishTextNormalizer

Pipeline = Literal["reference", "english", "kimi"]
PIPELINES: tuple[Pipeline, ...] = get_args(Pipeline)
_CHARACTERS = frozenset({"zh", "yue"})
"""Languages whose error rate counts characters, not words (the reference splits them)."""


def pipelines(language: str) -> tuple[Pipeline, ...]:
    """The pipelines a split of ``language`` (the reference's code: ``en``, ``zh``, ``yue``,
    ``fr``, ...) is scored by: the reference's first, which decides; beside it Whisper's
    English normaliser alone for English, Kimi-Audio-Evalkit's variant for Chinese and
    Cantonese (where it differs: Latin words kept whole)."""
    if language == "en":
        return ("reference", "english")
    return ("reference", "kimi") if language in _CHARACTERS else ("reference",)


def unit(language: str) -> str:
    """What the reference counts in ``language``: ``characters`` or ``words``."""
    return "characters" if language in _CHARACTERS else "words"


def endings(language: str) -> dict[str, Pipeline]:
    """A split's metric endings in ``language``, each with its pipeline: ``cer`` or ``wer``
    (the reference's), ``english.wer``, ``kimi.mer`` (a mixed error rate: Chinese characters
    and Latin words)."""
    named: dict[Pipeline, str] = {"reference": "cer" if language in _CHARACTERS else "wer",
                                  "english": "english.wer", "kimi": "kimi.mer"}
    return {named[p]: p for p in pipelines(language)}

_TAG = re.compile(r"<\|.*?\|>")
_WHITESPACE = re.compile(r"\s+")
_SPACE_BEFORE_MARK = re.compile(r" ?([!,.?;:])")
_SPACELESS = frozenset({"zh"})
"""Languages written without spaces, whose every space ``remove_sp`` drops (as the reference
does before a character error rate)."""


@functools.cache
def _english() -> EnglishTextNormalizer:
    return EnglishTextNormalizer()  # reads its spelling map once


@functools.cache
def _basic() -> BasicTextNormalizer:
    return BasicTextNormalizer()


def remove_sp(text: str, language: str = "en") -> str:
    """``text`` after the reference's first step, before any normaliser: every ``<|...|>``
    tag a space, runs of whitespace one space, the space before a mark of ``!,.?;:`` removed,
    leading spaces removed; in a language written without spaces, every space removed.

    The tag becomes a space because Whisper's normaliser would drop it with nothing and glue
    the words around it; the marks' step is why a model that writes "1 ,000" or "2 .0" scores
    as "1,000" and "2.0", which the English normaliser reads as the numbers 1000 and 2."""
    spaced = _WHITESPACE.sub(" ", _TAG.sub(" ", text))
    joined = _SPACE_BEFORE_MARK.sub(r"\1", spaced).lstrip(" ")
    return _WHITESPACE.sub("", joined) if language in _SPACELESS else joined


def words(text: str, pipeline: Pipeline = "reference", language: str = "en") -> list[str]:
    """``text``'s tokens as ``pipeline`` makes them in ``language``: words, or characters
    where the reference counts characters."""
    if pipeline == "english":
        return str(_english()(text)).split()
    if language == "en":
        normalised = str(_basic()(_english()(remove_sp(text))))
        return [word.lower() for word in normalised.split() if not _punctuation_only(word)]
    spaced = remove_sp(text, language)
    if language == "yue":
        import zhconv

        spaced = zhconv.convert(spaced, "zh-cn")
    kept = [w.lower() for w in str(_basic()(spaced)).split() if not _punctuation_only(w)]
    return list("".join(kept)) if language in _CHARACTERS else kept


def _punctuation_only(word: str) -> bool:
    return all(unicodedata.category(char).startswith("P") for char in word)
