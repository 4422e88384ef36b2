"""Download MMAU from Hugging Face: a split's parquet files are fetched into the Hugging Face hub
cache and converted once into the maintainers' published layout (the split's JSON array and
each record's audio at its ``audio_id``), which ``data.read_mmau`` reads. What is not MMAU's
own (the probe, offline use, the file list, the errors, converting once behind a marker and a
lock) is ``hub.converting``'s. ``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported
lazily inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.mmau.facts import HUB_REPOS, SPLITS
from pytest_audiobench.benchmarks.mmau.parquet import audio_folder, conversion
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, download_parquet_release


def download_mmau(cache_dir: Path, split: str, *, endpoint: str | None = None) -> Path:
    """Fetch the parquet files of MMAU's `split` ("test-mini" or "test") through huggingface_hub
    into `cache_dir`, convert them once, and return the release root: the split's JSON array
    (``mmau-test-mini.json``, ``mmau-test.json``) and each record's audio at its ``audio_id``
    (``./test-mini-audios/<id>.wav``, ``./test-audios/<id>.wav``).

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface`` (huggingface_hub's own
    layout); the release root is ``cache_dir/<owner>--<name>`` of the split's repo (e.g.
    ``cache_dir/gamma-lab-umd--MMAU-test-mini``); beside it, ``.<root name>.parquet.json``
    lists the repo's parquet files for offline calls; a lock file for concurrent callers is in
    ``cache_dir/.locks``. The parquet files stay in the hub cache, so the audio takes its space
    twice.

    The files are every ``*.parquet`` file of the dataset repo (its file list, ``GET
    {endpoint}/api/datasets/{repo_id}``), in sorted order, at the ``main`` revision;
    huggingface_hub downloads only what its cache lacks. The hub, its probe and offline use
    are as for MMAR's download: `endpoint`, else HF_ENDPOINT, else https://huggingface.co; one
    quick request first, and when it fails (or HF_HUB_OFFLINE is set) only the hub cache and
    the file list an earlier call saved are used.

    Conversion: each row (counted from 1 in each file) becomes one record with the fields
    ``id``, ``audio_id``, ``question`` (the row's ``instruction``), ``choices``, ``answer``
    (``""`` where the row has none) and ``dataset``, ``task``, ``split``, ``category``,
    ``sub-category``, ``difficulty`` from its ``other_attributes`` JSON (those it has). The
    letter prefixes ``(A) `` of the choices and the answer are dropped when every choice has
    its own position's letter and the answer is one of the choices (or empty). The audio
    bytes of ``context`` are written as they are. The root is built in a temporary folder
    and renamed into place, with a marker naming the parquet blobs: a later call converts
    again only when a parquet file changed or the root is gone.

    Raises DownloadError (one line, chained) when pyarrow is not installed, the hub is
    unreachable and the files are not cached, the repo or its parquet files are missing, the
    download fails, or a parquet file or row is not as expected.
    """
    repo_id = _repo_id(split)
    return download_parquet_release(
        repo_id, cache_dir, endpoint, what=f"MMAU {split}",
        holding=f"{SPLITS[split]} and {audio_folder(split)}/",
        expected=f"one or more *{PARQUET_SUFFIX} files, one row per question",
        conversion=lambda blobs, root, stamp: conversion(blobs, root, stamp, split))


def _repo_id(split: str) -> str:
    if split not in HUB_REPOS:
        raise ValueError(f"unknown MMAU split {split!r}; expected one of {', '.join(HUB_REPOS)}")
    return HUB_REPOS[split]



