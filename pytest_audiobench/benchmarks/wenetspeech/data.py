"""WenetSpeech's test sets as a run reads them: the cut layout, one folder per split of one
16 kHz clip per segment, validated at load.

The release itself is long opus recordings and one ``WenetSpeech.json`` (``corpus.py``);
its test segments are cut once into this layout in the plugin's cache (``cutting.py``), as
the hub's parquet rows are written into it (``parquet.py``). A split's folder holds
``segments.jsonl``, one JSON object a line: ``id`` (the segment's ``sid``), ``recording``
(the ``aid`` it was cut from; null when a copy does not say), ``text`` (the reference as the
release writes it) and ``audio`` (the clip, relative to the folder, under ``audio/``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_audiobench.benchmarks.wenetspeech.facts import (
    HUB_FOLDER,
    HUB_REPO,
    METADATA,
    NAME,
    SPLITS,
)
from pytest_audiobench.errors import DataError

SEGMENTS = "segments.jsonl"
AUDIO = "audio"
"""A split folder's folder of clips."""
_LINE = ('a JSON object with id, recording (the aid, or null), text and audio (the clip\'s '
         f'path under {AUDIO}/)')


@dataclass(frozen=True, slots=True)
class Utterance:
    """One test segment: its id, the recording it was cut from (None when unknown), the
    reference text and its clip."""

    id: str
    recording: str | None
    text: str
    audio: Path

    def line(self, folder: Path) -> str:
        """Its line of ``segments.jsonl`` in the split folder `folder`."""
        return json.dumps({"id": self.id, "recording": self.recording, "text": self.text,
                           "audio": self.audio.relative_to(folder).as_posix()},
                          ensure_ascii=False) + "\n"


def holds_split(root: Path, split: str) -> bool:
    """Whether `root` holds `split` in the cut layout."""
    return (root / split / SEGMENTS).is_file()


def write_split(folder: Path, utterances: list[Utterance]) -> None:
    """The split folder's ``segments.jsonl`` of `utterances`, whose clips are written."""
    text = "".join(u.line(folder) for u in utterances)
    (folder / SEGMENTS).write_text(text, encoding="utf-8")


def read_split(root: Path, split: str) -> tuple[list[Utterance], str | None]:
    """Every segment of `split` under `root` (``<split>/segments.jsonl``), in its order, and
    a note when they are not the whole test set (None when they are). DataError, one line
    naming the file, the line and what was expected, for a line that is not such an object,
    an id twice, an empty text, a missing clip, or a file of no segment."""
    size = _expected_size(split)
    file = root / split / SEGMENTS
    if not file.is_file():
        raise DataError(f"--audiobench-data {root}: no WenetSpeech {split} there (no {file}); "
                        f"expected the release's folder ({METADATA} beside its audio/), a "
                        f"snapshot of the hub repo {HUB_REPO} ({HUB_FOLDER}{split}-*.parquet), "
                        f"or a folder of <split>/{SEGMENTS} (or select the splits it has with "
                        "--audiobench-tasks)")
    seen: dict[str, int] = {}
    utterances = [_utterance(file, number, line, seen)
                  for number, line in enumerate(_lines(file), 1) if line.strip()]
    if not utterances:
        raise DataError(f"{file}: holds no segments; expected the {size:,} of WenetSpeech "
                        f"{split}, one line each: {_LINE}")
    return utterances, _note(split, len(utterances), size)


def _expected_size(split: str) -> int:
    if split not in SPLITS:
        raise ValueError(f"unknown WenetSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
    return SPLITS[split]


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not readable as UTF-8 text ({exc}); expected one line per "
                        f"segment: {_LINE}") from exc


def _utterance(file: Path, number: int, line: str, seen: dict[str, int]) -> Utterance:
    where = f"{file}: line {number}"
    try:
        record: Any = json.loads(line)
    except ValueError as exc:
        raise DataError(f"{where}: not JSON ({exc}); expected {_LINE}") from exc
    if not isinstance(record, dict):
        raise DataError(f"{where}: a {type(record).__name__}; expected {_LINE}")
    ident, text, audio = (record.get(key) for key in ("id", "text", "audio"))
    recording = record.get("recording")
    if not isinstance(ident, str) or not ident or not isinstance(text, str) or \
            not text.strip() or not isinstance(audio, str) or \
            not (recording is None or (isinstance(recording, str) and recording)):
        raise DataError(f"{where}: {_fields(record)}; expected {_LINE}, each a non-empty "
                        "string")
    if ident in seen:
        raise DataError(f"{where}: the id {ident!r} already appears on line {seen[ident]}; "
                        "expected every id once")
    seen[ident] = number
    return Utterance(ident, recording, text.strip(), _clip(where, file.parent, audio))


def _fields(record: dict[str, Any]) -> str:
    """What a bad line holds, shortly."""
    return ", ".join(f"{key} {record.get(key)!r}"[:60] for key in ("id", "recording", "text",
                                                                   "audio"))


def _clip(where: str, folder: Path, audio: str) -> Path:
    parts = PurePosixPath(audio).parts
    if not parts or parts[0] != AUDIO or ".." in parts or "\\" in audio:
        raise DataError(f"{where}: audio {audio!r} is not a clip of the split's folder; "
                        f"expected {AUDIO}/<file>")
    path = folder.joinpath(*parts)
    if not path.is_file():
        raise DataError(f"{where}: no clip {path}; expected the segment's audio there")
    return path


def _note(split: str, found: int, size: int) -> str | None:
    """What a report must say when the segments are not the published test set."""
    if found == size:
        return None
    if found < size:
        return (f"{NAME} {split}: {found:,} of {size:,} segments (not the whole test set: its "
                "numbers are not comparable with published ones)")
    return (f"{NAME} {split}: {found:,} segments where the release has {size:,} (not the "
            "published test set: its numbers are not comparable with published ones)")
