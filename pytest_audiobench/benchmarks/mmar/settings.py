"""MMAR's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.choice.settings import ChoiceSettings
from pytest_audiobench.config.frozen import Frozen


class RubricSettings(Frozen):
    """MMAR's rubric judging (official: gpt-4o-2024-11-20, temperature 0, seed 42, 5 raters,
    up to 20 attempts each)."""

    temperature: float
    seed: int
    raters: int
    attempts: int


class MmarSettings(ChoiceSettings):
    """How MMAR is asked, matched, exported and rated."""

    export_path: Path | None
    """Where the challenge submission JSONL is written."""
    rubric: RubricSettings
