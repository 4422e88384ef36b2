"""Several machines: --audiobench-shard K/N runs and audiobench-merge gating on the union."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers, write_baseline
from tests.fakes.openai_server import Scripted


def _merge(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_audiobench.commands.merge", *map(str, args)],
        cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def uneven(servers: Servers, small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"], replies="a poor answer").when(
        contains=small_records[9]["question"], replies="a poor answer")


def _shard(run_bench: Any, pytester: pytest.Pytester, k: int, n: int,
           xdist: Sequence[str] = ()) -> Path:
    path = pytester.path / f"shard-{k}.json"
    run = run_bench("--audiobench-shard", f"{k}/{n}", f"--audiobench-report={path}",
                    xdist=xdist)
    assert run.result.ret == 0, run.result.stdout.str()  # the merge gates, not the shard
    assert "audiobench-merge gates on the union" in run.result.stdout.str()
    return path


def _shards(run_bench: Any, pytester: pytest.Pytester, n: int, *,
            xdist: bool = True) -> list[Path]:
    """The ``n`` shards' reports, the second run under xdist unless not ``xdist``: the tests
    of what a merge gates and refuses take shards of plain runs (each xdist run starts two
    workers, seconds of the suite), and those of what a merge equals take one of each."""
    return [_shard(run_bench, pytester, k, n, ["-n2"] if xdist and k == 2 else [])
            for k in range(1, n + 1)]


def test_shards_split_the_samples_without_overlap_and_the_merge_equals_one_run(
        run_bench: Any, pytester: pytest.Pytester, uneven: None, servers: Servers) -> None:
    single = run_bench()
    paths = _shards(run_bench, pytester, 3)
    selected = [set(json.loads(p.read_text())["selected"]) for p in paths]
    assert sorted(len(s) for s in selected) == [5, 5, 6]
    assert set.union(*selected) == set(json.loads(single.report_path.read_text())["selected"])
    merged_path = pytester.path / "merged.json"
    result = _merge(*paths, "--report", merged_path, cwd=pytester.path)
    assert result.returncode == 1, result.stdout + result.stderr  # no gate: failed samples
    merged = json.loads(merged_path.read_text())
    metrics = {name: m["value"] for b in merged["benchmarks"] for name, m in
               b["metrics"].items()}
    assert metrics == single.metrics
    assert merged["benchmarks"][0]["counts"] == single.report["benchmarks"][0]["counts"]
    # The merge lists samples in node id order; a single run in collection order.
    assert sorted(s["nodeid"] for s in merged["samples"]) == sorted(
        s["nodeid"] for s in single.report["samples"])
    assert "air_bench_chat.average.score" in result.stdout


def test_the_merge_gates_like_a_single_run(run_bench: Any, pytester: pytest.Pytester,
                                           uneven: None) -> None:
    paths = _shards(run_bench, pytester, 2, xdist=False)
    write_baseline(pytester.path, {"air_bench_chat.average.score": (7.0, 0.1)})
    held = _merge(*paths, cwd=pytester.path)
    assert held.returncode == 0 and "gate: held" in held.stdout
    write_baseline(pytester.path, {"air_bench_chat.average.score": (7.9, 0.1)})
    failed = _merge(*paths, cwd=pytester.path)
    assert failed.returncode == 1 and "gate: FAILED" in failed.stdout


def test_the_merge_refuses_reports_that_are_not_one_runs_shards(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    first = _shard(run_bench, pytester, 1, 2)  # its second shard is the one run below
    missing = _merge(first, cwd=pytester.path)
    assert missing.returncode == 4
    assert "expected shards 1..2 once each, got [1]" in missing.stderr
    other = pytester.path / "other.json"
    run_bench("--audiobench-shard", "2/2", f"--audiobench-report={other}",
              "--audiobench-temperature", "0.5")
    mixed = _merge(first, other, cwd=pytester.path)
    assert mixed.returncode == 4 and "ran with other settings" in mixed.stderr
    assert "endpoint" in mixed.stderr


def test_a_shard_needs_a_report_and_cannot_write_a_baseline(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, chat_data: Path) -> None:
    no_report = pytester.runpytest(
        "--audiobench-model", "m", "--audiobench-api-url", servers.model.url,
        "--audiobench-judge-model", "j", "--audiobench-judge-api-url", servers.judge.url,
        f"--audiobench-data={chat_data}", "--audiobench-shard", "1/2")
    assert no_report.ret == pytest.ExitCode.USAGE_ERROR
    assert "--audiobench-shard needs --audiobench-report PATH" in no_report.stderr.str()
    empty = run_bench("--audiobench-report=")
    assert empty.result.ret == pytest.ExitCode.USAGE_ERROR
    update = run_bench("--audiobench-shard", "1/2", "--audiobench-update-baseline")
    assert update.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "cannot run on a shard" in update.result.stderr.str()
    bad = run_bench("--audiobench-shard", "3/2")
    assert bad.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "expected K/N with 1 <= K <= N" in bad.result.stderr.str()


@pytest.mark.parametrize(("poor", "status"), [(1, 0), (6, 1)])
def test_the_merge_gates_paired_on_a_per_sample_baseline_like_a_single_run(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], poor: int, status: int) -> None:
    written = run_bench("--audiobench-update-baseline")
    assert written.result.ret == 0
    assert (pytester.path / "baselines" / "air_bench_chat" / "audio-model.samples.jsonl").exists()
    script = Scripted("a good answer")
    for record in small_records[:poor]:
        script.when(contains=record["question"], replies="a poor answer")
    servers.model.script = script
    single = run_bench()
    paths = _shards(run_bench, pytester, 2)
    merged_path = pytester.path / "merged.json"
    merged = _merge(*paths, "--report", merged_path, cwd=pytester.path)
    report = json.loads(merged_path.read_text())
    assert merged.returncode == single.result.ret == status, merged.stdout
    gate, single_gate = report["benchmarks"][0]["gate"], single.report["benchmarks"][0]["gate"]
    assert {r["test"] for r in gate["rows"]} == {"paired"}
    assert gate == single_gate
    assert report["benchmarks"][0]["counts"] == single.report["benchmarks"][0]["counts"]
    outcomes = {s["nodeid"]: s["outcome"] for s in report["samples"]}
    assert outcomes == single.outcomes()
    assert list(outcomes.values()).count("failed") == poor  # the regressions, and only they
    assert "change [interval]" in merged.stdout
    if status == 0:
        assert "why: the gate held although 1 sample(s) regressed" in merged.stdout
    else:
        assert "air_bench_chat.average.score regressed" in merged.stdout


def test_a_merge_whose_baseline_cannot_be_written_exits_as_such_a_run_does(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    # One rule for both (gate/decision.exit_status): the output asked for is missing, so 3,
    # not the gate's 0 (a merge said 0 here before).
    paths = _shards(run_bench, pytester, 2, xdist=False)
    (pytester.path / "blocker").write_text("a file where a folder must go", encoding="utf-8")
    merged = _merge(*paths, "--update-baseline", "--baselines", pytester.path / "blocker" / "b",
                    cwd=pytester.path)
    assert merged.returncode == pytest.ExitCode.INTERNAL_ERROR, merged.stdout + merged.stderr
    assert "gate: baseline NOT written to" in merged.stdout
