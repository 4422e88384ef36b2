"""Two transcripts' words aligned for a person to read: the reference over the answer, word
under word, the words that differ in upper case (a substitution over its substitute, a
deleted word over stars, stars over an inserted word), as speech-recognition scoring tools
print them. A word may be a single character (Chinese is scored by characters); the columns
are padded by the width a terminal gives each character, two for a wide CJK one, so that
characters stand under each other."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from pytest_audiobench.benchmarks.wer.counting import opcodes

GAP = "***"


def aligned(reference: Sequence[str], hypothesis: Sequence[str]) -> tuple[str, str]:
    """The reference's and the hypothesis's lines, their words padded to one width a pair."""
    if not reference and not hypothesis:
        return "", ""
    if not reference or not hypothesis:
        pairs = [(w.upper(), GAP) for w in reference] or [(GAP, w.upper()) for w in hypothesis]
    else:
        pairs = _pairs(reference, hypothesis)
    widths = [max(width(a), width(b)) for a, b in pairs]
    return (" ".join(_padded(a, n) for (a, _), n in zip(pairs, widths, strict=True)).rstrip(),
            " ".join(_padded(b, n) for (_, b), n in zip(pairs, widths, strict=True)).rstrip())


def width(text: str) -> int:
    """The columns ``text`` takes in a terminal: two for a wide or full-width character (East
    Asian width W or F), none for a combining mark, one for any other."""
    return sum(_columns(char) for char in text)


def _columns(char: str) -> int:
    if unicodedata.east_asian_width(char) in "WF":
        return 2
    return 0 if unicodedata.category(char) in ("Mn", "Me") else 1


def _padded(word: str, columns: int) -> str:
    return word + " " * (columns - width(word))


def _pairs(reference: Sequence[str], hypothesis: Sequence[str]) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for step in opcodes(reference, hypothesis):
        ref = list(reference[step.src_start:step.src_end])
        hyp = list(hypothesis[step.dest_start:step.dest_end])
        if step.tag == "equal":
            pairs += zip(ref, hyp, strict=True)
        elif step.tag == "replace":
            pairs += [(r.upper(), h.upper()) for r, h in zip(ref, hyp, strict=True)]
        elif step.tag == "delete":
            pairs += [(r.upper(), GAP) for r in ref]
        else:
            pairs += [(GAP, h.upper()) for h in hyp]
    return pairs
