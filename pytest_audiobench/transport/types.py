"""The request and reply types every endpoint shares: data only, nothing heavy imported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import BaseModel


class Usage(BaseModel):
    """Token counts as the server reported them (0 when it did not)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    audio_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            audio_tokens=self.audio_tokens + other.audio_tokens,
        )


class Completion(BaseModel):
    """One answered chat request."""

    text: str
    finish_reason: str | None = None
    usage: Usage = Usage()
    attempts: int = 1
    """HTTP attempts it took, retries included."""
    cached: bool = False
    """Served from the response cache: no request was sent this time."""


class InProcess(Protocol):
    """A model that answers in this process instead of over HTTP (the built-in baselines and
    the offline judge). It gets the same messages an HTTP server would, plus the request's
    fingerprint (the fields the messages were built from), and says what identifies it in the
    response cache."""

    identity: dict[str, Any]
    """What its answers depend on besides the request (weights, a nested endpoint)."""

    def check(self) -> None:
        """Fail with EndpointError (one line naming the fix) when it cannot run here."""

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        """Reply to one request; ``options`` are the sampling settings it would carry."""

    async def close(self) -> None:
        """Release what it holds."""
