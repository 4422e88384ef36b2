"""WenetSpeech's mini part: eight Mandarin sentences of ours, read by espeak-ng's ``cmn`` voice
at a low and a high pitch, in the release's own layout: a ``WenetSpeech.json`` of three short
opus recordings, two of test_net (a voice each) and one of test_meeting (the two voices in
turn), each holding its segments with silence between them, so that a run cuts them as it
cuts the release's. A training recording is listed without its audio, as in a copy of the
test audio alone: a run never opens it."""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile as sf

from pytest_audiobench.benchmarks.mini_making import (
    RATE,
    Audio,
    Espeak,
    Voice,
    silence,
    write_text,
)

README = """{count} WenetSpeech segments (`WenetSpeech.json` and three opus recordings under
  `audio/`: five segments of test_net, three of test_meeting), Mandarin read by espeak-ng's
  `cmn` voice at two pitches; a run cuts them out of their recordings as it cuts the
  release's. The built-in cascade (Whisper tiny.en) hears them as English: its character
  error rate is over 100 %, each letter and digit it writes an inserted character."""

LOW = Voice("cmn", 35, "male", 140)
HIGH = Voice("cmn", 75, "female", 140)
GAP = 0.6
"""Seconds of silence before, between and after a recording's segments."""
SERIAL = 0x57454E45
"""The Ogg stream serial number every recording is written with: libsndfile draws one at
random, and the mini's bytes must be the same on every run of the maker."""


@dataclass(frozen=True)
class Recording:
    aid: str
    path: str
    subset: str
    lines: tuple[tuple[Voice, str], ...]


RECORDINGS: tuple[Recording, ...] = (
    Recording("Y9000000001_mini-net-01", "audio/test_net/youtube/B00900/"
              "Y9000000001_mini-net-01.opus", "TEST_NET",
              ((LOW, "今天的天气非常好"), (LOW, "我们一起去公园散步吧"),
               (LOW, "这家饭店的菜很好吃"))),
    Recording("P9000000002_mini-net-02", "audio/test_net/podcast/B00900/"
              "P9000000002_mini-net-02.opus", "TEST_NET",
              ((HIGH, "明天早上八点开会"), (HIGH, "请把窗户关上"))),
    Recording("M9000000003_mini-meeting-01", "audio/test_meeting/M9000000003_mini-meeting-01.opus",
              "TEST_MEETING",
              ((LOW, "下面我们讨论一下预算"), (HIGH, "这个方案我同意"), (LOW, "那就这样决定了"))),
)
UNHEARD = {"aid": "Y9000000000_mini-train-00", "duration": 12.5,
           "path": "audio/train/youtube/B00900/Y9000000000_mini-train-00.opus",
           "source": "youtube",
           "segments": [{"sid": "Y9000000000_mini-train-00_S00000", "confidence": 1.0,
                         "begin_time": 1.0, "end_time": 3.2, "subsets": ["L", "M"],
                         "text": "这段训练录音没有附带音频"}]}
"""A training recording, listed without its audio file."""


def write(out: Path, tts: Espeak) -> int:
    """Write ``WenetSpeech.json`` and the recordings under ``out``; the number of test
    segments."""
    audios = [UNHEARD]
    for recording in RECORDINGS:
        audios.append(_write_recording(out, recording, tts))
    metadata = {"dataset": "WenetSpeech", "language": "Chinese Mandarin", "version": "mini",
                "description": "pytest-audiobench's mini part, in the release's layout",
                "audios": audios}
    write_text(out / "WenetSpeech.json", json.dumps(metadata, indent=4, ensure_ascii=False)
               + "\n")
    return sum(len(r.lines) for r in RECORDINGS)


def _write_recording(out: Path, recording: Recording, tts: Espeak) -> dict[str, object]:
    """The recording's opus file, its segments between silences; its entry in ``audios``."""
    parts, segments = [silence(GAP)], []
    at = GAP
    for number, (voice, text) in enumerate(recording.lines):
        speech = tts.say(text, voice)
        seconds = len(speech) / RATE
        segments.append({"sid": f"{recording.aid}_S{number:05d}", "confidence": 1.0,
                         "begin_time": round(at, 2), "end_time": round(at + seconds, 2),
                         "subsets": [recording.subset], "text": text})
        parts += [speech, silence(GAP)]
        at += seconds + GAP
    audio = np.concatenate(parts)
    data = _opus(audio)
    path = out / recording.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return {"aid": recording.aid, "duration": round(len(audio) / RATE, 2),
            "md5": hashlib.md5(data).hexdigest(), "path": recording.path,
            "source": recording.path.split("/")[2] if recording.subset == "TEST_NET"
            else "meeting", "segments": segments}


def _opus(audio: Audio) -> bytes:
    """`audio` (16 kHz, floats) as an OGG/Opus file of a fixed stream serial number."""
    buffer = io.BytesIO()
    sf.write(buffer, audio, RATE, format="OGG", subtype="OPUS")
    return fixed_serial(buffer.getvalue(), SERIAL)


def fixed_serial(data: bytes, serial: int) -> bytes:
    """The Ogg stream `data` with every page's serial number `serial` and its checksum
    computed again."""
    out = bytearray(data)
    at = 0
    while at < len(out):
        if out[at:at + 4] != b"OggS":
            raise ValueError(f"not an Ogg page at byte {at}")
        count = out[at + 26]
        size = 27 + count + sum(out[at + 27:at + 27 + count])
        out[at + 14:at + 18] = serial.to_bytes(4, "little")
        out[at + 22:at + 26] = bytes(4)
        out[at + 22:at + 26] = _ogg_crc(bytes(out[at:at + size])).to_bytes(4, "little")
        at += size
    return bytes(out)


def _ogg_crc(page: bytes) -> int:
    """Ogg's page checksum: CRC-32 of polynomial 0x04C11DB7, not reflected, starting at 0."""
    crc = 0
    for byte in page:
        crc ^= byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7 if crc & 0x80000000 else crc << 1) & 0xFFFFFFFF
    return crc
