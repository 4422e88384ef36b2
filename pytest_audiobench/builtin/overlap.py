"""The offline judge for AIR-Bench Chat (``--audiobench-judge-model overlap``): no network,
no key, deterministic. Each answer scores round(10 x F1) of its content words against the
reference's, and the reply is the official two-score line, so parsing, passes, means and the
gate are the ones an LLM judge goes through. Its numbers are not comparable to published
(GPT-4-judged) scores; every report made with it says so."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.builtin.words import overlap_f1
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.types import Completion

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup

NAME = "overlap"
NOT_COMPARABLE = ("offline judge 'overlap' (content-word F1 against the reference, x10): "
                  "not comparable to published LLM-judge scores")


def score(answer: str, reference: str) -> int:
    """0-10: ten times the F1, rounded half up (the reference against itself scores 10)."""
    return math.floor(10 * overlap_f1(answer, reference) + 0.5)


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
        if not {"reference", "answer_1", "answer_2"} <= inputs.keys():
            raise EndpointError("the offline judge 'overlap' only compares two answers with a "
                                "reference; other judging (reasoning rubrics) needs an LLM judge")
        reference = inputs["reference"]
        line = f"{score(inputs['answer_1'], reference)} {score(inputs['answer_2'], reference)}"
        return Completion(text=line, finish_reason="stop")

    async def close(self) -> None:
        return None
