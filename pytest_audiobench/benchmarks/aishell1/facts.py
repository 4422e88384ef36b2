"""AISHELL-1's fixed facts: its name, the release, the test split's size and speakers, the
layout openslr's tarball extracts to, and the hub repo a run downloads the test split from. A
leaf: the spec and every module of the benchmark read them from here."""

from __future__ import annotations

NAME = "aishell1"
RELEASE = "AISHELL-1 (openslr SLR33)"
"""Mandarin read speech (Apache-2.0) as openslr publishes it: ``data_aishell.tgz``, which
extracts to ``data_aishell/`` with one tarball per speaker in ``wav/`` and the transcript file
in ``transcript/`` (PROTOCOLS.md, "Speech recognition beyond English")."""
LANGUAGE = "zh"
"""The reference's language: Chinese, scored by character error rate."""

SPLIT = "test"
"""The one split scored, the benchmark's one task (the reports give the test split only)."""
TEST_SIZE = 7176
"""The test split's utterances that have a transcript line: what published error rates count."""
TEST_SPEAKERS: tuple[str, ...] = (
    "S0764", "S0765", "S0766", "S0767", "S0768", "S0769", "S0770",
    "S0901", "S0902", "S0903", "S0904", "S0905", "S0906", "S0907", "S0908",
    "S0912", "S0913", "S0914", "S0915", "S0916")
"""The test split's 20 speakers (PROTOCOLS.md; Kimi-Audio-Evalkit's downloader extracts these
speakers' tarballs and no other)."""

CORPUS_FOLDER = "data_aishell"
"""The folder openslr's ``data_aishell.tgz`` extracts to."""
TRANSCRIPT = "transcript/aishell_transcript_v0.8.txt"
"""The transcript file inside ``data_aishell/``: one ``UTTID word-segmented text`` a line, for
every split's utterances."""
SPEAKER_ARCHIVE = "wav/{speaker}.tar.gz"
"""A speaker's tarball inside ``data_aishell/``, as the release ships it; its members are
``<train|dev|test>/<speaker>/<UTTID>.wav``, so it extracts into ``wav/``."""

HUB_REPO = "carlot/AIShell"
"""The hub's copy of the whole corpus in its official split, as parquet (``data/train-*``,
``data/validation-*``, ``data/test-*``): ``data/test-*.parquet`` holds the 7,176 test
utterances, each row an ``audio`` struct (``bytes``: the release's own WAV file; ``path``: its
file name, ``<UTTID>.wav``) and a ``transcription`` (the transcript's words, after leading
spaces). So described, measured and cross-checked against openslr's files by public download
scripts (December 2026); the repo's card could not be read here. ``AISHELL/AISHELL-1``, the
repo of the corpus's publisher, mirrors openslr's speaker tarballs but, as the same scripts
found, only 100 training speakers' (S0002 to S0101): no test speaker's tarball is there."""
HUB_PREFIX = "data/test-"
"""Where the hub repo's test parquet files start: ``data/test-00000-of-00001.parquet``."""
