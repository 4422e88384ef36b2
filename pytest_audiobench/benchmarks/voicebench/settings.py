"""VoiceBench's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.config.frozen import OwnSettings


class VoiceBenchSettings(OwnSettings):
    system: str | None
    """The system message sent before the spoken instruction: by default the one the reference
    sends GPT-4o (it sends each model its own wrapper's, or none); a user's file's text; None:
    none."""
    system_path: Path | None = None
    """The file ``system`` was read from, when a user gave one."""
    judge_temperature: float
    judge_top_p: float
    judge_draws: int
    """Draws of each judge request (the reference's three completions), times
    ``--audiobench-judge-repeats``."""
    judge_retries: int
    """New judge calls after a reply that is not a rating of 1 to 5."""
    seed: int
    """Seeds the guess that stands in for a multiple-choice or bbh reply no rule reads."""
    rating_bar: float
    """An open item whose mean rating is below this fails its test item."""
    pedant_url: str
    """The folder URL sd-qa's PEDANT classifier files are downloaded from."""
