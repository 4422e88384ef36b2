"""MMAR's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.mmar.choices import Matcher, PromptStyle
from pytest_audiobench.config.frozen import Frozen, OwnSettings


class RubricSettings(Frozen):
    """MMAR's rubric judging (official: gpt-4o-2024-11-20, temperature 0, seed 42, 5 raters,
    up to 20 attempts each)."""

    temperature: float
    seed: int
    raters: int
    attempts: int


class MmarSettings(OwnSettings):
    """How MMAR is asked, matched, exported and rated."""

    prompt: PromptStyle
    template_path: Path | None
    template: str | None
    """The text of the user's template with {question} and {choices}, read once at the start;
    it replaces ``prompt``."""
    matcher: Matcher
    """Which matcher decides correctness; both are always computed and reported."""
    export_path: Path | None
    """Where the challenge submission JSONL is written."""
    rubric: RubricSettings
