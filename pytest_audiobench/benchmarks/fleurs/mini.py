"""FLEURS's mini part: four English sentences, each read by two espeak-ng voices, in the
release's layout (``en_us/test.tsv`` of seven tab-separated columns, the audio in
``en_us/audio/test/``). The sentences are ours; the ``transcription`` column is the release's
normalised form (lower case, no punctuation), ``raw_transcription`` as written."""

from __future__ import annotations

from pathlib import Path

import soundfile as sf

from pytest_audiobench.benchmarks.mini_making import (
    FEMALE,
    MALE,
    Espeak,
    write_text,
    write_wav,
)

README = """{count} FLEURS en_us test utterances (`en_us/test.tsv`, audio in
  `en_us/audio/test/`), four sentences each read by a male and a female voice."""

SENTENCES: tuple[tuple[str, str], ...] = (
    ("1001", "The museum opens at nine, and closes at five."),
    ("1002", "Rivers in the north freeze for three months of the year."),
    ("1003", "Most visitors travel to the island by ferry."),
    ("1004", "The festival's music can be heard across the valley."),
)
"""Each sentence's id (shared by its readers, as the release's ``id``) and text."""


def normalised(text: str) -> str:
    """The release's ``transcription`` of ``text``: lower case, punctuation but apostrophes
    gone."""
    kept = "".join(c for c in text.lower() if c.isalnum() or c in " '")
    return " ".join(kept.split())


def write(out: Path, tts: Espeak) -> int:
    """Write ``en_us/test.tsv`` and its clips under ``out``; the number of utterances."""
    folder = out / "en_us"
    rows = []
    for number, (sentence, text) in enumerate(SENTENCES):
        for reader, voice in enumerate((MALE, FEMALE)):
            name = f"{90000 + 10 * number + reader}.wav"
            clip = folder / "audio" / "test" / name
            write_wav(clip, tts.say(text, voice))
            spelled = " ".join("|" if c == " " else c for c in normalised(text))
            rows.append("\t".join((sentence, name, text, normalised(text), spelled,
                                   str(sf.info(clip).frames), voice.gender.upper())))
    write_text(folder / "test.tsv", "".join(row + "\n" for row in rows))
    return len(rows)
