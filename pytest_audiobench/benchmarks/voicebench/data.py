"""VoiceBench: its records, read per subset from the converted layout, or converted once from
the release's parquet files (a local snapshot of the hub repo, or the download's), validated
at load by the rules of the subset each belongs to.

The converted layout of a subset is ``<root>/<subset>/voicebench.jsonl`` (facts.CONVERTED), one
record a line (``VoiceBenchRecord``'s fields by their names, those the subset lacks left out;
``audio`` the clip's path relative to the subset's folder, ``audio/<id><ext>``), with the clips
in ``<root>/<subset>/audio/``: it reads without pyarrow, and the bundled mini data ships in it.

The release (``hlt-lab/voicebench``) keeps a config per subset in a folder of its name, its
parquet files named by split: ``<subset>/<split>-NNNNN-of-NNNNN.parquet``. Each row holds the
clip (``audio``: a struct of the file's ``bytes`` and its original ``path``), ``prompt`` (the
spoken instruction's text) and, by subset, ``reference``, ``id`` (bbh), ``key``,
``instruction_id_list`` and ``kwargs`` (ifeval). The splits are ``test``, but for sd-qa (one
per accent, facts.SD_QA_ACCENTS) and mmsu (one per domain, facts.MMSU_DOMAINS). That mmsu is
split by domain is taken from lmms-eval, whose per-domain tasks read ``test_split: <domain>``
(the reference's README names only sd-qa's splits): an mmsu file of another split (``test``)
is refused, the split found named. The rows carry no id of their own (bbh's ``id`` names its
task, not its place): a record's id is its split and its index in the split, counted from 0
as ``datasets`` indexes the rows the reference iterates (``usa-0007``, ``test-0000``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, model_validator

from pytest_audiobench.benchmarks.metafile import clip_inside, jsonl_records, size_note, validated
from pytest_audiobench.benchmarks.parquet_release import AUDIO_FOLDER, ParquetRelease
from pytest_audiobench.benchmarks.voicebench.facts import (
    BBH_TASKS,
    CONVERTED,
    HUB_REPO,
    MMSU_DOMAINS,
    NAME,
    SD_QA_ACCENTS,
    SIZES,
    SUBSETS,
)
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    BadData,
    parquet_rows,
    snapshot_files,
)

TEST_SPLIT = "test"
LETTERS = ("A", "B", "C", "D")
"""An mcq subset's references (openbookqa, mmsu): the reference compares the letter it reads
in a reply with the reference as it is."""
BBH_REFERENCES = ("yes", "no", "(a)", "(b)")
"""bbh's references, lower-cased as the reference's evaluator reads them (its
``ground_truth_mapping``; the release writes e.g. ``Yes`` and ``(A)``)."""
FILE_NAME = re.compile(r"(?P<split>[^/\\]+?)-\d{5}-of-\d{5}" + re.escape(PARQUET_SUFFIX))
"""A release file's name: its split, then which of the split's files it is."""
_REFERENCED = ("qa", "mcq", "bbh")
"""The evaluators that compare a reply with a reference: their subsets need one."""
_EXPECTED = ("expected an object with the strings subset, split, id and prompt; reference "
             "where the subset has one (sd-qa: the answer; openbookqa and mmsu: a letter A to D; "
             "bbh: yes, no, (A) or (B)); bbh_id (bbh: the release's id, naming its task); key, "
             "instruction_ids and kwargs (ifeval: an integer, the instructions' ids, one object "
             "of arguments each); and audio (the clip's path under the subset's folder, "
             f"{AUDIO_FOLDER}/<id><ext>)")
_EXPECTED_ROW = ("expected the columns prompt (a string), reference where the subset has one "
                 "(sd-qa: the answer; openbookqa and mmsu: a letter A to D; bbh: yes, no, (A) or "
                 "(B)), id (bbh, naming its task), key, instruction_id_list and kwargs (ifeval) "
                 "and audio (a struct with the clip's bytes and its original path), in files "
                 "named <split>-NNNNN-of-NNNNN.parquet (sd-qa: a split per accent; mmsu: per "
                 "domain; the others: test)")


def splits(subset: str) -> tuple[str, ...]:
    """The splits of `subset`, in the order its records are read."""
    if subset == "sd-qa":
        return SD_QA_ACCENTS
    if subset == "mmsu":
        return MMSU_DOMAINS
    return (TEST_SPLIT,)


class VoiceBenchRecord(BaseModel):
    """One spoken instruction of a VoiceBench subset, valid for that subset; ``audio`` is the
    clip's file (absolute, inside the folder read)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    subset: StrictStr
    """One of facts.SUBSETS: alpacaeval_full, commoneval, wildvoice, sd-qa, mmsu, openbookqa,
    bbh, ifeval, advbench."""
    split: StrictStr = Field(min_length=1)
    """The release's split: an accent of facts.SD_QA_ACCENTS (sd-qa), a domain of
    facts.MMSU_DOMAINS (mmsu), else ``test``."""
    id: StrictStr = Field(min_length=1)
    """The split and the row's index in it, from 0 (``usa-0007``): unique within a subset,
    not across subsets (every ``test`` split starts at ``test-0000``)."""
    prompt: StrictStr = Field(min_length=1)
    """The instruction's text, as spoken in the clip (the judge reads it as the question)."""
    reference: StrictStr | None = None
    """The correct answer, where the subset has one: sd-qa's answer text, openbookqa's and
    mmsu's letter (``A`` to ``D``), bbh's ``Yes``/``No``/``(A)``/``(B)`` as the release writes
    them (its evaluator lower-cases them); None for the other subsets."""
    bbh_id: StrictStr | None = None
    """bbh's own id (the row's ``id``), which names its task: ``sports_understanding_0``."""
    key: StrictInt | None = None
    """ifeval's prompt key (IFEval's own)."""
    instruction_ids: tuple[StrictStr, ...] = ()
    """ifeval's instructions (the row's ``instruction_id_list``), e.g. ``punctuation:no_comma``."""
    kwargs: tuple[dict[str, Any], ...] = ()
    """ifeval: each instruction's arguments, as the release holds them: every argument any
    instruction takes, those this one does not use null (the reference drops the empty ones
    before building the instruction)."""
    audio: Path

    @model_validator(mode="after")
    def _fits_its_subset(self) -> VoiceBenchRecord:
        problem = _misfit(self)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def bbh_task(self) -> str | None:
        """The bbh task the id names (the first of facts.BBH_TASKS in it, as the reference
        looks for them); None outside bbh."""
        return _task(self.bbh_id) if self.bbh_id is not None else None


