"""What one sample produced, as it crosses from an xdist worker to the controller (plain
JSON) and lands in the JSON report."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

from pytest_audiobench.benchmarks.air_bench_chat.judge import ChatVerdict
from pytest_audiobench.benchmarks.mmar.verdict import MmarVerdict
from pytest_audiobench.config.names import AudioMode
from pytest_audiobench.config.settings import Sampling
from pytest_audiobench.transport.types import Completion

Outcome = Literal["passed", "failed", "error", "skipped", "not_run"]
"""``not_run``: stopped by the budget before it could be graded (the item shows as skipped)."""


Verdict = Annotated[ChatVerdict | MmarVerdict, Field(discriminator="kind")]
"""What grading one answer gives: every benchmark's verdict, told apart by ``kind``."""


class RequestRecord(BaseModel):
    """Everything that was sent to the model for one sample, audio summarised."""

    url: str
    model: str
    sampling: Sampling
    audio_mode: AudioMode
    prompt: str
    audio_format: str
    audio_seconds: float
    audio_sha256: str
    transcoded: bool


class ModelAnswer(BaseModel):
    """The model's reply to one sample and the request that produced it."""

    run: int = 0
    """Which of the ``--audiobench-runs`` inferences this is, from 0."""
    request: RequestRecord
    completion: Completion
    warnings: list[str] = []

    @property
    def text(self) -> str:
        return self.completion.text


class SampleRecord(BaseModel):
    """One sample's whole story: outcome, request, answer, verdict, and why it ended so."""

    benchmark: str
    sample_id: str
    task: str
    category: str
    subcategory: str = ""
    nodeid: str
    outcome: Outcome
    audio_path: str
    answers: list[ModelAnswer] = []
    """One per inference run, in run order; empty when the model could not be asked."""
    verdicts: list[Verdict] = []
    """One per answer; empty when grading failed."""
    message: str | None = None
    """Why the sample failed, errored or was skipped."""
