#!/usr/bin/env python
"""Write the bundled mini benchmark: AIR-Bench Chat, MMAR, AIR-Bench Foundation and MMAU layouts
with synthesized audio.

    python scripts/make_mini.py [--out DIR]

Every clip is made here: speech with espeak-ng, tones, chords, beats and noise with numpy
(fixed seeds). Nothing comes from the real releases. Running it twice writes byte-identical
files, given the same espeak-ng version (recorded in MANIFEST.json). See the README.md it
writes next to the data.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soundfile as sf

Audio = npt.NDArray[np.float64]

REPO = Path(__file__).resolve().parents[1]
DEFAULT_OUT = REPO / "pytest_audiobench" / "data" / "mini"
RATE = 16_000
MIN_SECONDS = 1.5
MAX_SECONDS = 4.0
SIZE_LIMIT = 6_000_000
DATASET = "mini"
SOURCE = "pytest-audiobench mini"
# What the script owns inside --out: removed before writing, so no stale file survives.
OWNED = ("air_bench_chat", "mmar", "air_bench_foundation", "mmau", "MANIFEST.json",
         "README.md")
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


# --- items ------------------------------------------------------------------------------------

Maker = Callable[[Espeak], Audio]


@dataclass(frozen=True)
class ChatItem:
    task: str
    file: str
    question: str
    answer: str
    meta_info: str
    make: Maker


@dataclass(frozen=True)
class MmarItem:
    name: str
    modality: str
    category: str
    sub_category: str
    question: str
    choices: tuple[str, ...]
    answer: str
    thinking: str
    cue: tuple[str, str]
    link: str
    """What the reasoning must connect, completing "Award 1 point if the reasoning ..."."""
    absent: str
    """Something not in the clip, completing "... does not claim ..."."""
    make: Maker
    spoken: bool = False


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


CHAT: tuple[ChatItem, ...] = (
    # speech_QA
    ChatItem("speech_QA", "apples.wav", "How many apples did the speaker buy?",
             "Five apples.", said("I bought five apples and two pears.", MALE),
             lambda tts: tts.say("I bought five apples and two pears.", MALE)),
    ChatItem("speech_QA", "introduction.wav", "What is the speaker's name?",
             "The speaker's name is David.", said("Hello, my name is David.", MALE),
             lambda tts: tts.say("Hello, my name is David.", MALE)),
    ChatItem("speech_QA", "directions.wav",
             "Where should the listener turn left, and what should they do next?",
             "Turn left at the bank, then walk two blocks.",
             said("Turn left at the bank, then walk two blocks.", MALE),
             lambda tts: tts.say("Turn left at the bank, then walk two blocks.", MALE)),
    # speech_dialogue_QA
    ChatItem("speech_dialogue_QA", "train.wav",
             "According to the second speaker, when does the train leave?",
             "In the morning.", dialogue_info(TRAIN), dialogue(TRAIN)),
    ChatItem("speech_dialogue_QA", "drink.wav", "Which drink does the second speaker choose?",
             "Coffee.", dialogue_info(DRINK), dialogue(DRINK)),
    ChatItem("speech_dialogue_QA", "parking.wav", "Where was the car parked?",
             "Next to the library.", dialogue_info(PARKING), dialogue(PARKING)),
    # sound_QA
    ChatItem("sound_QA", "four_beeps.wav", "How many beeps can you hear?",
             "Four beeps.", "Four short 1 kHz beeps, evenly spaced, with silence between them.",
             lambda tts: beeps(4)),
    ChatItem("sound_QA", "rumble.wav", "Is this sound a high hiss or a low rumble?",
             "A low, steady rumble.", "1.6 seconds of brown noise: a steady low rumble.",
             lambda tts: brown_noise(1.6, seed=11)),
    ChatItem("sound_QA", "rising_sweep.wav", "Does the pitch of the tone go up or down?",
             "It goes up, from low to high.",
             "A pure tone sweeping up from 300 Hz to 2,400 Hz over 1.6 seconds.",
             lambda tts: sweep(300, 2400, 1.6)),
    # sound_generation_QA
    ChatItem("sound_generation_QA", "rain.wav",
             "Describe the texture of this sound and what it resembles.",
             "Many short random clicks over a faint hiss, like rain drops falling.",
             "Synthetic rain: random short clicks of varying loudness over faint noise.",
             lambda tts: rain(1.6, seed=12)),
    ChatItem("sound_generation_QA", "falling_sweep.wav",
             "How does the tone change over time?",
             "It falls steadily from a high pitch to a low pitch.",
             "A pure tone sweeping down from 2,000 Hz to 250 Hz over 1.6 seconds.",
             lambda tts: sweep(2000, 250, 1.6)),
    ChatItem("sound_generation_QA", "siren.wav",
             "How many different pitches alternate in this sound?",
             "Two pitches alternate, like a siren.",
             "A two-tone siren: 700 Hz and 950 Hz alternating every 0.25 seconds.",
             lambda tts: np.concatenate([tone(f, 0.25, 0.4) for f in (700, 950) * 3])),
    # music_QA
    ChatItem("music_QA", "major_chord.wav", "Is this chord major or minor?",
             "Major (a C major chord).", "A C major triad (C4, E4, G4) held for 1.6 seconds.",
             lambda tts: chord(C_MAJOR, 1.6)),
    ChatItem("music_QA", "minor_chord.wav", "Is this chord major or minor?",
             "Minor (an A minor chord).", "An A minor triad (A3, C4, E4) held for 1.6 seconds.",
             lambda tts: chord(A_MINOR, 1.6)),
    ChatItem("music_QA", "slow_beat.wav", "Is the beat fast or slow?",
             "Slow, about one beat per second (60 BPM).",
             "A drum-like thump at 60 beats per minute, three beats.",
             lambda tts: beat(60, 2.3)),
    # music_generation_analysis_QA
    ChatItem("music_generation_analysis_QA", "scale_up.wav",
             "Does the melody go up or down?", "It goes up: an ascending C major scale.",
             "An ascending C major scale, C4 to C5, eight notes.",
             lambda tts: melody((60, 62, 64, 65, 67, 69, 71, 72), 0.22)),
    ChatItem("music_generation_analysis_QA", "fast_beat.wav",
             "Roughly what is the tempo of this beat?",
             "Fast, about three beats per second (180 BPM).",
             "A drum-like thump at 180 beats per minute for 1.7 seconds.",
             lambda tts: beat(180, 1.7)),
    ChatItem("music_generation_analysis_QA", "low_note.wav", "Is this note low or high?",
             "Low: a bass note (A2, 110 Hz).",
             "A single low note, A2 (110 Hz), decaying over 1.6 seconds.",
             lambda tts: note(45, 1.6, 0.6, decay=1.0)),
    # speech_and_sound_QA
    ChatItem("speech_and_sound_QA", "meeting_noise.wav", "Where is the meeting?",
             "In the library.",
             said("The meeting is in the library.", FEMALE, background="white noise, quieter"),
             lambda tts: over(tts.say("The meeting is in the library.", FEMALE),
                              white_noise(2.4, seed=21), -14)),
    ChatItem("speech_and_sound_QA", "wait_beeps.wav",
             "How many beeps come after the speech?", "Three beeps.",
             said("Please wait for the signal.", FEMALE, background="three beeps after it"),
             lambda tts: then(tts.say("Please wait for the signal.", FEMALE), beeps(3),
                              gap=0.1)),
    ChatItem("speech_and_sound_QA", "umbrella_rain.wav",
             "What does the speaker tell the listener to take?", "Their umbrella.",
             said("Take your umbrella with you.", MALE, background="rain-like clicks, quieter"),
             lambda tts: over(tts.say("Take your umbrella with you.", MALE),
                              rain(2.2, seed=23), -18)),
    # speech_and_music_QA
    ChatItem("speech_and_music_QA", "morning_show.wav", "What is said over the music?",
             "Welcome to the morning show.",
             said("Welcome to the morning show.", FEMALE,
                  background="C, F, G, C chords, quieter"),
             lambda tts: over(tts.say("Welcome to the morning show.", FEMALE),
                              progression((C_MAJOR, (60, 65, 69), (59, 62, 67), C_MAJOR),
                                          0.6), -12)),
    ChatItem("speech_and_music_QA", "louder_voice.wav",
             "Which is louder, the voice or the music?",
             "The voice is louder than the music.",
             said("Listen to my voice.", MALE, background="a beat at 120 BPM, much quieter"),
             lambda tts: over(tts.say("Listen to my voice.", MALE), beat(120, 2.2), -15)),
    ChatItem("speech_and_music_QA", "green.wav", "What is the speaker's favorite color?",
             "Green.",
             said("My favorite color is green.", FEMALE,
                  background="an A minor chord, quieter"),
             lambda tts: over(tts.say("My favorite color is green.", FEMALE),
                              chord(A_MINOR, 2.3), -12)),
)


MMAR: tuple[MmarItem, ...] = (
    # sound
    MmarItem("beep_count", "sound", "Perception Layer", "Counting and Statistics",
             "How many beeps are in the clip?", ("three", "four", "five", "six"), "five",
             "The clip holds short identical beeps separated by silence. Counting them one by "
             "one gives five, so the answer is five.",
             ("short identical beeps", "silence between the beeps"),
             "counts the beeps one by one", "a voice or music",
             lambda tts: beeps(5)),
    MmarItem("noise_color", "sound", "Signal Layer", "Acoustic Quality Analysis",
             "Which best describes the noise?", ("a high, bright hiss", "a low, dull rumble"),
             "a high, bright hiss",
             "The noise is steady and its energy reaches the highest frequencies, which is "
             "heard as a bright hiss rather than a rumble.",
             ("steady broadband noise", "strong high frequencies"),
             "ties the strong high frequencies to a hiss", "a tone or a rhythm",
             lambda tts: white_noise(1.6, seed=31, amp=0.6)),
    MmarItem("sweep_direction", "sound", "Perception Layer", "Temporal Analysis",
             "How does the pitch of the tone move?", ("rising", "falling", "steady"), "falling",
             "A single pure tone starts high and ends low, gliding without steps, so its pitch "
             "is falling.",
             ("a single pure tone", "the pitch is higher at the start than at the end"),
             "compares the pitch at the start with the pitch at the end", "several tones",
             lambda tts: sweep(1800, 300, 1.6)),
    MmarItem("odd_beep", "sound", "Perception Layer", "Anomaly Detection",
             "Which beep sounds different from the others?",
             ("first", "second", "third", "fourth"), "third",
             "There are four beeps; three share the same pitch and the third one is clearly "
             "higher, so the third beep is the odd one.",
             ("four beeps", "the third beep is higher in pitch"),
             "compares each beep's pitch with the others", "a change in loudness",
             lambda tts: beeps(4, 800, odd=2, odd_freq=1600)),
    MmarItem("tone_pair", "sound", "Signal Layer", "Audio Difference Analysis",
             "How does the second tone differ from the first?",
             ("higher", "lower", "louder", "longer"), "lower",
             "Two tones of the same length and loudness follow each other; the second has a "
             "lower pitch than the first.",
             ("two tones of equal length and loudness", "the second tone is lower in pitch"),
             "rules out loudness and length as the difference", "noise or speech",
             lambda tts: then(silence(0.1), tone(880, 0.5), tone(440, 0.5), silence(0.1),
                              gap=0.25)),
    # music
    MmarItem("chord_quality", "music", "Cultural Layer", "Music Theory",
             "What is the quality of this chord?", ("major", "minor"), "minor",
             "Three notes sound together; the lowest is A and the middle note is a minor third "
             "above it (C), so this is an A minor triad.",
             ("three notes played together", "a minor third above the root"),
             "names the interval above the root as what makes the chord minor",
             "a melody or a drum",
             lambda tts: chord(A_MINOR, 1.6)),
    MmarItem("tempo", "music", "Perception Layer", "Counting and Statistics",
             "What is the tempo of the beat?", ("60 BPM", "120 BPM", "180 BPM"), "120 BPM",
             "The thumps are evenly spaced half a second apart, two per second, which is 120 "
             "beats per minute.",
             ("evenly spaced drum thumps", "two thumps per second"),
             "converts the spacing of the thumps into beats per minute", "a melody",
             lambda tts: beat(120, 2.1)),
    MmarItem("scale_direction", "music", "Perception Layer", "Music Theory",
             "Is the scale ascending or descending?", ("ascending", "descending"), "descending",
             "Eight notes follow each other step by step, each lower than the one before, from "
             "C5 down to C4: a descending scale.",
             ("eight notes in steps", "each note lower than the last"),
             "follows the pitch from note to note", "chords",
             lambda tts: melody((72, 71, 69, 67, 65, 64, 62, 60), 0.22)),
    MmarItem("cluster", "music", "Cultural Layer", "Aesthetic Evaluation",
             "How does this chord sound?", ("consonant", "dissonant"), "dissonant",
             "The chord stacks three neighbouring semitones (C, C sharp, D); notes that close "
             "beat against each other and sound harsh, so it is dissonant.",
             ("notes a semitone apart", "audible beating between the notes"),
             "links the close intervals to the harsh sound", "a major or minor triad",
             lambda tts: chord((60, 61, 62), 1.6)),
    # speech
    MmarItem("apples", "speech", "Semantic Layer", "Content Analysis",
             "How many apples did the speaker buy?", ("three", "five", "seven", "nine"), "five",
             "The speaker says they bought five apples and two pears. The question asks only "
             "about apples, so the answer is five.",
             ("the speaker says five apples", "two refers to pears, not apples"),
             "separates the number of apples from the number of pears", "background music",
             lambda tts: tts.say("I bought five apples and two pears.", MALE), spoken=True),
    MmarItem("name", "speech", "Semantic Layer", "Content Analysis",
             "What is the speaker's name?", ("David", "Sophia", "Marcus", "Helen"), "David",
             "The speaker introduces himself with 'my name is David', so the name is David.",
             ("a self-introduction", "the name David"),
             "uses the introduction phrase to identify the name", "a second speaker",
             lambda tts: tts.say("Hello, my name is David.", MALE), spoken=True),
    MmarItem("directions", "speech", "Semantic Layer", "Content Analysis",
             "Where should the listener turn left?", ("bank", "school", "church", "station"),
             "bank",
             "The instruction is to turn left at the bank and then walk two blocks, so the "
             "turn is at the bank.",
             ("turn left at the bank", "walk two blocks afterwards"),
             "keeps the order of the two instructions", "any landmark besides the bank",
             lambda tts: tts.say("Turn left at the bank, then walk two blocks.", MALE),
             spoken=True),
    MmarItem("window", "speech", "Semantic Layer", "Emotion and Intention",
             "What does the speaker want?",
             ("close the window", "open the door", "turn on the light"), "close the window",
             "The speaker asks to close the window and gives the cold as the reason, so they "
             "want the window closed.",
             ("a polite request to close the window", "the reason given is the cold"),
             "connects the request with its reason", "an angry tone",
             lambda tts: tts.say("Please close the window, it is cold.", FEMALE), spoken=True),
    MmarItem("voices", "speech", "Perception Layer", "Speaker Analysis",
             "How many different people speak?", ("one", "two", "three"), "two",
             "A question in a higher, female voice is answered in a lower, male voice: two "
             "different speakers take turns.",
             ("a higher voice asks a question", "a lower voice answers"),
             "tells the voices apart by pitch and turn-taking", "overlapping speech",
             dialogue(WEEKEND), spoken=True),
    MmarItem("gender", "speech", "Perception Layer", "Speaker Analysis",
             "Which voice is more likely speaking?", ("male", "female"), "male",
             "The voice is low-pitched with a deep timbre, typical of an adult male speaker.",
             ("a low-pitched voice", "a deep timbre"),
             "links the low pitch to a male speaker", "a second voice",
             lambda tts: tts.say("Good morning, everyone.", MALE), spoken=True),
    # mix-sound-music
    MmarItem("beeps_over_chord", "mix-sound-music", "Perception Layer",
             "Counting and Statistics",
             "How many beeps sound over the chord?", ("two", "three", "four"), "three",
             "A held chord plays throughout; on top of it short high beeps sound three times.",
             ("a held chord underneath", "three short high beeps"),
             "separates the beeps from the chord before counting", "speech",
             lambda tts: layer(chord(C_MAJOR, 1.7), 0.7 * beeps(3, 1500, off=0.3))),
    MmarItem("music_vs_noise", "mix-sound-music", "Signal Layer", "Acoustic Quality Analysis",
             "Which is louder?", ("the melody", "the hiss"), "the melody",
             "A clear melody plays in front of a faint, steady hiss; the notes stay well above "
             "the noise, so the melody is louder.",
             ("a clear melody", "a faint steady hiss behind it"),
             "compares the level of the melody with the level of the hiss", "a voice",
             lambda tts: over(melody((67, 64, 60, 64, 67, 72), 0.25),
                              white_noise(1.9, seed=41), -18, lead=0.1)),
    MmarItem("noise_burst", "mix-sound-music", "Perception Layer", "Anomaly Detection",
             "What interrupts the steady beat?",
             ("a burst of noise", "a spoken word", "a sudden silence"), "a burst of noise",
             "An even drum beat runs through the clip, and in the middle a short loud burst of "
             "hiss sounds over it; no voice is heard and the beat does not stop.",
             ("an even drum beat", "a short loud burst of hiss in the middle"),
             "notes that the beat continues while the hiss sounds", "a voice",
             lambda tts: layer(beat(150, 2.0), np.concatenate(
                 [silence(0.8), white_noise(0.35, seed=42, amp=1.5)]))),
    # mix-sound-speech
    MmarItem("meeting", "mix-sound-speech", "Semantic Layer", "Content Analysis",
             "Where is the meeting?", ("library", "kitchen", "garden", "office"), "library",
             "Over a steady hiss, the speaker says the meeting is in the library.",
             ("a voice over steady noise", "the word library"),
             "picks the place out of the speech despite the noise", "music",
             lambda tts: over(tts.say("The meeting is in the library.", MALE),
                              white_noise(2.6, seed=51), -18), spoken=True),
    MmarItem("umbrella", "mix-sound-speech", "Semantic Layer",
             "Environmental Perception and Reasoning",
             "What weather is most likely around the speaker?",
             ("rain", "snow", "heat", "wind"), "rain",
             "Behind the voice there are many random patters like drops, and the speaker says "
             "to take an umbrella: both point to rain.",
             ("patter like rain drops behind the voice", "the advice to take an umbrella"),
             "combines the background sound with the spoken advice", "thunder",
             lambda tts: over(tts.say("Take your umbrella with you.", FEMALE),
                              rain(2.2, seed=52), -12), spoken=True),
    MmarItem("after_speech", "mix-sound-speech", "Perception Layer", "Temporal Analysis",
             "What comes right after the speech?", ("beeps", "music", "silence"), "beeps",
             "The speaker asks to wait, and as soon as the voice stops two short beeps follow.",
             ("the voice comes first", "two beeps follow it"),
             "keeps the order of the voice and the beeps", "music",
             lambda tts: then(tts.say("Please wait.", MALE), beeps(2), gap=0.1), spoken=True),
    MmarItem("voice_vs_noise", "mix-sound-speech", "Signal Layer", "Acoustic Quality Analysis",
             "Which is louder, the voice or the hiss?", ("voice", "hiss"), "hiss",
             "A loud, steady hiss fills the clip and partly masks the voice speaking over it: "
             "the hiss is louder.",
             ("a loud steady hiss", "a weaker, partly masked voice"),
             "compares the two levels", "music",
             lambda tts: over(tts.say("Can you hear me?", FEMALE),
                              white_noise(2.0, seed=53), 4), spoken=True),
    # mix-music-speech
    MmarItem("morning_show", "mix-music-speech", "Semantic Layer", "Content Analysis",
             "Which part of the day is the show for?",
             ("morning", "afternoon", "evening", "night"), "morning",
             "Over a soft chord progression the host says 'welcome to the morning show'.",
             ("a host's greeting over chords", "the word morning"),
             "takes the time of day from the greeting", "applause",
             lambda tts: over(tts.say("Welcome to the morning show.", MALE),
                              progression((C_MAJOR, (57, 60, 65), (59, 62, 67), C_MAJOR),
                                          0.6), -12), spoken=True),
    MmarItem("voice_vs_music", "mix-music-speech", "Signal Layer", "Acoustic Quality Analysis",
             "Which is louder, the voice or the music?", ("voice", "music"), "voice",
             "A quiet beat plays under the speech; the voice is clearly in front of it, so the "
             "voice is louder.",
             ("a quiet beat underneath", "a clear voice in front"),
             "compares the two levels", "noise",
             lambda tts: over(tts.say("Listen to my voice.", FEMALE), beat(120, 2.2), -15),
             spoken=True),
    MmarItem("dance", "mix-music-speech", "Semantic Layer", "Imagination",
             "Which activity would this audio suit best?",
             ("dance", "sleep", "study"), "dance",
             "A fast, driving beat plays while the speaker invites the listener to dance, which "
             "suits dancing far better than sleep or study.",
             ("a fast driving beat", "an invitation to dance"),
             "connects the fast beat and the invitation to an activity", "a slow lullaby",
             lambda tts: over(tts.say("Come and dance with me.", MALE), beat(150, 2.0), -10),
             spoken=True),
    # mix-sound-music-speech
    MmarItem("color", "mix-sound-music-speech", "Semantic Layer", "Content Analysis",
             "What is the speaker's favorite color?", ("red", "green", "blue", "yellow"),
             "green",
             "Over a soft chord and a faint hiss, the speaker says their favorite color is "
             "green.",
             ("the phrase favorite color", "the word green"),
             "ignores the chord and the hiss to get the spoken word", "a second speaker",
             lambda tts: over(tts.say("My favorite color is green.", FEMALE),
                              chord(C_MAJOR, 2.3) + white_noise(2.3, seed=61, amp=0.1), -12),
             spoken=True),
    MmarItem("layers", "mix-sound-music-speech", "Perception Layer",
             "Correlation Analysis",
             "Besides the voice, what else can be heard?",
             ("music and rain", "only music", "only rain"), "music and rain",
             "Under the voice a chord plays and random drops patter at the same time, so both "
             "music and rain are heard.",
             ("a chord under the voice", "random patter like rain"),
             "keeps both background layers apart", "a second voice",
             lambda tts: over(tts.say("Welcome back.", FEMALE),
                              chord(A_MINOR, 1.8) + 0.6 * rain(1.8, seed=62), -8), spoken=True),
    MmarItem("concert", "mix-sound-music-speech", "Semantic Layer", "Content Analysis",
             "On which day is the concert?", ("Monday", "Wednesday", "Friday", "Sunday"),
             "Friday",
             "A steady A at 440 Hz, the pitch orchestras tune to, and a faint hiss sit under "
             "the voice, which says the concert is on Friday.",
             ("the tuning note A 440", "the word Friday"),
             "takes the day from the speech, not from the tone", "applause",
             lambda tts: over(tts.say("The concert is on Friday.", FEMALE),
                              tone(440, 2.1, 0.3) + white_noise(2.1, seed=63, amp=0.1), -12),
             spoken=True),
)



@dataclass(frozen=True)
class FoundationItem:
    task: str
    file: str
    question: str
    options: tuple[str, ...]
    answer: str
    make: Maker


FRENCH = Voice("fr", 50, "male")
FOUNDATION: tuple[FoundationItem, ...] = (
    # speech
    FoundationItem("Speaker_Gender_Recognition", "woman.wav", "Is the speaker male or female?",
                   ("male", "female"), "female",
                   lambda tts: tts.say("The library opens at nine today.", FEMALE)),
    FoundationItem("Speaker_Gender_Recognition", "man.wav", "Is the speaker male or female?",
                   ("male", "female"), "male",
                   lambda tts: tts.say("Please close the window behind you.", MALE)),
    FoundationItem("Speaker_Number_Verification", "two_voices.wav",
                   "How many different people speak in the clip?",
                   ("one", "two", "three", "four"), "two", dialogue(DRINK)),
    FoundationItem("Spoken_Language_Identification", "bonjour.wav",
                   "Which language is spoken?", ("English", "French", "German", "Spanish"),
                   "French", lambda tts: tts.say("Bonjour, je voudrais un café.", FRENCH)),
    FoundationItem("Speech_Entity_Reconition", "lisbon.wav", "Which city does the speaker name?",
                   ("Paris", "Lisbon", "Rome", "Berlin"), "Lisbon",
                   lambda tts: tts.say("I am flying to Lisbon on Monday.", MALE)),
    FoundationItem("Speaker_Intent_Classification", "alarm.wav",
                   "What does the speaker want to do?",
                   ("set an alarm", "play music", "check the weather", "send a message"),
                   "set an alarm",
                   lambda tts: tts.say("Wake me up at seven tomorrow morning.", FEMALE)),
    FoundationItem("Synthesized_Voice_Detection", "robot_voice.wav",
                   "Is the voice in the clip a real person or synthesized?",
                   ("real", "synthesized"), "synthesized",
                   lambda tts: tts.say("This message was recorded for you.", MALE)),
    # sound
    FoundationItem("Acoustic_Scene_Classification", "rainy_roof.wav", "Where was this recorded?",
                   ("in the rain", "on a busy street", "in a quiet office", "at a beach"),
                   "in the rain", lambda tts: rain(2.5, seed=71)),
    FoundationItem("Sound_AQA", "four_beeps.wav", "How many beeps are there?",
                   ("two", "three", "four", "five"), "four", lambda tts: beeps(4)),
    FoundationItem("Audio_Grounding", "high_beep.wav", "When does the high beep sound?",
                   ("at the start", "in the middle", "at the end"), "at the end",
                   lambda tts: beeps(5, odd=4, odd_freq=2000.0)),
    # music
    FoundationItem("Music_Instruments_Classfication", "drums.wav",
                   "Which instrument is playing?", ("drums", "violin", "flute", "trumpet"),
                   "drums", lambda tts: beat(120, 2.5)),
    FoundationItem("Music_Midi_Pitch_Analysis", "a440.wav", "Which note is played?",
                   ("A4", "C4", "E5", "G3"), "A4", lambda tts: note(69, 2.0, decay=1.0)),
    FoundationItem("Music_Midi_Velocity_Analysis", "loud_note.wav",
                   "Is the note played loud or soft?", ("loud", "soft"), "loud",
                   lambda tts: note(60, 2.0, amp=0.9, decay=1.0)),
    FoundationItem("Music_Mood_Recognition", "bright_chords.wav",
                   "What is the mood of the music?", ("happy", "sad"), "happy",
                   lambda tts: progression([C_MAJOR, (65, 69, 72), (67, 71, 74), C_MAJOR],
                                           0.6)),
    FoundationItem("Music_AQA", "three_chords.wav", "How many chords are played?",
                   ("two", "three", "four", "five"), "three",
                   lambda tts: progression([C_MAJOR, A_MINOR, C_MAJOR], 0.7)),
)
FOUNDATION_DATASETS = {
    "Speaker_Gender_Recognition": "meld", "Speaker_Number_Verification": "voxceleb1",
    "Spoken_Language_Identification": "covost2", "Speech_Entity_Reconition": "slurp",
    "Speaker_Intent_Classification": "slurp", "Synthesized_Voice_Detection": "fake_or_real",
    "Acoustic_Scene_Classification": "TUT2017", "Sound_AQA": "clothoaqa",
    "Audio_Grounding": "AudioGrounding", "Music_Instruments_Classfication": "nsynth",
    "Music_Midi_Pitch_Analysis": "nsynth", "Music_Midi_Velocity_Analysis": "nsynth",
    "Music_Mood_Recognition": "MTJ-Jamendo", "Music_AQA": "music_avqa",
}
"""Each task's folder: the release's own folder names, so that the items have the node ids of
the real ones (the audio and the text are this project's, whatever the folder says)."""
FLAC_TASKS = ("Audio_Grounding",)
"""Tasks whose records name a .wav the release stores as .flac (as the real one does)."""



@dataclass(frozen=True)
class MmauItem:
    task: str
    difficulty: str
    category: str
    sub_category: str
    question: str
    choices: tuple[str, ...]
    answer: str
    make: Maker


MMAU: tuple[MmauItem, ...] = (
    # speech
    MmauItem("speech", "easy", "Information Extraction", "Conversational Fact Retrieval",
             "What does the man want to drink?", ("tea", "coffee", "water"), "coffee",
             dialogue(DRINK)),
    MmauItem("speech", "medium", "Information Extraction", "Key highlight Extraction",
             "Where did the woman say the car is parked?",
             ("next to the library", "behind the station", "at the airport",
              "in front of the bank"), "next to the library", dialogue(PARKING)),
    MmauItem("speech", "medium", "Reasoning", "Counting",
             "How many different people speak in the clip?", ("one", "two", "three", "four",
                                                              "five"), "two", dialogue(WEEKEND)),
    MmauItem("speech", "hard", "Reasoning", "Multi Speaker Role Mapping",
             "Who asks the question in the conversation?", ("the woman", "the man"),
             "the woman", dialogue(TRAIN)),
    # sound
    MmauItem("sound", "easy", "Information Extraction", "Sound-Based Event Recognition",
             "How many beeps are heard?", ("two", "three", "four", "six"), "three",
             lambda tts: beeps(3)),
    MmauItem("sound", "medium", "Reasoning", "Acoustic Scene Reasoning",
             "What weather is most likely outside?", ("rain", "snow", "fog"), "rain",
             lambda tts: rain(2.5, seed=81)),
    MmauItem("sound", "hard", "Reasoning", "Temporal Event Reasoning",
             "Which beep differs from the others?", ("the first", "the last", "the second"),
             "the last", lambda tts: beeps(4, odd=3, odd_freq=1800.0)),
    MmauItem("sound", "medium", "Reasoning", "Acoustic Source Inference",
             "What kind of signal is heard?", ("a steady hiss", "a ringing phone",
                                               "a barking dog", "footsteps"), "a steady hiss",
             lambda tts: white_noise(2.0, seed=82)),
    # music
    MmauItem("music", "easy", "Information Extraction", "Instrumentation",
             "Which instrument keeps the rhythm?", ("a drum", "a violin", "a flute"), "a drum",
             lambda tts: beat(110, 2.5)),
    MmauItem("music", "medium", "Reasoning", "Harmony and Chord Progressions",
             "How many chords are played?", ("two", "three", "four", "five"), "four",
             lambda tts: progression([C_MAJOR, A_MINOR, (65, 69, 72), C_MAJOR], 0.6)),
    MmauItem("music", "hard", "Reasoning", "Melodic Structure Interpretation",
             "Does the melody rise or fall?", ("it rises", "it falls"), "it rises",
             lambda tts: melody((60, 62, 64, 65, 67, 69, 71, 72), 0.25)),
    MmauItem("music", "medium", "Reasoning", "Emotional Tone Interpretation",
             "What mood does the music carry?", ("happy", "sad", "angry", "fearful"), "sad",
             lambda tts: progression([A_MINOR, (53, 57, 60), (52, 55, 59), A_MINOR], 0.7)),
)
"""MMAU items in the published layout (``mmau-test-mini.json``, ``test-mini-audios/``): the
three tasks, the three difficulties, two to five options; their text and audio are ours."""

# --- records ----------------------------------------------------------------------------------

def chat_record(index: int, item: ChatItem) -> dict[str, Any]:
    return {"path": item.file, "question": item.question, "answer_gt": item.answer,
            "task_name": item.task, "dataset_name": DATASET, "meta_info": item.meta_info,
            "uniq_id": index}


def mmar_record(index: int, item: MmarItem) -> dict[str, Any]:
    return {
        "id": f"mini-{index:03d}", "audio_path": f"./audio/{item.name}.wav",
        "question": item.question, "choices": list(item.choices), "answer": item.answer,
        "modality": item.modality, "category": item.category,
        "sub-category": item.sub_category, "language": "en" if item.spoken else None,
        "source": SOURCE, "url": None, "timestamp": None, "thinking": item.thinking,
        "cue": list(item.cue), "rubric": rubric(item),
    }


def foundation_record(index: int, item: FoundationItem) -> dict[str, Any]:
    record: dict[str, Any] = {"path": item.file, "question": item.question}
    for key, option in zip(("choice_a", "choice_b", "choice_c", "choice_d"), item.options,
                           strict=False):
        record[key] = option
    record.update({"answer_gt": item.answer, "task_name": item.task,
                   "dataset_name": FOUNDATION_DATASETS[item.task], "uniq_id": index})
    return record


def mmau_record(index: int, item: MmauItem) -> dict[str, Any]:
    ident = f"mini-{index:03d}"
    return {"id": ident, "audio_id": f"./test-mini-audios/{ident}.wav",
            "question": item.question, "choices": list(item.choices), "answer": item.answer,
            "dataset": DATASET, "task": item.task, "split": "test-mini",
            "category": item.category, "sub-category": item.sub_category,
            "difficulty": item.difficulty}


def rubric(item: MmarItem) -> list[dict[str, Any]]:
    def criterion(name: str, point: str, note: str) -> dict[str, Any]:
        return {"name": name, "scoring_point": f"Award 1 point if the reasoning {point}.",
                "note": note, "choices": [0, 1]}

    return [
        criterion("First cue", f"mentions {item.cue[0]}",
                  "The answer rests on hearing this in the clip."),
        criterion("Second cue", f"mentions {item.cue[1]}",
                  "The second piece of evidence the answer needs."),
        criterion("Inference", item.link, "The step from what is heard to the answer."),
        criterion("Answer", f"concludes with \"{item.answer}\"",
                  "The reasoning must end at the reference answer."),
        criterion("No invention", f"does not claim {item.absent}",
                  "The clip holds nothing of the kind."),
    ]


# --- writing ----------------------------------------------------------------------------------

def write_wav(path: Path, audio: Audio, fmt: str = "WAV") -> None:
    seconds = len(audio) / RATE
    if seconds > MAX_SECONDS:
        raise SystemExit(f"{path.name}: {seconds:.2f} s is longer than {MAX_SECONDS} s")
    if seconds < MIN_SECONDS:
        audio = np.concatenate([audio, silence(MIN_SECONDS - seconds)])
    peak = float(np.max(np.abs(audio)))
    if peak > 0.95:  # mixes can add up past full scale: scale down rather than clip
        audio = audio * (0.95 / peak)
    pcm = np.round(audio * 32767).astype(np.int16)
    path.parent.mkdir(parents=True, exist_ok=True)
    sf.write(path, pcm, RATE, subtype="PCM_16", format=fmt)


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8"))


def build(out: Path) -> None:
    tts = Espeak()
    try:
        for name in OWNED:
            target = out / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()
        chat_root = out / "air_bench_chat" / "Chat"
        for chat in CHAT:
            write_wav(chat_root / f"{chat.task}_{DATASET}" / chat.file, chat.make(tts))
        records = [chat_record(index, chat) for index, chat in enumerate(CHAT, start=1)]
        write_text(chat_root / "Chat_meta.json",
                   json.dumps(records, indent=2, ensure_ascii=False) + "\n")

        mmar_root = out / "mmar"
        for item in MMAR:
            write_wav(mmar_root / "audio" / f"{item.name}.wav", item.make(tts))
        lines = [json.dumps(mmar_record(index, item), ensure_ascii=False)
                 for index, item in enumerate(MMAR, start=1)]
        write_text(mmar_root / "MMAR-meta.jsonl", "\n".join(lines) + "\n")

        foundation_root = out / "air_bench_foundation" / "Foundation"
        for item in FOUNDATION:
            folder = foundation_root / f"{item.task}_{FOUNDATION_DATASETS[item.task]}"
            if item.task in FLAC_TASKS:
                write_wav(folder / item.file.replace(".wav", ".flac"), item.make(tts), "FLAC")
            else:
                write_wav(folder / item.file, item.make(tts))
        records = [foundation_record(index, item)
                   for index, item in enumerate(FOUNDATION, start=1)]
        write_text(foundation_root / "Foundation_meta.json",
                   json.dumps(records, indent=2, ensure_ascii=False) + "\n")

        mmau_root = out / "mmau"
        records = [mmau_record(index, item) for index, item in enumerate(MMAU, start=1)]
        for record, item in zip(records, MMAU, strict=True):
            write_wav(mmau_root / record["audio_id"], item.make(tts))
        write_text(mmau_root / "mmau-test-mini.json",
                   json.dumps(records, indent=2, ensure_ascii=False) + "\n")

        write_text(out / "README.md", README.format(chat=len(CHAT), mmar=len(MMAR),
                                                    foundation=len(FOUNDATION), mmau=len(MMAU)))
        write_text(out / "MANIFEST.json", json.dumps(
            {"espeak_ng": tts.version, "files": hashes(out)}, indent=2) + "\n")
    finally:
        tts.close()


def hashes(out: Path) -> dict[str, str]:
    """sha256 of every file the script owns under ``out``, by POSIX relative path."""
    files = sorted(p for name in OWNED if name != "MANIFEST.json"
                   for p in ([out / name] if (out / name).is_file()
                             else (out / name).rglob("*")) if p.is_file())
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in files}


