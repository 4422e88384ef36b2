"""Pure aggregation of Big Bench Audio grades: accuracy is the share of CORRECT replies in
percent, overall and per category. A sample judged several times (``--audiobench-judge-
repeats``) counts by its share of CORRECT draws; a sample without a readable draw has no
grade to count (it is an error, reported as such)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_audiobench.benchmarks.big_bench_audio.facts import NAME
from pytest_audiobench.benchmarks.big_bench_audio.judge import BigBenchAudioGrade
from pytest_audiobench.outcome.metrics import Metric

OVERALL = "all"
"""The group of every sample (its metric is ``big_bench_audio.accuracy``)."""


@dataclass
class _Group:
    n: int = 0
    correct: float = 0.0
    """The samples' shares of CORRECT draws, summed."""


class AccuracyScores:
    """Each group's count and summed shares, folded as the grades come; no texts kept."""

    def __init__(self) -> None:
        self._groups: dict[str, _Group] = {}

    def add(self, category: str, grade: BigBenchAudioGrade) -> None:
        if grade.share is None:
            return
        for name in (OVERALL, category):
            group = self._groups.setdefault(name, _Group())
            group.n += 1
            group.correct += grade.share

    def metrics(self) -> dict[str, Metric]:
        return {metric_name(name): Metric(value=100.0 * group.correct / group.n, n=group.n)
                for name, group in self._groups.items()}


def metric_name(group: str) -> str:
    """``big_bench_audio.accuracy`` for every sample, ``big_bench_audio.<category>.accuracy``
    for one category."""
    return f"{NAME}.accuracy" if group == OVERALL else f"{NAME}.{group}.accuracy"


def group_of(metric: str) -> str | None:
    """The group a metric's name names (``metric_name`` read back); None for another name."""
    if metric == f"{NAME}.accuracy":
        return OVERALL
    middle = metric.removeprefix(f"{NAME}.").removesuffix(".accuracy")
    if metric.startswith(f"{NAME}.") and metric.endswith(".accuracy") and middle \
            and "." not in middle:
        return middle
    return None
