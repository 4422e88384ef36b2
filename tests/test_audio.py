"""Audio files into request payloads: wav and mp3 as they are, the rest transcoded to wav."""

from __future__ import annotations

import base64
import hashlib
import io
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from pytest_audiobench.errors import AudioError, EmptyAudio
from pytest_audiobench.transport.audio import AudioPayload, audio_part, load_audio


def tone(seconds: float, rate: int, channels: int = 1) -> npt.NDArray[np.float32]:
    t = np.arange(round(seconds * rate), dtype=np.float64) / rate
    mono = (0.25 * np.sin(2 * np.pi * 440.0 * t)).astype(np.float32)
    return np.repeat(mono[:, None], channels, axis=1) if channels > 1 else mono


def write(path: Path, fmt: str, seconds: float = 0.5, rate: int = 16000, channels: int = 1,
          subtype: str | None = None) -> bytes:
    sf.write(str(path), tone(seconds, rate, channels), rate, format=fmt, subtype=subtype)
    return path.read_bytes()


def decoded(payload: AudioPayload) -> bytes:
    return base64.b64decode(payload.data, validate=True)


# --- pass-through -----------------------------------------------------------------------------

PASSTHROUGH = [
    pytest.param("a.wav", "WAV", "PCM_16", 16000, 0.5, "wav", id="a_16k_pcm16_wav"),
    pytest.param("b.wav", "WAV", "FLOAT", 44100, 1.0, "wav", id="a_44k_float_wav"),
    pytest.param("c.wav", "WAVEX", "PCM_24", 24000, 0.25, "wav", id="a_wave_extensible_file"),
    pytest.param("d.mp3", "MP3", None, 16000, 0.5, "mp3", id="an_mp3"),
]


@pytest.mark.parametrize(("name", "fmt", "subtype", "rate", "seconds", "expected"), PASSTHROUGH)
def test_wav_and_mp3_pass_through_byte_for_byte(tmp_path: Path, name: str, fmt: str,
                                                subtype: str | None, rate: int, seconds: float,
                                                expected: str) -> None:
    path = tmp_path / name
    raw = write(path, fmt, seconds, rate, subtype=subtype)
    payload = load_audio(path)
    assert decoded(payload) == raw
    assert payload.format == expected
    assert payload.transcoded is False
    assert payload.sample_rate == rate
    assert payload.seconds == pytest.approx(seconds, abs=0.03)
    assert payload.sha256 == hashlib.sha256(raw).hexdigest()


def test_the_format_comes_from_the_content_not_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "really-a-wav.mp3"
    raw = write(path, "WAV")
    payload = load_audio(path)
    assert payload.format == "wav"
    assert decoded(payload) == raw


def test_the_base64_has_no_data_uri_prefix(tmp_path: Path) -> None:
    path = tmp_path / "a.wav"
    write(path, "WAV")
    payload = load_audio(path)
    assert not payload.data.startswith("data:")
    assert payload.data.startswith("UklGR")  # base64 of b"RIFF"


# --- transcoding ------------------------------------------------------------------------------

TRANSCODED = [
    pytest.param("a.flac", "FLAC", id="flac"),
    pytest.param("b.ogg", "OGG", id="ogg_vorbis"),
    pytest.param("c.aiff", "AIFF", id="aiff"),
]


@pytest.mark.parametrize(("name", "fmt"), TRANSCODED)
def test_other_formats_are_transcoded_to_16_bit_wav(tmp_path: Path, name: str, fmt: str) -> None:
    path = tmp_path / name
    original = write(path, fmt, seconds=0.5, rate=22050)
    payload = load_audio(path)
    raw = decoded(payload)
    assert raw.startswith(b"RIFF") and raw[8:12] == b"WAVE"
    assert raw != original
    assert payload.format == "wav"
    assert payload.transcoded is True
    assert payload.sample_rate == 22050
    assert payload.seconds == pytest.approx(0.5, abs=0.01)
    assert payload.sha256 == hashlib.sha256(raw).hexdigest()
    info = sf.info(io.BytesIO(raw))
    assert (info.format, info.subtype, info.samplerate) == ("WAV", "PCM_16", 22050)


