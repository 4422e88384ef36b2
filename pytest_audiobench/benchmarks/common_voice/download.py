"""Download a Common Voice 15 locale's test split from the hub copy: its parquet files are
fetched into the Hugging Face hub cache and converted once into Mozilla's layout, which
``data.read_locale`` reads, by the same ``parquet.conversion`` that converts a local snapshot.
``huggingface_hub``, ``filelock`` and ``pyarrow`` are imported lazily inside the functions, so
importing this module stays cheap.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.common_voice.facts import (
    CORPUS_FOLDER,
    HUB_LOCALES,
    HUB_REPO,
    LOCALES,
)
from pytest_audiobench.benchmarks.common_voice.parquet import conversion, hub_prefix
from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub.converting import PARQUET_SUFFIX, download_parquet_release


def download_common_voice(cache_dir: Path, locale: str, *, endpoint: str | None = None) -> Path:
    """Fetch the test split of `locale` (``en``, ``zh-CN`` or ``fr``) from the hub copy
    ``lmms-lab/common_voice_15`` through huggingface_hub into `cache_dir`, convert it once, and
    return the root that ``read_locale`` reads: it holds ``<locale>/test.tsv`` and
    ``<locale>/clips/``, as Mozilla's tarball of the locale extracts.

    The repo (its file list as the hub's pages show it, December 2026; lmms-eval 0.7.3 loads
    it by config and split): one folder per config, ``en/``, ``fr/``, ``zh-CN/``, each holding
    the split's parquet files as ``datasets``' ``push_to_hub`` names them,
    ``<config>/test-00000-of-00005.parquet``. The files taken are the ``*.parquet`` files of
    the repo's file list whose path starts with ``<locale>/test-``, in sorted order, and no
    other. Assumed, since the rows could not be seen: each has ``audio`` (a struct: the clip's
    ``bytes`` and its original ``path``), ``sentence``, ``path`` and ``locale`` (the fields
    lmms-eval reads); ``client_id`` and ``gender`` are kept when there.

    Layout under `cache_dir`: the hub cache is ``cache_dir/huggingface``; the root is
    ``cache_dir/lmms-lab--common_voice_15``, each locale converted on its own into
    ``<locale>/`` there (a temporary folder renamed into place, with a marker naming the
    parquet blobs); ``.lmms-lab--common_voice_15-<locale>.parquet.json`` lists the locale's
    files for offline calls; lock files are in ``cache_dir/.locks``. The hub, its probe and
    offline use are as for the other downloads: `endpoint`, else HF_ENDPOINT, else
    https://huggingface.co; with HF_HUB_OFFLINE set, or when the hub does not answer, only the
    hub cache and the saved file list are used.

    Raises ValueError for a locale this benchmark does not know; DownloadError (one line) for
    one the hub copy lacks (``yue``: see ``require_on_hub``), and, chained, when pyarrow is not
    installed, the hub is unreachable and the files are not cached, the repo or the locale's
    parquet files are missing, the download fails, or a row (named with its file and number)
    is not as expected.
    """
    if locale not in LOCALES:
        raise ValueError(f"unknown Common Voice locale {locale!r}; expected one of "
                         f"{', '.join(LOCALES)}")
    require_on_hub([locale])
    prefix = hub_prefix(locale)
    return download_parquet_release(
        HUB_REPO, cache_dir, endpoint, what=f"Common Voice 15 {locale}", prefix=prefix,
        part=locale, holding=f"Mozilla's {CORPUS_FOLDER} folder with {locale}/",
        expected=f"one or more {prefix}*{PARQUET_SUFFIX} files, one row per utterance",
        conversion=lambda blobs, root, stamp: conversion(blobs, root / locale, stamp, locale))


def require_on_hub(locales: Sequence[str]) -> None:
    """DownloadError, one line, when the hub copy lacks one of `locales`: called before
    anything is fetched, so that a run asking for Cantonese downloads nothing it cannot use."""
    lacking = [locale for locale in locales if locale not in HUB_LOCALES]
    if lacking:
        raise DownloadError(
            f"the hub copy {HUB_REPO} has no Common Voice 15 {', '.join(lacking)} (it holds "
            f"{', '.join(HUB_LOCALES)}): download {', '.join(lacking)} from Mozilla "
            f"(commonvoice.mozilla.org/datasets) and pass its {CORPUS_FOLDER} folder with "
            "--audiobench-data DIR, or select the hub's locales with "
            "--audiobench-common-voice-locale")
