"""Download Big Bench Audio from Hugging Face: the parquet copy's files (the hub repo
``fixie-ai/big_bench_audio``, which carries each question's transcript, as the original
release does not) are fetched into the Hugging Face hub cache and converted once into the
layout ``data.read_big_bench_audio`` reads (``metadata.jsonl`` with the transcripts, and the
clips in ``audio/``), by the same ``data.RELEASE`` that converts a local snapshot.
What is not Big Bench Audio's own (the probe, offline use, the file list, the errors,
converting once behind a marker and a lock) is ``hub.converting``'s. ``huggingface_hub``,
``filelock`` and ``pyarrow`` are imported lazily inside the functions, so importing this
module stays cheap.
"""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.big_bench_audio.data import RELEASE
from pytest_audiobench.benchmarks.big_bench_audio.facts import SIZE
from pytest_audiobench.hub.converting import PARQUET_SUFFIX


def download_big_bench_audio(cache_dir: Path, *, endpoint: str | None = None) -> Path:
    """Fetch Big Bench Audio's parquet files from the hub repo ``fixie-ai/big_bench_audio``
    through huggingface_hub into `cache_dir`, convert them once, and return the folder that
    ``read_big_bench_audio`` reads as it is: ``metadata.jsonl`` (one record a line with its
    transcript, the release's order) and the clips in ``audio/``.

    The repo, as known: one config, ``default``, with one split, ``train``, of 1,000 rows,
    whose columns are ``id``, ``category``, ``official_answer``, ``transcript`` (the
    question's text) and ``audio`` (an Audio feature: each row holds its clip's bytes and its
    original file name). Public loaders read it as ``data/train-*.parquet``-style files; the
    file names are not assumed here: the files taken are every ``*.parquet`` file of the
    repo's file list (``GET {endpoint}/api/datasets/fixie-ai/big_bench_audio``), in sorted
    order, at the ``main`` revision; huggingface_hub downloads only what its cache lacks.

    The converted folder is ``cache_dir/fixie-ai--big_bench_audio``; the hub cache, the saved
    file list, the lock, the probe and offline use are
    ``hub.converting.download_parquet_release``'s.

    Raises DownloadError, one line naming the repo and the hub, as
    ``download_parquet_release`` says.
    """
    return RELEASE.download(cache_dir, endpoint,
                            f"one or more *{PARQUET_SUFFIX} files holding the train split, "
                            f"{SIZE:,} rows of one question each, its transcript and its clip")
