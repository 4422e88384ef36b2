"""Download a LibriSpeech test split from Hugging Face: the split's parquet files are fetched
into the Hugging Face hub cache and converted once into openslr's layout, which
``data.read_split`` reads. ``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily
inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.librispeech.data import (
    AUDIO_SUFFIX,
    CORPUS_FOLDER,
    TRANSCRIPT_SUFFIX,
)
from pytest_audiobench.benchmarks.librispeech.facts import (
    HUB_CONFIGS,
    HUB_REPO,
    HUB_SPLIT,
    SPLITS,
)
from pytest_audiobench.hub.converting import (
    HF_CACHE_FOLDER,
    LOCKS_FOLDER,
    PARQUET_SUFFIX,
    BadData,
    Conversion,
    blob_stamp,
    column,
    connect,
    convert_or_explain,
    fetch_or_explain,
    parquet_names,
    parquet_rows,
    pyarrow_install,
    require_pyarrow,
)
from pytest_audiobench.hub.huggingface import resolve_hf_endpoint
from pytest_audiobench.hub.network import fix_hint

# Written into the split folder after a complete conversion; names the parquet blobs it came
# from. _CONVERSION changes when the conversion writes something else, so the marker differs.
_CONVERTED_MARKER = ".librispeech-converted.json"
_CONVERSION = 1
_EXPECTED_ROW = ("expected the columns id (<speaker>-<chapter>-<number>), speaker_id, "
                 "chapter_id (integers), text (one line) and audio (a struct with the FLAC "
                 "file's bytes)")

Transcripts = dict[tuple[str, str], dict[str, str]]
"""(speaker, chapter) -> utterance id -> transcript."""


def download_librispeech(cache_dir: Path, split: str, *, endpoint: str | None = None) -> Path:
    """Fetch LibriSpeech's `split` ("test-clean" or "test-other") from the hub repo
    ``openslr/librispeech_asr`` through huggingface_hub into `cache_dir`, convert it once, and
    return the root that ``read_split`` reads: it holds ``LibriSpeech/<split>/<speaker>/
    <chapter>/`` with each chapter's ``<speaker>-<chapter>.trans.txt`` and ``<id>.flac`` files,
    as openslr's tarball extracts.

    The repo: config ``clean`` (test-clean) or ``other`` (test-other), split ``test``, stored
    as parquet under ``<config>/<split>/`` (``clean/test/0000.parquet``; config ``all`` has the
    same rows under ``all/test.clean/`` and ``all/test.other/``, and the training and
    validation splits sit beside them, e.g. ``clean/train.100/``, ``clean/validation/``). So
    found in public code that fetches these files by path from the repo (searched in December
    2026), and agreed with by the card's configs. The files taken are the ``*.parquet`` files
    of the repo's file list whose path starts with ``<config>/test/``, in sorted order, and
    no other; huggingface_hub downloads only what its cache lacks. Each row has ``file``,
    ``audio`` (a struct: ``bytes``, the utterance's FLAC file, and ``path``), ``text``,
    ``speaker_id``, ``chapter_id`` and ``id``.

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/openslr--librispeech_asr``, and each split is converted on its own into
    ``LibriSpeech/<split>/`` there (a temporary folder renamed into place, with a marker
    naming the parquet blobs: a later call converts again only when a parquet file changed or
    the folder is gone); ``.openslr--librispeech_asr-<split>.parquet.json`` lists the split's
    parquet files for offline calls; lock files are in ``cache_dir/.locks``. The hub, its
    probe and offline use are as for the other downloads: `endpoint`, else HF_ENDPOINT, else
    https://huggingface.co; with HF_HUB_OFFLINE set, or when the hub does not answer, only
    the hub cache and the saved file list are used.

    Conversion: each row's audio bytes are written as they are to ``<id>.flac``; each
    chapter's transcript file gets a line ``<id> <text>`` per row, sorted by id.

    Raises ValueError for another split; DownloadError (one line, chained) when pyarrow is
    not installed, the hub is unreachable and the files are not cached, the repo or the
    split's parquet files are missing, the download fails, or a parquet file or row (named
    with its number) is not as expected.
    """
    config = _config(split)
    cache_dir = Path(cache_dir).expanduser().resolve()
    name = HUB_REPO.replace("/", "--")
    root = cache_dir / name
    url = resolve_hf_endpoint(endpoint)
    fix = fix_hint(url, f"{CORPUS_FOLDER}/{split}/ of openslr's {split} tarball")
    require_pyarrow(f"LibriSpeech {split} ({HUB_REPO} at {url})", fix, pyarrow_install())
    hub = connect(HUB_REPO, url, cache_dir / HF_CACHE_FOLDER)
    listing = cache_dir / f".{name}-{split}{PARQUET_SUFFIX}.json"
    prefix = f"{config}/{HUB_SPLIT}/"
    blobs = fetch_or_explain(
        hub, lambda: hub.fetch_all(parquet_names(hub, listing, prefix)),
        what=f"LibriSpeech {split} ({HUB_REPO}: {prefix}*{PARQUET_SUFFIX})", fix=fix,
        expected=f"one or more {prefix}*{PARQUET_SUFFIX} files, one row per utterance")
    convert_or_explain(_conversion(blobs, root / CORPUS_FOLDER / split, split), hub,
                       what=f"LibriSpeech {split}", fix=fix,
                       lock=cache_dir / LOCKS_FOLDER / f"{name}-{split}.lock",
                       listing=listing, names=list(blobs))
    return root


def _config(split: str) -> str:
    if split not in SPLITS:
        raise ValueError(f"unknown LibriSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
    return HUB_CONFIGS[split]


def _conversion(blobs: Mapping[str, Path], target: Path, split: str) -> Conversion:
    """The split folder built from the parquet files; its marker names their cache blobs."""
    stamp = {"conversion": _CONVERSION, "split": split, "parquet": blob_stamp(blobs)}
    return Conversion(target, _CONVERTED_MARKER, stamp,
                      lambda folder: _write_split(blobs, folder), Path.is_dir)


def _write_split(blobs: Mapping[str, Path], folder: Path) -> None:
    transcripts: Transcripts = {}
    for where, row in _rows_of(blobs):
        _write_utterance(row, where, folder, transcripts)
    for (speaker, chapter), lines in transcripts.items():
        text = "".join(f"{uttid} {lines[uttid]}\n" for uttid in sorted(lines))
        path = folder / speaker / chapter / f"{speaker}-{chapter}{TRANSCRIPT_SUFFIX}"
        path.write_text(text, encoding="utf-8")


def _rows_of(blobs: Mapping[str, Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each row of the parquet files, with where it is: the file and the row's number in it,
    counted from 1."""
    for name, blob in blobs.items():
        for number, row in enumerate(parquet_rows(name, blob), 1):
            yield f"{name}: row {number}", row


def _write_utterance(row: Mapping[str, Any], where: str, folder: Path,
                     transcripts: Transcripts) -> None:
    """Write the row's FLAC file and keep its transcript line for its chapter."""
    speaker, chapter, uttid = _placed(row, where)
    text = " ".join(column(row, "text", where, str, _EXPECTED_ROW).split())
    if not text:
        raise BadData(f"{where}: the text of {uttid!r} is empty; {_EXPECTED_ROW}")
    data = column(row, "audio", where, dict, _EXPECTED_ROW).get("bytes")
    if not isinstance(data, bytes) or not data:
        raise BadData(f"{where}: audio has no bytes; {_EXPECTED_ROW}")
    chapter_folder = folder / speaker / chapter
    chapter_folder.mkdir(parents=True, exist_ok=True)
    try:
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
    if head != f"{speaker}-{chapter}" or not number.isdigit() or not number.isascii():
        raise BadData(f"{where}: the id {uttid!r} is not of speaker {speaker}, chapter "
                      f"{chapter}; expected {speaker}-{chapter}-<number>")
    return str(speaker), str(chapter), uttid
