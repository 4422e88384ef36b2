"""What an in-process model reads of a request: the audio and text of the last user message,
and the options of a multiple-choice question (from the request's fingerprint)."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any


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


def as_chosen(choice: str, fingerprint: Mapping[str, Any] | None) -> str:
    """The reply naming ``choice``: its text, or its letter and text ("B. a cat") when the
    question is asked by letter (a model that follows the instruction)."""
    options = list((fingerprint or {}).get("choices") or [])
    if not (fingerprint or {}).get("lettered") or choice not in options:
        return choice
    return f"{chr(ord('A') + options.index(choice))}. {choice}"


def choices_of(fingerprint: Mapping[str, Any] | None) -> list[str]:
    """The question's options; a few real MMAR items hold an empty placeholder option, which
    no baseline should answer."""
    return [c for c in (fingerprint or {}).get("choices") or [] if c.strip()]