def test_a_transcoded_flac_keeps_its_samples_and_channels(tmp_path: Path) -> None:
    path = tmp_path / "stereo.flac"
    write(path, "FLAC", seconds=0.2, rate=16000, channels=2, subtype="PCM_16")
    expected, _ = sf.read(str(path), dtype="int16", always_2d=True)
    samples, rate = sf.read(io.BytesIO(decoded(load_audio(path))), dtype="int16",
                            always_2d=True)
    assert rate == 16000
    assert samples.shape == (3200, 2)
    assert np.array_equal(samples, expected)


# --- data URIs --------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "fmt", "prefix"), [
    pytest.param("a.wav", "WAV", "data:audio/wav;base64,", id="wav"),
    pytest.param("a.mp3", "MP3", "data:audio/mpeg;base64,", id="mp3"),
    pytest.param("a.flac", "FLAC", "data:audio/wav;base64,", id="flac_sent_as_wav"),
])
def test_the_data_uri_names_the_sent_format(tmp_path: Path, name: str, fmt: str,
                                            prefix: str) -> None:
    path = tmp_path / name
    write(path, fmt)
    payload = load_audio(path)
    assert payload.data_uri == prefix + payload.data


# --- files that cannot be sent ----------------------------------------------------------------


def test_a_zero_byte_file_is_empty_audio_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "spokenwoz" / "empty.wav"
    path.parent.mkdir()
    path.write_bytes(b"")
    with pytest.raises(EmptyAudio, match="0 bytes") as caught:
        load_audio(path)
    assert str(path) in str(caught.value)


def test_a_wav_header_without_samples_is_empty_audio(tmp_path: Path) -> None:
    path = tmp_path / "no-samples.wav"
    sf.write(str(path), np.zeros(0, dtype=np.float32), 16000, format="WAV")
    assert path.stat().st_size > 0
    with pytest.raises(EmptyAudio, match="holds no samples") as caught:
        load_audio(path)
    assert str(path) in str(caught.value)


def test_a_missing_file_is_empty_audio_naming_the_path(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.wav"
    with pytest.raises(EmptyAudio, match="not found") as caught:
        load_audio(path)
    assert str(path) in str(caught.value)


def test_a_folder_is_not_an_audio_file(tmp_path: Path) -> None:
    with pytest.raises(EmptyAudio, match="not found"):
        load_audio(tmp_path)


@pytest.mark.parametrize("content", [
    pytest.param(b"this is not audio at all\n" * 10, id="text"),
    pytest.param(bytes(range(256)) * 4, id="binary_noise"),
    pytest.param(b"RIFF\x00\x00\x00\x00WAVE", id="a_truncated_wav_header"),
])
def test_unreadable_bytes_are_an_audio_error_naming_the_path(tmp_path: Path,
                                                             content: bytes) -> None:
    path = tmp_path / "garbage.wav"
    path.write_bytes(content)
    with pytest.raises(AudioError) as caught:
        load_audio(path)
    assert str(path) in str(caught.value)
    assert isinstance(caught.value.__cause__, RuntimeError)


# --- the request's content part ---------------------------------------------------------------


def payload(fmt: str = "wav") -> AudioPayload:
    return AudioPayload(data="UklGRgAAAABXQVZF", format=fmt,  # type: ignore[arg-type]
                        seconds=1.0, sample_rate=16000, sha256="0" * 64, transcoded=False)


@pytest.mark.parametrize("fmt", ["wav", "mp3"])
def test_input_audio_mode_sends_raw_base64_and_the_format(fmt: str) -> None:
    assert audio_part(payload(fmt), "input_audio") == {
        "type": "input_audio",
        "input_audio": {"data": "UklGRgAAAABXQVZF", "format": fmt},
    }


@pytest.mark.parametrize(("fmt", "mime"), [("wav", "audio/wav"), ("mp3", "audio/mpeg")])
def test_data_uri_mode_sends_the_data_uri_inside_input_audio(fmt: str, mime: str) -> None:
    assert audio_part(payload(fmt), "data-uri") == {
        "type": "input_audio",
        "input_audio": {"data": f"data:{mime};base64,UklGRgAAAABXQVZF", "format": fmt},
    }


@pytest.mark.parametrize(("fmt", "mime"), [("wav", "audio/wav"), ("mp3", "audio/mpeg")])
def test_audio_url_mode_sends_the_data_uri_as_an_audio_url(fmt: str, mime: str) -> None:
    assert audio_part(payload(fmt), "audio-url") == {
        "type": "audio_url",
        "audio_url": {"url": f"data:{mime};base64,UklGRgAAAABXQVZF"},
    }