def total_size(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


README = """\
# The mini benchmark

A tiny benchmark bundled with pytest-audiobench, in the release layouts the plugin reads:

- `air_bench_chat/`: {chat} AIR-Bench Chat records (`Chat/Chat_meta.json`, audio in
  `Chat/<task_name>_mini/`), three for each of the eight tasks.
- `mmar/`: {mmar} MMAR records (`MMAR-meta.jsonl` with thinking, cue and a five-criterion
  rubric, audio in `audio/`), covering all seven modalities and all four layers.
- `air_bench_foundation/`: {foundation} AIR-Bench Foundation records
  (`Foundation/Foundation_meta.json`, audio in `Foundation/<task_name>_<dataset_name>/`)
  over speech, sound and music, with two, three and four options; the folders carry the real
  release's names, so the items' node ids are the real ones, but their text and audio are
  ours; the Audio_Grounding one names a `.wav` that is stored as `.flac`, as in the release.
- `mmau/`: {mmau} MMAU test-mini records (`mmau-test-mini.json`, audio in
  `test-mini-audios/`), four each of speech, sound and music, over the three difficulties,
  with two to five options.

`--audiobench-data mini` runs them all (or `air_bench_chat=mini`, ...) to try a model
end to end in seconds. The numbers it gives say nothing about the real benchmarks.
The committed baselines of the built-in models on it are bundled beside it, in
`pytest_audiobench/data/baselines/mini/`, so that an installed plugin gates its own mini run
(a project's own `baselines/mini/` wins over them); they are written by runs
(`--audiobench-update-baseline --audiobench-baselines=pytest_audiobench/data/baselines`), not
by the script, and must be rewritten when the data changes.

Everything here was written and synthesized by this project: the questions, answers,
reasoning and rubrics were written for it, speech was synthesized with espeak-ng and every
other sound (tones, chords, beats, noise) was generated with numpy from fixed seeds. It holds
no text and no audio from the real AIR-Bench, MMAR or MMAU releases. Every question can be answered
from its clip; items without speech are expected to defeat a transcription-only model.

All audio is 16 kHz mono 16-bit PCM, WAV (the one FLAC aside), 1.5 to 4 seconds long.

## Regenerating

    python scripts/make_mini.py

It needs espeak-ng (`apt-get install espeak-ng`), numpy and soundfile, rewrites this folder
and prints its total size. The output is byte-identical from run to
run with the espeak-ng version recorded in `MANIFEST.json`, which also holds the sha256 of
every file; `tests/test_mini_data.py` checks both.

## License

Apache-2.0, the license of pytest-audiobench.
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"folder to write into (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    out: Path = args.out
    build(out)
    size = total_size(out)
    print(f"wrote {len(CHAT)} AIR-Bench Chat, {len(MMAR)} MMAR, {len(FOUNDATION)} AIR-Bench "
          f"Foundation and {len(MMAU)} MMAU items to {out}: "
          f"{size:,} bytes ({size / 1e6:.2f} MB)")
    if size >= SIZE_LIMIT:
        print(f"error: {out} is over the {SIZE_LIMIT / 1e6:g} MB limit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
