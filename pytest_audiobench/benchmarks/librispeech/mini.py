"""LibriSpeech's mini part: eight utterances in each test split, four speakers of two
chapters each, in the layout openslr's tarballs extract to. The sentences are ours, read by
espeak-ng voices; test-other's are read faster over noise, as the real split is the harder one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.mini_making import (
    Espeak,
    Voice,
    brown_noise,
    over,
    write_text,
    write_wav,
)

README = """{count} LibriSpeech utterances (`LibriSpeech/test-clean/` and
  `LibriSpeech/test-other/`, `<speaker>/<chapter>/` with the chapter's `.trans.txt` and
  `.flac` files), eight a split from four speakers; test-other's are read faster over
  noise."""


@dataclass(frozen=True)
class Speaker:
    id: str
    chapter: str
    voice: Voice


CLEAN: tuple[Speaker, ...] = (
    Speaker("9101", "4410", Voice("en-us", 45, "male", 150)),
    Speaker("9102", "4420", Voice("en-us+f3", 62, "female", 150)),
    Speaker("9103", "4430", Voice("en-gb", 50, "male", 145)),
    Speaker("9104", "4440", Voice("en-gb+f2", 65, "female", 150)),
)
OTHER: tuple[Speaker, ...] = (
    Speaker("9201", "5510", Voice("en-gb-scotland", 40, "male", 185)),
    Speaker("9202", "5520", Voice("en-us+f4", 70, "female", 190)),
    Speaker("9203", "5530", Voice("en-029", 45, "male", 185)),
    Speaker("9204", "5540", Voice("en-gb-x-rp+f3", 60, "female", 190)),
)
SENTENCES: dict[str, tuple[tuple[str, str], ...]] = {
    "test-clean": (
        ("THE OLD MILLER WALKED SLOWLY DOWN TO THE RIVER",
         "HE HAD NOT SEEN HIS BROTHER FOR SEVEN YEARS"),
        ("SHE OPENED THE WINDOW AND LOOKED AT THE GARDEN",
         "THE LETTER WAS WRITTEN IN A CAREFUL HAND"),
        ("WE REACHED THE VILLAGE JUST BEFORE THE RAIN",
         "NOBODY IN THE HOUSE COULD FIND THE KEY"),
        ("THE CAPTAIN SMILED BUT SAID NOTHING AT ALL",
         "A COLD WIND BLEW ACROSS THE EMPTY FIELDS"),
    ),
    "test-other": (
        ("THE MERCHANT'S DAUGHTER SOLD THE LAST OF THE APPLES",
         "THEY WAITED THREE DAYS FOR A SHIP THAT NEVER CAME"),
        ("HER COUSIN LAUGHED AND THREW THE BOOK ASIDE",
         "THE LAMP FLICKERED WHILE THE CLOCK STRUCK TWELVE"),
        ("A THIN GREY CAT SLEPT BESIDE THE KITCHEN FIRE",
         "OUR NEIGHBOUR KEPT BEES BEHIND THE CHURCH WALL"),
        ("THE JUDGE DIDN'T BELIEVE A WORD OF THE STORY",
         "SMOKE ROSE FROM THE CHIMNEYS OF THE LITTLE TOWN"),
    ),
}
NOISE_DB = -18.0
"""test-other's noise against the speech, by RMS."""


def write(out: Path, tts: Espeak) -> int:
    """Write ``LibriSpeech/<split>/<speaker>/<chapter>/`` for both splits under ``out``; the
    number of utterances."""
    written = 0
    for split, speakers in (("test-clean", CLEAN), ("test-other", OTHER)):
        for index, (speaker, lines) in enumerate(zip(speakers, SENTENCES[split], strict=True)):
            folder = out / "LibriSpeech" / split / speaker.id / speaker.chapter
            ids = [f"{speaker.id}-{speaker.chapter}-{n:04d}" for n in range(len(lines))]
            for n, (ident, text) in enumerate(zip(ids, lines, strict=True)):
                speech = tts.say(text.lower(), speaker.voice)
                if split == "test-other":
                    speech = over(speech, brown_noise(6.0, seed=700 + 10 * index + n), NOISE_DB)
                write_wav(folder / f"{ident}.flac", speech, fmt="FLAC")
            write_text(folder / f"{speaker.id}-{speaker.chapter}.trans.txt",
                       "".join(f"{i} {t}\n" for i, t in zip(ids, lines, strict=True)))
            written += len(lines)
    return written
