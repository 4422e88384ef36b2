"""A tiny PEDANT classifier, trained here on eight rows, as the two files qa-metrics downloads
from GitHub: the fake of what ``VoiceBench.download`` fetches beside the hub's data. It needs
qa-metrics (and its scikit-learn) installed, as PEDANT itself does."""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping
from importlib.util import find_spec
from types import MappingProxyType

NEEDS_QA_METRICS = ("qa-metrics 0.2.17 and scikit-learn 1.3.2 are not installed: "
                    "pip install 'pytest-audiobench[pedant]'")
TRAINING = [
    ("george washington", "it was washington", "who was the first president", "correct"),
    ("blue whale", "the largest animal is a whale", "what is the largest animal", "correct"),
    ("mount everest", "everest of course", "what is the tallest mountain", "correct"),
    ("albert einstein", "einstein developed it", "who developed relativity", "correct"),
    ("george washington", "it was lincoln", "who was the first president", "incorrect"),
    ("blue whale", "an elephant", "what is the largest animal", "incorrect"),
    ("mount everest", "i do not know", "what is the tallest mountain", "incorrect"),
    ("albert einstein", "isaac newton did", "who developed relativity", "incorrect"),
]
"""(reference, candidate, question, label): PEDANT's features are the tf-idf of
``[CLS] candidate [SEP] reference [SEP] question [SEP]`` followed by the word-overlap F1,
precision and recall of candidate and reference."""


@functools.cache
def tiny_classifier() -> Mapping[str, bytes]:
    """The classifier and its vectorizer, joblib-pickled, by the names they have under
    qa-metrics' URL. ImportError when qa-metrics or scikit-learn is not installed."""
    import joblib
    import numpy as np
    from qa_metrics.utils.tools import calculate_f1_score_with_precision
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    texts = [f"[CLS] {candidate} [SEP] {reference} [SEP] {question} [SEP]"
             for reference, candidate, question, _ in TRAINING]
    overlap = np.array([calculate_f1_score_with_precision(candidate, reference)
                        for reference, candidate, _, _ in TRAINING])
    vectorizer = TfidfVectorizer().fit(texts)
    features = hstack([vectorizer.transform(texts), overlap])
    model = LogisticRegression(solver="liblinear").fit(features,
                                                       [label for *_, label in TRAINING])
    pickled = {}
    for name, fitted in (("lr_classifier", model), ("tf-idf_vectorizer", vectorizer)):
        buffer = io.BytesIO()
        joblib.dump(fitted, buffer)
        pickled[name] = buffer.getvalue()
    return MappingProxyType(pickled)


def served_classifier() -> Mapping[str, bytes]:
    """What a fake GitHub serves a download: the tiny classifier where qa-metrics is
    installed (a download fetches it only then), else nothing."""
    return tiny_classifier() if find_spec("qa_metrics") is not None else {}
