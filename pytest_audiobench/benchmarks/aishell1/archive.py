"""AISHELL-1's test speakers still packed, as ``data_aishell.tgz`` extracts (each speaker's
``wav/<speaker>.tar.gz`` beside the transcript), unpacked once into the plugin's cache: the
transcript file copied and each test speaker's tarball extracted safely into
``wav/test/<speaker>/``, behind a marker naming the files they came from. Only the 20 test
speakers' tarballs are opened; the other 380 stay packed where they are.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.aishell1.data import (
    AUDIO_SUFFIX,
    TEST_FOLDER,
    corpus_folder,
)
from pytest_audiobench.benchmarks.aishell1.facts import (
    CORPUS_FOLDER,
    NAME,
    SPEAKER_ARCHIVE,
    SPLIT,
    TEST_SPEAKERS,
    TRANSCRIPT,
)
from pytest_audiobench.errors import DataError, UnpackError
from pytest_audiobench.hub.archive import extract_safely
from pytest_audiobench.hub.converting import (
    BadData,
    Conversion,
    convert_local,
    snapshot_home,
    snapshot_stamp,
)

MARKER = ".aishell1-unpacked.json"
"""Written into the unpacked ``data_aishell`` folder; names the files it came from."""
VERSION = 1
"""Changes when the unpacking writes something else, so that earlier ones are redone."""


def packed_speakers(folder: Path) -> dict[str, Path]:
    """The test speakers whose tarball ``folder`` (a ``data_aishell`` folder) holds, each
    with it, in the release's order of speakers."""
    found = {speaker: folder / SPEAKER_ARCHIVE.format(speaker=speaker)
             for speaker in TEST_SPEAKERS}
    return {speaker: path for speaker, path in found.items() if path.is_file()}


def refuse_a_mix(root: Path, folder: Path) -> None:
    """DataError, naming them, when test speakers are still packed beside the unpacked
    ``wav/test/`` of `folder`: reading the one would leave the others out unsaid."""
    unpacked = folder / TEST_FOLDER
    packed = [speaker for speaker, path in packed_speakers(folder).items()
              if not (unpacked / speaker).is_dir()]
    if packed:
        shown = ", ".join(packed[:5]) + (", ..." if len(packed) > 5 else "")
        raise DataError(f"--audiobench-data {root}: test speakers {shown} are still packed "
                        f"({SPEAKER_ARCHIVE.format(speaker=packed[0])}, ...) beside the "
                        f"unpacked {TEST_FOLDER.as_posix()}/; expected every test speaker "
                        f"unpacked (tar -xzf {SPEAKER_ARCHIVE.format(speaker=packed[0])} "
                        f"-C wav, in {folder}) or none (then all are unpacked into the cache)")


def unpack_speakers(root: Path, cache_dir: Path) -> Path | None:
    """The folder holding ``data_aishell/`` with the test speakers unpacked, when `root` holds
    their tarballs still packed: built once into ``cache_dir/aishell1/<hash>/`` (the hash of
    the transcript's and tarballs' paths, sizes and modification times, so that a changed
    file is unpacked again). None when `root` holds no transcript or no test speaker's
    tarball. DataError, one line naming ``--audiobench-data``: a tarball is unsafe,
    unreadable or holds no ``test/<speaker>/`` audio."""
    folder = corpus_folder(root)
    tarballs = packed_speakers(folder) if folder is not None else {}
    if folder is None or not tarballs:
        return None
    files = snapshot_stamp([folder / TRANSCRIPT, *tarballs.values()])
    cache = Path(cache_dir).expanduser().resolve()
    home = snapshot_home(cache, NAME, VERSION, files)
    convert_local(root, conversion(folder / TRANSCRIPT, tarballs, home / CORPUS_FOLDER,
                                   {"files": files}), cache, "AISHELL-1 test speakers' tarballs")
    return home


def conversion(transcript: Path, tarballs: Mapping[str, Path], target: Path,
               stamp: Mapping[str, Any]) -> Conversion:
    """``data_aishell/`` built into `target` from the transcript file and the test speakers'
    `tarballs` (speaker -> its file); its marker holds `stamp`, what identifies them."""

    def whole(built: Path) -> bool:
        return (built / TRANSCRIPT).is_file() and all(
            (built / TEST_FOLDER / speaker).is_dir() for speaker in tarballs)

    def build(built: Path) -> None:
        (built / TRANSCRIPT).parent.mkdir(parents=True)
        shutil.copyfile(transcript, built / TRANSCRIPT)
        for speaker, tarball in tarballs.items():
            _unpack(speaker, tarball, built)

    return Conversion(target, MARKER, {"conversion": VERSION, **stamp}, build, whole)


def _unpack(speaker: str, tarball: Path, built: Path) -> None:
    """Extract `tarball` into a folder of its own and keep its ``test/<speaker>/`` as
    ``wav/test/<speaker>/``."""
    unpacked = built / f".unpacking-{speaker}"
    unpacked.mkdir()
    try:
        # Apart, not into wav/: only the speaker's test folder is taken from the archive, and
        # moved (a rename, not a copy of its audio).
        extract_safely(tarball, unpacked)
    except UnpackError as exc:
        raise BadData(f"{tarball}: {exc}") from exc
    holder = unpacked / SPLIT / speaker
    if not any(holder.glob(f"*{AUDIO_SUFFIX}")):
        raise BadData(f"{tarball}: holds no {SPLIT}/{speaker}/*{AUDIO_SUFFIX} file; expected "
                      f"the members {SPLIT}/{speaker}/<UTTID>{AUDIO_SUFFIX} of a test "
                      "speaker's tarball")
    target = built / TEST_FOLDER / speaker
    target.parent.mkdir(parents=True, exist_ok=True)
    holder.rename(target)
    shutil.rmtree(unpacked, ignore_errors=True)
