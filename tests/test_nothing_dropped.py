"""Nothing is dropped silently: samples without a score count against the gate and are
listed, an endpoint that dies ends the run in one line instead of a backoff per sample, the
retries and 429 waits are counted per endpoint, and a rubric judge that fails never takes a
known answer out of MMAR's accuracy."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.release import mini_root
from tests.conftest import JUDGE, MODEL, XDIST_MODES, Servers, write_baseline
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.openai_server import (
    ChatRequest,
    Reply,
    Scripted,
    dies_after,
)

AVERAGE = "air_bench_chat.average.score"


# --- samples without a score --------------------------------------------------------------------


def test_missing_audio_fails_the_gate_and_is_listed_per_task(
        run_bench: Any, pytester: pytest.Pytester, small_records: list[dict[str, Any]],
        tmp_path: Path) -> None:
    # Two task folders lost: their samples are skipped, and a skip is not a score.
    lost = [r["uniq_id"] for r in small_records if r["task_name"] in ("music_QA", "sound_QA")]
    data = build_air_bench_chat(tmp_path / "release", small_records, missing=lost)
    write_baseline(pytester.path, {AVERAGE: (7.5, 0.2)})
    run = run_bench(data=data)
    run.result.assert_outcomes(passed=12, skipped=4)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    stdout = run.result.stdout.str()
    assert "without a score: sound_QA 2 skipped; music_QA 2 skipped" in stdout
    assert "4 samples without a score, 0 allowed" in stdout
    counts = run.report["benchmarks"][0]["counts"]
    assert counts["missing_by_task"] == {"sound_QA": {"skipped": 2}, "music_QA": {"skipped": 2}}


def test_an_allowance_in_the_baseline_lets_known_missing_samples_hold(
        run_bench: Any, pytester: pytest.Pytester, small_records: list[dict[str, Any]],
        tmp_path: Path) -> None:
    data = build_air_bench_chat(tmp_path / "release", small_records,
                                empty=[small_records[0]["uniq_id"]])
    write_baseline(pytester.path, {AVERAGE: (7.5, 0.2)}, max_errors=1)
    run = run_bench(data=data)
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()
    assert ("gate: held by thresholds, not paired (1 without a score, 1 allowed)"
            in run.result.stdout.str())


# --- an endpoint that dies ----------------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_model_server_that_dies_mid_run_ends_the_run_in_one_line(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        xdist: list[str]) -> None:
    url = servers.model.url  # gone with the server
    servers.model.script = dies_after(servers.model, 4)
    write_baseline(pytester.path, {AVERAGE: (7.5, 0.2)})
    # The default backoff: without the breaker every sample would wait 1+2+4+8 s. Gone for
    # good, and not waited for (tests/test_outage.py waits one out).
    run = run_bench("--audiobench-retry-wait", "1", "--audiobench-concurrency", "2",
                    "--audiobench-max-connection-failures", "3", "--audiobench-outage-wait",
                    "0", xdist=xdist)
    outcomes = {s["nodeid"]: s["outcome"] for s in run.partial["samples"]}
    assert sum(o == "passed" for o in outcomes.values()) <= 4
    assert sum(o == "not_run" for o in outcomes.values()) >= 10
    stdout = run.result.stdout.str()
    stopped = [line for line in stdout.splitlines() if line.startswith("stopped: ")]
    assert len(stopped) == 1  # under xdist too: the workers' traffic is summed
    assert f"{MODEL} at {url} stopped answering (3 connection failures in a row" in stopped[0]
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED  # not run is not a score
    traffic = run.partial["traffic"]["endpoints"][f"{MODEL} at {url}"]
    assert traffic["stopped"] is not None
    # The retries that were waiting when the breaker opened stopped waiting.
    assert traffic["waited_seconds"] < 15


def test_a_first_run_whose_model_server_died_does_not_pass(
        run_bench: Any, servers: Servers) -> None:
    # No baseline yet: such a run was "not gated" and exited 0 with every sample not run.
    servers.model.script = dies_after(servers.model, 2)
    run = run_bench("--audiobench-retry-wait", "0", "--audiobench-concurrency", "1",
                    "--audiobench-max-connection-failures", "2", "--audiobench-outage-wait",
                    "0")
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED, run.result.stdout.str()[-2000:]
    run.result.stdout.re_match_lines([
        r"partial run: .*report\.json not written, as no whole run has written it yet "
        r"\(--audiobench-partial-report replace writes it\)",
        r"verdict: NO RELEASE VERDICT \(FAILED\): stopped early: audio-model at .* stopped "
        r"answering .*; 14 of 16 selected sample\(s\) not run; no item failed"])
    assert sum(s["outcome"] == "not_run" for s in run.partial["samples"]) == 14


def test_a_rubric_the_judge_could_not_grade_is_graded_by_a_resume_and_nothing_else_is_asked(
        pytester: pytest.Pytester, servers: Servers) -> None:
    # The soak's finding: a rater out of attempts on transient failures left its sample's
    # rubric unavailable for good, as a record that counted as done.
    servers.model.script = right_answers()
    servers.judge.script = Scripted(Reply(status=500))
    first, report = mmar_run(pytester, servers, "--audiobench-cache-dir", "cache")
    first.assert_outcomes(passed=len(MINI_MMAR))
    assert all(s["unfinished"].startswith("the rubric judge failed: ")
               for s in report["samples"])
    assert report["run"]["finished"] is False  # a resume has work left
    assert report["benchmarks"][0]["counts"]["unfinished"] == len(MINI_MMAR)
    first.stdout.fnmatch_lines([f"unfinished: {len(MINI_MMAR)} sample(s) whose grading the "
                                "judge could not finish (out of attempts, or not sent); "
                                "--audiobench-resume grades them again"])
    asked = servers.model.count()
    servers.judge.script = rubric_rater
    again, resumed = mmar_run(pytester, servers, "--audiobench-cache-dir", "cache",
                              "--audiobench-resume")
    again.assert_outcomes(passed=len(MINI_MMAR))
    assert servers.model.count() == asked  # the answers come from the run's cache
    assert resumed["run"]["finished"] is True and resumed["run"]["settled"] == 0
    assert all(s["unfinished"] is None and s["grades"][0]["rubric"]["score"] == 1.0
               for s in resumed["samples"])
    assert "mmar.rubrics" in resumed["benchmarks"][0]["metrics"]
    assert resumed["benchmarks"][0]["counts"]["unfinished"] == 0


# --- retries and 429 waits, per endpoint --------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_retries_and_429_waits_are_counted_per_endpoint(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    limited = [Reply(status=429, headers={"Retry-After": "0"})] * 3 + ["6 6"]
    servers.judge.script = Scripted("6 6").when(replies=limited)
    servers.model.script = Scripted("a good answer").when(
        replies=[Reply(status=503)] * 2 + ["a good answer"])
    run = run_bench(xdist=xdist)
    run.result.assert_outcomes(passed=16)
    endpoints = run.report["traffic"]["endpoints"]
    model = endpoints[f"{MODEL} at {servers.model.url}"]
    judge = endpoints[f"{JUDGE} at {servers.judge.url}"]
    assert (model["requests"], model["retries"], model["throttled"]) == (18, 2, 0)
    assert (judge["requests"], judge["retries"], judge["throttled"]) == (35, 3, 3)
    stdout = run.result.stdout.str()
    assert (f"sent: {MODEL} at {servers.model.url}: 18 requests, 18 replies; 2 gave no "
            "answer (HTTP 503 2), 2 retried") in stdout
    assert (f"sent: {JUDGE} at {servers.judge.url}: 35 requests, 35 replies; 3 gave no answer "
            "(HTTP 429 3), 3 retried") in stdout
    assert (model["received"], model["failures"]) == (18, {"HTTP 503": 2})
    assert (judge["received"], judge["failures"]) == (35, {"HTTP 429": 3})


# --- MMAR: a rubric judge that fails ------------------------------------------------------------


MINI_MMAR = [json.loads(line) for line in (mini_root("mmar") / "MMAR-meta.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip()]


def right_answers() -> Scripted:
    script = Scripted("no idea")
    for record in MINI_MMAR:
        script.when(contains=record["question"], replies=record["answer"])
    return script


def rubric_rater(request: ChatRequest) -> str:
    names = re.findall(r'\{"name": ("(?:[^"\\]|\\.)*"), "score"', request.text)
    return json.dumps([{"name": json.loads(n), "score": 1, "justification": "ok"}
                       for n in names])


def mmar_run(pytester: pytest.Pytester, servers: Servers, *args: str
             ) -> tuple[pytest.RunResult, dict[str, Any]]:
    report = pytester.path / "mmar.json"
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL, "--audiobench-api-url",
        servers.model.url, "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url",
        servers.judge.url, "--audiobench-benchmark", "mmar", "--audiobench-data", "mini",
        f"--audiobench-report={report}", "--audiobench-retry-wait", "0",
        "--audiobench-retries", "1", "--audiobench-rubric-raters", "3",
        *(args or ["--audiobench-no-cache"]))
    return result, json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.parametrize("failure", [
    pytest.param(Reply(status=429, headers={"Retry-After": "0"}), id="a_429_storm"),
    pytest.param(Reply(status=401, content="bad key"), id="a_rejected_key"),
])
def test_a_failing_rubric_judge_leaves_accuracy_whole_and_the_rubric_unavailable(
        pytester: pytest.Pytester, servers: Servers, failure: Reply) -> None:
    servers.model.script = right_answers()
    servers.judge.script = rubric_rater
    healthy, healthy_report = mmar_run(pytester, servers)
    assert healthy.ret == pytest.ExitCode.OK, healthy.stdout.str()
    servers.judge.script = Scripted(failure)
    result, report = mmar_run(pytester, servers)
    result.assert_outcomes(passed=len(MINI_MMAR))
    metrics = report["benchmarks"][0]["metrics"]
    assert metrics["mmar.avg"] == healthy_report["benchmarks"][0]["metrics"]["mmar.avg"]
    assert metrics["mmar.avg"]["value"] == 100.0
    assert "mmar.rubrics" in healthy_report["benchmarks"][0]["metrics"]
    assert "mmar.rubrics" not in metrics  # unavailable, never 0
    rubrics = [s["grades"][0]["rubric"] for s in report["samples"]]
    assert all(r["score"] is None and r["reason"].startswith("the rubric judge failed: ")
               for r in rubrics)
    assert report["benchmarks"][0]["counts"]["judge_failures"] == len(MINI_MMAR)
