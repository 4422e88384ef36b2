"""Download AISHELL-1's test split from Hugging Face: the hub repo's test parquet files are
fetched into the Hugging Face hub cache and converted once into openslr's layout, which
``data.read_test`` reads, by the same ``parquet.conversion`` that converts a local snapshot.
``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.aishell1.facts import CORPUS_FOLDER, HUB_PREFIX, HUB_REPO, SPLIT
from pytest_audiobench.benchmarks.aishell1.parquet import conversion
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, download_parquet_release


def download_aishell1(cache_dir: Path, *, endpoint: str | None = None) -> Path:
    """Fetch AISHELL-1's test split from the hub repo ``carlot/AIShell`` through
    huggingface_hub into `cache_dir`, convert it once, and return the root that ``read_test``
    reads: it holds ``data_aishell/transcript/aishell_transcript_v0.8.txt`` (the test lines)
    and ``data_aishell/wav/test/<speaker>/<UTTID>.wav``, as openslr's release extracts.

    The repo: the corpus in its official split as parquet, ``data/train-*``,
    ``data/validation-*`` (the release's dev) and ``data/test-*`` (one file, 7,176 rows); a row
    is an ``audio`` struct (``bytes``, the release's WAV file byte for byte, and ``path``,
    ``<UTTID>.wav``) and a ``transcription`` (the transcript file's words, after four leading
    spaces). So found in public download scripts that fetch these files by path and checked
    them against openslr's (searched in December 2026); the card could not be read here, and
    that is the assumption this download rests on. Not ``AISHELL/AISHELL-1``: the publisher's
    repo mirrors openslr's speaker tarballs, but of 100 training speakers only (the same
    scripts list it), so a test split cannot be had from it. The files taken are the
    ``*.parquet`` files of the repo's file list whose path starts with ``data/test-``, and no
    other; huggingface_hub downloads only what its cache lacks.

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/carlot--AIShell``, converted into ``data_aishell/`` there (a temporary folder
    renamed into place, with a marker naming the parquet blobs: a later call converts again
    only when a file changed or the folder is gone);
    ``.carlot--AIShell-test.parquet.json`` lists the files for offline calls; lock files are
    in ``cache_dir/.locks``. The hub, its probe and offline use are as for the other
    downloads: `endpoint`, else HF_ENDPOINT, else https://huggingface.co; with HF_HUB_OFFLINE
    set, or when the hub does not answer, only the hub cache and the saved file list are used.

    Raises DownloadError (one line, chained) when pyarrow is not installed, the hub is
    unreachable and the files are not cached, the repo or its test parquet files are missing,
    the download fails, or a parquet file or row (named with its number) is not as expected.
    """
    return download_parquet_release(
        HUB_REPO, cache_dir, endpoint, what=f"AISHELL-1 {SPLIT}", prefix=HUB_PREFIX, part=SPLIT,
        holding=f"the {CORPUS_FOLDER} folder openslr's data_aishell.tgz extracts to",
        expected=f"one or more {HUB_PREFIX}*{PARQUET_SUFFIX} files, one row per utterance",
        conversion=lambda blobs, root, stamp: conversion(blobs, root / CORPUS_FOLDER, stamp))
