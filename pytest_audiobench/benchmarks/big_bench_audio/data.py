"""Big Bench Audio: its records, read from the layout a run reads (``metadata.jsonl``, the
original release's file with each question's transcript added), or converted once from the
parquet copy's files (a local snapshot of the hub repo, or the download's), validated at load.

The layout (facts.METADATA) holds one JSON object a line: ``id``, ``category``,
``official_answer``, ``file_name`` (the clip's path relative to the file's folder, as in a
Hugging Face audiofolder) and ``transcript``, the question's text, which the judge needs. The
original release (facts.ORIGINAL_REPO) has every field but the transcript: a line without one
takes it from ``transcripts.jsonl`` (facts.TRANSCRIPTS) beside the file, one ``{"id": ...,
"transcript": ...}`` a line. It reads without pyarrow, and the bundled mini data ships in it.
The parquet copy's rows carry the transcript and the clip itself (``audio``: a struct of the
file's ``bytes`` and its original ``path``); ``RELEASE`` (a ``parquet_release.ParquetRelease``)
turns them into the layout, the clips in ``audio/``, for a local snapshot and for
``download.download_big_bench_audio`` alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictStr,
)

from pytest_audiobench.benchmarks.big_bench_audio.facts import (
    CATEGORIES,
    HUB_REPO,
    METADATA,
    NAME,
    ORIGINAL_REPO,
    SIZE,
    TRANSCRIPTS,
)
from pytest_audiobench.benchmarks.metafile import (
    clip_inside,
    jsonl_objects,
    jsonl_records,
    size_note,
    validated,
)
from pytest_audiobench.benchmarks.parquet_release import ParquetRelease
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, snapshot_files

FILE_NAME = "file_name"
"""The field of a line of ``metadata.jsonl`` that gives the clip's path."""
_ENCODING = "utf-8-sig"
"""Both files are read with a leading byte-order mark tolerated (a file saved by an editor)."""
_CATEGORY_LIST = ", ".join(CATEGORIES)
_TRANSCRIPT_LINE = '{"id": ..., "transcript": ...}'
_EXPECTED = (f"expected an object with id (a string or an integer), category (one of "
             f"{_CATEGORY_LIST}), official_answer (a non-empty string or an integer), "
             f"{FILE_NAME} (the clip's path relative to the folder) and transcript (the "
             f"question's text, non-empty; or else given in {TRANSCRIPTS} beside {METADATA})")
_EXPECTED_ROW = (f"expected the columns id (a string or an integer), category (one of "
                 f"{_CATEGORY_LIST}), official_answer (a non-empty string or an integer), "
                 "transcript (the question's text, non-empty) and audio (a struct with the "
                 "clip's file bytes and its original file name, path)")
_EXPECTED_TRANSCRIPT = (f"expected an object with id (a string or an integer, the id of a "
                        f"line of {METADATA}) and transcript (the question's text, non-empty)")
_LAYOUTS = (f"expected a folder holding {METADATA} (one record a line with id, category, "
            f"official_answer, {FILE_NAME} and transcript, the clips at {FILE_NAME}: the "
            f"original release {ORIGINAL_REPO}, with {TRANSCRIPTS} beside it when its lines "
            f"have no transcript) or a snapshot of the hub repo {HUB_REPO} (its train split as "
            f"*{PARQUET_SUFFIX} files, e.g. data/train-*{PARQUET_SUFFIX})")
_NO_TEXT = (f"the original release {ORIGINAL_REPO} carries no question text, and the judge "
            f"needs it: give {TRANSCRIPTS} beside {METADATA} (one {_TRANSCRIPT_LINE} a line) "
            f"or use the hub repo {HUB_REPO}, which has it (e.g. --audiobench-data "
            "huggingface)")


def _decimal(value: Any) -> Any:
    """An integer as its decimal string (the release's ids and answers may be numbers)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return value


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty nor only spaces")
    return value


def _not_empty(value: str) -> str:
    if not value:
        raise ValueError("must not be empty")
    return value


def _a_path(value: Any) -> Any:
    """The clip's path: a string in the file (a Path in code)."""
    if not isinstance(value, str | PurePath):
        raise ValueError("must be a string, the clip's path relative to the folder (found "
                         f"{type(value).__name__})")
    return value


