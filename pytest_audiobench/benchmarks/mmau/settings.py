"""MMAU's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.choice.settings import ChoiceSettings


class MmauSettings(ChoiceSettings):
    """Which split is run, how it is asked and matched, and where its submission goes."""

    split: str
    """``test-mini`` (answers published: scored and gated) or ``test`` (answers withheld)."""
    export_path: Path | None
    """Where the submission (the split's records with the model's answers) is written."""
