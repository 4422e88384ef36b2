"""Words of a text as the offline answerers and the offline judge compare them: lower case,
numbers spelled out (a transcript may say "5" where the choice says "five"), and, for the
judge, without the small words every answer shares."""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_ONES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen")
_TENS = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
NUMBER_WORDS = frozenset(_ONES + _TENS[2:] + ("hundred",))
"""The words numbers are spelled with (``words`` spells digits out into them)."""
STOPWORDS = frozenset((
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "of", "to", "in",
    "on", "at", "by", "for", "with", "from", "as", "and", "or", "but", "it", "its", "it's",
    "this", "that", "these", "those", "there", "here", "i", "you", "he", "she", "we", "they",
    "me", "him", "her", "us", "them", "my", "your", "his", "our", "their", "do", "does", "did",
    "has", "have", "had", "not", "no", "so", "than", "then"))


def spell(number: int) -> str:
    """0-99 in words (``21`` -> ``twenty one``); larger numbers stay digits."""
    if number < 20:
        return _ONES[number]
    if number < 100:
        tens, ones = divmod(number, 10)
        return _TENS[tens] + ("" if ones == 0 else " " + _ONES[ones])
    return str(number)


def words(text: str) -> list[str]:
    """Every word of ``text``, lower case, numbers below 100 spelled out."""
    out: list[str] = []
    for token in _WORD.findall(text.lower()):
        if token.isdigit():
            out.extend(spell(int(token)).split())
        else:
            out.append(token)
    return out


def content_words(text: str) -> Counter[str]:
    """The words that carry meaning, counted."""
    return Counter(w for w in words(text) if w not in STOPWORDS)


def overlap_f1(candidate: str, reference: str) -> float:
    """Harmonic mean of precision and recall of ``candidate``'s content words against
    ``reference``'s (1.0 for the same words, 0.0 when none are shared or either has none)."""
    ours, theirs = content_words(candidate), content_words(reference)
    shared = sum((ours & theirs).values())
    if shared == 0:
        return 0.0
    precision = shared / sum(ours.values())
    recall = shared / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)
