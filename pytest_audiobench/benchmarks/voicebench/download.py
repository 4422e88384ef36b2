"""Download VoiceBench's chosen subsets from Hugging Face: each subset's parquet files are
fetched into the Hugging Face hub cache and converted once into the layout
``data.read_voicebench`` reads (``<subset>/voicebench.jsonl`` and ``<subset>/audio/``), by the
same ``data.RELEASES`` that convert a local snapshot. What is not VoiceBench's own (the probe,
offline use, the file list, the errors, converting once behind a marker and a lock) is
``hub.converting``'s. ``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily
inside the functions, so importing this module stays cheap.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.parquet_release import AUDIO_FOLDER
from pytest_audiobench.benchmarks.voicebench.data import RELEASES, chosen, splits
from pytest_audiobench.benchmarks.voicebench.facts import CONVERTED, HUB_REPO, SIZES
from pytest_audiobench.hub.converting import (
    PARQUET_SUFFIX,
    Conversion,
    download_parquet_release,
)


def download_voicebench(subsets: Sequence[str], cache_dir: Path, *,
                        endpoint: str | None = None) -> Path:
    """Fetch the parquet files of each of `subsets` (facts.SUBSETS' names) from the hub repo
    ``hlt-lab/voicebench`` through huggingface_hub into `cache_dir`, convert each subset once,
    and return the root that ``read_voicebench`` reads: ``<subset>/voicebench.jsonl`` (one
    record a line, the release's order) and the clips in ``<subset>/audio/``, for each of them.

    The repo, as its file list shows it (December 2026): a folder per config, named as the
    subset, holding its splits' parquet files as ``datasets``' ``push_to_hub`` names them,
    ``<subset>/<split>-NNNNN-of-NNNNN.parquet`` (``wildvoice/test-00000-of-00010.parquet``);
    configs this benchmark does not read sit beside them (``alpacaeval``,
    ``alpacaeval_speaker``, ``mtbench``). The files taken are the ``*.parquet`` files of the
    repo's file list whose path starts with ``<subset>/``, for the chosen subsets only, in
    sorted order, at the ``main`` revision; huggingface_hub downloads only what its cache
    lacks. The split of a file is the start of its name (``data`` says how rows are read).

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/hlt-lab--voicebench``, each subset converted on its own into ``<subset>/``
    there (a temporary folder renamed into place, with a marker naming the parquet blobs: a
    later call converts again only when a file changed or the folder is gone);
    ``.hlt-lab--voicebench-<subset>.parquet.json`` lists the subset's files for offline calls;
    lock files are in ``cache_dir/.locks``. The hub, its probe and offline use are as for the
    other downloads: `endpoint`, else HF_ENDPOINT, else https://huggingface.co; with
    HF_HUB_OFFLINE set, or when the hub does not answer, only the hub cache and the saved file
    lists are used.

    Raises ValueError for a subset VoiceBench lacks, or none; DownloadError (one line naming
    the repo and the hub, chained) when pyarrow is not installed, the hub is unreachable and
    the files are not cached, the repo or a subset's files are missing, the download fails,
    or a row (named with its file and number) is not as its subset needs. The subsets are
    fetched one after another: one that fails leaves those before it converted in the cache.
    """
    picked = chosen(subsets)
    if not picked:
        raise ValueError("no VoiceBench subset chosen")
    # One root for all: each subset converts into its own folder there.
    roots = [download_parquet_release(
        HUB_REPO, cache_dir, endpoint, what=f"VoiceBench {subset}", prefix=f"{subset}/",
        part=subset, holding=_holding(picked), expected=_expected(subset),
        conversion=functools.partial(_conversion, subset)) for subset in picked]
    return roots[-1]


def _conversion(subset: str, blobs: Mapping[str, Path], root: Path,
                stamp: Mapping[str, Any]) -> Conversion:
    """`subset`'s conversion, into its folder under the download's `root`."""
    return RELEASES[subset].conversion(blobs, root / subset, stamp)


def _holding(subsets: Sequence[str]) -> str:
    return (f"a snapshot of {HUB_REPO}, or a folder holding "
            f"{', '.join(f'{subset}/{CONVERTED}' for subset in subsets)} and their "
            f"{AUDIO_FOLDER}/")


def _expected(subset: str) -> str:
    named = splits(subset)
    which = named[0] if len(named) == 1 else f"one of {', '.join(named)}"
    return (f"one or more {subset}/<split>-NNNNN-of-NNNNN{PARQUET_SUFFIX} files, <split> "
            f"{which}, {SIZES[subset]:,} rows in all")
