"""VoiceBench's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pytest_audiobench.config.frozen import OwnSettings


class VoiceBenchSettings(OwnSettings):
    system: bool
    """Send the reference's system message before the spoken instruction (it sends it to the
    API models it evaluates; the open-weight ones hear the audio alone)."""
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
