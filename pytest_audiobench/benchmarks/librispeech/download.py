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
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, download_parquet_release


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
    prefix = hub_folder(split)
    return download_parquet_release(
        HUB_REPO, cache_dir, endpoint, what=f"LibriSpeech {split}", prefix=prefix, part=split,
        holding=f"{CORPUS_FOLDER}/{split}/ of openslr's {split} tarball",
        expected=f"one or more {prefix}*{PARQUET_SUFFIX} files, one row per utterance",
        conversion=lambda blobs, root, stamp: conversion(
            blobs, root / CORPUS_FOLDER / split, stamp, split))


def _check(split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown LibriSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
