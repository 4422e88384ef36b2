"""MMAU's fixed facts: its name, the release, its splits and their files, its tasks and
difficulties with their test-mini counts. A leaf: the spec and every module of the benchmark
read them from here."""

from __future__ import annotations

NAME = "mmau"
RELEASE = "MMAU-v05.15.25"
"""The May 2025 release, which revised about a quarter of the questions: results name it."""

SPLITS: dict[str, str] = {"test-mini": "mmau-test-mini.json", "test": "mmau-test.json"}
"""Each split's metadata file at the release root. test-mini has the answers; test withholds
them (the maintainers' online evaluator scores a submitted file)."""
SPLIT_SIZES: dict[str, int] = {"test-mini": 1000, "test": 9000}
HUB_REPOS: dict[str, str] = {
    "test-mini": "gamma-lab-umd/MMAU-test-mini",
    "test": "gamma-lab-umd/MMAU-test",
}
"""Each split's dataset repo on the Hugging Face hub: parquet files, one row per question."""

TASK_COUNTS: dict[str, int] = {"sound": 333, "music": 334, "speech": 333}
"""test-mini's questions per task (the audio's domain)."""
TASKS: tuple[str, ...] = tuple(TASK_COUNTS)
DIFFICULTY_COUNTS: dict[str, int] = {"easy": 224, "medium": 540, "hard": 236}
DIFFICULTIES: tuple[str, ...] = tuple(DIFFICULTY_COUNTS)
CATEGORIES: tuple[str, ...] = ("Reasoning", "Information Extraction")
MIN_CHOICES, MAX_CHOICES = 2, 8
"""test-mini: 948 questions with 4 choices, 27 with 2, 24 with 5, 1 with 8."""
