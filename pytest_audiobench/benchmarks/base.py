"""What every benchmark implements, and what it is given to ask and grade with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pytest_audiobench.benchmarks.sample import Sample

if TYPE_CHECKING:
    from pytest_audiobench.config.settings import Settings
    from pytest_audiobench.outcome.metrics import Metric
    from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Verdict
    from pytest_audiobench.transport.endpoint import Endpoint

@dataclass(frozen=True, slots=True)
class Runtime:
    """What a benchmark needs to answer and grade: settings, endpoints, judge prompt."""

    settings: Settings
    model: Endpoint
    judge: Endpoint | None
    judge_template: str | None
    """AIR-Bench Chat's judge prompt, when that benchmark runs."""
    rubric_judge: Endpoint | None = None
    """The judge with MMAR's rubric sampling settings, when a judge is given."""


class Benchmark(Protocol):
    """One benchmark: where its data is, its samples, how they are asked and graded."""

    name: str

    def locate(self, settings: Settings) -> Path:
        """The local release root, downloading it first if the settings ask for that."""

    def load(self, root: Path, settings: Settings) -> list[Sample]:
        """Every selected sample, validated; DataError names the file and record."""

    def prompt(self, sample: Sample) -> str:
        """The text sent with the sample's audio."""

    def judge_calls(self, sample: Sample, answer: str | None,
                    runtime: Runtime) -> tuple[int, int, bool]:
        """Judge calls grading ``answer`` takes (first attempts), how many of them are cached,
        and whether the count is only a maximum (the answer is unknown and decides it)."""

    async def answer(self, sample: Sample, runtime: Runtime, run: int) -> ModelAnswer:
        """Ask the model (``run`` counts repeated inferences from 0); EmptyAudio, AudioError
        or EndpointError when it cannot."""

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Verdict:
        """Grade one answer; JudgeError when no verdict can be had."""

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                verdicts: Sequence[Verdict], settings: Settings) -> str | None:
        """The report of a sample that fails its item, or None when it passes."""

    def properties(self, verdicts: Sequence[Verdict]) -> list[tuple[str, object]]:
        """Per-sample properties for ``--junitxml``."""

    def metrics(self, records: Sequence[SampleRecord], run: int) -> dict[str, Metric]:
        """The numbers of inference run ``run`` from the graded samples."""

    def headline(self) -> tuple[str, ...]:
        """Metrics shown in the summary and written by --audiobench-update-baseline."""

    def failed_means(self, settings: Settings) -> str:
        """What a failed sample item means, for the summary's counts."""

    def notes(self, settings: Settings) -> list[str]:
        """How the numbers were made, for the summary and the JSON report."""

    def finish(self, records: Sequence[SampleRecord], settings: Settings) -> list[str]:
        """Write what the benchmark exports at the end of a run; say what was written."""
