"""The hub's parquet copy of WenetSpeech's test sets written as the cut layout
(``<split>/segments.jsonl`` and ``<split>/audio/``), a split at a time, once, behind a marker:
for the download's files in the hub cache, and for a local snapshot of
``lmms-lab-audio/WenetSpeech`` (``huggingface-cli download --repo-type dataset
lmms-lab-audio/WenetSpeech --include 'data/test_net-*' --local-dir DIR``), converted into the
plugin's cache (``convert_snapshot``). pyarrow is imported only when rows are read, so
importing this module stays cheap.

A row is one segment: ``text`` and ``audio`` (a struct: the clip's bytes and its original
path), as lmms-eval reads them. Its id is its ``sid`` or ``id`` column where the copy has
one, else its clip's original file name when that is a segment id, else its split and row
number. A segment id (``Y0000000009_26OUqTzrzv0_S00624``) is its recording's ``aid`` and
``_S<number>``: the recording is read from it, so that the gate clusters a recording's
segments as it does the release's; a row of another id has no recording.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_audiobench.benchmarks.wenetspeech.data import AUDIO, Utterance, write_split
from pytest_audiobench.benchmarks.wenetspeech.facts import HUB_FOLDER, HUB_REPO, NAME
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    clip_of,
    column,
    convert_local,
    numbered_rows,
    snapshot_files,
    snapshot_home,
    snapshot_needs_pyarrow,
    snapshot_stamp,
)

MARKER = ".wenetspeech-converted.json"
"""Written into a split folder after a complete conversion; names the files it came from."""
VERSION = 1
"""Changes when the conversion writes something else, so that earlier ones are redone."""
SEGMENT_ID = re.compile(r"(?P<aid>.+)_S\d+")
"""A release segment id: its recording's aid, then ``_S`` and the segment's number."""
_FILE_ID = re.compile(r"[^/\\\x00]+")
_EXPECTED_ROW = ("expected the columns text (the transcript) and audio (a struct with the "
                 "clip's bytes and path), and sid or id where the copy has them")


def hub_prefix(split: str) -> str:
    """The start of `split`'s parquet files' paths in the hub repo: ``data/<split>-``."""
    return f"{HUB_FOLDER}{split}-"


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any],
               split: str) -> Conversion:
    """`split`'s folder of the cut layout built into `target` from the parquet files `blobs`
    (a name to show -> its file), its marker holding `stamp`, what identifies them."""
    return Conversion(target, MARKER, {"conversion": VERSION, "split": split, **stamp},
                      lambda folder: _write_split(blobs, folder, split), Path.is_dir)


def snapshot_parquet(root: Path, split: str) -> list[Path]:
    """`split`'s parquet files in a local snapshot: ``<folder>/<split>-*.parquet`` (a repo
    pushed by ``datasets``: ``data/`` or a config's folder) or ``<split>/*.parquet`` (the
    hub's parquet conversion of a repo)."""
    return [path for path in snapshot_files(root)
            if path.name.startswith(f"{split}-") or path.parent.name == split]


def convert_snapshot(root: Path, found: Mapping[str, Sequence[Path]], cache_dir: Path) -> Path:
    """Each split of `found` (split -> its parquet files in the snapshot `root`, every
    selected split) converted once into ``cache_dir/wenetspeech/<hash>/<split>/`` (the hash
    of every file's path, size and time); that folder. DataError, one line naming
    ``--audiobench-data``: a selected split has no files, pyarrow is missing, a row is not
    as expected."""
    lacking = [split for split, files in found.items() if not files]
    if lacking:
        raise DataError(f"--audiobench-data {root}: a snapshot of {HUB_REPO} without "
                        f"{', '.join(lacking)} (no "
                        f"{', '.join(f'{hub_prefix(s)}*{PARQUET_SUFFIX}' for s in lacking)}); "
                        "expected each selected split's parquet files, or select the splits it "
                        "has with --audiobench-tasks")
    snapshot_needs_pyarrow(root, sum(len(files) for files in found.values()),
                           f"WenetSpeech {', '.join(found)}", "the release's folder "
                           "(WenetSpeech.json beside audio/)")
    cache = Path(cache_dir).expanduser().resolve()
    home = snapshot_home(cache, NAME, VERSION,
                         snapshot_stamp(path for files in found.values() for path in files))
    for split, files in found.items():
        blobs = {str(path): path for path in files}
        convert_local(root, conversion(blobs, home / split,
                                       {"parquet": snapshot_stamp(files)}, split),
                      cache, f"WenetSpeech {split} parquet files")
    return home


def _write_split(blobs: Mapping[str, Path], folder: Path, split: str) -> None:
    (folder / AUDIO).mkdir()
    utterances = [_write_row(row, where, number, folder, split)
                  for number, (where, row) in enumerate(numbered_rows(blobs), 1)]
    if not utterances:
        raise BadData(f"{', '.join(blobs)}: no rows; expected one row per segment")
    write_split(folder, utterances)


def _write_row(row: Mapping[str, Any], where: str, number: int, folder: Path,
               split: str) -> Utterance:
    """Write the row's clip; its utterance."""
    ident, recording = _identity(row, where, number, split)
    text = column(row, "text", where, str, _EXPECTED_ROW).strip()
    if not text:
        raise BadData(f"{where} (id {ident!r}): the text is empty; {_EXPECTED_ROW}")
    data, suffix = clip_of(row, where, ident, _EXPECTED_ROW)
    clip = folder / AUDIO / f"{ident}{suffix}"
    try:
        # "x": a second row of the same id fails instead of overwriting the first's clip.
        with clip.open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise BadData(f"{where}: the id {ident!r} is an earlier row's too; expected every id "
                      "once") from exc
    return Utterance(ident, recording, text, clip)


def _identity(row: Mapping[str, Any], where: str, number: int,
              split: str) -> tuple[str, str | None]:
    """The row's segment id and its recording's aid (None when the id is no segment id)."""
    given = next((row[key] for key in ("sid", "id") if row.get(key) is not None), None)
    if given is None:
        given = _named_by_clip(row)
    if given is None:
        return f"{split}-{number:06d}", None
    # A bool is an int to Python: a ``true`` id would name a clip "True".
    if isinstance(given, bool) or not isinstance(given, str | int):
        raise BadData(f"{where}: the id is a {type(given).__name__}; {_EXPECTED_ROW}")
    ident = str(given).strip()
    # The id names the clip's file: a separator or a dot folder would write outside audio/.
    if not _FILE_ID.fullmatch(ident) or ident in (".", ".."):
        raise BadData(f"{where}: the id {ident!r} cannot name a file; expected an id without "
                      "'/', '\\' or NUL, and not '.' or '..'")
    found = SEGMENT_ID.fullmatch(ident)
    return ident, found.group("aid") if found else None


def _named_by_clip(row: Mapping[str, Any]) -> str | None:
    """The segment id the clip's original file name is, if it is one."""
    audio = row.get("audio")
    original = audio.get("path") if isinstance(audio, dict) else None
    if not isinstance(original, str):
        return None
    stem = PurePosixPath(original.replace("\\", "/")).stem
    return stem if SEGMENT_ID.fullmatch(stem) else None
