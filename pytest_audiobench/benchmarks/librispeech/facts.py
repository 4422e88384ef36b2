"""LibriSpeech's fixed facts: its name, the release, its test splits with their sizes, and
where the Hugging Face hub keeps them. A leaf: the spec and every module of the benchmark read
them from here."""

from __future__ import annotations

NAME = "librispeech"
RELEASE = "LibriSpeech (openslr SLR12)"
"""The corpus as openslr publishes it (CC BY 4.0): one tarball per split, which extracts to
``LibriSpeech/<split>/<speaker>/<chapter>/``."""

SPLITS: dict[str, int] = {"test-clean": 2620, "test-other": 2939}
"""Each test split's utterances. Published word error rates are over the whole split, one
number per split: clean and other are never pooled."""
SPEAKERS: dict[str, int] = {"test-clean": 40, "test-other": 33}

HUB_REPO = "openslr/librispeech_asr"
"""The hub's copy: parquet files with the audio inside, one row per utterance."""
HUB_CONFIGS: dict[str, str] = {"test-clean": "clean", "test-other": "other"}
"""Each split's config in HUB_REPO; the split is ``test`` in both (config ``all`` names the
same rows ``test.clean`` and ``test.other``)."""
HUB_SPLIT = "test"
