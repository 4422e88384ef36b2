"""The family-wise promise, measured through the plugin: the built-in ``random`` model is a
seeded random choice, so every seed is the same model drawn again. On the mini benchmark (both
benchmarks in one run), twenty seeds are gated against the committed baseline of ``random``
(written over 20 inference runs, seeds 100 to 119), with and without xdist, and twenty pairs of
a baseline written from one seed and another seed gated against it: an unchanged model fails
the gate in at most 1 run of 20, and no interval or detectable drop in any report leaves its
metric's range. (tests/test_small_samples.py measures the same promise by simulation, over
many more runs.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

SEEDS = range(1, 21)
COMMITTED = Path(__file__).resolve().parents[1] / "baselines"


def _run(pytester: pytest.Pytester, seed: int, baselines: Path, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "-p", "no:cacheprovider", "-q", "--audiobench-model", "random",
        "--audiobench-judge-model", "overlap", "--audiobench-benchmark", "air_bench_chat,mmar",
        "--audiobench-data", "mini", f"--audiobench-baselines={baselines}",
        "--audiobench-seed", str(seed), f"--audiobench-cache-dir={pytester.path / 'cache'}",
        "-p", "no:terminalprogress", *args)


def _outside_the_range(report: dict[str, Any]) -> list[str]:
    """Paired rows whose interval or detectable drop leaves the metric's range."""
    bad = []
    for summary in report["benchmarks"]:
        for row in (summary["gate"] or {}).get("rows", []):
            if row["test"] != "paired":
                continue
            span = row["span"]
            ends = [v for v in (row["low"], row["high"]) if v is not None]
            if any(abs(v) > span + 1e-9 for v in ends) or (
                    row["detectable"] is not None
                    and row["detectable"] > row["baseline"] + 1e-9):
                bad.append(f"{row['metric']}: {row}")
    return bad


def _gated(pytester: pytest.Pytester, seed: int, baselines: Path, *xdist: str) -> bool:
    """Gate ``seed`` against ``baselines``; whether the gate failed."""
    report = pytester.path / f"report-{seed}.json"
    gated = _run(pytester, seed, baselines, f"--audiobench-report={report}", *xdist)
    assert gated.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED)
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [s["baseline"] for s in data["benchmarks"]] == ["applied", "applied"]
    assert _outside_the_range(data) == []
    return gated.ret != pytest.ExitCode.OK


@pytest.mark.parametrize("xdist", [pytest.param([], id="no-xdist"),
                                   pytest.param(["-n", "2"], id="n2")])
def test_twenty_draws_fail_the_committed_mini_baseline_at_most_once(
        pytester: pytest.Pytester, xdist: list[str]) -> None:
    # The seeds, one run each against a baseline over twenty: the run-swap test. The
    # baseline of seed 0 alone scored 50.0 % on the mini MMAR where the model's expectation is
    # 34.8 %, and seeds 1, 13 and 18 failed against it.
    failed = [seed for seed in SEEDS if _gated(pytester, seed, COMMITTED, *xdist)]
    assert len(failed) <= 1, f"seeds whose draw failed the gate: {failed}"


def test_twenty_pairs_of_draws_fail_their_own_baseline_at_most_once(
        pytester: pytest.Pytester) -> None:
    failed = []
    for seed in SEEDS:
        baselines = pytester.path / f"baselines-{seed}"
        written = _run(pytester, seed, baselines, "--audiobench-update-baseline")
        assert written.ret == pytest.ExitCode.OK, written.stdout.str()[-3000:]
        if _gated(pytester, 100 + seed, baselines):
            failed.append(seed)
    assert len(failed) <= 1, f"seeds whose draw failed the gate: {failed}"
