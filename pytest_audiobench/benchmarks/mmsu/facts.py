"""MMSU's fixed facts: its name, the release, the hub repo and its fields, its size and its
two categories. A leaf: the spec and every module of the benchmark read them from here."""

from __future__ import annotations

NAME = "mmsu"
RELEASE = "MMSU (ddwang2000/MMSU)"
"""5,000 spoken-language questions over 47 tasks of perception and reasoning (MIT); not
VoiceBench's "mmsu" subset, which is spoken MMLU-Pro."""
HUB_REPO = "ddwang2000/MMSU"
"""One split, ``train``, as parquet files with the audio inside."""
SIZE = 5_000
CATEGORIES: tuple[str, ...] = ("perception", "reasoning")
FIELDS: tuple[str, ...] = ("id", "task_name", "audio", "question", "choice_a", "choice_b",
                           "choice_c", "choice_d", "answer_gt", "category", "sub-category",
                           "sub-sub-category", "linguistics_sub_discipline")
"""The release's fields; any of ``choice_a`` to ``choice_d`` may be null or empty (a question
of two or three options padded, the missing ones in any place, each option keeping its
letter), ``answer_gt`` is the correct option's text (not a letter)."""
CONVERTED = "mmsu.jsonl"
"""The converted layout a run reads: one record a line (the release's fields, ``audio`` the
clip's path relative to the folder), the clips beside it in ``audio/``."""
