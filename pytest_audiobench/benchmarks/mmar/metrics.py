"""MMAR's numbers: accuracy by matcher, modality, layer and sub-category; Rubrics and CRS."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pytest_audiobench.benchmarks.mmar.facts import NAME
from pytest_audiobench.benchmarks.mmar.rubrics import rubric_metrics
from pytest_audiobench.benchmarks.mmar.verdict import MmarVerdict
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import SampleRecord


def slug(name: str) -> str:
    """'Semantic Layer' -> 'semantic_layer', for metric names."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


@dataclass
class _Group:
    n: int = 0
    correct: int = 0
    official: int = 0
    strict: int = 0
    judged: list[tuple[bool, float | None]] = field(default_factory=list)
    """(answer correct, rubric score) of the samples whose rubrics were judged."""


class MmarScores:
    """What the numbers need of each verdict, folded as it comes: per group (all, modality,
    category, sub-category) the counts of correct answers by matcher and the rubric scores;
    no texts are kept."""

    def __init__(self) -> None:
        self._groups: dict[str, _Group] = {}

    def add(self, record: SampleRecord, verdict: MmarVerdict) -> None:
        names = ["", f"modality.{record.task}.", f"category.{slug(record.category)}."]
        if record.subcategory:
            names.append(f"subcategory.{slug(record.subcategory)}.")
        for name in names:
            group = self._groups.setdefault(name, _Group())
            group.n += 1
            group.correct += verdict.correct
            group.official += verdict.official.correct
            group.strict += verdict.strict.correct
            if verdict.rubric is not None:
                group.judged.append((verdict.correct, verdict.rubric.score))

    def metrics(self) -> dict[str, Metric]:
        """Accuracy (percent, micro) overall and by modality, category and sub-category, for
        the configured matcher and for each matcher by name; Rubrics and CRS where rubrics
        were judged."""
        metrics: dict[str, Metric] = {}
        for name, group in self._groups.items():
            n, base = group.n, f"{NAME}.{name}"
            metrics[base + "avg"] = Metric(value=100 * group.correct / n, n=n)
            for matcher, correct in (("official", group.official), ("strict", group.strict)):
                metrics[f"{base}{matcher}.avg"] = Metric(value=100 * correct / n, n=n)
            if group.judged:
                summary = rubric_metrics(group.judged)
                if summary.rubrics is not None:
                    metrics[base + "rubrics"] = Metric(value=summary.rubrics,
                                                       n=summary.evaluated)
                if summary.crs is not None:
                    metrics[base + "crs"] = Metric(value=summary.crs, n=summary.evaluated)
        return metrics
