"""Download MMSU from Hugging Face: the hub repo's parquet files are fetched into the Hugging
Face hub cache and converted once into the layout ``data.read_mmsu`` reads (``mmsu.jsonl`` and
``audio/``), by the same ``data.RELEASE`` that converts a local snapshot. What is not
MMSU's own (the probe, offline use, the file list, the errors, converting once behind a
marker and a lock) is ``hub.converting``'s. ``huggingface_hub``, ``filelock`` and ``pyarrow``
are imported lazily inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.mmsu.data import RELEASE
from pytest_audiobench.benchmarks.mmsu.facts import SIZE
from pytest_audiobench.hub.converting import PARQUET_SUFFIX


def download_mmsu(cache_dir: Path, *, endpoint: str | None = None) -> Path:
    """Fetch MMSU's parquet files from the hub repo ``ddwang2000/MMSU`` through huggingface_hub
    into `cache_dir`, convert them once, and return the folder that ``read_mmsu`` reads as it
    is: ``mmsu.jsonl`` (one record a line, the release's order) and the clips in ``audio/``.

    The repo, as found in December 2026: its card declares one config, ``default``, with one
    split, ``train`` (5,000 examples, ``data_files: data/train-*``, about 1.47 GB to
    download), whose features are the fields of facts.FIELDS, ``audio`` a 16 kHz Audio
    feature; public code that reads the repo names three files,
    ``data/train-0000{0,1,2}-of-00003.parquet``, and fetches an ``audio/`` folder of wav files
    beside them, which the parquet rows make unneeded (each row holds its clip). The files
    taken are every ``*.parquet`` file of the repo's file list (``GET
    {endpoint}/api/datasets/ddwang2000/MMSU``), in sorted order, at the ``main`` revision;
    huggingface_hub downloads only what its cache lacks.

    The converted folder is ``cache_dir/ddwang2000--MMSU``; the hub cache, the saved file
    list, the lock, the probe and offline use are ``hub.converting.download_parquet_release``'s.

    Raises DownloadError, one line naming the repo and the hub, as
    ``download_parquet_release`` says.
    """
    return RELEASE.download(cache_dir, endpoint,
                            f"one or more *{PARQUET_SUFFIX} files holding the train split, "
                            f"{SIZE:,} rows of one question each")
