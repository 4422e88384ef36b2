"""sd-qa's PEDANT score as the reference computes it: qa-metrics 0.2.17's ``PEDANT.evaluate``
(the version VoiceBench pins), called as its ``src/evaluator/qa.py`` calls it, on a classifier
downloaded once into the plugin's cache.

PEDANT is a scikit-learn classifier over tf-idf features of the question, the reference
answer and the reply, plus their word-overlap F1, precision and recall; a reply that holds the
reference (both normalised) is correct without it. qa-metrics keeps the classifier's two files
on GitHub, and its ``PEDANT.__init__`` downloads them again into its own package folder at
every construction, swallowing any failure and loading whatever is there. Here they are
downloaded once, checked against the hashes recorded when they were, and loaded; qa-metrics'
scoring is used as it is. qa-metrics (and scikit-learn 1.3.2, which it pins) is imported on
first use.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import IO, Any

from pytest_audiobench import files
from pytest_audiobench.errors import AudiobenchError, DataError, DownloadError
from pytest_audiobench.hub.network import short_reason

FILES = (("lr_classifier", "lr_classifier.pkl"), ("tf-idf_vectorizer", "tf-idf_vectorizer.pkl"))
"""Each file's name under the URL and the name qa-metrics saves it under: the classifier (a
joblib pickle of a fitted scikit-learn classifier) and its tf-idf vectorizer."""
FOLDER = "qa-metrics-pedant"
MARKER = "downloaded.json"
"""Written last: the base URL the files came from and the SHA-256 of each."""
VERSION = "0.2.17"
INSTALL = "pip install 'pytest-audiobench[pedant]'"
_TIMEOUT = 60
_CHUNK = 1 << 16


def classifier_files(cache_dir: Path, base_url: str) -> tuple[Path, Path]:
    """The classifier and the vectorizer in ``cache_dir/qa-metrics-pedant``, downloaded from
    `base_url` when they are not there yet, came from another URL, or no longer match the
    hashes recorded when they were (each written whole or not at all, under a file lock);
    DownloadError, one line naming the URL, when a download fails."""
    folder, base = _located(cache_dir, base_url)
    model, vectorizer = (folder / saved for _, saved in FILES)
    if not _kept(folder, base):
        import filelock

        folder.mkdir(parents=True, exist_ok=True)
        with filelock.FileLock(folder / ".lock"):
            if not _kept(folder, base):
                _download(folder, base)
    return model, vectorizer


def classifier_kept(cache_dir: Path, base_url: str) -> bool:
    """Whether the classifier from `base_url` is in the cache, whole, as downloaded: a run
    can then score PEDANT without a request."""
    return _kept(*_located(cache_dir, base_url))


def _located(cache_dir: Path, base_url: str) -> tuple[Path, str]:
    """The classifier's folder in the cache, and `base_url` as its marker records it."""
    return Path(cache_dir).expanduser().resolve() / FOLDER, base_url.rstrip("/")


class Pedant:
    """qa-metrics' PEDANT on the classifier of ``classifier_files``."""

    def __init__(self, cache_dir: Path, base_url: str) -> None:
        """AudiobenchError naming the pip command when qa-metrics 0.2.17 cannot be imported
        (checked before anything is downloaded); DownloadError when the files cannot be
        downloaded; DataError naming the file when one is not the fitted model expected."""
        pedant = _pedant_class()
        model, vectorizer = classifier_files(cache_dir, base_url)
        # Built without its __init__, which downloads (see the module's docstring); evaluate
        # reads only these two attributes, under the names __init__ gives them.
        self._scorer = pedant.__new__(pedant)
        self._scorer.model = _loaded(model, "predict", base_url)
        self._scorer.tokenizer = _loaded(vectorizer, "transform", base_url)

    def score(self, reference: str, reply: str, question: str) -> float:
        """1.0 when PEDANT judges `reply` a correct answer to `question`, whose answer is
        `reference`, else 0.0: the reference's call, ``PEDANT().evaluate([reference.lower()],
        response.lower(), prompt.lower())`` (the reference answer alone in a list, and first;
        lmms-eval passes them in another order)."""
        return float(self._scorer.evaluate([reference.lower()], reply.lower(), question.lower()))


def _pedant_class() -> Any:
    try:
        found = metadata.version("qa-metrics")
    except metadata.PackageNotFoundError as exc:
        raise AudiobenchError(f"sd-qa's PEDANT score needs qa-metrics {VERSION}, which is not "
                              f"installed: {INSTALL}") from exc
    if found != VERSION:
        raise AudiobenchError(f"sd-qa's PEDANT score needs qa-metrics {VERSION} (the version "
                              f"VoiceBench pins), and {found} is installed: {INSTALL}")
    try:
        from qa_metrics.pedant import PEDANT
    except ImportError as exc:
        raise AudiobenchError(f"sd-qa's PEDANT score needs qa-metrics {VERSION} and its "
                              f"dependencies, which cannot be imported ({exc}): {INSTALL}") from exc
    return PEDANT


def _kept(folder: Path, base: str) -> bool:
    try:
        marker = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False  # a marker that cannot be read vouches for nothing: download again
    if not isinstance(marker, dict) or marker.get("from") != base:
        return False
    hashes = marker.get("sha256")
    if not isinstance(hashes, dict):
        return False
    return all((folder / saved).is_file() and _sha256(folder / saved) == hashes.get(saved)
               for _, saved in FILES)


def _download(folder: Path, base: str) -> None:
    hashes: dict[str, str] = {}
    for name, saved in FILES:
        url = f"{base}/{name}"
        try:
            with urllib.request.urlopen(url, timeout=_TIMEOUT) as response, \
                    files.replacing_bytes(folder / saved) as out:
                hashes[saved] = _copied(response, out)
        except (OSError, http.client.HTTPException) as exc:
            raise DownloadError(f"cannot download {url}, the classifier sd-qa's PEDANT score "
                                f"needs: {short_reason(exc)}; run once where it is reachable "
                                f"(it is kept in {folder})") from exc
    with files.replacing(folder / MARKER) as out:
        json.dump({"from": base, "sha256": hashes}, out, indent=2)


def _copied(source: IO[bytes], out: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while chunk := source.read(_CHUNK):
        digest.update(chunk)
        out.write(chunk)
    return digest.hexdigest()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        while chunk := source.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _loaded(path: Path, method: str, base_url: str) -> Any:
    import joblib

    fix = f"delete {path.parent} to download it again from {base_url}"
    # joblib.load unpickles, running what the file says: the same trust qa-metrics places
    # in the files it downloads from the same place.
    try:
        loaded = joblib.load(path)
    except Exception as exc:
        raise DataError(f"{path} is not a readable joblib pickle ({short_reason(exc)}); "
                        f"{fix}") from exc
    if not callable(getattr(loaded, method, None)):
        raise DataError(f"{path} holds a {type(loaded).__name__}, which has no {method}(); "
                        f"expected PEDANT's fitted scikit-learn model; {fix}")
    return loaded