def _known_category(value: str) -> str:
    if value not in CATEGORIES:
        raise ValueError(f"{value!r} is none of the categories {_CATEGORY_LIST}")
    return value


_Id = Annotated[StrictStr, BeforeValidator(_decimal), AfterValidator(_not_empty)]
_Answer = Annotated[StrictStr, BeforeValidator(_decimal), AfterValidator(_not_blank)]
_Text = Annotated[StrictStr, AfterValidator(_not_blank)]


class BigBenchAudioRecord(BaseModel):
    """One Big Bench Audio question: the release's fields and its transcript, ``audio`` being
    the clip's file (absolute, inside the folder read; ``file_name`` in the file)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: _Id
    """The release's id, a string (an integer in the file becomes its decimal string)."""
    category: Annotated[StrictStr, AfterValidator(_known_category)]
    """One of the four categories (facts.CATEGORIES), which are the tasks."""
    official_answer: _Answer
    """E.g. ``valid``, ``invalid``, ``Yes``, ``No``, ``7`` (an integer becomes its string)."""
    transcript: _Text
    """The question's text, as spoken in the clip; the judge reads it."""
    audio: Annotated[Path, BeforeValidator(_a_path)] = Field(
        validation_alias=AliasChoices(FILE_NAME, "audio"))
    """The clip: ``file_name`` in the file (relative to its folder), absolute once read."""


class _Transcript(BaseModel):
    """A line of ``transcripts.jsonl``."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    id: _Id
    transcript: _Text


@dataclass(frozen=True)
class _Given:
    """A transcript of ``transcripts.jsonl`` and the line it is on."""

    text: str
    line: int


def _line(record: BigBenchAudioRecord) -> dict[str, Any]:
    return {"id": record.id, "category": record.category,
            "official_answer": record.official_answer, "transcript": record.transcript}


RELEASE = ParquetRelease(
    name=NAME, what="Big Bench Audio", repo=HUB_REPO, lines=METADATA, clip_field=FILE_NAME,
    record=BigBenchAudioRecord, line_of=_line, expected_row=_EXPECTED_ROW,
    holding=f"a folder holding {METADATA} with each question's transcript, and the clips",
    version=1)
"""The parquet copy's rows, converted into the layout a run reads, downloaded or not."""


def release_folder(root: Path, cache_dir: Path) -> Path:
    """The folder holding Big Bench Audio's layout: `root` when it holds ``metadata.jsonl``;
    else the folder of the one ``metadata.jsonl`` below it (a snapshot of the original repo
    may keep it in a subfolder); else the conversion of the parquet copy's files anywhere
    below it (a snapshot of the hub repo), built once into ``cache_dir/big_bench_audio/<hash>/``
    (the hash of the files' paths, sizes and modification times, so a changed file is
    converted again). Hidden folders are left out of both searches. DataError, one line:
    neither layout is there; more than one ``metadata.jsonl`` is below the root; pyarrow,
    which the parquet files need, is not installed; or a parquet row is not as expected (its
    file and row named)."""
    root = Path(root).expanduser().resolve()
    metadata = _metadata_file(root)
    if metadata is not None:
        return metadata.parent.resolve()
    return RELEASE.from_snapshot(root, Path(cache_dir).expanduser().resolve(), _LAYOUTS)


def read_big_bench_audio(root: Path,
                         cache_dir: Path) -> tuple[list[BigBenchAudioRecord], str | None]:
    """Big Bench Audio's records in the folder ``release_folder`` finds under `root`, in the
    file's order, and a note when they are not the whole release (None when they are its
    1,000). A line of ``metadata.jsonl`` without a transcript takes it from
    ``transcripts.jsonl`` beside it.

    DataError, one line: as ``release_folder``, or a line of ``metadata.jsonl`` or
    ``transcripts.jsonl`` is not as expected (its file and line named, and what was
    expected): not JSON, a field missing or of the wrong type, an unknown category, an empty
    id, answer or transcript, an id twice, an audio path outside the folder or missing, a
    record without a transcript in either file, a transcript that differs between them, or a
    transcript whose id is in no record.
    """
    records = _read_folder(release_folder(root, cache_dir))
    return records, size_note(NAME, len(records), SIZE)


# --- finding the layout -----------------------------------------------------------------------


