"""End to end: the plugin run through pytester against scripted servers on 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ScoringJudge, Servers, write_baseline
from tests.fakes.openai_server import Reply, Scripted

HEADLINE = ("speech", "sound", "music", "speech_and_sound", "speech_and_music", "mixed",
            "average")


def test_every_sample_is_an_item_named_by_benchmark_task_and_id(run_bench: Any,
                                                                small_records: list[Any]) -> None:
    run = run_bench("--collect-only", "-q")
    ids = [line for line in run.result.outlines if line.startswith("audiobench::")]
    expected = {f"audiobench::air_bench_chat::{r['task_name']}::{r['uniq_id']}"
                for r in small_records}
    assert set(ids) == expected
    assert len(ids) == 16


def test_collect_only_sends_no_request(run_bench: Any, servers: Servers) -> None:
    run_bench("--collect-only", "-q")
    assert servers.model.count() == 0 and servers.judge.count() == 0


def test_all_good_answers_pass_and_the_metrics_follow_the_judge(run_bench: Any) -> None:
    run = run_bench()
    run.result.assert_outcomes(passed=16)
    metrics = run.metrics
    for group in HEADLINE:
        assert metrics[f"air_bench_chat.{group}.score"] == pytest.approx(8.0)
        assert metrics[f"air_bench_chat.{group}.reference"] == pytest.approx(6.0)
    assert metrics["air_bench_chat.speech_QA.win_rate"] == 1.0
    assert run.result.ret == 0  # no baseline: pytest's own verdict, and nothing failed


def test_the_same_numbers_with_no_xdist_n0_and_n2(run_bench: Any, servers: Servers,
                                                  small_records: list[Any]) -> None:
    # Poor answers on two samples and a judge that never parses on a third, so that the
    # numbers are uneven and a lost or double-counted sample would show.
    poor = [small_records[0], small_records[6]]
    script = Scripted("a good answer")
    for record in poor:
        script.when(contains=record["question"], replies="a poor answer")
    servers.model.script = script
    servers.judge.script = ScoringJudge(replies={small_records[9]["question"]: "n/a"})
    runs = [run_bench(xdist=mode) for mode in ([], ["-n0"], ["-n2"])]
    first = runs[0]
    first.result.assert_outcomes(passed=13, failed=2, errors=1)
    speech = first.report["benchmarks"][0]["metrics"]["air_bench_chat.speech.score"]
    assert speech == {"value": pytest.approx((2 + 8 * 3) / 4), "n": 4}
    for run in runs[1:]:
        run.result.assert_outcomes(passed=13, failed=2, errors=1)
        assert run.metrics == first.metrics
        assert run.outcomes() == first.outcomes()


def test_a_poor_answer_fails_with_question_reference_answer_and_both_judge_replies(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    target = small_records[0]
    servers.model.script = Scripted("a good answer").when(contains=target["question"],
                                                          replies="a poor answer")
    run = run_bench("-rf")
    run.result.assert_outcomes(passed=15, failed=1)
    out = run.result.stdout.str()
    assert "model score 2 is below the bar 5 (reference scored 6)" in out
    assert target["question"] in out
    assert target["answer_gt"][:40] in out
    assert "a poor answer" in out
    assert "judge (reference is Assistant 1): '6 2' -> model 2, reference 6" in out
    assert "judge (model is Assistant 1): '2 6' -> model 2, reference 6" in out
    record = next(s for s in run.report["samples"] if s["outcome"] == "failed")
    assert record["sample_id"] == str(target["uniq_id"])
    assert "below the bar" in record["message"]


def test_the_sample_bar_is_configurable(run_bench: Any) -> None:
    run = run_bench("--audiobench-sample-bar", "8.5")
    run.result.assert_outcomes(failed=16)


def test_an_endpoint_that_keeps_failing_is_an_error_never_a_wrong_answer(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    target = small_records[3]
    servers.model.script = Scripted("a good answer").when(contains=target["question"],
                                                          replies=Reply(status=500))
    run = run_bench("--audiobench-retries", "2")
    run.result.assert_outcomes(passed=15, errors=1)
    assert "EndpointError: the model audio-model at" in run.result.stdout.str()
    assert "failed after 3 attempts: HTTP 500" in run.result.stdout.str()
    questions = [r.text for r in servers.model.requests]
    assert sum(target["question"] in q for q in questions) == 3
    record = next(s for s in run.report["samples"] if s["outcome"] == "error")
    assert record["answers"] == [] and record["grades"] == []
    counts = run.report["benchmarks"][0]["counts"]
    assert counts["errors"] == 1
    assert run.report["benchmarks"][0]["metrics"]["air_bench_chat.average.score"]["n"] == 15


def test_rate_limits_and_dropped_connections_are_retried(run_bench: Any,
                                                         servers: Servers) -> None:
    servers.model.script = Scripted("a good answer").when(replies=[
        Reply(status=429, headers={"Retry-After": "0"}), Reply(drop=True), "a good answer"])
    run = run_bench("--audiobench-concurrency", "1")
    run.result.assert_outcomes(passed=16)
    attempts = [s["answers"][0]["completion"]["attempts"] for s in run.report["samples"]]
    assert sum(attempts) == 18 and max(attempts) >= 2 and servers.model.count() == 18


def test_an_empty_audio_file_is_skipped_and_its_path_named(
        run_bench: Any, tmp_path: Path, small_records: list[Any]) -> None:
    from tests.fakes.datasets import build_air_bench_chat

    target = small_records[5]
    data = build_air_bench_chat(tmp_path / "data", small_records, empty={target["uniq_id"]})
    run = run_bench("-rs", data=data)
    run.result.assert_outcomes(passed=15, skipped=1)
    assert f"audio file is empty (0 bytes): {data}" in run.result.stdout.str()
    assert target["path"] in run.result.stdout.str()
    assert run.report["benchmarks"][0]["counts"]["skipped"] == 1


def test_unparseable_judge_replies_are_retried_then_excluded_never_zero(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    target = small_records[0]
    servers.judge.script = ScoringJudge(replies={target["question"]: "Score: 8/10"})
    run = run_bench("--audiobench-judge-retries", "1")
    run.result.assert_outcomes(passed=15, errors=1)
    assert "JudgeError: judge judge-model gave no reply" in run.result.stdout.str()
    summary = run.report["benchmarks"][0]
    assert summary["counts"]["judge_failures"] == 2
    assert summary["metrics"]["air_bench_chat.speech.score"] == {"value": 8.0, "n": 3}
    record = next(s for s in run.report["samples"] if s["outcome"] == "error")
    assert [p["outputs"] for p in record["grades"][0]["passes"]] == [["Score: 8/10"] * 2] * 2
    assert "2 pass(es) without a parseable reply" in run.result.stdout.str()


def test_zero_scores_count_and_scores_above_ten_are_rejected(run_bench: Any,
                                                             servers: Servers) -> None:
    servers.judge.script = Scripted("0 0").when(contains="Assistant 1", replies=["11 3", "0 0"])
    run = run_bench("--audiobench-sample-bar", "0")
    run.result.assert_outcomes(passed=16)
    assert run.metrics["air_bench_chat.average.score"] == 0.0
    assert any("11 3" in p["outputs"][0] for s in run.report["samples"]
               for p in s["grades"][0]["passes"])


def test_without_swap_the_judge_is_asked_once_per_sample(run_bench: Any,
                                                         servers: Servers) -> None:
    run = run_bench("--audiobench-no-swap")
    run.result.assert_outcomes(passed=16)
    assert servers.judge.count() == 16
    assert {p["order"] for s in run.report["samples"] for p in s["grades"][0]["passes"]} == {
        "reference_first"}


def _strip_volatile(text: str) -> str:
    text = re.sub(r"http://127\.0\.0\.1:\d+/v1", "URL", text)
    return re.sub(r"/\S*/(baselines|report\.json)", r"<dir>/\1", text)


def _summary(stdout: str) -> str:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "audiobench summary" in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("="))
    return _strip_volatile("\n".join(lines[start:end]))


def test_the_summary_table_with_a_baseline(run_bench: Any, pytester: pytest.Pytester,
                                           servers: Servers, small_records: list[Any],
                                           snapshot: Any) -> None:
    servers.model.script = Scripted("a good answer").when(contains=small_records[0]["question"],
                                                          replies="a poor answer")
    write_baseline(pytester.path, {"air_bench_chat.speech.score": (7.0, 0.2),
                                   "air_bench_chat.average.score": (8.5, 0.1),
                                   "air_bench_chat.speech_QA.win_rate": (0.5, 0.05)},
                   max_errors=1)
    run = run_bench()
    assert run.result.ret == 1
    assert _summary(run.result.stdout.str()) == snapshot


def test_repeated_runs_report_every_run_and_gate_on_the_mean_of_the_middle_runs(
        run_bench: Any, servers: Servers) -> None:
    # With --audiobench-seed 0 the seed of run k is k: run 0 answers poorly, runs 1-2 well.
    servers.model.script = lambda request: (
        "a poor answer" if request.body.get("seed") == 0 else "a good answer")
    run = run_bench("--audiobench-runs", "3", "--audiobench-seed", "0")
    run.result.assert_outcomes(passed=16)  # a sample's score is its mean over runs: 6
    assert servers.model.count() == 48 and servers.judge.count() == 96
    summary = run.report["benchmarks"][0]
    per_run = [r["air_bench_chat.average.score"]["value"] for r in summary["runs"]]
    assert per_run == [2.0, 8.0, 8.0]
    assert summary["metrics"]["air_bench_chat.average.score"]["value"] == 8.0
    seeds = [a["request"]["sampling"]["seed"] for a in run.report["samples"][0]["answers"]]
    assert seeds == [0, 1, 2]
    assert "3 runs per sample" in run.result.stdout.str()
