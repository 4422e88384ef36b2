"""FLEURS's fixed facts: its name, the release, the test split's size per language, the hub
repo and the columns of its transcript files. A leaf: the spec and every module of the
benchmark read them from here."""

from __future__ import annotations

NAME = "fleurs"
RELEASE = "FLEURS (google/fleurs)"
"""FLoRes sentences read aloud in 102 languages (CC BY 4.0), as the hub repo publishes them."""

TEST_SIZES: dict[str, int] = {"en_us": 647}
LANGUAGES: tuple[str, ...] = ("en_us",)
"""The languages a run can score: those whose text the reference pipeline normalises (English;
another language needs its own normaliser, Chinese a character error rate)."""
"""The test split's utterances per language (hub config); a language not here is read
without a count check."""

HUB_REPO = "google/fleurs"
"""Per language ``data/<language>/test.tsv`` and ``data/<language>/audio/test.tar.gz``."""

COLUMNS: tuple[str, ...] = ("id", "file_name", "raw_transcription", "transcription",
                            "phonemes", "num_samples", "gender")
"""The seven tab-separated columns of a ``<split>.tsv``, which has no header row. ``id`` is
the sentence's, shared by the speakers who read it; ``file_name`` the utterance's audio;
``transcription`` the reference every suite scores against (lower case, no punctuation),
never ``raw_transcription`` (as written). The fifth column, a phoneme-like spelling out of the
transcription, is unnamed upstream (the hub's loading script drops it); nothing reads it."""
