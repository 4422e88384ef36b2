"""The hub copy's parquet rows of a locale written as Mozilla's layout (``<locale>/test.tsv``
and ``<locale>/clips/``), a locale at a time, once, behind a marker: for the download's files
in the hub cache, and for a local snapshot of ``lmms-lab/common_voice_15``
(``huggingface-cli download --repo-type dataset lmms-lab/common_voice_15 --include 'en/*'
--local-dir DIR``), converted into the plugin's cache (``release_folder``). pyarrow is
imported only when rows are read, so importing this module stays cheap.

A row's clip is written as it is (its bytes, MP3 in Mozilla's release) under the file name its
``path`` column ends with; ``test.tsv`` gets the columns ``client_id`` (empty when the row has
none), ``path``, ``sentence`` (on one line), ``gender`` and ``locale``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_audiobench.benchmarks.common_voice.data import FLAG, locale_folder
from pytest_audiobench.benchmarks.common_voice.facts import (
    CLIPS_FOLDER,
    CORPUS_FOLDER,
    HUB_LOCALES,
    HUB_REPO,
    NAME,
    SPLIT,
    TRANSCRIPTS,
)
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

MARKER = ".common-voice-converted.json"
"""Written into a locale folder after a complete conversion; names the files it came from."""
VERSION = 1
"""Changes when the conversion writes something else, so that earlier ones are redone."""
COLUMNS = ("client_id", "path", "sentence", "gender", "locale")
"""The columns of a converted ``test.tsv``, a subset of Mozilla's."""
_EXPECTED_ROW = ("expected the columns sentence (the reference), path (the clip's file name), "
                 "audio (a struct with the clip's bytes), and client_id and locale when given "
                 "as text")


def hub_prefix(locale: str) -> str:
    """Where the hub copy keeps `locale`'s test files: ``<locale>/test-*.parquet``."""
    return f"{locale}/{SPLIT}-"


def conversion(blobs: Mapping[str, Path], target: Path, stamp: Mapping[str, Any],
               locale: str) -> Conversion:
    """`locale`'s folder of Mozilla's layout built into `target` from the parquet files
    `blobs` (a name to show -> its file), its marker holding `stamp`, what identifies them."""
    return Conversion(target, MARKER, {"conversion": VERSION, "locale": locale, **stamp},
                      lambda folder: _write_locale(blobs, folder, locale),
                      lambda built: (built / TRANSCRIPTS).is_file())


def release_folder(root: Path, locales: Sequence[str], cache_dir: Path) -> Path:
    """The folder holding Mozilla's layout of `locales`: `root` when none of them comes as the
    hub copy's parquet files (a local snapshot, ``<locale>/test-*.parquet``); else each
    converted once into ``cache_dir/common_voice/<hash>/<locale>/`` (the hash of the snapshot's
    test files of every locale it holds, so that each is converted once whichever are
    selected, and a changed file again). DataError, one line naming ``--audiobench-data``: a
    selected locale is neither there as parquet nor in Mozilla's layout, or the two layouts
    are mixed, pyarrow is missing, or a row is not as expected."""
    found = {locale: snapshot_files(root / locale, f"{SPLIT}-*{PARQUET_SUFFIX}")
             for locale in HUB_LOCALES}
    if not any(found.get(locale) for locale in locales):
        return root
    _all_parquet(root, locales, found)
    count = sum(len(found[locale]) for locale in locales)
    snapshot_needs_pyarrow(root, count, f"Common Voice {', '.join(locales)}",
                           f"Mozilla's {CORPUS_FOLDER} folder")
    cache = Path(cache_dir).expanduser().resolve()
    home = snapshot_home(cache, NAME, VERSION,
                         snapshot_stamp(path for files in found.values() for path in files))
    for locale in locales:
        blobs = {str(path): path for path in found[locale]}
        convert_local(root, conversion(blobs, home / locale,
                                       {"parquet": snapshot_stamp(found[locale])}, locale),
                      cache, f"Common Voice {locale} parquet files")
    return home


