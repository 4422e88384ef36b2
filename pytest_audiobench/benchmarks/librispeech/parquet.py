"""LibriSpeech's hub parquet rows written as openslr's layout (``LibriSpeech/<split>/<speaker>/
<chapter>/`` with each chapter's transcript file and ``.flac`` files), a split at a time, once,
behind a marker: for the download's files in the hub cache, and for a local snapshot of
``openslr/librispeech_asr`` (``huggingface-cli download --repo-type dataset
openslr/librispeech_asr --include 'clean/test/*' --local-dir DIR``), converted into the
plugin's cache (``release_folder``). pyarrow is imported only when rows are read, so importing
this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.librispeech.data import (
    AUDIO_SUFFIX,
    CORPUS_FOLDER,
    TRANSCRIPT_SUFFIX,
    holds_split,
)
from pytest_audiobench.benchmarks.librispeech.facts import HUB_CONFIGS, HUB_REPO, HUB_SPLIT, NAME
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    column,
    convert_local,
    numbered_rows,
    snapshot_files,
    snapshot_home,
    snapshot_needs_pyarrow,
    snapshot_stamp,
)

MARKER = ".librispeech-converted.json"
"""Written into a split folder after a complete conversion; names the files it came from."""
VERSION = 1
"""Changes when the conversion writes something else, so that earlier ones are redone."""
_EXPECTED_ROW = ("expected the columns id (<speaker>-<chapter>-<number>), speaker_id, "
                 "chapter_id (integers), text (one line) and audio (a struct with the FLAC "
                 "file's bytes)")

Transcripts = dict[tuple[str, str], dict[str, str]]
"""(speaker, chapter) -> utterance id -> transcript."""


def hub_folder(split: str) -> str:
    """Where the hub repo keeps `split`'s parquet files: ``<config>/test/``."""
    return f"{HUB_CONFIGS[split]}/{HUB_SPLIT}/"


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any],
               split: str) -> Conversion:
    """`split`'s folder of openslr's layout built into `target` from the parquet files
    `blobs` (a name to show -> its file), its marker holding `stamp`, what identifies them."""
    return Conversion(target, MARKER, {"conversion": VERSION, "split": split, **stamp},
                      lambda folder: _write_split(blobs, folder), Path.is_dir)


def release_folder(root: Path, splits: Sequence[str], cache_dir: Path) -> Path:
    """The folder holding openslr's layout of `splits`: `root` when it holds each of them;
    else, when `root` holds the hub repo's parquet files of any of them (a local snapshot,
    ``<config>/test/*.parquet``), each split converted once into
    ``cache_dir/librispeech/<hash>/LibriSpeech/<split>/`` (the hash of every test split's
    files in the snapshot, so that each split is converted once whichever are selected, and
    a changed file again); else `root`, whose reading then says what it lacks. DataError, one
    line naming ``--audiobench-data``: a selected split's parquet files are missing from the
    snapshot, pyarrow is not installed, or a row is not as expected."""
    if all(holds_split(root, split) for split in splits):
        return root
    found = {split: snapshot_files(root / hub_folder(split)) for split in HUB_CONFIGS}
    if not any(found[split] for split in splits):
        return root
    _all_there(root, {split: found[split] for split in splits})
    snapshot_needs_pyarrow(root, sum(len(found[split]) for split in splits),
                           f"LibriSpeech {', '.join(splits)}",
                           f"the {CORPUS_FOLDER} folder of openslr's tarballs")
    cache = Path(cache_dir).expanduser().resolve()
    home = snapshot_home(cache, NAME, VERSION,
                         snapshot_stamp(path for files in found.values() for path in files))
    for split in splits:
        blobs = {str(path): path for path in found[split]}
        convert_local(root, conversion(blobs, home / CORPUS_FOLDER / split,
                                       {"parquet": snapshot_stamp(found[split])}, split),
                      cache, f"LibriSpeech {split} parquet files")
    return home


def _all_there(root: Path, found: Mapping[str, Sequence[Path]]) -> None:
    """DataError naming the selected splits whose parquet files the snapshot lacks."""
    lacking = [split for split, files in found.items() if not files]
    if lacking:
        wanted = ", ".join(f"{hub_folder(split)}*{PARQUET_SUFFIX}" for split in lacking)
        raise DataError(f"--audiobench-data {root}: a snapshot of {HUB_REPO} without "
                        f"{', '.join(lacking)} ({wanted}); expected each selected split's "
                        "parquet files, or select the splits it has with --audiobench-tasks")


def _write_split(blobs: Mapping[str, Path], folder: Path) -> None:
    transcripts: Transcripts = {}
    for where, row in numbered_rows(blobs):
        _write_utterance(row, where, folder, transcripts)
    # After every row: nothing says a chapter's rows are together, and its transcript file is
    # written once, whole.
    for (speaker, chapter), lines in transcripts.items():
        # In id order, as openslr's files list them (the numbers are zero-padded: text order is
        # number order).
        text = "".join(f"{uttid} {lines[uttid]}\n" for uttid in sorted(lines))
        path = folder / speaker / chapter / f"{speaker}-{chapter}{TRANSCRIPT_SUFFIX}"
        path.write_text(text, encoding="utf-8")


def _write_utterance(row: Mapping[str, Any], where: str, folder: Path,
                     transcripts: Transcripts) -> None:
    """Write the row's FLAC file and keep its transcript line for its chapter."""
    speaker, chapter, uttid = _placed(row, where)
    # One line: a transcript file holds an utterance a line, and a newline in a text would cut it.
    text = " ".join(column(row, "text", where, str, _EXPECTED_ROW).split())
    if not text:
        raise BadData(f"{where}: the text of {uttid!r} is empty; {_EXPECTED_ROW}")
    data = column(row, "audio", where, dict, _EXPECTED_ROW).get("bytes")
    if not isinstance(data, bytes) or not data:
        raise BadData(f"{where}: audio has no bytes; {_EXPECTED_ROW}")
    chapter_folder = folder / speaker / chapter
    chapter_folder.mkdir(parents=True, exist_ok=True)
    try:
        # "x": a second row of the same id fails instead of overwriting the first's audio.
        with (chapter_folder / f"{uttid}{AUDIO_SUFFIX}").open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise BadData(f"{where}: the id {uttid!r} is an earlier row's too; expected every id "
                      "once") from exc
    transcripts.setdefault((speaker, chapter), {})[uttid] = text


def _placed(row: Mapping[str, Any], where: str) -> tuple[str, str, str]:
    """The row's speaker, chapter and id, the id checked to be theirs."""
    speaker = column(row, "speaker_id", where, int, _EXPECTED_ROW)
    chapter = column(row, "chapter_id", where, int, _EXPECTED_ROW)
    uttid = column(row, "id", where, str, _EXPECTED_ROW)
    head, _, number = uttid.rpartition("-")
    # isascii too: isdigit accepts other scripts' digits (and superscripts).
    if head != f"{speaker}-{chapter}" or not number.isdigit() or not number.isascii():
        raise BadData(f"{where}: the id {uttid!r} is not of speaker {speaker}, chapter "
                      f"{chapter}; expected {speaker}-{chapter}-<number>")
    return str(speaker), str(chapter), uttid
