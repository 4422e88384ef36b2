"""Common Voice 15: a locale's test utterances in Mozilla's layout, validated at load.

A locale's tarball extracts to ``cv-corpus-15.0-2023-09-08/<locale>/``: ``test.tsv`` (a header
row, then a row per utterance, tab-separated) and the clips in ``clips/<path>``. Columns are
found by their header's names, so extra or reordered ones do no harm; ``client_id``, ``path``
and ``sentence`` are required. The sentences hold quotes that are text, not CSV quoting (a
sentence may open with one): the file is read with quoting off.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from pytest_audiobench.benchmarks.common_voice.facts import (
    CLIPS_FOLDER,
    CORPUS_FOLDER,
    LOCALES,
    NAME,
    REQUIRED,
    TRANSCRIPTS,
)
from pytest_audiobench.benchmarks.metafile import tsv_rows
from pytest_audiobench.errors import DataError

FLAG = "--audiobench-common-voice-locale"
_EXPECTED_HEADER = (f"a header row naming at least {', '.join(REQUIRED)} (Mozilla's "
                    f"{TRANSCRIPTS}), then one row per utterance")


@dataclass(frozen=True, slots=True)
class Utterance:
    """One utterance: its id (the clip's file name without its extension), the speaker
    (``client_id``; empty when the copy it came from has none), the reference ``sentence``,
    the speaker's ``gender`` as given (often empty) and the clip."""

    id: str
    client_id: str
    sentence: str
    gender: str
    audio: Path


def places(root: Path, locale: str) -> tuple[Path, Path]:
    """Where `locale`'s folder may be: `root` holds the locale folders (it is Mozilla's
    ``cv-corpus-15.0-...`` folder) or holds that folder."""
    return root / locale, root / CORPUS_FOLDER / locale


def locale_folder(root: Path, locale: str) -> Path | None:
    """The folder of `locale` under `root` that holds its ``test.tsv``; None when neither
    place (``places``) does."""
    _check(locale)
    return next((p for p in places(root, locale) if (p / TRANSCRIPTS).is_file()), None)


def missing(root: Path, locale: str, present: Sequence[str]) -> DataError:
    """The error for a selected `locale` that `root` lacks, naming where it was looked for,
    the locales that are there (`present`) and the flag that narrows the selection."""
    looked = ", ".join(str(place / TRANSCRIPTS) for place in places(root, locale))
    there = f" (it holds {', '.join(present)})" if present else ""
    return DataError(f"--audiobench-data {root}: no Common Voice {locale} {TRANSCRIPTS} there "
                     f"(looked for {looked}){there}; expected Mozilla's {CORPUS_FOLDER} folder "
                     f"or its parent, with <locale>/{TRANSCRIPTS} and <locale>/{CLIPS_FOLDER}/, "
                     f"or select the locales it has with {FLAG}")


def read_locale(root: Path, locale: str) -> list[Utterance]:
    """Every test utterance of `locale` under `root`, in the file's order. DataError, one line
    naming the file, the line and what was expected, for a missing folder, a header without a
    required column or with one twice, a row with more cells than the header or too few for a
    required column, a clip named twice or not a file name, an empty sentence, a ``locale``
    cell of another locale, a missing clip, or a file without rows."""
    folder = locale_folder(root, locale)
    if folder is None:
        raise missing(root, locale, [other for other in LOCALES if other != locale
                                     and locale_folder(root, other) is not None])
    transcripts = folder / TRANSCRIPTS
    # utf-8-sig: a byte-order mark written by a spreadsheet is no part of the first column.
    rows = tsv_rows(transcripts, _EXPECTED_HEADER, encoding="utf-8-sig")
    header = _header(transcripts, next(rows, None))
    seen: dict[str, int] = {}
    utterances = [_utterance(transcripts, number, _cells(transcripts, number, header, row),
                             locale, seen) for number, row in rows]
    if not utterances:
        raise DataError(f"{transcripts}: holds a header and no rows; expected {_EXPECTED_HEADER}")
    return utterances


def _check(locale: str) -> None:
    # The locale names a folder: only the four this benchmark knows are looked for.
    if locale not in LOCALES:
        raise ValueError(f"not a {NAME} locale: {locale!r}; expected one of "
                         f"{', '.join(LOCALES)}")


def _header(transcripts: Path, first: tuple[int, list[str]] | None) -> dict[str, int]:
    """The header's column names with their places."""
    if first is None:
        raise DataError(f"{transcripts}: holds no rows; expected {_EXPECTED_HEADER}")
    number, names = first
    where = f"{transcripts}: line {number} (the header)"
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise DataError(f"{where}: names {', '.join(twice)} more than once; expected "
                        f"{_EXPECTED_HEADER}")
    lacking = [name for name in REQUIRED if name not in names]
    if lacking:
        raise DataError(f"{where}: has no {', '.join(lacking)} column; expected "
                        f"{_EXPECTED_HEADER}")
    return {name: index for index, name in enumerate(names)}


def _cells(transcripts: Path, number: int, header: dict[str, int],
           row: list[str]) -> dict[str, str]:
    """The row's cells by column name; a row may stop before trailing columns it leaves
    empty, never before a required one, and never run past the header."""
    where = f"{transcripts}: line {number}"
    if len(row) > len(header):
        raise DataError(f"{where}: {len(row)} cells where the header names {len(header)} "
                        "columns; expected one cell per column (a tab inside a sentence?)")
    short = [name for name in REQUIRED if header[name] >= len(row)]
    if short:
        raise DataError(f"{where}: {len(row)} cells, none for {', '.join(short)}; expected "
                        f"one cell per column of the header")
    return {name: row[index] for name, index in header.items() if index < len(row)}


def _utterance(transcripts: Path, number: int, cells: dict[str, str], locale: str,
               seen: dict[str, int]) -> Utterance:
    """The utterance of line `number`; `seen` maps the ids read so far to their lines."""
    where = f"{transcripts}: line {number}"
    name = cells["path"]
    if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
        raise DataError(f"{where}: the path {name!r} names no file; expected the clip's file "
                        f"name in {CLIPS_FOLDER}/ (no slash), e.g. common_voice_{locale}_1.mp3")
    ident = PurePath(name).stem
    if ident in seen:
        # The id is the file name without its extension: "a.mp3" and "a.wav" would be one item.
        raise DataError(f"{where}: the path {name!r} makes the id {ident!r} of line "
                        f"{seen[ident]} again; expected every clip once")
    seen[ident] = number
    if not cells["sentence"].strip():
        raise DataError(f"{where}: the sentence of {name!r} is empty; expected the reference "
                        "text in the sentence column")
    said = cells.get("locale", "")
    if said and said != locale:
        raise DataError(f"{where}: the locale of {name!r} is {said!r}; expected {locale!r}, "
                        f"the folder's ({transcripts.parent.name}/)")
    audio = transcripts.parent / CLIPS_FOLDER / name
    if not audio.is_file():
        raise DataError(f"{where}: no clip for {name!r}; expected {audio}")
    return Utterance(ident, cells["client_id"].strip(), cells["sentence"],
                     cells.get("gender", ""), audio)
