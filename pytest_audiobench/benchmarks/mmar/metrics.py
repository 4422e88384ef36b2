"""MMAR's numbers: the multiple-choice base's accuracies by modality, layer and sub-category,
with Rubrics and CRS beside them."""

from __future__ import annotations

from pytest_audiobench.benchmarks.choice.base import (
    ChoiceBenchmark,
    ChoiceGrade,
    ChoiceScores,
)
from pytest_audiobench.benchmarks.mmar.grade import MmarGrade
from pytest_audiobench.benchmarks.mmar.rubrics import rubric_metrics
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import SampleRecord


class MmarScores(ChoiceScores):
    """The base's counts, and per group the (answer correct, rubric score) of the samples
    whose rubrics were judged."""

    def __init__(self, bench: ChoiceBenchmark) -> None:
        super().__init__(bench)
        self.judged: dict[str, list[tuple[bool, float | None]]] = {}

    def add(self, record: SampleRecord, grade: ChoiceGrade) -> None:
        super().add(record, grade)
        if isinstance(grade, MmarGrade) and grade.rubric is not None:
            for name in self.names(record):
                self.judged.setdefault(name, []).append((grade.correct, grade.rubric.score))

    def metrics(self) -> dict[str, Metric]:
        metrics = super().metrics()
        for name, judged in self.judged.items():
            summary, base = rubric_metrics(judged), f"{self.bench.name}.{name}"
            if summary.rubrics is not None:
                metrics[base + "rubrics"] = Metric(value=summary.rubrics, n=summary.evaluated)
            if summary.crs is not None:
                metrics[base + "crs"] = Metric(value=summary.crs, n=summary.evaluated)
        return metrics