def _all_parquet(root: Path, locales: Sequence[str],
                 found: Mapping[str, Sequence[Path]]) -> None:
    """DataError naming the selected locales a snapshot does not hold as parquet files."""
    lacking = [locale for locale in locales if not found.get(locale)]
    if not lacking:
        return
    mozilla = [locale for locale in lacking if locale_folder(root, locale) is not None]
    # One folder holds every locale a run reads (its clips must lie inside it): a snapshot's
    # converted copy in the cache and a locale left where it is would be two.
    said = (f"{', '.join(mozilla)} in Mozilla's layout beside the hub copy's parquet files; "
            "expected one layout for every selected locale") if mozilla else (
        f"a snapshot of {HUB_REPO} without {', '.join(lacking)} "
        f"({', '.join(hub_prefix(locale) + '*' + PARQUET_SUFFIX for locale in lacking)}); the "
        f"hub copy holds {', '.join(HUB_LOCALES)}: read the others from Mozilla's download")
    raise DataError(f"--audiobench-data {root}: {said}, or select the locales it has with "
                    f"{FLAG}")


def _write_locale(blobs: Mapping[str, Path], folder: Path, locale: str) -> None:
    clips = folder / CLIPS_FOLDER
    clips.mkdir(parents=True)
    lines = ["\t".join(COLUMNS)]
    for where, row in numbered_rows(blobs):
        lines.append("\t".join(_write_row(row, where, clips, locale)))
    (folder / TRANSCRIPTS).write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _write_row(row: Mapping[str, Any], where: str, clips: Path, locale: str) -> tuple[str, ...]:
    """Write the row's clip; its cells of ``COLUMNS``, each on one line."""
    name = _clip_name(row, where)
    sentence = _one_line(column(row, "sentence", where, str, _EXPECTED_ROW))
    if not sentence:
        raise BadData(f"{where}: the sentence of {name!r} is empty; {_EXPECTED_ROW}")
    said = _text(row, "locale", where)
    if said and said != locale:
        raise BadData(f"{where}: the locale of {name!r} is {said!r}; expected {locale!r}, the "
                      "config's")
    data = column(row, "audio", where, dict, _EXPECTED_ROW).get("bytes")
    if not isinstance(data, bytes) or not data:
        raise BadData(f"{where}: the audio of {name!r} has no bytes; {_EXPECTED_ROW}")
    try:
        # "x": a second row of the same clip fails instead of overwriting the first's audio.
        with (clips / name).open("xb") as out:
            out.write(data)
    except FileExistsError as exc:
        raise BadData(f"{where}: the clip {name!r} is an earlier row's too; expected every "
                      "clip once") from exc
    return (_text(row, "client_id", where), name, sentence, _text(row, "gender", where), locale)


def _clip_name(row: Mapping[str, Any], where: str) -> str:
    """The file name the row's ``path`` ends with (the copy may keep the folder of the shard
    it was read from, ``en_test_0/common_voice_en_1.mp3``; a Windows path is read too)."""
    path = column(row, "path", where, str, _EXPECTED_ROW).replace("\\", "/")
    # A trailing slash names a folder, whose own name PurePosixPath would give.
    name = "" if path.endswith("/") else PurePosixPath(path).name
    # The name becomes a file written under clips/ and a cell of test.tsv: nothing that could
    # leave the folder or the cell.
    if name in ("", ".", "..") or any(c in name for c in "\0\t\r\n") or name != name.strip():
        raise BadData(f"{where}: the path {path!r} names no clip file; expected a file name "
                      "such as common_voice_en_1.mp3")
    return name


def _text(row: Mapping[str, Any], name: str, where: str) -> str:
    """An optional text column's value on one line; empty when the row has none."""
    value = row.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise BadData(f"{where}: {name} is a {type(value).__name__}; {_EXPECTED_ROW}")
    return _one_line(value)


def _one_line(text: str) -> str:
    # A test.tsv holds an utterance a line, its cells apart by tabs: no tab nor newline inside.
    return " ".join(text.split())
