"""The built-in models, run in this process behind the same ``Endpoint`` (and response
cache) as a served model: ``random``, the seeded random-choice baseline the MMAR paper
reports, and ``cascade``, Whisper speech recognition followed by an answer from the
transcript (from a text LLM when one is given, else the best-matching choice)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pytest_audiobench.client import Completion, Endpoint, InProcess
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.speech import Transcriber
from pytest_audiobench.words import words

if TYPE_CHECKING:
    from pytest_audiobench.cache import ResponseCache
    from pytest_audiobench.pacing import Pacer
    from pytest_audiobench.settings import BuiltinModel

NO_SPEECH = "No speech can be heard in the audio."
OPEN_RANDOM = "I cannot tell from the audio."
"""What ``random`` answers an open question: it has nothing to choose from."""


def build(spec: BuiltinModel, pacer: Pacer, cache: ResponseCache | None) -> InProcess:
    if spec.name == "random":
        return RandomChoice()
    llm = None if spec.llm is None else Endpoint(spec.llm, pacer, cache)
    return Cascade(Transcriber(spec.whisper), llm)


def request_parts(messages: Sequence[Mapping[str, Any]]) -> tuple[bytes | None, str]:
    """The audio (decoded) and the text of the last user message, in any audio mode."""
    content = messages[-1]["content"]
    if isinstance(content, str):
        return None, content
    audio, texts = None, []
    for part in content:
        if part.get("type") == "text":
            texts.append(part["text"])
        elif part.get("type") == "input_audio":
            audio = _base64(part["input_audio"]["data"])
        elif part.get("type") == "audio_url":
            audio = _base64(part["audio_url"]["url"])
    return audio, "\n".join(texts)


def _base64(data: str) -> bytes:
    if data.startswith("data:"):
        data = data.partition(",")[2]
    return base64.b64decode(data)


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


def _choices(fingerprint: Mapping[str, Any] | None) -> list[str]:
    """The question's options; a few real MMAR items hold an empty placeholder option, which
    no baseline should answer."""
    return [c for c in (fingerprint or {}).get("choices") or [] if c.strip()]


class RandomChoice:
    """A uniformly random choice, seeded by the run's seed and the request: the same pick
    on every run with the same seed, a new pick per ``--audiobench-runs`` run."""

    def __init__(self) -> None:
        self.identity: dict[str, Any] = {"kind": "random choice", "version": 1}

    def check(self) -> None:
        return None

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        choices = _choices(fingerprint)
        if not choices:
            return Completion(text=OPEN_RANDOM, finish_reason="stop")
        seed = json.dumps([options.get("seed", 0), fingerprint], sort_keys=True, default=str)
        rng = random.Random(hashlib.sha256(seed.encode("utf-8")).hexdigest())
        return Completion(text=rng.choice(choices), finish_reason="stop")

    async def close(self) -> None:
        return None


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
        choices = _choices(fingerprint)
        text = best_choice(transcript, choices, question) if choices else transcript or NO_SPEECH
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
