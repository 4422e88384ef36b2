"""The mini data's maker: the voices, sounds and file writers the benchmarks' ``mini`` modules
build their part of the bundled mini benchmark with, ``scripts/make_mini.py`` conducting them.

Imported only by those modules and that script, never while the plugin runs: a run reads the
files they wrote, and only writing them needs espeak-ng and the synthesis below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soundfile as sf

SIZE_LIMIT = 13_000_000
"""The most bytes the bundled mini data may take: it ships in the wheel, thirteen benchmarks
of a few dozen short clips each (nine before the Chinese and multilingual speech recognition
ones: a few hundred kilobytes each)."""

Audio = npt.NDArray[np.float64]

RATE = 16_000
MIN_SECONDS = 1.5
MAX_SECONDS = 4.0
QUESTION_SECONDS = 8.0
"""The longest clip that speaks a whole reasoning question (Big Bench Audio's)."""
DATASET = "mini"
"""The dataset the records name where a layout has a field, or a folder name, for it."""
ESPEAK_MISSING = "espeak-ng not found: install it with apt-get install espeak-ng"


# --- speech -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Voice:
    name: str
    pitch: int
    gender: str
    speed: int = 150


MALE = Voice("en-us", 40, "male")
FEMALE = Voice("en-us+f3", 60, "female")


class Espeak:
    """espeak-ng called once per utterance, its 22,050 Hz output resampled to 16 kHz."""

    def __init__(self) -> None:
        exe = shutil.which("espeak-ng")
        if exe is None:
            raise SystemExit(ESPEAK_MISSING)
        self.exe = exe
        self.version = espeak_version(exe)
        self._tmp = tempfile.TemporaryDirectory(prefix="make_mini-")

    def close(self) -> None:
        self._tmp.cleanup()

    def say(self, text: str, voice: Voice) -> Audio:
        wav = Path(self._tmp.name) / "utterance.wav"
        subprocess.run(
            [self.exe, "-v", voice.name, "-s", str(voice.speed), "-p", str(voice.pitch),
             "-a", "100", "-w", str(wav), text],
            check=True, capture_output=True,
        )
        data, rate = sf.read(wav, dtype="float64", always_2d=False)
        speech = trim(resample(np.asarray(data, dtype=np.float64), int(rate), RATE))
        return speech * (0.8 / float(np.max(np.abs(speech))))


def espeak_version(exe: str | None = None) -> str:
    """``espeak-ng --version`` without the data path, which differs between machines."""
    exe = exe or shutil.which("espeak-ng")
    if exe is None:
        raise SystemExit(ESPEAK_MISSING)
    out = subprocess.run([exe, "--version"], check=True, capture_output=True, text=True).stdout
    return out.split("Data at:")[0].strip()


def resample(signal: Audio, source: int, target: int) -> Audio:
    """Low-pass with a Hann-windowed sinc below the target's Nyquist, then interpolate."""
    if source == target:
        return signal
    cutoff = 0.45 * min(source, target) / source  # cycles per source sample
    n = np.arange(-48, 49, dtype=np.float64)
    taps = 2 * cutoff * np.sinc(2 * cutoff * n) * np.hanning(len(n))
    smooth = np.convolve(signal, taps / taps.sum(), mode="same")
    count = int(len(signal) * target // source)
    positions = np.arange(count, dtype=np.float64) * (source / target)
    return np.interp(positions, np.arange(len(signal), dtype=np.float64), smooth)


def trim(signal: Audio, pad: float = 0.08) -> Audio:
    """Cut the silence espeak-ng leaves around an utterance, keeping ``pad`` seconds."""
    loud = np.flatnonzero(np.abs(signal) > 0.01 * np.max(np.abs(signal)))
    keep = int(pad * RATE)
    start = max(int(loud[0]) - keep, 0)
    stop = min(int(loud[-1]) + keep, len(signal))
    return signal[start:stop]


# --- sounds and music -------------------------------------------------------------------------

def silence(seconds: float) -> Audio:
    return np.zeros(round(seconds * RATE), dtype=np.float64)


def times(seconds: float) -> Audio:
    return np.arange(round(seconds * RATE), dtype=np.float64) / RATE


def fade(signal: Audio, seconds: float = 0.01) -> Audio:
    ramp = min(int(seconds * RATE), len(signal) // 2)
    out = signal.copy()
    if ramp:
        shape = np.linspace(0.0, 1.0, ramp)
        out[:ramp] *= shape
        out[-ramp:] *= shape[::-1]
    return out


def tone(freq: float, seconds: float, amp: float = 0.5) -> Audio:
    return fade(amp * np.sin(2 * np.pi * freq * times(seconds)))


def sweep(start: float, stop: float, seconds: float, amp: float = 0.5) -> Audio:
    """A tone whose pitch glides exponentially from ``start`` to ``stop`` Hz."""
    t = times(seconds)
    ratio = np.log(stop / start)
    phase = 2 * np.pi * start * seconds / ratio * (np.exp(t / seconds * ratio) - 1)
    return fade(amp * np.sin(phase))


def beeps(count: int, freq: float = 1000.0, odd: int | None = None, odd_freq: float = 0.0,
          on: float = 0.12, off: float = 0.18) -> Audio:
    """``count`` evenly spaced beeps; beep number ``odd`` (from 0) at ``odd_freq`` instead."""
    parts = [silence(0.2)]
    for index in range(count):
        parts += [tone(odd_freq if index == odd else freq, on), silence(off)]
    parts.append(silence(0.1))
    return np.concatenate(parts)


def midi(note: int) -> float:
    return 440.0 * 2 ** ((note - 69) / 12)


def note(pitch: int, seconds: float, amp: float = 0.3, decay: float = 2.5) -> Audio:
    """A plucked, organ-like note: three harmonics under an exponential decay."""
    t = times(seconds)
    freq = midi(pitch)
    wave = sum(weight * np.sin(2 * np.pi * freq * k * t)
               for k, weight in ((1, 1.0), (2, 0.4), (3, 0.15)))
    return fade(amp * np.asarray(wave) * np.exp(-decay * t), 0.005)


def chord(pitches: Sequence[int], seconds: float, amp: float = 0.25) -> Audio:
    return layer(*(note(p, seconds, amp, decay=1.2) for p in pitches))


def melody(pitches: Sequence[int], step: float, amp: float = 0.35) -> Audio:
    return np.concatenate([silence(0.1), *(note(p, step, amp, decay=4.0) for p in pitches),
                           silence(0.1)])


def progression(chords: Sequence[Sequence[int]], step: float) -> Audio:
    return np.concatenate([chord(c, step) for c in chords])


def kick(amp: float = 0.8) -> Audio:
    """A drum-like thump: a sine that drops from 150 to 50 Hz and dies within 0.15 s."""
    t = times(0.15)
    freq = 50 + 100 * np.exp(-t * 30)
    phase = 2 * np.pi * np.cumsum(freq) / RATE
    return amp * np.sin(phase) * np.exp(-t * 25)


def beat(bpm: float, seconds: float) -> Audio:
    out = silence(seconds)
    hit = kick()
    step = 60.0 / bpm
    start = 0.1
    while start + len(hit) / RATE <= seconds:
        at = round(start * RATE)
        out[at:at + len(hit)] += hit
        start += step
    return out


def white_noise(seconds: float, seed: int, amp: float = 0.3) -> Audio:
    rng = np.random.default_rng(seed)
    return fade(amp * rng.standard_normal(round(seconds * RATE)) / 3, 0.05)


def brown_noise(seconds: float, seed: int, amp: float = 0.5) -> Audio:
    """White noise through two one-pole low-passes near 80 Hz: a low rumble with no hiss."""
    rng = np.random.default_rng(seed)
    out = rng.standard_normal(round(seconds * RATE))
    for _ in range(2):
        level = 0.0
        for index, value in enumerate(out):
            level = 0.97 * level + 0.03 * value
            out[index] = level
    out -= out.mean()
    return fade(amp * out / np.max(np.abs(out)), 0.05)


def rain(seconds: float, seed: int, amp: float = 0.5) -> Audio:
    """Many short random clicks of random loudness over a faint hiss, like drops on a roof."""
    rng = np.random.default_rng(seed)
    out = 0.03 * rng.standard_normal(round(seconds * RATE))
    drop_t = times(0.006)
    for _ in range(int(seconds * 120)):
        at = int(rng.integers(0, len(out) - len(drop_t)))
        drop = rng.standard_normal(len(drop_t)) * np.exp(-drop_t * 900)
        out[at:at + len(drop_t)] += rng.uniform(0.2, 1.0) * drop
    return fade(amp * out / np.max(np.abs(out)), 0.05)


def rms(signal: Audio) -> float:
    return float(np.sqrt(np.mean(signal ** 2)))


def over(front: Audio, back: Audio, db: float, lead: float = 0.2) -> Audio:
    """``front`` starting ``lead`` s into ``back``, ``back`` set ``db`` dB against ``front`` by
    RMS and cut (with a short fade) to end ``lead`` s after ``front``."""
    front = np.concatenate([silence(lead), front, silence(lead)])
    back = fade(back[:len(front)], 0.05)
    out = front.copy()
    out[:len(back)] += back * (rms(front) / rms(back) * 10 ** (db / 20))
    return out


def layer(*parts: Audio) -> Audio:
    """The parts played together from the start, the shorter ones padded with silence."""
    out = np.zeros(max(len(part) for part in parts))
    for part in parts:
        out[:len(part)] += part
    return out


def then(*parts: Audio, gap: float = 0.25) -> Audio:
    joined: list[Audio] = []
    for index, part in enumerate(parts):
        if index:
            joined.append(silence(gap))
        joined.append(part)
    return np.concatenate(joined)


# --- shared items -----------------------------------------------------------------------------

Maker = Callable[[Espeak], Audio]
"""How an item's clip is made, given the speech synthesizer."""


def said(text: str, voice: Voice, **extra: str) -> str:
    """meta_info for a clip with speech, written the way the release writes it."""
    return repr({"transcription": text, "gender": voice.gender, **extra})


# (speaker, text) pairs of the dialogues, shared by the clip and its meta_info.
TRAIN = ((FEMALE, "When does the train leave?"), (MALE, "It leaves in the morning."))
DRINK = ((FEMALE, "Would you like tea or coffee?"), (MALE, "Coffee, please."))
PARKING = ((MALE, "Where did you park the car?"), (FEMALE, "Next to the library."))
WEEKEND = ((FEMALE, "Are you free on Sunday?"), (MALE, "Yes, I am free all day."))
C_MAJOR = (60, 64, 67)
A_MINOR = (57, 60, 64)


def dialogue(turns: Sequence[tuple[Voice, str]]) -> Maker:
    return lambda tts: then(*(tts.say(text, voice) for voice, text in turns), gap=0.25)


def dialogue_info(turns: Sequence[tuple[Voice, str]]) -> str:
    lines = [f"Speaker {1 + index % 2} ({voice.gender}): {text}"
             for index, (voice, text) in enumerate(turns)]
    return repr({"transcription": " ".join(lines), "speakers": 2})


# --- writing ----------------------------------------------------------------------------------

def write_wav(path: Path, audio: Audio, fmt: str = "WAV", longest: float = MAX_SECONDS) -> None:
    """16 kHz mono PCM16 at ``path``, padded to ``MIN_SECONDS``; no longer than ``longest``
    (a spoken question takes longer than a clip to hear a sound in)."""
    seconds = len(audio) / RATE
    if seconds > longest:
        raise SystemExit(f"{path.name}: {seconds:.2f} s is longer than {longest} s")
    if seconds < MIN_SECONDS:
        audio = np.concatenate([audio, silence(MIN_SECONDS - seconds)])
    peak = float(np.max(np.abs(audio)))
    if peak > 0.95:  # mixes can add up past full scale: scale down rather than clip
        audio = audio * (0.95 / peak)
    pcm = np.round(audio * 32767).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    # MP3 at the encoder's default quality: speech as clear as the WAV's, a fifth of its size.
    sf.write(path, pcm, RATE, subtype="MPEG_LAYER_III" if fmt == "MP3" else "PCM_16",
             format=fmt)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def write_json(path: Path, records: Sequence[dict[str, Any]]) -> None:
    """``records`` as an indented JSON list, non-ASCII kept as the releases keep it."""
    write_text(path, json.dumps(records, indent=2, ensure_ascii=False) + "\n")
