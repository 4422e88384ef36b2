"""MMAR's numbers: accuracy by matcher, modality, layer and sub-category; Rubrics and CRS."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from pytest_audiobench.benchmarks.mmar import NAME
from pytest_audiobench.benchmarks.mmar.rubrics import rubric_metrics
from pytest_audiobench.benchmarks.mmar.verdict import MmarVerdict
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import SampleRecord


def slug(name: str) -> str:
    """'Semantic Layer' -> 'semantic_layer', for metric names."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def mmar_metrics(graded: Iterable[tuple[str, MmarVerdict]],
                 records: dict[str, SampleRecord]) -> dict[str, Metric]:
    """Accuracy (percent, micro) overall and by modality, category and sub-category, for the
    configured matcher and for each matcher by name; Rubrics and CRS where rubrics were judged.
    """
    groups: dict[str, list[MmarVerdict]] = defaultdict(list)
    for sample_id, verdict in graded:
        record = records[sample_id]
        groups[""].append(verdict)
        groups[f"modality.{record.task}."].append(verdict)
        groups[f"category.{slug(record.category)}."].append(verdict)
        if record.subcategory:
            groups[f"subcategory.{slug(record.subcategory)}."].append(verdict)
    metrics: dict[str, Metric] = {}
    for group, verdicts in groups.items():
        n = len(verdicts)
        base = f"{NAME}.{group}"
        metrics[base + "avg"] = Metric(value=100 * sum(v.correct for v in verdicts) / n, n=n)
        for matcher in ("official", "strict"):
            correct = sum(getattr(v, matcher).correct for v in verdicts)
            metrics[f"{base}{matcher}.avg"] = Metric(value=100 * correct / n, n=n)
        judged = [(v.correct, v.rubric.score) for v in verdicts if v.rubric is not None]
        if judged:
            summary = rubric_metrics(judged)
            if summary.rubrics is not None:
                metrics[base + "rubrics"] = Metric(value=summary.rubrics, n=summary.evaluated)
            if summary.crs is not None:
                metrics[base + "crs"] = Metric(value=summary.crs, n=summary.evaluated)
    return metrics
