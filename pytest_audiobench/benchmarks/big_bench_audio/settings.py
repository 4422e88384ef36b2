"""Big Bench Audio's settings, as its options resolve them (``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.big_bench_audio.facts import Reading
from pytest_audiobench.config.frozen import OwnSettings


class BigBenchAudioSettings(OwnSettings):
    prompt_path: Path | None
    prompt: str | None
    """The text of the user's instruction sent with the clip, read once; None: the built-in."""
    judge_template_path: Path | None
    judge_template: str | None
    """The text of the user's judge prompt, read once; None: the built-in one."""
    judge_retries: int
    """New judge calls after a reply that is not CORRECT or INCORRECT."""
    judge_temperature: float
    """The judge's temperature on this benchmark, in place of the run's judge temperature
    (by default AU-Harness's, whose leaderboard the published baselines come from)."""
    judge_reading: Reading
    """How the judge's reply is read (by default in any letter case, as AU-Harness reads it)."""
