"""Download a WenetSpeech test set from Hugging Face: the split's parquet files of the copy
lmms-eval reads are fetched into the Hugging Face hub cache and converted once into the cut
layout ``data.read_split`` reads, by the same ``parquet.conversion`` that converts a local
snapshot. ``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily inside the
functions, so importing this module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.wenetspeech.data import SEGMENTS
from pytest_audiobench.benchmarks.wenetspeech.facts import HUB_REPO, METADATA, SPLITS
from pytest_audiobench.benchmarks.wenetspeech.parquet import conversion, hub_prefix
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, download_parquet_release


def download_wenetspeech(cache_dir: Path, split: str, *, endpoint: str | None = None) -> Path:
    """Fetch WenetSpeech's `split` ("test_net" or "test_meeting") from the hub repo
    ``lmms-lab-audio/WenetSpeech`` through huggingface_hub into `cache_dir`, convert it once,
    and return the root that ``read_split`` reads: it holds ``<split>/segments.jsonl`` and
    the split's clips in ``<split>/audio/``.

    The repo: lmms-eval 0.7.3 (``tasks/wenet_speech/``) loads it with the splits
    ``test_net``, ``test_meeting`` and ``dev`` and reads the columns ``audio`` (the clip,
    decoded from opus) and ``text``. Its file list was not seen (December 2026): the layout
    is assumed to be the one ``datasets``' ``push_to_hub`` writes for a default config,
    ``data/<split>-<n>-of-<m>.parquet``, and the files taken are the ``*.parquet`` files of
    the repo's file list whose path starts with ``data/<split>-``, in sorted order, and no
    other (a repo laid out otherwise fails with a line naming that pattern). Each row's
    ``audio`` is a struct with the clip's ``bytes`` and original ``path``; an id column
    (``sid`` or ``id``) is read where there is one (``parquet.py`` says how rows are named and
    clustered).

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/lmms-lab-audio--WenetSpeech``, and each split is converted on its own into
    ``<split>/`` there (a temporary folder renamed into place, with a marker naming the
    parquet blobs: a later call converts again only when a parquet file changed or the folder
    is gone); ``.lmms-lab-audio--WenetSpeech-<split>.parquet.json`` lists the split's parquet
    files for offline calls; lock files are in ``cache_dir/.locks``. The hub, its probe and
    offline use are as for the other downloads: `endpoint`, else HF_ENDPOINT, else
    https://huggingface.co; with HF_HUB_OFFLINE set, or when the hub does not answer, only the
    hub cache and the saved file list are used.

    Conversion: each row's clip bytes are written as they are to ``audio/<id><suffix>`` (the
    suffix of its original file name); ``segments.jsonl`` gets a line per row, in the files'
    order.

    Raises ValueError for another split; DownloadError (one line, chained) when pyarrow is
    not installed, the hub is unreachable and the files are not cached, the repo or the
    split's parquet files are missing, the download fails, or a parquet file or row (named
    with its number) is not as expected.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown WenetSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
    prefix = hub_prefix(split)
    return download_parquet_release(
        HUB_REPO, cache_dir, endpoint, what=f"WenetSpeech {split}", prefix=prefix, part=split,
        holding=f"the release's folder ({METADATA} beside its audio/) or a folder of "
                f"{split}/{SEGMENTS}",
        expected=f"one or more {prefix}*{PARQUET_SUFFIX} files, one row per segment",
        conversion=lambda blobs, root, stamp: conversion(blobs, root / split, stamp, split))
