"""Download a LibriSpeech test split from Hugging Face: the split's parquet files are fetched
into the Hugging Face hub cache and converted once into openslr's layout, which
``data.read_split`` reads, by the same ``parquet.conversion`` that converts a local snapshot.
``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.librispeech.data import CORPUS_FOLDER
from pytest_audiobench.benchmarks.librispeech.facts import HUB_REPO, SPLITS
from pytest_audiobench.benchmarks.librispeech.parquet import conversion, hub_folder
from pytest_audiobench.hub.converting import (
    HF_CACHE_FOLDER,
    LOCKS_FOLDER,
    PARQUET_SUFFIX,
    blob_stamp,
    connect,
    convert_or_explain,
    fetch_or_explain,
    parquet_names,
    pyarrow_install,
    require_pyarrow,
)
from pytest_audiobench.hub.huggingface import resolve_hf_endpoint
from pytest_audiobench.hub.network import fix_hint


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
    _check(split)
    cache_dir = Path(cache_dir).expanduser().resolve()
    name = HUB_REPO.replace("/", "--")
    root = cache_dir / name
    url = resolve_hf_endpoint(endpoint)
    fix = fix_hint(url, f"{CORPUS_FOLDER}/{split}/ of openslr's {split} tarball")
    require_pyarrow(f"LibriSpeech {split} ({HUB_REPO} at {url})", fix, pyarrow_install())
    hub = connect(HUB_REPO, url, cache_dir / HF_CACHE_FOLDER)
    listing = cache_dir / f".{name}-{split}{PARQUET_SUFFIX}.json"
    prefix = hub_folder(split)
    blobs = fetch_or_explain(
        hub, lambda: hub.fetch_all(parquet_names(hub, listing, prefix)),
        what=f"LibriSpeech {split} ({HUB_REPO}: {prefix}*{PARQUET_SUFFIX})", fix=fix,
        expected=f"one or more {prefix}*{PARQUET_SUFFIX} files, one row per utterance")
    stamp = {"parquet": blob_stamp(blobs)}
    convert_or_explain(conversion(blobs, root / CORPUS_FOLDER / split, stamp, split), hub,
                       what=f"LibriSpeech {split}", fix=fix,
                       lock=cache_dir / LOCKS_FOLDER / f"{name}-{split}.lock",
                       listing=listing, names=list(blobs))
    return root


def _check(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown LibriSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
