"""The offline judge (``--audiobench-judge-model overlap``): no network, no key,
deterministic. Asked to compare two answers with a reference (AIR-Bench Chat), each answer
scores round(10 x F1) of its content words against the reference's, and the reply is the
official two-score line, so parsing, passes, means and the gate are the ones an LLM judge goes
through. Asked which option a reply chose (an align request: its fingerprint holds the
``choices`` and the ``reply``), it names the option the reply names by its letter alone, else
the one whose words the reply shares most (the first of a tie; "none" when it shares none).
Asked whether an answer agrees with an official answer (Big Bench Audio: the fingerprint
holds ``official_answer`` and ``answer``), it replies CORRECT when the official answer's words
occur in the answer with no answer word (yes, no, valid, invalid, a number) after their last
occurrence (the final answer given), else INCORRECT. Its numbers are not comparable to
published (GPT-judged) ones; every report made with it says so."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.builtin.words import NUMBER_WORDS, overlap_f1, words
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.types import Completion

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup

NAME = "overlap"
_LETTER = re.compile(r"^\(?([A-H])\)?(?:[.):]|$)|(?i:\b(?:answer|option)\s*(?:is|:)?\s*)"
                     r"\(?([A-H])\)?(?![A-Za-z])")
NOT_COMPARABLE = ("offline judge 'overlap' (content-word F1 against the reference, x10): "
                  "not comparable to published LLM-judge scores")
NOT_COMPARABLE_VERDICTS = ("offline judge 'overlap' (CORRECT when the answer's last answer "
                           "word is the official answer): not comparable to published "
                           "LLM-judge accuracies")
ANSWER_WORDS = frozenset(("yes", "no", "valid", "invalid")) | NUMBER_WORDS
"""The words a final answer to a Big Bench Audio question is made of."""


def score(answer: str, reference: str) -> int:
    """0-10: ten times the F1, rounded half up (the reference against itself scores 10)."""
    return math.floor(10 * overlap_f1(answer, reference) + 0.5)


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


def agrees(answer: str, official: str) -> bool:
    """Whether ``answer`` ends on ``official``: its words occur in the answer (numbers in
    digits or words alike) and no answer word follows their last occurrence."""
    said, wanted = words(answer), words(official)
    if not wanted:
        return False
    ends = [i + len(wanted) for i in range(len(said) - len(wanted) + 1)
            if said[i:i + len(wanted)] == wanted]
    return bool(ends) and not ANSWER_WORDS.intersection(said[ends[-1]:])


def _plain(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def make(setup: ProviderSetup) -> OverlapJudge:
    """The provider its spec names (it has no settings of its own)."""
    return OverlapJudge()


class OverlapJudge:
    name = NAME

    def __init__(self) -> None:
        self.identity: dict[str, Any] = {"kind": "content-word F1 x10", "version": 1}

    def check(self) -> None:
        return None

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        inputs = fingerprint or {}
        if {"choices", "reply"} <= inputs.keys():
            return Completion(text=aligned(inputs["reply"], inputs["choices"]),
                              finish_reason="stop")
        if {"official_answer", "answer"} <= inputs.keys():
            said = agrees(inputs["answer"], inputs["official_answer"])
            return Completion(text="CORRECT" if said else "INCORRECT", finish_reason="stop")
        if not {"reference", "answer_1", "answer_2"} <= inputs.keys():
            raise EndpointError("the offline judge 'overlap' only compares answers with a "
                                "reference or an official answer; other judging (reasoning "
                                "rubrics) needs an LLM judge")
        reference = inputs["reference"]
        line = f"{score(inputs['answer_1'], reference)} {score(inputs['answer_2'], reference)}"
        return Completion(text=line, finish_reason="stop")

    async def close(self) -> None:
        return None
