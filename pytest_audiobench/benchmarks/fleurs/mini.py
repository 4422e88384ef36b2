"""FLEURS's mini part: four English sentences, three Mandarin and two Cantonese ones, each
read by two espeak-ng voices, in the release's layout (``<language>/test.tsv`` of seven
tab-separated columns, the audio in ``<language>/audio/test/``). The sentences are ours; the
``transcription`` column is the release's normalised form (lower case, no punctuation),
``raw_transcription`` as written. The built-in cascade hears English only (Whisper tiny.en):
its character error rate on the Chinese and Cantonese readings is near 100 %, honestly."""

from __future__ import annotations

from pathlib import Path

import soundfile as sf

from pytest_audiobench.benchmarks.mini_making import (
    FEMALE,
    MALE,
    Espeak,
    Voice,
    write_text,
    write_wav,
)

README = """{count} FLEURS test utterances of en_us, cmn_hans_cn and yue_hant_hk
  (`<language>/test.tsv`, audio in `<language>/audio/test/`), four English, three Mandarin and
  two Cantonese sentences, each read by a male and a female voice
  (`--audiobench-fleurs-language en_us,cmn_hans_cn,yue_hant_hk`)."""

SENTENCES: tuple[tuple[str, str], ...] = (
    ("1001", "The museum opens at nine, and closes at five."),
    ("1002", "Rivers in the north freeze for three months of the year."),
    ("1003", "Most visitors travel to the island by ferry."),
    ("1004", "The festival's music can be heard across the valley."),
)
"""Each sentence's id (shared by its readers, as the release's ``id``) and text."""
MANDARIN: tuple[tuple[str, str], ...] = (
    ("2001", "图书馆周末也开放。"),
    ("2002", "山上的雪四月才化。"),
    ("2003", "渡轮每小时开出一班。"),
)
CANTONESE: tuple[tuple[str, str], ...] = (
    ("3001", "今日嘅天氣好好。"),
    ("3002", "我哋聽日去飲茶。"),
)
"""Written in traditional characters, as the release's yue_hant_hk is."""
READERS: dict[str, tuple[tuple[tuple[str, str], ...], tuple[Voice, Voice], int]] = {
    "en_us": (SENTENCES, (MALE, FEMALE), 90000),
    "cmn_hans_cn": (MANDARIN, (Voice("cmn", 40, "male"), Voice("cmn+f3", 60, "female")),
                    91000),
    "yue_hant_hk": (CANTONESE, (Voice("yue", 40, "male"), Voice("yue+f3", 60, "female")),
                    92000),
}
"""Per language: its sentences, its two readers and where its utterances' numbers start."""


def normalised(text: str) -> str:
    """The release's ``transcription`` of ``text``: lower case, punctuation but apostrophes
    gone."""
    kept = "".join(c for c in text.lower() if c.isalnum() or c in " '")
    return " ".join(kept.split())


def write(out: Path, tts: Espeak) -> int:
    """Write ``<language>/test.tsv`` and its clips under ``out`` for every language of
    ``READERS``; the number of utterances."""
    return sum(_language(out / language, tts, *read) for language, read in READERS.items())


def _language(folder: Path, tts: Espeak, sentences: tuple[tuple[str, str], ...],
              voices: tuple[Voice, Voice], first: int) -> int:
    rows = []
    for number, (sentence, text) in enumerate(sentences):
        for reader, voice in enumerate(voices):
            name = f"{first + 10 * number + reader}.wav"
            clip = folder / "audio" / "test" / name
            write_wav(clip, tts.say(text, voice))
            spelled = " ".join("|" if c == " " else c for c in normalised(text))
            rows.append("\t".join((sentence, name, text, normalised(text), spelled,
                                   str(sf.info(clip).frames), voice.gender.upper())))
    write_text(folder / "test.tsv", "".join(row + "\n" for row in rows))
    return len(rows)
