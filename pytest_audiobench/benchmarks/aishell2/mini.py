"""AISHELL-2's mini part: two Mandarin sentences of ours, each read by one of two speakers
(the espeak-ng Mandarin voice at two pitches) and recorded on the three devices as the
release's test sets are, in the layout of its evaluation zip: iOS as spoken, Android through
a narrower band, Mic over light noise."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.aishell2.facts import (
    DEVICES,
    SET_FOLDER,
    TEST_FOLDER,
    TRANSCRIPTS,
    WAV_SCP,
)
from pytest_audiobench.benchmarks.mini_making import (
    RATE,
    Audio,
    Espeak,
    Voice,
    brown_noise,
    over,
    resample,
    write_text,
    write_wav,
)

README = """{count} AISHELL-2 test utterances (`AISHELL-DEV-TEST-SET/<iOS|Android|Mic>/test/`
  with `wav.scp`, `trans.txt` and `wav/<speaker>/`), two sentences of ours by two speakers
  (espeak-ng's Mandarin voice at two pitches), each on the three devices: Android through a
  narrower band, Mic over light noise; the cascade hears no Mandarin here either."""

SPEAKERS: tuple[tuple[str, Voice, str], ...] = (
    ("T0011", Voice("cmn", 40, "male", 190), "打开客厅的灯"),
    ("T0012", Voice("cmn", 75, "female", 190), "播放轻松的音乐"),
)
"""Each speaker's folder, voice and sentence (written without spaces, as trans.txt is)."""
LETTERS = {"ios": "I", "android": "A", "mic": "M"}
"""The letter opening a device's ids (IT0011W0001); Android's and Mic's are ours."""
NOISE_DB = -22.0
"""The Mic's noise against the speech, by RMS: light."""


def write(out: Path, tts: Espeak) -> int:
    """Write ``AISHELL-DEV-TEST-SET/<device>/test/`` for the three devices under ``out``; the
    number of utterances."""
    spoken = {speaker: tts.say(text, voice) for speaker, voice, text in SPEAKERS}
    written = 0
    for index, (device, folder) in enumerate(DEVICES.items()):
        test = out / SET_FOLDER / folder / TEST_FOLDER
        scp, trans = [], []
        for speaker, _, text in SPEAKERS:
            uttid = f"{LETTERS[device]}{speaker}W0001"
            relative = f"wav/{speaker}/{uttid}.wav"
            write_wav(test / relative, _recorded(device, spoken[speaker], seed=900 + index))
            scp.append(f"{uttid}\t{relative}\n")
            trans.append(f"{uttid}\t{text}\n")
            written += 1
        write_text(test / WAV_SCP, "".join(scp))
        write_text(test / TRANSCRIPTS, "".join(trans))
    return written


def _recorded(device: str, speech: Audio, seed: int) -> Audio:
    """The speech as ``device`` records it."""
    if device == "android":
        # Down to 8 kHz and back: nothing above 3.6 kHz is left, as in a phone's narrow band.
        return resample(resample(speech, RATE, RATE // 2), RATE // 2, RATE)
    if device == "mic":
        return over(speech, brown_noise(len(speech) / RATE + 1.0, seed=seed), NOISE_DB)
    return speech
