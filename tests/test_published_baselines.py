"""The published reference baselines in ``baselines/``: each reads as a baseline file, names
where its numbers come from, sits where a run looks for its model, and holds only metrics its
benchmark reports; MMAU's task numbers agree with their average."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.gate.baseline import load, path_for

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = sorted((REPO / "baselines").glob("*/*.json"))
TASK_SIZES = {"sound": 333, "music": 334, "speech": 333}


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_published_baseline_reads_says_its_source_and_sits_where_a_run_looks(
        path: Path) -> None:
    baseline = load(path)
    assert baseline is not None and baseline.source.startswith("published: ")
    assert path_for(REPO / "baselines", baseline.benchmark, baseline.model) == path
    assert baseline.benchmark in registry.catalog().specs
    assert all(name.startswith(f"{baseline.benchmark}.") for name in baseline.metrics)


# A source that gives the average only (Qwen3-Omni's card) has nothing to check here.
BY_TASK = [p for p in PUBLISHED if p.parent.name == "mmau" and "mmau.task.sound.avg" in
           p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", BY_TASK, ids=lambda p: p.name)
def test_mmau_task_numbers_average_to_the_published_average(path: Path) -> None:
    baseline = load(path)
    assert baseline is not None
    metrics = baseline.metrics
    mean = sum(size * metrics[f"mmau.task.{t}.avg"].threshold
               for t, size in TASK_SIZES.items()) / 1000
    assert mean == pytest.approx(metrics["mmau.avg"].threshold, abs=0.05)
