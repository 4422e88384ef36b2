"""FLEURS: a language's test utterances as the hub repo publishes them, validated at load.

A language folder holds ``test.tsv`` (no header; seven tab-separated columns, facts.COLUMNS)
and the audio under ``audio/test/<file_name>``. Each row is one utterance; several speakers
read one sentence, so the ``id`` column repeats and the file name is the utterance's id. The
transcripts hold quotes that are text, not CSV quoting: the file is read with quoting off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.fleurs.facts import COLUMNS, NAME, TEST_SIZES
from pytest_audiobench.benchmarks.metafile import tsv_rows
from pytest_audiobench.errors import DataError

SPLIT = "test"
TRANSCRIPTS = f"{SPLIT}.tsv"
AUDIO_FOLDER = Path("audio", SPLIT)
"""Where a language folder keeps the split's audio: the hub's archive extracts to it."""
HUB_DATA_FOLDER = "data"
"""The hub repo's folder of languages: ``data/<language>/``."""
_AUDIO_SUFFIX = ".wav"
_LANGUAGE = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")
_EXPECTED_COLUMNS = f"the {len(COLUMNS)} tab-separated columns {', '.join(COLUMNS)}"


@dataclass(frozen=True, slots=True)
class Utterance:
    """One utterance: its id (the audio's file name without ``.wav``, unique), the sentence
    it reads (the tsv's ``id``, shared by its speakers), the reference ``transcription``, the
    ``raw_transcription`` as written, the speaker's gender and the audio."""

    id: str
    sentence: str
    transcription: str
    raw_transcription: str
    gender: str
    audio: Path


def check_language(language: str) -> str:
    """`language`, a hub config name such as ``en_us``; ValueError for anything else, since
    it names folders and files."""
    if not _LANGUAGE.fullmatch(language):
        raise ValueError(f"not a FLEURS language: {language!r}; expected a config name such "
                         f"as {', '.join(TEST_SIZES)} (lower case letters, digits, '_')")
    return language


def language_folder(root: Path, language: str) -> Path:
    """The folder holding `language`'s ``test.tsv``: ``root/<language>/``, the hub repo's
    ``root/data/<language>/``, or `root` itself. DataError naming the places looked at."""
    check_language(language)
    places = (root / language, root / HUB_DATA_FOLDER / language, root)
    found = next((place for place in places if (place / TRANSCRIPTS).is_file()), None)
    if found is None:
        looked = ", ".join(str(place / TRANSCRIPTS) for place in places)
        raise DataError(f"--audiobench-data {root}: no FLEURS {language} {TRANSCRIPTS} there "
                        f"(looked for {looked}); expected the folder holding "
                        f"<language>/{TRANSCRIPTS} and <language>/{AUDIO_FOLDER.as_posix()}/ "
                        f"(the hub repo's {HUB_DATA_FOLDER}/ folder or its parent), or the "
                        "language folder itself")
    return found


def read_language(root: Path, language: str) -> tuple[list[Utterance], str | None]:
    """Every test utterance of `language` under `root` (see ``language_folder``), in the
    release's order, and a note when they are not the whole split (None when they are).
    DataError, one line naming the file, the line and what was expected, for a row without
    its seven columns, an unusable or repeated file name, an empty transcription, missing
    audio, or a file without rows."""
    folder = language_folder(root, language)
    transcripts = folder / TRANSCRIPTS
    seen: dict[str, int] = {}
    utterances = [_utterance(transcripts, number, row, seen)
                  for number, row in tsv_rows(transcripts, _EXPECTED_COLUMNS)]
    if not utterances:
        raise DataError(f"{transcripts}: holds no rows; expected one row per utterance of "
                        f"{_EXPECTED_COLUMNS}")
    return utterances, _note(language, len(utterances))


def _utterance(transcripts: Path, number: int, row: list[str],
               seen: dict[str, int]) -> Utterance:
    """The utterance of `row` (line `number`); `seen` maps the file names read so far to
    their lines."""
    where = f"{transcripts}: line {number}"
    if len(row) != len(COLUMNS):
        found = f"{len(row)} column{'' if len(row) == 1 else 's'}"
        raise DataError(f"{where}: {found}; expected {_EXPECTED_COLUMNS}")
    cells = dict(zip(COLUMNS, row, strict=True))
    name = cells["file_name"]
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise DataError(f"{where}: the file_name {name!r} names no file; expected the audio's "
                        f"file name (no slash), e.g. 1234{_AUDIO_SUFFIX}")
    if name in seen:
        raise DataError(f"{where}: the file_name {name!r} already appears on line "
                        f"{seen[name]}; expected every file_name once")
    seen[name] = number
    if not cells["transcription"].strip():
        raise DataError(f"{where}: the transcription of {name!r} is empty; expected the "
                        "reference text in the fourth column")
    audio = transcripts.parent / AUDIO_FOLDER / name
    if not audio.is_file():
        raise DataError(f"{where}: no audio for {name!r}; expected {audio}")
    return Utterance(name.removesuffix(_AUDIO_SUFFIX), cells["id"], cells["transcription"],
                     cells["raw_transcription"], cells["gender"], audio)


def _note(language: str, found: int) -> str | None:
    """What a report must say when the utterances may not be the published split."""
    size = TEST_SIZES.get(language)
    if size is None:
        return (f"{NAME} {language}: {found:,} utterances; the size of its {SPLIT} split is "
                "not known here, so whether they are all of it is not checked")
    if found == size:
        return None
    if found < size:
        return (f"{NAME} {language}: {found:,} of {size:,} utterances (not the whole {SPLIT} "
                "split: its numbers are not comparable with published ones)")
    return (f"{NAME} {language}: {found:,} utterances where the release has {size:,} (not the "
            f"published {SPLIT} split: its numbers are not comparable with published ones)")
