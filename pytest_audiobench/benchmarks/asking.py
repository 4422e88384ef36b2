"""Asking the model about one sample: its audio and a prompt in one user message, after the
benchmark's system message when it has one."""

from __future__ import annotations

import asyncio
from typing import Any

from pytest_audiobench.benchmarks.base import Runtime
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.names import AudioMode
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.records import ModelAnswer, RequestRecord
from pytest_audiobench.transport.audio import AudioPayload, audio_part, load_audio
from pytest_audiobench.transport.types import Completion


def model_fingerprint(sample: Sample, prompt: str, audio_sha256: str,
                      audio_mode: str, system: str | None = None) -> dict[str, Any]:
    """What identifies a model request in the cache: its text, its audio, how it is sent, its
    system message when it has one; and a multiple-choice question's options, which
    in-process models read."""
    fingerprint: dict[str, Any] = {"prompt": prompt, "audio": audio_sha256,
                                   "audio_mode": audio_mode}
    if system is not None:
        fingerprint["system"] = system
    if sample.choices:
        fingerprint["choices"] = list(sample.choices)
    if sample.lettered:
        fingerprint["lettered"] = True
    return fingerprint


def cached_answer(sample: Sample, prompt: str, runtime: Runtime, run: int,
                  system: str | None = None) -> ModelAnswer | None:
    """The cached answer to this request, read without sending (for dry runs); None when it
    is not cached. Reads the audio to hash it; EmptyAudio when there is none."""
    payload = load_audio(sample.audio)
    settings = runtime.settings
    hit = runtime.model.cached(_messages(payload, prompt, settings.audio_mode, system),
                               seed_offset=run, fingerprint=model_fingerprint(
                                   sample, prompt, payload.sha256, settings.audio_mode, system))
    return None if hit is None else _answer(prompt, payload, runtime, run, hit, system)


async def ask_model(sample: Sample, prompt: str, runtime: Runtime, run: int,
                    system: str | None = None) -> ModelAnswer:
    """Send the sample's audio and ``prompt`` in one user message, after ``system`` as a
    system message when given; each run of ``--audiobench-runs`` moves the seed on by one
    when a seed is set. An empty answer is an answer (``Endpoint`` asked it again first)."""
    payload = await asyncio.to_thread(load_audio, sample.audio)
    mode = runtime.settings.audio_mode
    completion = await runtime.model.complete(
        _messages(payload, prompt, mode, system), seed_offset=run,
        fingerprint=model_fingerprint(sample, prompt, payload.sha256, mode, system))
    return _answer(prompt, payload, runtime, run, completion, system)


def _messages(payload: AudioPayload, prompt: str, mode: AudioMode,
              system: str | None) -> list[dict[str, Any]]:
    # An empty prompt sends the audio alone: a spoken instruction is the whole request
    # (VoiceBench's reference sends nothing beside it), and an empty text part is not nothing.
    text = [{"type": "text", "text": prompt}] if prompt else []
    user = {"role": "user", "content": [audio_part(payload, mode), *text]}
    return [user] if system is None else [{"role": "system", "content": system}, user]


def _answer(prompt: str, payload: AudioPayload, runtime: Runtime, run: int,
            completion: Completion, system: str | None = None) -> ModelAnswer:
    """The answer ``completion`` gives, with the request that asked it."""
    settings = runtime.settings
    warnings = []
    if payload.seconds > settings.max_audio_seconds:
        warnings.append(
            f"clip is {payload.seconds:.1f} s, longer than --audiobench-max-audio-seconds "
            f"{settings.max_audio_seconds:g}: many audio models hear only the first 30 s"
        )
    endpoint = runtime.model.settings  # the model's, or head to head the baseline model's
    request = RequestRecord(
        url=endpoint.url, model=endpoint.model, sampling=endpoint.sampling.drawn(run),
        audio_mode=settings.audio_mode, prompt=prompt, system=system,
        audio_format=payload.format,
        audio_seconds=round(payload.seconds, 3), audio_sha256=payload.sha256,
        transcoded=payload.transcoded,
    )
    return ModelAnswer(run=run, request=request, completion=completion, warnings=warnings)


def baseline_answer(sample: Sample, prompt: str, line: SampleLine,
                    settings: Settings) -> ModelAnswer:
    """The answer a baseline's ``line`` (whole) holds, for today's judge to grade again, with
    the request this run makes for the sample; its audio, not read, known by the line's hash."""
    endpoint = settings.endpoint
    request = RequestRecord(
        url=endpoint.url, model=endpoint.model, sampling=endpoint.sampling,
        audio_mode=settings.audio_mode, prompt=prompt, audio_format="not read",
        audio_seconds=0.0, audio_sha256=line.cluster, transcoded=False)
    return ModelAnswer(request=request, completion=Completion(
        text=line.answer, reasoning=line.reasoning or None, finish_reason="stop"))
