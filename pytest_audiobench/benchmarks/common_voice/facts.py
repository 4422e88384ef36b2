"""Common Voice 15's fixed facts: its name, the release, the locales the reports score and the
reference language of each, Mozilla's folder and file names, and the hub copy. A leaf: the spec
and every module of the benchmark read them from here.

Sources (read December 2026): Qwen2-Audio's evaluation recipe (``eval_audio/EVALUATION.md``
and ``evaluate_asr.py`` of QwenLM/Qwen2-Audio) scores the test splits of ``cv15_en``,
``cv15_zh``, ``cv15_yue`` and ``cv15_fr`` from Mozilla's download; lmms-eval 0.7.3
(``tasks/common_voice_15/``) reads a parquet copy on the hub, configs ``en``, ``fr`` and
``zh-CN``, split ``test``, the columns ``audio``, ``sentence``, ``path`` and ``locale``, and
scores ``zh-CN`` as Chinese and ``yue`` as Cantonese (characters both).
"""

from __future__ import annotations

NAME = "common_voice"
RELEASE = "Common Voice 15 (cv-corpus-15.0-2023-09-08)"
"""Mozilla's Common Voice Corpus 15.0 (CC0-1.0): one tarball per locale."""

LOCALES: tuple[str, ...] = ("en", "zh-CN", "yue", "fr")
"""The locales whose test splits the reports score (Qwen2-Audio's cv15 en / zh / yue / fr),
each a task scored on its own, in Mozilla's spelling (its folder names)."""
LANGUAGES: dict[str, str] = {"en": "en", "zh-CN": "zh", "yue": "yue", "fr": "fr"}
"""The reference pipeline's language of each locale: English's normalisers, Chinese's text
normaliser and characters, Cantonese's conversion to simplified characters, the basic
normaliser alone for French (as lmms-eval's ``compute_wer`` maps ``zh-CN`` and ``yue``)."""

CORPUS_FOLDER = "cv-corpus-15.0-2023-09-08"
"""The folder every locale's tarball (``cv-corpus-15.0-2023-09-08-<locale>.tar.gz``) extracts
into, holding ``<locale>/``."""
SPLIT = "test"
TRANSCRIPTS = f"{SPLIT}.tsv"
"""A locale's test split: tab-separated with a header row (``client_id``, ``path``,
``sentence``, ``up_votes``, ``down_votes``, ``age``, ``gender``, ``accents``, ``variant``,
``locale``, ``segment`` in 15.0; read by name). Quotes are text: the file is read with CSV
quoting off, as the hub's loading scripts split each line at its tabs."""
CLIPS_FOLDER = "clips"
"""Beside ``test.tsv``: every clip of the locale, ``<path>`` (an MP3 file)."""
REQUIRED: tuple[str, ...] = ("client_id", "path", "sentence")
"""The columns a test split must have: the speaker (a hash per contributor), the clip's file
name and the reference."""

HUB_REPO = "lmms-lab/common_voice_15"
"""The hub copy the reports' suites read: parquet, one config per locale. The repo's file list
as the hub's pages show it (December 2026): ``en/``, ``fr/``, ``zh-CN/``, each holding
``test-<n>-of-<m>.parquet`` as ``datasets``' ``push_to_hub`` names a split's files.
lmms-eval 0.7.3's code names it ``lmms-lab-audio/common_voice_15``, a later home of lmms-lab's
audio sets whose files could not be seen here; the hub sends a moved repo's old name on to
its new one, so the name whose layout was seen is the one fetched."""
HUB_LOCALES: tuple[str, ...] = ("en", "zh-CN", "fr")
"""The locales the hub copy holds (its configs); it has no Cantonese."""
