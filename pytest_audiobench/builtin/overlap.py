"""The offline judge (``--audiobench-judge-model overlap``): no network, no key,
deterministic. It replies to a judge request as the run's benchmark whose request it is says
it would (``JudgeUse.offline``, given to it in ``ProviderSetup.offline``): AIR-Bench Chat's
comparison by content-word overlap with the reference, AIR-Bench Foundation's align request by
the option the reply names, Big Bench Audio's grade by whether the answer ends on the
official answer. Its reply goes through the same parsing, passes and gate as an LLM judge's;
its numbers are not comparable to published (LLM-judged) ones, which every benchmark's notes
say."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.types import Completion

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup

NAME = "overlap"


def make(setup: ProviderSetup) -> OverlapJudge:
    """The provider its spec names (it has no settings of its own)."""
    return OverlapJudge(setup.offline)


class OverlapJudge:
    name = NAME

    def __init__(self, replies: Mapping[str, Callable[[Mapping[str, Any]], str | None]]
                 ) -> None:
        self.replies = dict(replies)
        # Kept as it was when the rules lived here: baselines judged by it stay its own.
        self.identity: dict[str, Any] = {"kind": "content-word F1 x10", "version": 1}

    def check(self) -> None:
        return None

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        inputs = fingerprint or {}
        for reply in self.replies.values():
            text = reply(inputs)
            if text is not None:
                return Completion(text=text, finish_reason="stop")
        names = ", ".join(self.replies) or "none"
        raise EndpointError(f"the offline judge '{NAME}' has no reply to this request: no "
                            f"benchmark of the run ({names}) answers it offline; other judging "
                            "(reasoning rubrics) needs an LLM judge")

    async def close(self) -> None:
        return None
