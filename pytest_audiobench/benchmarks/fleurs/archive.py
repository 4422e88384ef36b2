"""FLEURS's hub files for one language (``data/<language>/test.tsv`` and the audio archive
``data/<language>/audio/test.tar.gz``) unpacked into the layout ``data.read_language`` reads
(``<language>/test.tsv`` and ``<language>/audio/test/``), once, behind a marker: for the
download's files in the hub cache, and for a local snapshot of ``google/fleurs``
(``huggingface-cli download --repo-type dataset google/fleurs --include 'data/en_us/test*'
--include 'data/en_us/audio/test*' --local-dir DIR``), unpacked into the plugin's cache
(``release_folder``).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.fleurs.data import (
    AUDIO_FOLDER,
    HUB_DATA_FOLDER,
    SPLIT,
    TRANSCRIPTS,
    language_folder,
)
from pytest_audiobench.benchmarks.fleurs.facts import NAME
from pytest_audiobench.errors import DataError, UnpackError
from pytest_audiobench.hub.archive import extract_safely
from pytest_audiobench.hub.converting import (
    BadData,
    Conversion,
    convert_local,
    snapshot_home,
    snapshot_stamp,
)

MARKER = ".fleurs-unpacked.json"
"""Written into a language folder after a complete unpacking; names the files it came from."""
VERSION = 1
"""Changes when the unpacking writes something else, so that earlier ones are redone."""
ARCHIVE = f"audio/{SPLIT}.tar.gz"
"""The split's audio archive in a language folder of the hub repo."""
_AUDIO_SUFFIX = ".wav"
_UNPACKED = ".unpacked"


def hub_files(language: str) -> tuple[str, str]:
    """The repo paths of `language`'s transcript file and audio archive."""
    folder = f"{HUB_DATA_FOLDER}/{language}"
    return f"{folder}/{TRANSCRIPTS}", f"{folder}/{ARCHIVE}"


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any],
               language: str) -> Conversion:
    """`language`'s folder built into `target` from its two hub files (``blobs``: their repo
    paths, ``hub_files``, -> their files): the transcript file copied, the archive's folder
    of audio as ``audio/test/``; its marker holds `stamp`, what identifies the files."""
    transcripts, archive = hub_files(language)

    def whole(folder: Path) -> bool:
        return (folder / TRANSCRIPTS).is_file() and (folder / AUDIO_FOLDER).is_dir()

    def build(folder: Path) -> None:
        shutil.copyfile(blobs[transcripts], folder / TRANSCRIPTS)
        _unpack(archive, blobs[archive], folder)

    return Conversion(target, MARKER, {"conversion": VERSION, "language": language, **stamp},
                      build, whole)


def release_folder(root: Path, languages: Sequence[str], cache_dir: Path) -> Path:
    """The folder holding `languages` in the layout ``read_language`` reads: `root` when no
    language folder (``data.language_folder``) holds the hub's archive still packed (its
    audio unpacked beside ``test.tsv``, or nothing: its reading then says what it lacks);
    else, for a local snapshot of the hub repo (``test.tsv`` beside ``audio/test.tar.gz``),
    each language's two files unpacked once into ``cache_dir/fleurs/<hash>/<language>/``
    (the hash of every selected language's files' paths, sizes and modification times, so
    that a changed file is unpacked again). DataError, one line naming
    ``--audiobench-data``: no ``test.tsv`` there, a snapshot lacks a selected language's
    archive, or an archive is unsafe, unreadable or holds no audio."""
    found = {language: language_folder(root, language) for language in languages}
    packed = {language: folder for language, folder in found.items()
              if not (folder / AUDIO_FOLDER).is_dir() and (folder / ARCHIVE).is_file()}
    if not packed:
        return root
    unpacked = [language for language in languages if language not in packed]
    if unpacked:
        # One folder holds every language a run reads (its audio must lie inside it): a mix
        # of unpacked folders and packed archives would need two.
        raise DataError(f"--audiobench-data {root}: FLEURS {', '.join(packed)} come as the "
                        f"hub's {ARCHIVE} but {', '.join(unpacked)} not; expected every "
                        "selected language either unpacked or as the hub keeps it")
    files = {language: dict(zip(hub_files(language), (folder / TRANSCRIPTS, folder / ARCHIVE),
                                strict=True)) for language, folder in packed.items()}
    cache = Path(cache_dir).expanduser().resolve()
    home = snapshot_home(cache, NAME, VERSION, snapshot_stamp(
        path for paths in files.values() for path in paths.values()))
    for language, paths in files.items():
        convert_local(root, conversion(paths, home / language,
                                       {"files": snapshot_stamp(paths.values())}, language),
                      cache, f"FLEURS {language} audio archive")
    return home


def _unpack(name: str, blob: Path, folder: Path) -> None:
    """Extract the archive `name` (its file `blob`) and keep the folder holding its audio
    files as ``folder/audio/test``."""
    unpacked = folder / _UNPACKED
    unpacked.mkdir()
    try:
        # Into a folder of its own: the archive's layout is not trusted to be the one read; only the
        # folder that holds the audio is kept, renamed (no copy of its gigabytes).
        extract_safely(blob, unpacked)
    except UnpackError as exc:
        raise BadData(f"{name} ({blob}): {exc}") from exc
    holder = _audio_holder(unpacked, name)
    target = folder / AUDIO_FOLDER
    target.parent.mkdir(parents=True, exist_ok=True)
    holder.rename(target)
    shutil.rmtree(unpacked, ignore_errors=True)


def _audio_holder(unpacked: Path, name: str) -> Path:
    """The one folder of the unpacked archive that directly holds ``.wav`` files."""
    holders = sorted({p.parent for p in unpacked.rglob(f"*{_AUDIO_SUFFIX}") if p.is_file()})
    if len(holders) == 1:
        return holders[0]
    shown = ", ".join(f"{p.relative_to(unpacked).as_posix() or '.'}/" for p in holders[:3])
    found = f"its {_AUDIO_SUFFIX} files are spread over {len(holders)} folders ({shown})" \
        if holders else f"it holds no {_AUDIO_SUFFIX} files"
    raise BadData(f"{name}: {found}; expected one folder of them, {SPLIT}/<file_name>"
                  f"{_AUDIO_SUFFIX}")
