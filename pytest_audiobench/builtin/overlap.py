"""The offline judge (``--audiobench-judge-model overlap``): no network, no key,
deterministic. Asked to compare two answers with a reference (AIR-Bench Chat), each answer
scores round(10 x F1) of its content words against the reference's, and the reply is the
official two-score line, so parsing, passes, means and the gate are the ones an LLM judge goes
through. Asked which option a reply chose (an align request: its fingerprint holds the
``choices`` and the ``reply``), it names the option the reply names by its letter alone, else
the one whose words the reply shares most (the first of a tie; "none" when it shares none).
Its numbers are not comparable to published (GPT-judged) ones; every report made with it
says so."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.builtin.words import overlap_f1
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.types import Completion

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup

NAME = "overlap"
_LETTER = re.compile(r"^\(?([A-H])\)?(?:[.):]|$)|(?i:\b(?:answer|option)\s*(?:is|:)?\s*)"
                     r"\(?([A-H])\)?(?![A-Za-z])")
NOT_COMPARABLE = ("offline judge 'overlap' (content-word F1 against the reference, x10): "
                  "not comparable to published LLM-judge scores")


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
        if not {"reference", "answer_1", "answer_2"} <= inputs.keys():
            raise EndpointError("the offline judge 'overlap' only compares two answers with a "
                                "reference; other judging (reasoning rubrics) needs an LLM judge")
        reference = inputs["reference"]
        line = f"{score(inputs['answer_1'], reference)} {score(inputs['answer_2'], reference)}"
        return Completion(text=line, finish_reason="stop")

    async def close(self) -> None:
        return None
