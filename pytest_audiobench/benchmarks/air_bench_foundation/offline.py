"""What the offline judge (``--audiobench-judge-model overlap``) replies to AIR-Bench
Foundation's align request (its fingerprint holds the ``choices`` and the model's ``reply``):
the option the reply names by its letter alone, else the one it holds whole, else the one
whose content words it shares most (the first of a tie); "none" when it shares none."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_audiobench import overlap_f1

_LETTER = re.compile(r"^\(?([A-H])\)?(?:[.):]|$)|(?i:\b(?:answer|option)\s*(?:is|:)?\s*)"
                     r"\(?([A-H])\)?(?![A-Za-z])")
_ASKED = frozenset(("choices", "reply"))
"""The fingerprint of an align request holds these (``benchmark.Foundation._align_request``)."""


def aligned(reply: str, choices: list[str]) -> str:
    """The letter of the option ``reply`` chose: the one letter it gives (alone, as ``B.`` or
    ``(B)`` at its start, or after "answer is"), else the one option it holds whole, else the
    option sharing most of its content words; "none" when no option shares any."""
    letters = "ABCDEFGH"[:len(choices)]
    said = {m.group(1) or m.group(2) for m in _LETTER.finditer(reply.strip())} & set(letters)
    if len(said) == 1:
        return said.pop()
    text = _plain(reply)
    held = [letter for letter, choice in zip(letters, choices, strict=True)
            if re.search(rf"(?<!\w){re.escape(_plain(choice))}(?!\w)", text)]
    if len(held) == 1:
        return held[0]
    scores = [overlap_f1(reply, choice) for choice in choices]
    best = max(range(len(choices)), key=lambda i: scores[i], default=None)
    return "none" if best is None or scores[best] == 0 else letters[best]


def reply(inputs: Mapping[str, Any]) -> str | None:
    """The chosen option's letter for the align request whose fingerprint is ``inputs``;
    None when it is not one."""
    if not inputs.keys() >= _ASKED:
        return None
    return aligned(inputs["reply"], inputs["choices"])


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
