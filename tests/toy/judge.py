"""The toy judge: a provider that answers in this process, as a package would write one. It
reads the toy benchmark's question ("Reference: ...\nAnswer: ...") and says yes when the two
are the same words."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pytest_audiobench import Completion, EndpointError, OwnSettings, ProviderSetup, read_own

QUESTION = re.compile(r"Reference: (.*)\nAnswer: (.*)\n")


class ToyJudgeSettings(OwnSettings):
    case: bool


class ToyJudge:
    def __init__(self, setup: ProviderSetup) -> None:
        self.case = read_own(setup.own, ToyJudgeSettings).case
        self.identity: dict[str, Any] = {"kind": "toy judge", "case": self.case}

    def check(self) -> None:
        return None

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        found = QUESTION.search(str(messages[-1]["content"]))
        if found is None:
            raise EndpointError("the toy judge was asked something other than the toy question")
        reference, answer = found.groups()
        same = reference == answer if self.case else reference.lower() == answer.lower()
        return Completion(text="yes" if same else "no", finish_reason="stop")

    async def close(self) -> None:
        return None
