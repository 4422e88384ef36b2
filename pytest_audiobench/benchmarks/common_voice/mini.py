"""Common Voice's mini part: two sentences in each of the four locales, read by two espeak-ng
voices of the locale's language (English ``en-us``, Mandarin ``cmn``, Cantonese ``yue``,
French ``fr``), in Mozilla's layout (``<locale>/test.tsv`` with its header row, MP3 clips in
``<locale>/clips/``). The sentences are ours; one English sentence holds quotes, as real ones
do, which the reader must take as text."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.common_voice.facts import CLIPS_FOLDER, TRANSCRIPTS
from pytest_audiobench.benchmarks.mini_making import Espeak, Voice, write_text, write_wav

README = """{count} Common Voice 15 test utterances in Mozilla's layout (`<locale>/test.tsv`
  with its header row, MP3 clips in `<locale>/clips/`), two in each of `en`, `zh-CN`, `yue`
  and `fr`, read by two espeak-ng voices of the language; the cascade (Whisper tiny.en) hears
  English only and writes the Chinese and Cantonese speech as English words, whose letters
  count as inserted characters: its character error rates there pass 100 %."""

HEADER = ("client_id", "path", "sentence", "up_votes", "down_votes", "age", "gender",
          "accents", "variant", "locale", "segment")
"""Mozilla's columns in 15.0's test.tsv, in its order."""
GENDERS = {"male": "male_masculine", "female": "female_feminine"}
"""The ``gender`` column's words in 15.0 (a contributor's own, often empty)."""


@dataclass(frozen=True)
class Reading:
    locale: str
    voice: Voice
    sentence: str


READINGS: tuple[Reading, ...] = (
    Reading("en", Voice("en-us", 45, "male"), "The library opens early on Saturdays."),
    Reading("en", Voice("en-us+f3", 62, "female"), 'She said "good morning" to the driver.'),
    Reading("zh-CN", Voice("cmn", 45, "male", 175), "今天的天气非常好。"),
    Reading("zh-CN", Voice("cmn+f3", 65, "female", 175), "我们明天去公园散步。"),
    Reading("yue", Voice("yue", 45, "male"), "我哋聽日去飲茶。"),
    Reading("yue", Voice("yue+f3", 65, "female"), "呢間餐廳嘅點心好好食。"),
    Reading("fr", Voice("fr", 45, "male"), "Le marché ouvre à huit heures."),
    Reading("fr", Voice("fr+f3", 62, "female"), "Nous prenons le train pour Lyon."),
)
"""Each locale's two readings, by two speakers: a voice each."""


def client_id(reading: Reading) -> str:
    """A speaker's id as Mozilla writes one: 128 hex digits, a hash of the contributor."""
    return hashlib.sha512(f"mini {reading.locale} {reading.voice.name}".encode()).hexdigest()


def write(out: Path, tts: Espeak) -> int:
    """Write ``<locale>/test.tsv`` and ``<locale>/clips/`` for the four locales under
    ``out``; the number of utterances."""
    rows: dict[str, list[tuple[str, ...]]] = {}
    for number, reading in enumerate(READINGS):
        name = f"common_voice_{reading.locale}_{90000001 + number}.mp3"
        write_wav(out / reading.locale / CLIPS_FOLDER / name,
                  tts.say(reading.sentence, reading.voice), fmt="MP3")
        rows.setdefault(reading.locale, []).append((
            client_id(reading), name, reading.sentence, "2", "0", "",
            GENDERS[reading.voice.gender], "", "", reading.locale, ""))
    for locale, found in rows.items():
        write_text(out / locale / TRANSCRIPTS,
                   "".join("\t".join(row) + "\n" for row in [HEADER, *found]))
    return len(READINGS)
