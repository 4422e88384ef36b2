"""AISHELL-1's test split as the hub repo ``carlot/AIShell`` ships it (``data/test-*.parquet``,
a row per utterance) written as openslr's layout, which ``data.read_test`` reads: each row's
WAV file as ``wav/test/<speaker>/<UTTID>.wav`` and a transcript file of the test lines,
``transcript/aishell_transcript_v0.8.txt``, once, behind a marker: for the download's files in
the hub cache, and for a local snapshot of the repo (``huggingface-cli download --repo-type
dataset carlot/AIShell --include 'data/test-*' --local-dir DIR``), converted into the
plugin's cache (``convert_parquet_snapshot``). pyarrow is imported only when rows are read,
so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_audiobench.benchmarks.aishell1.data import (
    AUDIO_SUFFIX,
    TEST_FOLDER,
    speaker_of,
)
from pytest_audiobench.benchmarks.aishell1.facts import CORPUS_FOLDER, HUB_PREFIX, NAME, TRANSCRIPT
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    column,
    convert_snapshot,
    numbered_rows,
    snapshot_files,
)

MARKER = ".aishell1-converted.json"
"""Written into the converted ``data_aishell`` folder; names the parquet files it came from."""
VERSION = 1
"""Changes when the conversion writes something else, so that earlier ones are redone."""
EXPECTED_ROW = ("expected an audio struct (bytes: the utterance's WAV file; path: its file "
                f"name, <UTTID>{AUDIO_SUFFIX}) and a transcription (its words)")
SNAPSHOT_PATTERN = f"{PurePosixPath(HUB_PREFIX).name}*{PARQUET_SUFFIX}"
"""The test split's files in the snapshot's ``data/`` folder."""


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any]) -> Conversion:
    """The ``data_aishell`` folder built into `target` from the parquet files `blobs` (a name
    to show -> its file), its marker holding `stamp`, what identifies them."""
    return Conversion(target, MARKER, {"conversion": VERSION, **stamp},
                      lambda folder: _write(blobs, folder), Path.is_dir)


def convert_parquet_snapshot(root: Path, cache_dir: Path) -> Path | None:
    """The ``data_aishell`` folder converted once into ``cache_dir/aishell1/<hash>/`` from a
    local snapshot of the hub repo at `root` (its ``data/test-*.parquet``); None when `root`
    holds none. DataError, one line naming ``--audiobench-data``: pyarrow is not installed,
    or a row is not as expected."""
    found = snapshot_files(root / PurePosixPath(HUB_PREFIX).parent, SNAPSHOT_PATTERN)
    if not found:
        return None
    return convert_snapshot(root, found, Path(cache_dir).expanduser().resolve(), folder=NAME,
                            what="AISHELL-1 test", version=VERSION,
                            instead=f"the {CORPUS_FOLDER} folder of openslr's data_aishell.tgz",
                            conversion=conversion)


def _write(blobs: Mapping[str, Path], folder: Path) -> None:
    lines: dict[str, str] = {}
    for where, row in numbered_rows(blobs):
        uttid, text = _write_utterance(row, where, folder)
        lines[uttid] = text
    # After every row, sorted by id as openslr's file is: nothing says the rows are in order.
    transcript = folder / TRANSCRIPT
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("".join(f"{uttid} {lines[uttid]}\n" for uttid in sorted(lines)),
                          encoding="utf-8")


def _write_utterance(row: Mapping[str, Any], where: str, folder: Path) -> tuple[str, str]:
    """Write the row's WAV file into its speaker's folder; its id and transcript."""
    audio = column(row, "audio", where, dict, EXPECTED_ROW)
    name = audio.get("path")
    # A name written on Windows; only its last part is the utterance's file name.
    uttid = PurePosixPath(name.replace("\\", "/")).name.removesuffix(AUDIO_SUFFIX) \
        if isinstance(name, str) else ""
    speaker = speaker_of(uttid)
    if speaker is None:
        raise BadData(f"{where}: the audio's path {name!r} names no AISHELL-1 utterance; "
                      f"{EXPECTED_ROW}, such as BAC009S0764W0121{AUDIO_SUFFIX}")
    data = audio.get("bytes")
    if not isinstance(data, bytes) or not data:
        raise BadData(f"{where} ({uttid}): audio has no bytes; {EXPECTED_ROW}")
    # One line, the words single-spaced: the hub's texts open with spaces, and a newline would
    # cut the transcript file's line.
    text = " ".join(column(row, "transcription", where, str, EXPECTED_ROW).split())
    if not text:
        raise BadData(f"{where} ({uttid}): the transcription is empty; {EXPECTED_ROW}")
    speaker_folder = folder / TEST_FOLDER / speaker
    speaker_folder.mkdir(parents=True, exist_ok=True)
    try:
        # "x": a second row of the same utterance fails instead of overwriting the first's.
        with (speaker_folder / f"{uttid}{AUDIO_SUFFIX}").open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise BadData(f"{where}: {uttid} is an earlier row's too; expected every utterance "
                      "once") from exc
    return uttid, text
