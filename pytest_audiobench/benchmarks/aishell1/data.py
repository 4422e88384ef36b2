"""AISHELL-1: the test split as openslr publishes it, validated at load.

``data_aishell.tgz`` extracts to ``data_aishell/``: ``transcript/aishell_transcript_v0.8.txt``,
one ``UTTID word-segmented text`` a line for the utterances of every split, and one tarball
per speaker in ``wav/``, which extracts into ``wav/<split>/<speaker>/<UTTID>.wav``. An id
holds its speaker: ``BAC009S0764W0121`` is speaker S0764's. The transcripts are kept as
written, the spaces between words too: the reference pipeline drops them for Chinese.

The release has more audio files than transcript lines (141,925 against 141,600 over all
splits, Kaldi's recipe warns of it; public checks found none in the test split). A test file
without a line has no reference: it is left out with a note rather than refused
(Kimi-Audio-Evalkit's reader would stop at it with a KeyError), since the published 7,176
count the utterances that have one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.aishell1.facts import (
    CORPUS_FOLDER,
    HUB_REPO,
    NAME,
    SPEAKER_ARCHIVE,
    SPLIT,
    TEST_SIZE,
    TRANSCRIPT,
)
from pytest_audiobench.errors import DataError

AUDIO_SUFFIX = ".wav"
TEST_FOLDER = Path("wav", SPLIT)
"""Where ``data_aishell/`` keeps the test speakers' folders once their tarballs are extracted."""
UTTERANCE_ID = re.compile(r"[A-Z]{3}\d{3}(S\d{4})W\d{4}")
"""An utterance id, its speaker in the group: ``BAC009S0764W0121``."""
_LINE = '"UTTID word-segmented text"'


@dataclass(frozen=True, slots=True)
class Utterance:
    """One test utterance: its id, its speaker (the id's, and its folder's), its transcript as
    the file writes it (the words spaced), and its audio."""

    id: str
    speaker: str
    transcript: str
    audio: Path


def speaker_of(uttid: str) -> str | None:
    """The speaker an utterance id names, or None when it is not an AISHELL-1 id."""
    match = UTTERANCE_ID.fullmatch(uttid)
    return match.group(1) if match else None


def corpus_folder(root: Path) -> Path | None:
    """The ``data_aishell`` folder: ``root/data_aishell`` or `root` itself, whichever holds
    the transcript file; None when neither does."""
    return next((place for place in (root / CORPUS_FOLDER, root)
                 if (place / TRANSCRIPT).is_file()), None)


def read_test(root: Path) -> tuple[list[Utterance], tuple[str, ...]]:
    """Every test utterance under `root` (``data_aishell/`` or its parent) that has a
    transcript line, sorted by id, and the notes a report must carry: the files left out for
    want of a line, and the count when it is not the release's. DataError, one line naming
    the file, the line and what was expected, for a missing transcript file or test folder,
    an audio file not named as its speaker's, a test utterance's line twice or without text,
    or a test folder without utterances."""
    folder = _located(root)
    test = folder / TEST_FOLDER
    if not test.is_dir():
        archive = SPEAKER_ARCHIVE.format(speaker="<speaker>")
        raise DataError(f"{root}: no {CORPUS_FOLDER}/{TEST_FOLDER.as_posix()}/ folder there; "
                        f"expected the test speakers' folders <speaker>/ in {test}, as "
                        f"their tarballs {archive} extract into wav/ (each still packed is "
                        "unpacked into the cache)")
    audio = {path.stem: path for path in _test_audio(test)}
    lines = _transcripts(folder / TRANSCRIPT, audio)
    utterances = [Utterance(uttid, path.parent.name, lines[uttid], path)
                  for uttid, path in sorted(audio.items()) if uttid in lines]
    if not utterances:
        raise DataError(f"{test}: holds no test utterance with a line in {TRANSCRIPT}; "
                        f"expected the {TEST_SIZE:,} of the release in <speaker>/<UTTID>"
                        f"{AUDIO_SUFFIX} files")
    return utterances, _notes(len(audio) - len(utterances), len(utterances))


def _located(root: Path) -> Path:
    folder = corpus_folder(root)
    if folder is None:
        raise DataError(f"--audiobench-data {root}: no AISHELL-1 transcript there, neither "
                        f"{root / CORPUS_FOLDER / TRANSCRIPT} nor {root / TRANSCRIPT}; "
                        f"expected the {CORPUS_FOLDER} folder openslr's data_aishell.tgz "
                        f"extracts to, the folder holding it, or a snapshot of the hub repo "
                        f"{HUB_REPO} (data/test-*.parquet)")
    return folder


def _test_audio(test: Path) -> Iterator[Path]:
    """Every ``.wav`` file of the test speakers' folders, each checked to be named as its
    folder's speaker's."""
    speakers = sorted(p for p in test.iterdir() if p.is_dir() and not p.name.startswith("."))
    for speaker in speakers:
        for path in sorted(speaker.glob(f"*{AUDIO_SUFFIX}")):
            if speaker_of(path.stem) != speaker.name:
                raise DataError(f"{path}: not an utterance of speaker {speaker.name}; expected "
                                f"a file named <prefix>{speaker.name}W<number>{AUDIO_SUFFIX} "
                                f"(e.g. BAC009{speaker.name}W0121{AUDIO_SUFFIX}) in its "
                                "speaker's folder")
            yield path


def _transcripts(path: Path, audio: dict[str, Path]) -> dict[str, str]:
    """The transcript of each test utterance in `audio` that has a line in `path`. Lines of
    other splits' utterances are passed over unread beyond their id: a training line's
    flaw does not stop a test run."""
    found: dict[str, tuple[int, str]] = {}
    for number, line in enumerate(_lines(path), 1):
        uttid, _, text = line.strip().partition(" ")
        if uttid not in audio:
            continue
        where = f"{path}: line {number}"
        if uttid in found:
            raise DataError(f"{where}: the id {uttid!r} already appears on line "
                            f"{found[uttid][0]}; expected every id once")
        if not text.strip():
            raise DataError(f"{where}: {uttid!r} has no text; expected {_LINE}")
        found[uttid] = (number, text.strip())
    return {uttid: text for uttid, (_, text) in found.items()}


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not readable as UTF-8 text ({exc}); expected a line "
                        f"{_LINE} per utterance") from exc


def _notes(unlined: int, found: int) -> tuple[str, ...]:
    """What a report must say of the utterances read."""
    notes = []
    if unlined:
        notes.append(f"{NAME} {SPLIT}: {unlined:,} audio file(s) without a line in {TRANSCRIPT} "
                     "left out (no reference to score them against; the published "
                     f"{TEST_SIZE:,} count the utterances that have one)")
    if found < TEST_SIZE:
        notes.append(f"{NAME} {SPLIT}: {found:,} of {TEST_SIZE:,} utterances (not the whole "
                     "split: its numbers are not comparable with published ones)")
    elif found > TEST_SIZE:
        notes.append(f"{NAME} {SPLIT}: {found:,} utterances where the release has "
                     f"{TEST_SIZE:,} (not the published split: its numbers are not comparable "
                     "with published ones)")
    return tuple(notes)
