"""The pipelines a transcript goes through before its words (or characters) are compared, the
same for the reference and the model's answer, by the language of the split (facts in
PROTOCOLS.md, "Speech recognition" and "Speech recognition beyond English").

``reference`` is the one the audio-model reports share (Qwen2-Audio's
``eval_audio/evaluate_asr.py``, copied by Kimi-Audio-Evalkit, lmms-eval and evalscope):
``remove_sp`` first (for Chinese, ``zh``, every space removed too), then the normalisers of the
language: Cantonese (``yue``) made simplified Chinese by zhconv then Whisper's basic
normaliser; English (``en``) Whisper's English normaliser then its basic one; Chinese speechio's
cn_tn alone (``chinese.py``, NOT the basic normaliser); any other language the basic normaliser
alone. Then the tokens (split on spaces) made only of punctuation are dropped, the rest lower
cased; for ``zh`` and ``yue`` the tokens are joined and split into characters, so a Latin word
counts as its letters. The language is the reference's code: ``en``, ``zh``, ``yue``, or any
other (``fr``, ``de``), which all score alike.

``english`` is Whisper's English normaliser alone, as the Whisper paper's own LibriSpeech
notebook applies it, with no ``remove_sp``, whatever the language: it gives Whisper's own number
beside the reference's for English (evalscope's English-only scoring, which runs ``remove_sp``
and drops punctuation-only tokens, is neither). ``kimi`` is Kimi-Audio-Evalkit's variant of the
reference: the same first steps, then sacreBLEU's ``zh`` tokenizer (each CJK character a token,
the rest tokenised as sacreBLEU's ``13a`` does, so Latin words stay whole) and no split into
characters: a mixed error rate. Whisper's normalisers are whisper-normalizer 0.1.1's, which
equal openai-whisper's own (a test holds it); from 0.1.2 on that package rewrites "cause" to
"because", and is not equal."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Literal, get_args

from whisper_normalizer.basic import BasicTextNormalizer
from whisper_normalizer.english import EnglishTextNormalizer

from pytest_audiobench.benchmarks.wer import chinese

Pipeline = Literal["reference", "english", "kimi"]
PIPELINES: tuple[Pipeline, ...] = get_args(Pipeline)
"""Every pipeline; a language's are ``pipelines(language)``."""
CHARACTER_LANGUAGES = frozenset({"zh", "yue"})
"""The languages the reference scores by characters (a character error rate)."""

_TAG = re.compile(r"<\|.*?\|>")
_WHITESPACE = re.compile(r"\s+")
_SPACE_BEFORE_MARK = re.compile(r" ?([!,.?;:])")
_SPACELESS = frozenset({"zh"})
"""Languages written without spaces, whose every space ``remove_sp`` drops (as the reference
does before a character error rate). Cantonese is not one: the reference keeps its spaces until
its characters are split apart."""


def pipelines(language: str) -> tuple[Pipeline, ...]:
    """The pipelines a split in ``language`` is scored by, the deciding one first: English's
    reference and Whisper's; Chinese's and Cantonese's reference and Kimi's; any other
    language's reference alone."""
    if language == "en":
        return ("reference", "english")
    return ("reference", "kimi") if language in CHARACTER_LANGUAGES else ("reference",)


def unit(language: str) -> str:
    """What the reference pipeline counts in ``language``: ``characters`` for Chinese and
    Cantonese (its rate a character error rate, ``cer``), ``words`` otherwise (``wer``)."""
    return "characters" if language in CHARACTER_LANGUAGES else "words"


def endings(language: str) -> dict[str, Pipeline]:
    """Per metric ending, the pipeline whose rate it is, for a split in ``language``: the
    reference's ``wer`` or ``cer``, Whisper's ``english.wer``, Kimi's ``kimi.mer`` (a mixed
    error rate: CJK characters and Latin words)."""
    named: dict[Pipeline, str] = {
        "reference": "cer" if language in CHARACTER_LANGUAGES else "wer",
        "english": "english.wer", "kimi": "kimi.mer"}
    return {named[pipeline]: pipeline for pipeline in pipelines(language)}


@functools.cache
def _english() -> EnglishTextNormalizer:
    return EnglishTextNormalizer()  # reads its spelling map once


@functools.cache
def _basic() -> BasicTextNormalizer:
    return BasicTextNormalizer()


@functools.cache
def _simplified() -> Callable[[str, str], str]:
    # zhconv is what the reference converts Cantonese with; imported on first use, as most runs
    # score no Cantonese.
    import zhconv

    convert: Callable[[str, str], str] = zhconv.convert
    return convert


@functools.cache
def _sacrebleu_zh() -> Callable[[str], str]:
    # sacreBLEU's package imports numpy and its metrics (a sixth of a second): on first use.
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    tokenizer: Callable[[str], str] = TokenizerZh()  # type: ignore[no-untyped-call]
    return tokenizer


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


def normalised(text: str, language: str = "en") -> str:
    """``text`` after ``remove_sp`` and the normalisers the reference runs in ``language``,
    before it is cut into tokens (the reference and Kimi's variant share this)."""
    text = remove_sp(text, language)
    if language == "zh":
        return chinese.normalise(text)
    if language == "yue":
        text = _simplified()(text, "zh-cn")
    elif language == "en":
        text = str(_english()(text))
    return str(_basic()(text))


def words(text: str, pipeline: Pipeline = "reference", language: str = "en") -> list[str]:
    """``text``'s tokens as ``pipeline`` makes them in ``language``: words, or for the
    reference pipeline in Chinese and Cantonese, characters."""
    if pipeline == "english":
        return str(_english()(text)).split()
    if pipeline == "kimi":
        return _tokens(_sacrebleu_zh()(normalised(text, language)))
    found = _tokens(normalised(text, language))
    return list("".join(found)) if language in CHARACTER_LANGUAGES else found


def _tokens(text: str) -> list[str]:
    """The reference tokenizer's tokens: split on spaces (only), those made only of Unicode
    punctuation dropped (the empty ones too), lower case, split on whitespace."""
    kept = " ".join(token for token in text.split(" ") if not _punctuation_only(token))
    return kept.lower().split()


def _punctuation_only(word: str) -> bool:
    return all(unicodedata.category(char).startswith("P") for char in word)
