"""Reading one audio file into the payload a request carries: wav and mp3 as they are,
anything else libsndfile reads (flac, ogg, ...) transcoded to 16-bit wav. One file at a time:
nothing here keeps audio around after the request is built."""

from __future__ import annotations

import base64
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pytest_audiobench.config.names import AudioMode
from pytest_audiobench.errors import AudioError, EmptyAudio

AudioFormat = Literal["wav", "mp3"]

# libsndfile's container names for what the OpenAI audio shape accepts as is.
_PASSTHROUGH: dict[str, AudioFormat] = {"WAV": "wav", "WAVEX": "wav", "MP3": "mp3"}
_MIME: dict[AudioFormat, str] = {"wav": "audio/wav", "mp3": "audio/mpeg"}


@dataclass(frozen=True, slots=True)
class AudioPayload:
    """Audio ready to send: base64 without any prefix, its format and what we learned of it."""

    data: str
    format: AudioFormat
    seconds: float
    sample_rate: int
    sha256: str
    transcoded: bool

    @property
    def data_uri(self) -> str:
        return f"data:{_MIME[self.format]};base64,{self.data}"


def load_audio(path: Path) -> AudioPayload:
    """Read ``path``; EmptyAudio when it is missing or holds no samples, AudioError when
    libsndfile cannot read it."""
    import soundfile

    if not path.is_file():
        raise EmptyAudio(f"audio file not found: {path}")
    if path.stat().st_size == 0:
        raise EmptyAudio(f"audio file is empty (0 bytes): {path}")
    try:
        info = soundfile.info(str(path))
    except (soundfile.LibsndfileError, RuntimeError) as exc:
        raise AudioError(
            f"cannot read audio file {path}: {exc}; expected an audio file libsndfile "
            "reads (wav, mp3, flac, ogg, ...)"
        ) from exc
    if info.frames <= 0:
        raise EmptyAudio(f"audio file holds no samples: {path}")
    seconds = info.frames / info.samplerate
    fmt = _PASSTHROUGH.get(info.format)
    if fmt is not None:
        raw = path.read_bytes()
        transcoded = False
    else:
        raw = _to_wav(path)
        fmt, transcoded = "wav", True
    return AudioPayload(
        data=base64.b64encode(raw).decode("ascii"),
        format=fmt,
        seconds=seconds,
        sample_rate=info.samplerate,
        sha256=hashlib.sha256(raw).hexdigest(),
        transcoded=transcoded,
    )


def _to_wav(path: Path) -> bytes:
    import soundfile

    try:
        samples, rate = soundfile.read(str(path), dtype="int16", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError) as exc:
        raise AudioError(f"cannot decode audio file {path}: {exc}") from exc
    buffer = io.BytesIO()
    soundfile.write(buffer, samples, rate, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def audio_part(payload: AudioPayload, mode: AudioMode) -> dict[str, Any]:
    """The content part carrying ``payload`` in the shape ``mode`` names."""
    if mode == "audio-url":
        return {"type": "audio_url", "audio_url": {"url": payload.data_uri}}
    data = payload.data_uri if mode == "data-uri" else payload.data
    return {"type": "input_audio", "input_audio": {"data": data, "format": payload.format}}
