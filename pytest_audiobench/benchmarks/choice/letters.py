"""Which lettered option (A-D) a reply chose (pure): ``official_letter`` reads a letter as
the official scripts of AIR-Bench Foundation (on its align judge's reply) and MMSU (on the
model's reply) both read one, by its first or second-to-last character; ``strict_choice``
reads a reply as a person would and takes an option only when the reply names exactly one,
by a letter it clearly gave or by one option's full text. Public from the package root, for
any benchmark of lettered options."""

from __future__ import annotations

import re
from collections.abc import Sequence

LETTERS = ("A", "B", "C", "D")
"""The option letters the official rule reads."""

_PHRASES = re.compile(r"(?i:\b(?:answer|option|choice)\s*(?:is|:)?\s*)\(?([A-D])\)?(?![A-Za-z])")
_ALONE = re.compile(r"(?<![A-Za-z])\(?([A-D])\)?(?:[.:)]|$)")


def official_letter(reply: str | None) -> str | None:
    """The option letter the official scorer reads from a reply: strip it and drop its
    newlines; empty or ``None`` is none; its first character when that is A-D, else its
    second-to-last character when that is A-D ("The answer is B."), else none."""
    if reply is None:
        return None
    text = reply.strip().replace("\n", "")
    if not text or text == "None":
        return None
    if text[0] in LETTERS:
        return text[0]
    if len(text) >= 2 and text[-2] in LETTERS:
        return text[-2]
    return None


def strict_choice(reply: str, options: Sequence[str]) -> tuple[str | None, str]:
    """The letter of the one option the reply names, and how it was read; None with the
    reason when it names none or more than one. Letters count when the reply is only a
    letter ("B", "(B)", "B."), starts with one followed by a period, colon or parenthesis
    ("B. a dog barking"), or says it ("the answer is B"); an option's text counts when the
    reply holds it whole and holds no other option's. An empty option (MMSU pads a question
    of two options to four, in any place) is not there: its letter names nothing."""
    text = reply.strip()
    letters = LETTERS[:len(options)]
    said = _said_letters(text) & {letter for letter, option in zip(letters, options,
                                                                   strict=True) if option.strip()}
    named = {letter for letter, option in zip(letters, options, strict=True)
             if _holds(text, option)}
    # An option named by its text inside another named option (e.g. "rock" in "hard rock")
    # is not a second choice.
    named = {a for a in named if not any(a != b and _holds(options[letters.index(b)],
                                                            options[letters.index(a)])
                                         for b in named)}
    found = said | named
    if len(found) == 1:
        letter = next(iter(found))
        how = " and ".join(way for way, on in (("its letter", said), ("its text", named)) if on)
        return letter, f"names option {letter} by {how}"
    if not found:
        return None, "names no option"
    if len(said) == 1 and len(named) == 1:
        return None, (f"gives letter {next(iter(said))} and the text of option "
                      f"{next(iter(named))}")
    return None, f"names several options ({', '.join(sorted(found))})"


def _said_letters(text: str) -> set[str]:
    """The letters a reply clearly gives: the whole reply, its start, or after 'answer'."""
    found = {m.group(1) for m in _PHRASES.finditer(text)}
    start = _ALONE.match(text)
    if start is not None:
        found.add(start.group(1))
    return found


def _holds(text: str, option: str) -> bool:
    """Whether ``text`` holds ``option`` whole (case and surrounding punctuation aside)."""
    needle = option.strip().lower()
    if not needle:
        return False
    return re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", text.lower()) is not None