def _misfit(record: VoiceBenchRecord) -> str | None:
    """What in `record` its subset does not allow, or None."""
    subset = record.subset
    if subset not in SUBSETS:
        return f"subset {subset!r} is none of VoiceBench's {', '.join(SUBSETS)}"
    return (_split_misfit(subset, record.split) or _reference_misfit(record)
            or _bbh_misfit(record) or _ifeval_misfit(record))


def _split_misfit(subset: str, split: str) -> str | None:
    if split in splits(subset):
        return None
    if subset == "sd-qa":
        return f"split {split!r} is none of sd-qa's accents ({', '.join(SD_QA_ACCENTS)})"
    if subset == "mmsu":
        return f"split {split!r} is none of mmsu's domains ({', '.join(MMSU_DOMAINS)})"
    return f"split {split!r}: {subset} has the one split {TEST_SPLIT}"


def _reference_misfit(record: VoiceBenchRecord) -> str | None:
    evaluator, reference = SUBSETS[record.subset], record.reference
    if evaluator not in _REFERENCED:
        return None
    if reference is None or not reference.strip():
        return f"{record.subset} needs a reference (the correct answer), found none"
    if evaluator == "mcq" and reference not in LETTERS:
        return f"reference {reference!r} is not a letter A to D"
    if evaluator == "bbh" and reference.lower() not in BBH_REFERENCES:
        return f"reference {reference!r} is none of yes, no, (A), (B)"
    return None


def _bbh_misfit(record: VoiceBenchRecord) -> str | None:
    if record.subset != "bbh":
        return None
    if record.bbh_id is None:
        return f"bbh needs its id, which names its task ({', '.join(BBH_TASKS)}), found none"
    if _task(record.bbh_id) is None:
        return f"bbh id {record.bbh_id!r} names none of the tasks {', '.join(BBH_TASKS)}"
    return None


