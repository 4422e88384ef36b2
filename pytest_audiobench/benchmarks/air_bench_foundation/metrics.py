"""AIR-Bench Foundation's numbers (percent, pooled over items): per folder, per task (its
folders pooled), per category and over every item, each for the deciding matcher and for
both by name; with them the official scorer's failures (left out of its count) and the
strict matcher's unanswered replies (counted wrong)."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_audiobench import Metric, SampleRecord
from pytest_audiobench.benchmarks.air_bench_foundation.facts import NAME
from pytest_audiobench.benchmarks.air_bench_foundation.verdict import FoundationVerdict


@dataclass
class _Group:
    n: int = 0
    strict: int = 0
    unanswered: int = 0
    aligned: int = 0
    """Items the official align step ran on (a judge was given)."""
    official: int = 0
    failed: int = 0
    """Of the aligned, the replies the official scorer reads no letter from."""


def groups_of(record: SampleRecord) -> list[str]:
    """The metric prefixes an item counts in, from the whole to its folder (the record's
    task; its category, and its AIR-Bench task as the sub-category)."""
    return ["", f"category.{record.category}.", f"task.{record.subcategory}.",
            f"folder.{record.task}."]


class FoundationScores:
    """The counts the numbers need, folded verdict by verdict; no texts are kept."""

    def __init__(self, matcher: str) -> None:
        self.matcher = matcher
        self._groups: dict[str, _Group] = {}

    def add(self, record: SampleRecord, verdict: FoundationVerdict) -> None:
        for name in groups_of(record):
            group = self._groups.setdefault(name, _Group())
            group.n += 1
            group.strict += verdict.strict == verdict.answer
            group.unanswered += verdict.strict is None
            if verdict.align is not None:
                group.aligned += 1
                group.failed += verdict.official is None
                group.official += verdict.official == verdict.answer

    def metrics(self) -> dict[str, Metric]:
        out: dict[str, Metric] = {}
        for name, group in self._groups.items():
            base = f"{NAME}.{name}"
            out[base + "strict.avg"] = Metric(value=100 * group.strict / group.n, n=group.n)
            out[base + "strict.unanswered"] = Metric(value=group.unanswered, n=group.n)
            counted = group.aligned - group.failed
            if group.aligned:
                out[base + "official.fail_num"] = Metric(value=group.failed, n=group.aligned)
            if counted:
                out[base + "official.avg"] = Metric(value=100 * group.official / counted,
                                                    n=counted)
            deciding = out.get(f"{base}{self.matcher}.avg")
            if deciding is not None:
                out[base + "avg"] = deciding
        return out
