"""LibriSpeech: a split's utterances as openslr publishes them, validated at load.

openslr's tarball of a split extracts to ``LibriSpeech/<split>/<speaker>/<chapter>/``; each
chapter folder holds ``<speaker>-<chapter>.trans.txt``, one ``UTTID TRANSCRIPT`` line per
utterance (upper case, no punctuation but apostrophes), and each utterance's ``<UTTID>.flac``,
where UTTID is ``<speaker>-<chapter>-<utterance>``. The transcripts are kept as written: the
scorer normalises reference and hypothesis alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.librispeech.facts import (
    HUB_CONFIGS,
    HUB_REPO,
    HUB_SPLIT,
    NAME,
    SPLITS,
)
from pytest_audiobench.errors import DataError

CORPUS_FOLDER = "LibriSpeech"
"""The folder openslr's tarballs extract to, holding one folder per split."""
TRANSCRIPT_SUFFIX = ".trans.txt"
AUDIO_SUFFIX = ".flac"
_ID = re.compile(r"(\d+)-(\d+)-(\d+)")
_LINE = '"UTTID TRANSCRIPT"'


@dataclass(frozen=True, slots=True)
class Utterance:
    """One utterance: its id (``1089-134686-0000``), speaker and chapter (the id's first two
    parts, as its folders name them), transcript as the chapter's file writes it, and audio."""

    id: str
    speaker: str
    chapter: str
    transcript: str
    audio: Path


def _places(root: Path, split: str) -> tuple[Path, Path]:
    """Where `split`'s folder may be: `root` is the ``LibriSpeech`` folder or its parent."""
    return root / split, root / CORPUS_FOLDER / split


def holds_split(root: Path, split: str) -> bool:
    """Whether `root` holds `split` in openslr's layout (see ``split_folder``)."""
    return any(place.is_dir() for place in _places(root, split))


def split_folder(root: Path, split: str) -> Path:
    """The folder of `split` under `root`: `root` is the ``LibriSpeech`` folder (holding
    ``<split>/``) or its parent (holding ``LibriSpeech/<split>/``). DataError naming both
    places when neither is a folder."""
    _expected_size(split)
    places = _places(root, split)
    found = next((place for place in places if place.is_dir()), None)
    if found is not None:
        return found
    hint = f" (it is the {split} folder itself: pass its parent, {root.parent})" \
        if root.name == split and root.is_dir() else ""
    raise DataError(f"--audiobench-data {root}: no LibriSpeech {split} folder there, neither "
                    f"{places[0]} nor {places[1]}{hint}; expected the {CORPUS_FOLDER} folder "
                    f"that openslr's {split} tarball extracts to, the folder holding it, or a "
                    f"snapshot of the hub repo {HUB_REPO} ({HUB_CONFIGS[split]}/{HUB_SPLIT}/"
                    "*.parquet) (or select the splits it has with --audiobench-tasks)")


def read_split(root: Path, split: str) -> tuple[list[Utterance], str | None]:
    """Every utterance of `split` under `root` (see ``split_folder``), sorted by id, and a note
    when they are not the whole split (None when they are). DataError, one line naming the
    file, the line and what was expected, for a chapter without its transcript file, a line
    without a transcript, an id not of its chapter, an id twice, a line whose audio is
    missing, an audio file without a line, or a split folder without utterances."""
    size = _expected_size(split)
    folder = split_folder(root, split)
    utterances = [u for chapter in _chapters(folder) for u in _read_chapter(chapter)]
    if not utterances:
        raise DataError(f"{folder}: holds no utterances; expected the {size:,} of LibriSpeech "
                        f"{split} in <speaker>/<chapter>/ folders, each with its "
                        f"<speaker>-<chapter>{TRANSCRIPT_SUFFIX} and {AUDIO_SUFFIX} files")
    utterances.sort(key=lambda u: u.id)
    return utterances, _note(split, len(utterances), size)


def _expected_size(split: str) -> int:
    if split not in SPLITS:
        raise ValueError(f"unknown LibriSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
    return SPLITS[split]


def _chapters(folder: Path) -> Iterator[Path]:
    """The ``<speaker>/<chapter>/`` folders of a split folder, in name order."""
    for speaker in _folders(folder):
        yield from _folders(speaker)


def _folders(parent: Path) -> list[Path]:
    return sorted(p for p in parent.iterdir() if p.is_dir() and not p.name.startswith("."))


def _read_chapter(chapter: Path) -> list[Utterance]:
    speaker = chapter.parent.name
    transcripts = chapter / f"{speaker}-{chapter.name}{TRANSCRIPT_SUFFIX}"
    if not transcripts.is_file():
        raise DataError(f"{chapter}: no {transcripts.name}; expected each chapter folder "
                        f"<speaker>/<chapter>/ to hold <speaker>-<chapter>{TRANSCRIPT_SUFFIX} "
                        f"with a line {_LINE} for each of its {AUDIO_SUFFIX} files")
    seen: dict[str, int] = {}
    utterances = []
    for number, line in enumerate(_lines(transcripts), 1):
        if line.strip():
            utterances.append(_utterance(transcripts, number, line, seen))
    _every_audio_has_a_line(chapter, transcripts, seen)
    return utterances


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not readable as UTF-8 text ({exc}); expected a line "
                        f"{_LINE} per utterance") from exc


def _utterance(transcripts: Path, number: int, line: str, seen: dict[str, int]) -> Utterance:
    """The utterance of `line` (the `number`-th of `transcripts`); `seen` maps the ids read so
    far in the file to their lines."""
    where = f"{transcripts}: line {number}"
    chapter = transcripts.parent
    uttid, *rest = line.split(None, 1)
    if not rest:
        raise DataError(f"{where}: {uttid!r} has no transcript; expected {_LINE}")
    match = _ID.fullmatch(uttid)
    if match is None or match.group(1, 2) != (chapter.parent.name, chapter.name):
        raise DataError(f"{where}: the id {uttid!r} is not of this chapter; expected "
                        f"{chapter.parent.name}-{chapter.name}-<number>, as its folder "
                        f"{chapter.parent.name}/{chapter.name}/ says")
    if uttid in seen:
        raise DataError(f"{where}: the id {uttid!r} already appears on line {seen[uttid]}; "
                        "expected every id once")
    seen[uttid] = number
    audio = chapter / f"{uttid}{AUDIO_SUFFIX}"
    if not audio.is_file():
        raise DataError(f"{where}: no audio for {uttid!r}; expected {audio}")
    return Utterance(uttid, match.group(1), match.group(2), rest[0].strip(), audio)


def _every_audio_has_a_line(chapter: Path, transcripts: Path, seen: dict[str, int]) -> None:
    for audio in sorted(chapter.glob(f"*{AUDIO_SUFFIX}")):
        if audio.stem not in seen:
            raise DataError(f"{audio}: no line for {audio.stem!r} in {transcripts}; expected "
                            f"a line {_LINE} for every {AUDIO_SUFFIX} file of the chapter")


def _note(split: str, found: int, size: int) -> str | None:
    """What a report must say when the utterances are not the published split."""
    if found == size:
        return None
    if found < size:
        return (f"{NAME} {split}: {found:,} of {size:,} utterances (not the whole split: its "
                "numbers are not comparable with published ones)")
    return (f"{NAME} {split}: {found:,} utterances where the release has {size:,} (not the "
            "published split: its numbers are not comparable with published ones)")
