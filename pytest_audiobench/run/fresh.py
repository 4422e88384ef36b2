"""The fresh draws that confirm one item's suggested drop (``gate/sample_change.py`` decides
when and what they show): each round asks the worker for the judge's fresh draws on the sample's
answer and on the baseline's, keeps their grades in the record, and gives their scores. A
round that fails is said in the record and ends the rounds; the item is then decided on the
draws it has."""

from __future__ import annotations

from pytest_audiobench.benchmarks.base import Benchmark, line_baseline_grades, line_graded
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.errors import EndpointError, JudgeError, NotRun
from pytest_audiobench.gate.baseline import whole
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.records import Grade, SampleRecord
from pytest_audiobench.run.worker import Worker


class FreshDraws:
    """One item's rounds; ``record`` holds their grades once drawn."""

    def __init__(self, worker: Worker, bench: Benchmark, sample: Sample, record: SampleRecord,
                 baseline: LoadedBaseline) -> None:
        self.worker, self.bench, self.sample, self.baseline = worker, bench, sample, baseline
        self.record = record
        self._base: SampleLine | None = None
        """The baseline's line whole (its answer), read from the file at the first round (head
        to head: the live model's)."""

    def draw(self, round_: int) -> tuple[list[float], list[float]] | None:
        """Round ``round_``'s scores, the baseline answer's and the new one's (``Draw``)."""
        record = self.record
        if self._base is None:
            # Head to head, the live model's answer this run asked; else the file's.
            self._base = line_baseline_grades(self.bench, record) \
                if self.baseline.baseline_endpoint \
                else whole(self.baseline.lines, self.sample.nodeid)
        base = self._base
        if base is None or not base.answer or record.confirmation_failed is not None:
            return None
        try:
            new, then = self.worker.redraw(self.sample, record.answers[0], base, round_)
        except (JudgeError, EndpointError, NotRun) as exc:
            self.record = record.model_copy(update={
                "confirmation_failed": f"round {round_}: {type(exc).__name__}: {exc}"})
            return None
        lines = [self._line(grade) for grade in (then, new)]
        if lines[0] is None or lines[1] is None:
            return None
        self.record = record.model_copy(update={
            "confirmation": [*record.confirmation, new],
            "confirmation_of_baseline": [*record.confirmation_of_baseline, then]})
        return lines[0].draws, lines[1].draws

    def _line(self, grade: Grade | None) -> SampleLine | None:
        return None if grade is None else line_graded(self.bench, self.record, [grade])
