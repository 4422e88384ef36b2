"""Where AISHELL-1's test split is read from (``release_folder``): the data root when it holds
the test speakers unpacked, else a copy built once in the plugin's cache from what the root
holds packed: openslr's speaker tarballs, as ``data_aishell.tgz`` extracts (``archive.py``),
or a local snapshot of the hub repo's parquet files (``parquet.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.aishell1.archive import refuse_a_mix, unpack_speakers
from pytest_audiobench.benchmarks.aishell1.data import TEST_FOLDER, corpus_folder
from pytest_audiobench.benchmarks.aishell1.parquet import convert_parquet_snapshot


def release_folder(root: Path, cache_dir: Path) -> Path:
    """The folder ``data.read_test`` reads: `root` when it holds ``wav/test/`` (and no test
    speaker left packed beside it); else the test speakers' tarballs it holds unpacked into
    the cache; else its hub parquet files converted into the cache; else `root`, whose
    reading then says what it lacks. DataError, one line naming ``--audiobench-data``, when
    an archive or a row is not as expected."""
    folder = corpus_folder(root)
    if folder is not None and (folder / TEST_FOLDER).is_dir():
        refuse_a_mix(root, folder)
        return root
    return unpack_speakers(root, cache_dir) or convert_parquet_snapshot(root, cache_dir) or root
