"""The built-in ``random`` model: the seeded random-choice baseline the MMAR paper reports."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.builtin.request import as_chosen, choices_of
from pytest_audiobench.transport.types import Completion

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup

OPEN_RANDOM = "I cannot tell from the audio."
"""What ``random`` answers an open question: it has nothing to choose from."""


def make(setup: ProviderSetup) -> RandomChoice:
    """The provider its spec names (it has no settings of its own)."""
    return RandomChoice()


class RandomChoice:
    """A uniformly random choice, seeded by the run's seed and the request: the same pick
    on every run with the same seed, a new pick per ``--audiobench-runs`` run."""

    def __init__(self) -> None:
        self.identity: dict[str, Any] = {"kind": "random choice", "version": 1}

    def check(self) -> None:
        return None

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        choices = choices_of(fingerprint)
        if not choices:
            return Completion(text=OPEN_RANDOM, finish_reason="stop")
        seed = json.dumps([options.get("seed", 0), fingerprint], sort_keys=True, default=str)
        rng = random.Random(hashlib.sha256(seed.encode("utf-8")).hexdigest())
        return Completion(text=as_chosen(rng.choice(choices), fingerprint), finish_reason="stop")

    async def close(self) -> None:
        return None
