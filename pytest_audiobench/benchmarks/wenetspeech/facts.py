"""WenetSpeech's fixed facts: its name, the release, its two test sets with their sizes, the
language, the release's metadata file and where the Hugging Face hub keeps a parquet copy. A
leaf: the spec and every module of the benchmark read them from here."""

from __future__ import annotations

NAME = "wenetspeech"
RELEASE = "WenetSpeech (wenet-e2e, test sets)"
"""The Mandarin corpus as its authors release it on application (CC BY 4.0): long opus
recordings and one ``WenetSpeech.json`` that cuts them into segments."""

SPLITS: dict[str, int] = {"test_net": 24_774, "test_meeting": 8_370}
"""Each test set's segments (the WenetSpeech paper; the model reports' counts). Published
error rates are over a whole set, one number per set: the two are never pooled."""
SUBSETS: dict[str, str] = {"test_net": "TEST_NET", "test_meeting": "TEST_MEETING"}
"""Each split's name in a segment's ``subsets`` list of ``WenetSpeech.json`` (the training
subsets are ``L``, ``M``, ``S`` and ``W``, the development set ``DEV``)."""
LANGUAGE = "zh"
"""The reference pipeline's language: Mandarin, scored by characters."""

METADATA = "WenetSpeech.json"
"""The release's one metadata file, beside its ``audio/`` folder: top-level ``audios``, each
recording with ``aid``, ``path`` (relative to the file), ``duration`` and ``segments``, each
segment with ``sid``, ``begin_time``, ``end_time`` (seconds), ``text``, ``confidence`` and
``subsets``."""
RATE = 16_000
"""The rate every segment is cut at (the release's recordings are 16 kHz opus)."""

HUB_REPO = "lmms-lab-audio/WenetSpeech"
"""The parquet copy lmms-eval reads (0.7.3, ``tasks/wenet_speech``: splits ``test_net``,
``test_meeting`` and ``dev``, columns ``audio`` and ``text``). The original hub repo
``wenet-e2e/wenetspeech`` is a loading script that needs the release's files anyway."""
HUB_FOLDER = "data/"
"""Where HUB_REPO keeps a split's parquet files, ``data/<split>-*.parquet``: assumed, as a
repo pushed by ``datasets`` lays out its default config (its file list was not seen)."""
