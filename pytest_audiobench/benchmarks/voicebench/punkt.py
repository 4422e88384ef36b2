"""nltk's ``punkt_tab`` sentence model, which IFEval's sentence counts read, kept in a folder
of the plugin's cache and found there first.

IFEval's checker counts sentences with nltk's Punkt tokenizer; lm-eval 0.4.13 asks nltk for
``punkt_tab`` when its ``instructions_util`` is imported and, when nltk finds none, calls
``nltk.download("punkt_tab")``: a download into the user's home that prints its failure and
goes on. Here the model is made findable before that import, so that download never runs: the
folder is put first on ``nltk.data.path`` and, when it lacks the model, nltk's own downloader
fetches it there (its checksums, lock and safe unzip), from an index URL the caller may change.
nltk is imported on first use only.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from pytest_audiobench.errors import AudiobenchError, DownloadError
from pytest_audiobench.hub.network import short_reason

NLTK_INDEX = "https://raw.githubusercontent.com/nltk/nltk_data/gh-pages/index.xml"
"""nltk's data index (its ``Downloader.DEFAULT_URL``): the package list, each package's URL
and checksum."""
PACKAGE = "punkt_tab"
FOLDER = "nltk_data"
"""Under the cache folder: an nltk data folder, ``tokenizers/punkt_tab/english/`` inside."""
MODEL = "tokenizers/punkt_tab/english/"
"""What lm-eval's ``count_sentences`` loads (nltk reads ``punkt/english.pickle`` as this)."""
INSTALL = "pip install 'pytest-audiobench[voicebench]'"


def punkt_data(cache_dir: Path, index_url: str = NLTK_INDEX) -> Path:
    """``cache_dir/nltk_data``, first on ``nltk.data.path``, holding nltk's English Punkt
    model: downloaded there through nltk's downloader from the index at `index_url` when it is
    not there yet, and found there, with no request, when it is. DownloadError, one line
    naming the index, when it cannot be downloaded; AudiobenchError when nltk is missing."""
    nltk = _nltk()
    folder = Path(cache_dir).expanduser().resolve() / FOLDER
    # First, so that this model is the one loaded even where the user's home or the system
    # holds another punkt_tab; and before lm-eval's import looks for one.
    if str(folder) not in nltk.data.path:
        nltk.data.path.insert(0, str(folder))
    if not _holds_model(nltk, folder):
        _download(folder, index_url)
        if not _holds_model(nltk, folder):
            raise DownloadError(f"nltk's {PACKAGE} from {index_url} has no {MODEL} folder (in "
                                f"{folder}); expected nltk's Punkt models, English among them")
    return folder


def _nltk() -> Any:
    try:
        import nltk
    except ImportError as exc:
        raise AudiobenchError(f"IFEval's sentence counts need nltk, which is not installed "
                              f"({exc}): {INSTALL}") from exc
    return nltk


def _holds_model(nltk: Any, folder: Path) -> bool:
    try:
        nltk.data.find(MODEL, paths=[str(folder)])
    except LookupError:
        return False
    return True


def _download(folder: Path, index_url: str) -> None:
    from nltk.downloader import Downloader

    # nltk prints each error before it raises it; the error itself is what is reported.
    printed = io.StringIO()
    try:
        Downloader(server_index_url=index_url, download_dir=str(folder)).download(
            PACKAGE, download_dir=str(folder), quiet=True, raise_on_error=True,
            print_error_to=printed)
    except ValueError as exc:
        raise DownloadError(
            f"cannot download nltk's {PACKAGE} sentence model, which IFEval's sentence counts "
            f"need, from the index {index_url}: {short_reason(exc)}; run once where it is "
            f"reachable (the model is kept in {folder})") from exc
