"""What the offline judge (``--audiobench-judge-model overlap``) replies to AIR-Bench Chat's
judge request: each answer scored round(10 x F1) of its content words against the reference's,
as the official two-score line, so that parsing, passes, means and the gate are the ones an
LLM judge's reply goes through. Its numbers are not comparable to published (GPT-judged) ones;
the notes of a run made with it say so."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_audiobench.builtin.words import overlap_f1

NOT_COMPARABLE = ("offline judge 'overlap' (content-word F1 against the reference, x10): "
                  "not comparable to published LLM-judge scores")
_ASKED = frozenset(("reference", "answer_1", "answer_2"))
"""The fingerprint of a Chat judge request holds these (``judge.judge_prompts``)."""


def score(answer: str, reference: str) -> int:
    """0-10: ten times the F1, rounded half up (the reference against itself scores 10)."""
    return math.floor(10 * overlap_f1(answer, reference) + 0.5)


def reply(inputs: Mapping[str, Any]) -> str | None:
    """The two-score line for the request whose fingerprint is ``inputs``; None when it is
    not a Chat comparison."""
    if not inputs.keys() >= _ASKED:
        return None
    reference = inputs["reference"]
    return f"{score(inputs['answer_1'], reference)} {score(inputs['answer_2'], reference)}"
