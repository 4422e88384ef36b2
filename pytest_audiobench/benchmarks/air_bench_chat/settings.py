"""AIR-Bench Chat's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.config.frozen import OwnSettings


class ChatSettings(OwnSettings):
    judge_template_path: Path | None
    judge_template: str | None
    """The text of the user's judge prompt, read once at the start; None: the built-in one."""
    swap: bool
    """Also judge with the model as Assistant 1 (the official second pass)."""
    judge_retries: int
    """New judge calls after a reply the parser rejects (an offline judge never needs one)."""
    sample_bar: float
    """A sample whose model score is below this fails its item."""