def _metadata_file(root: Path) -> Path | None:
    """``root/metadata.jsonl``, else the one below `root`; None when there is none."""
    if (root / METADATA).is_file():
        return root / METADATA
    if not root.is_dir():
        return None
    found = snapshot_files(root, METADATA)
    if len(found) > 1:
        names = ", ".join(str(path.relative_to(root)) for path in found)
        raise DataError(f"--audiobench-data {root}: {len(found)} {METADATA} files below it "
                        f"({names}); expected one: pass the folder of the one to read")
    return found[0] if found else None


# --- reading the layout -----------------------------------------------------------------------


def _read_folder(folder: Path) -> list[BigBenchAudioRecord]:
    """The records of ``folder/metadata.jsonl``, transcripts from ``transcripts.jsonl`` where
    its lines have none."""
    path = folder / METADATA
    given_path = folder / TRANSCRIPTS
    given = _read_transcripts(given_path) if given_path.is_file() else None
    records, first_line = jsonl_records(
        path, lambda where, raw: _record(folder, where, raw, given), _EXPECTED,
        f"the {SIZE:,} questions of Big Bench Audio", encoding=_ENCODING)
    if given is not None:
        _all_used(given_path, given, path, first_line)
    return records


def _read_transcripts(path: Path) -> dict[str, _Given]:
    """Each id's transcript in ``transcripts.jsonl``, with its line."""
    given: dict[str, _Given] = {}
    for where, number, raw in jsonl_objects(path, _EXPECTED_TRANSCRIPT, _ENCODING):
        entry = validated(_Transcript, raw, where, _EXPECTED_TRANSCRIPT)
        if entry.id in given:
            raise DataError(f"{where}: the id {entry.id!r} already appears on line "
                            f"{given[entry.id].line}; expected one transcript per id")
        given[entry.id] = _Given(entry.transcript, number)
    return given


def _all_used(given_path: Path, given: Mapping[str, _Given], path: Path,
              ids: Mapping[str, int]) -> None:
    """DataError naming the first transcript whose id is in no record: another release's
    file, or one for another version of this one."""
    unknown = [(entry.line, key) for key, entry in given.items() if key not in ids]
    if unknown:
        number, key = min(unknown)
        more = f" (nor are {len(unknown) - 1} more of its ids)" if len(unknown) > 1 else ""
        raise DataError(f"{given_path}: line {number}: the id {key!r} is in no record of "
                        f"{path}{more}; expected the transcripts of that file's records "
                        "(is it another release's file?)")


def _record(folder: Path, where: str, raw: Any,
            given: Mapping[str, _Given] | None) -> BigBenchAudioRecord:
    """The record of the line at `where` (its value `raw`), its transcript from the line or
    else from `given` (``transcripts.jsonl``, None when there is none), its audio under
    `folder`."""
    if isinstance(raw, dict) and "id" in raw:
        raw = _with_transcript({**raw, "id": _decimal(raw["id"])}, where, given,
                               folder / TRANSCRIPTS)
    record = validated(BigBenchAudioRecord, raw, where, _EXPECTED)
    value = raw.get(FILE_NAME, raw.get("audio"))
    clip = clip_inside(folder, f"{where} (id {record.id!r})", FILE_NAME, value, _EXPECTED)
    return record.model_copy(update={"audio": clip})


def _with_transcript(raw: dict[str, Any], where: str, given: Mapping[str, _Given] | None,
                     given_path: Path) -> dict[str, Any]:
    """`raw` with its transcript: its own, or the one ``transcripts.jsonl`` gives its id.
    An id that is not valid is left to the record's validation to name."""
    key = raw["id"]
    if not isinstance(key, str) or not key:
        return raw
    own = raw.get("transcript")
    entry = given.get(key) if given is not None else None
    if own is None and entry is None:
        source = (f"no {TRANSCRIPTS} beside it" if given is None
                  else f"{given_path} has none for it")
        raise DataError(f"{where} (id {key!r}): no transcript, and {source}; {_NO_TEXT}")
    if entry is None:
        return raw
    if own is not None and own != entry.text:
        raise DataError(f"{where} (id {key!r}): its transcript differs from the one on line "
                        f"{entry.line} of {given_path}; expected one transcript per id (the "
                        "same in both files, or in one of them)")
    return {**raw, "transcript": entry.text}