def _ifeval_misfit(record: VoiceBenchRecord) -> str | None:
    if record.subset != "ifeval":
        return None
    if record.key is None:
        return "ifeval needs its key (an integer), found none"
    if not record.instruction_ids:
        return "ifeval needs its instruction ids (instruction_id_list), found none"
    if len(record.kwargs) != len(record.instruction_ids):
        return (f"{len(record.instruction_ids)} instruction id(s) but {len(record.kwargs)} "
                "kwargs; expected one object of arguments per instruction")
    return None


def _task(bbh_id: str) -> str | None:
    return next((task for task in BBH_TASKS if task in bbh_id), None)


def _line(record: VoiceBenchRecord) -> dict[str, Any]:
    """The record as its line writes it: the fields its subset has (the clip's path added
    after)."""
    return record.model_dump(mode="json", exclude={"audio"}, exclude_defaults=True)


# --- the release's parquet rows ---------------------------------------------------------------


def _subset_rows(subset: str, blobs: Mapping[str, Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The rows of `subset`'s parquet files `blobs` (a name to show -> its file) as records'
    fields, each with where it is: the splits in their order, each split's files in the order
    given, the split taken from the file's name and the id from the row's place in it."""
    placed = {name: _split_of(name) for name in blobs}
    rank = {split: place for place, split in enumerate(splits(subset))}
    counts: dict[str, int] = {}
    # Stable: a split's files keep the order given (sorted by name). A split the subset does
    # not have comes last, and its first row is refused by the record's validation.
    for name in sorted(blobs, key=lambda file: rank.get(placed[file], len(rank))):
        split = placed[name]
        for number, row in enumerate(parquet_rows(name, blobs[name]), 1):
            index = counts[split] = counts.get(split, -1) + 1
            yield f"{name}: row {number}", _fields(row, subset, split, index)


def _split_of(name: str) -> str:
    found = FILE_NAME.fullmatch(PurePosixPath(name.replace("\\", "/")).name)
    if found is None:
        raise BadData(f"{name}: not named as a split's file, <split>-NNNNN-of-NNNNN"
                      f"{PARQUET_SUFFIX} (e.g. {TEST_SPLIT}-00000-of-00001{PARQUET_SUFFIX})")
    return found.group("split")


def _fields(row: Mapping[str, Any], subset: str, split: str, index: int) -> dict[str, Any]:
    """A row as a record's fields: its columns under the record's names, the split and id
    added; a column the row lacks (or holds null) is left out, so the record says so."""
    fields = {"subset": subset, "split": split, "id": f"{split}-{index:04d}",
              "prompt": row.get("prompt"), "reference": row.get("reference"),
              "bbh_id": row.get("id") if subset == "bbh" else None, "key": row.get("key"),
              "instruction_ids": row.get("instruction_id_list"), "kwargs": row.get("kwargs"),
              "audio": row.get("audio")}
    return {name: value for name, value in fields.items() if value is not None}


def _release(subset: str) -> ParquetRelease:
    return ParquetRelease(
        name=f"{NAME}-{subset}", what=f"VoiceBench {subset}", repo=HUB_REPO, lines=CONVERTED,
        clip_field="audio", record=VoiceBenchRecord, line_of=_line, expected_row=_EXPECTED_ROW,
        holding=f"a folder holding {subset}/{CONVERTED} and {subset}/{AUDIO_FOLDER}/",
        version=1, rows=functools.partial(_subset_rows, subset))


RELEASES: dict[str, ParquetRelease] = {subset: _release(subset) for subset in SUBSETS}
"""Each subset's parquet rows, converted into the layout a run reads, downloaded or not."""


# --- reading ----------------------------------------------------------------------------------


def chosen(subsets: Sequence[str]) -> list[str]:
    """`subsets` in facts.SUBSETS' order, each once; ValueError for one VoiceBench lacks."""
    unknown = [subset for subset in subsets if subset not in SUBSETS]
    if unknown:
        raise ValueError(f"unknown VoiceBench subset(s) {', '.join(map(repr, unknown))}; "
                         f"expected some of {', '.join(SUBSETS)}")
    return [subset for subset in SUBSETS if subset in subsets]


def read_voicebench(root: Path, cache_dir: Path, subsets: Sequence[str]
                    ) -> tuple[list[VoiceBenchRecord], list[str]]:
    """The records of `subsets` under `root`, the subsets in facts.SUBSETS' order, each in the
    release's order, and a note for each subset that is not the whole release (facts.SIZES).

    `root` holds a folder per subset: the converted layout (``<subset>/voicebench.jsonl`` and
    ``<subset>/audio/``), or the hub repo's parquet files (``<subset>/<split>-*.parquet``, a
    local snapshot), converted once into ``cache_dir/voicebench-<subset>/<hash>/`` (the hash
    of the files' paths, sizes and modification times, so a changed file is converted again).

    DataError, one line: a chosen subset has neither under `root` (every one lacking named,
    with the folder expected); pyarrow, which the parquet files need, is not installed; a
    parquet row, or a line of ``voicebench.jsonl``, is not as its subset needs (its file and
    row or line named, and what was expected). ValueError for a subset VoiceBench lacks.
    """
    picked = chosen(subsets)
    root = Path(root).expanduser().resolve()
    cache = Path(cache_dir).expanduser().resolve()
    _require(root, picked)
    records: list[VoiceBenchRecord] = []
    notes: list[str] = []
    for subset in picked:
        found = _read_converted(subset_folder(root, subset, cache), subset)
        records += found
        note = size_note(f"{NAME} {subset}", len(found), SIZES[subset])
        if note is not None:
            notes.append(note)
    return records, notes


def subset_folder(root: Path, subset: str, cache_dir: Path) -> Path:
    """The folder holding `subset`'s converted layout: ``root/<subset>`` when it holds
    ``voicebench.jsonl``, else the conversion of the parquet files below it."""
    folder = root / subset
    if (folder / CONVERTED).is_file():
        return folder
    return RELEASES[subset].from_snapshot(folder, cache_dir, _layouts(subset))


def _require(root: Path, subsets: Sequence[str]) -> None:
    lacking = [subset for subset in subsets
               if not (root / subset / CONVERTED).is_file() and not snapshot_files(root / subset)]
    if lacking:
        raise DataError(
            f"--audiobench-data {root}: no VoiceBench {', '.join(lacking)} there; expected "
            f"{' and '.join(str(root / subset) for subset in lacking)}, each holding "
            f"{CONVERTED} and {AUDIO_FOLDER}/ (the converted layout) or the subset's parquet "
            f"files as the hub repo {HUB_REPO} has them (<subset>/<split>-NNNNN-of-NNNNN"
            f"{PARQUET_SUFFIX}); or choose the subsets it has with --audiobench-tasks")


def _layouts(subset: str) -> str:
    return (f"expected the converted layout ({CONVERTED}, one record a line, and the clips in "
            f"{AUDIO_FOLDER}/) or {subset}'s parquet files from the hub repo {HUB_REPO} "
            f"({subset}/<split>-NNNNN-of-NNNNN{PARQUET_SUFFIX})")


def _read_converted(folder: Path, subset: str) -> list[VoiceBenchRecord]:
    records, _ = jsonl_records(
        folder / CONVERTED, lambda where, raw: _record(folder, subset, where, raw), _EXPECTED,
        f"the {SIZES[subset]:,} records of VoiceBench {subset}")
    return records


def _record(folder: Path, subset: str, where: str, raw: Any) -> VoiceBenchRecord:
    """The record of the line at `where` (its value `raw`) in `subset`'s folder, its audio
    found under `folder`."""
    record = validated(VoiceBenchRecord, raw, where, _EXPECTED)
    where = f"{where} (id {record.id!r})"
    if record.subset != subset:
        raise DataError(f"{where}: subset {record.subset!r} in the folder of {subset}; "
                        f"expected every record of {folder} to be {subset}'s")
    clip = clip_inside(folder, where, "audio", raw["audio"], _EXPECTED)
    return record.model_copy(update={"audio": clip})
