"""Where a run reads WenetSpeech's test sets from, given ``--audiobench-data``: the cut layout
as it is, the release's own layout cut once into the cache (``cutting.py``), or a local
snapshot of the hub's parquet copy converted once into the cache (``parquet.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.wenetspeech.cutting import cut_release, metadata_file
from pytest_audiobench.benchmarks.wenetspeech.data import holds_split
from pytest_audiobench.benchmarks.wenetspeech.parquet import convert_snapshot, snapshot_parquet


def release_folder(root: Path, splits: Sequence[str], cache_dir: Path) -> Path:
    """The folder holding `splits` in the cut layout: `root` when it holds each of them;
    else, for the release's folder (``WenetSpeech.json``, in `root` or its ``WenetSpeech/``),
    the splits cut once into ``cache_dir/wenetspeech/<hash>/``; else, for a snapshot of the
    hub repo holding parquet files of any selected split, each split converted once into
    ``cache_dir/wenetspeech/<hash>/``; else `root`, whose reading then says what it lacks.
    DataError, one line naming ``--audiobench-data``, when the release or the snapshot is not
    as expected (``cut_release``, ``convert_snapshot``)."""
    if all(holds_split(root, split) for split in splits):
        return root
    metadata = metadata_file(root)
    if metadata is not None:
        return cut_release(root, metadata, splits, cache_dir)
    found = {split: snapshot_parquet(root, split) for split in splits}
    if any(found.values()):
        return convert_snapshot(root, found, cache_dir)
    return root
