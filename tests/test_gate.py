"""The baseline gate decides the exit status."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.air_bench_chat import TASK_CATEGORY
from pytest_audiobench.gate.baseline import load, path_for
from tests.conftest import JUDGE, MODEL, XDIST_MODES, ScoringJudge, Servers, write_baseline
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted

SPEECH = "air_bench_chat.speech.score"
AVERAGE = "air_bench_chat.average.score"


def _poor_on(servers: Servers, *questions: str) -> None:
    script = Scripted("a good answer")
    for question in questions:
        script.when(contains=question, replies="a poor answer")
    servers.model.script = script


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_gate_holds_and_exits_0_even_with_sample_failures(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], xdist: list[str]) -> None:
    _poor_on(servers, small_records[0]["question"])
    write_baseline(pytester.path, {SPEECH: (6.4, 0.2), AVERAGE: (7.5, 0.1)})
    run = run_bench(xdist=xdist)
    run.result.assert_outcomes(passed=15, failed=1)
    assert run.result.ret == 0
    assert ("gate: held by thresholds, not paired (0 without a score, 0 allowed)"
            in run.result.stdout.str())
    assert run.report["gate_held"] is True


def test_fail_on_samples_makes_a_sample_failure_fail_the_run(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    _poor_on(servers, small_records[0]["question"])
    write_baseline(pytester.path, {SPEECH: (6.4, 0.2)})
    run = run_bench("--audiobench-fail-on-samples")
    assert run.result.ret == 1


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_gate_fails_when_speech_drops_below_its_baseline_beyond_tolerance(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], xdist: list[str]) -> None:
    _poor_on(servers, small_records[0]["question"])  # speech: (2 + 8 * 3) / 4 = 6.5
    write_baseline(pytester.path, {SPEECH: (6.8, 0.25)})
    run = run_bench(xdist=xdist)
    assert run.result.ret == 1
    out = run.result.stdout.str()
    assert "air_bench_chat.speech.score below (6.500 < 6.8 - 0.25)" in out
    assert run.report["gate_held"] is False


def test_a_value_within_tolerance_holds(run_bench: Any, pytester: pytest.Pytester,
                                        servers: Servers, small_records: list[Any]) -> None:
    _poor_on(servers, small_records[0]["question"])
    write_baseline(pytester.path, {SPEECH: (6.75, 0.25)})
    assert run_bench().result.ret == 0


def test_errors_beyond_the_allowance_fail_the_gate(run_bench: Any, pytester: pytest.Pytester,
                                                   servers: Servers,
                                                   small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[4]["question"], replies=Reply(status=503))
    write_baseline(pytester.path, {AVERAGE: (7.0, 0.1)}, max_errors=0)
    run = run_bench("--audiobench-retries", "0")
    run.result.assert_outcomes(passed=15, errors=1)
    assert run.result.ret == 1
    assert "1 samples without a score, 0 allowed" in run.result.stdout.str()
    allowed = run_bench("--audiobench-retries", "0", "--audiobench-max-errors", "1")
    assert allowed.result.ret == 0


def test_a_metric_the_selection_left_without_a_sample_is_said_and_not_gated(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    write_baseline(pytester.path, {SPEECH: (5.0, 0.1), "air_bench_chat.music.score": (5.0, 0)})
    run = run_bench("-k", "speech_QA")
    run.result.assert_outcomes(passed=2)
    assert run.result.ret == 0  # what was not selected is not measured, and fails nothing
    out = run.result.stdout.str()
    assert re.search(r"air_bench_chat.music.score +- +n/a +5.00 ± 0 +not selected", out)
    assert ("selection: 14 of its samples left out (-k, -m, --deselect, paths, "
            "--audiobench-tasks, --audiobench-limit); not measured, so not gated: "
            "air_bench_chat.music.score") in out
    assert [line for line in out.splitlines() if line.startswith("verdict:")] == [(
        "verdict: gate held on 1 of 2 metric(s) of air_bench_chat; 1 not selected; held by "
        "thresholds, not paired: air_bench_chat (no per-sample lines in the baseline)")]
    rows = {row["metric"]: row for row in run.report["benchmarks"][0]["gate"]["rows"]}
    assert rows["air_bench_chat.music.score"]["status"] == "not selected"
    assert run.report["benchmarks"][0]["counts"]["left_out"] == 14


def test_a_gated_metric_that_was_selected_and_not_measured_fails_the_gate(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester,
        small_records: list[Any]) -> None:
    # Every music sample selected, none scored (their judge replies never parse): the metric
    # is lost, not left out, and the gate fails on it (and on the samples without a score).
    write_baseline(pytester.path, {"air_bench_chat.music.score": (5.0, 0)}, max_errors=16)
    servers.judge.script = ScoringJudge(replies={r["question"]: "no score" for r in small_records
                                                 if r["task_name"].startswith("music")})
    run = run_bench()
    assert run.result.ret == 1
    assert "air_bench_chat.music.score not measured" in run.result.stdout.str()


def test_a_baseline_from_another_judge_fails_the_gate(run_bench: Any,
                                                      pytester: pytest.Pytester) -> None:
    write_baseline(pytester.path, {SPEECH: (5.0, 0.1)}, judge_model="gpt-4-0125-preview")
    run = run_bench()
    assert run.result.ret == 1
    assert ("baseline judged by gpt-4-0125-preview, this run by judge-model: scores are not "
            "comparable") in run.result.stdout.str()


def test_without_a_baseline_the_run_reports_and_says_no_gate_was_applied(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    _poor_on(servers, small_records[0]["question"])
    run = run_bench("-rf")
    assert "no gate applied" in run.result.stdout.str()
    assert run.result.ret == 1  # no gate: pytest's own verdict on the failed sample
    # The short summary's line (cut to 80 columns) starts with what happened, not with the
    # sample's name, which its node id already gives.
    failed = [line for line in run.result.stdout.lines if line.startswith("FAILED ")]
    assert len(failed) == 1 and failed[0].split(" - Failed: ")[1].startswith("model sco"), \
        failed


def test_require_baseline_without_one_is_an_error_before_any_request(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester) -> None:
    run = run_bench("--audiobench-require-baseline")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    path = pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json"
    assert (f"ERROR: --audiobench-require-baseline: no baseline for air_bench_chat at {path}; "
            "there are none there; write the first one with --audiobench-update-baseline"
            ) in run.result.stderr.lines
    assert servers.model.requests == [] and servers.judge.requests == []
    # Asked to write it, the run writes the first one; the next run is gated by it.
    assert run_bench("--audiobench-require-baseline",
                     "--audiobench-update-baseline").result.ret == 0
    assert path.exists()
    assert run_bench("--audiobench-require-baseline").result.ret == 0


def test_update_baseline_writes_the_headline_metrics_and_the_next_run_gates_on_them(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    _poor_on(servers, small_records[0]["question"])
    run = run_bench("--audiobench-update-baseline")
    assert run.result.ret == 0
    path = pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json"
    assert f"baseline written to {path}" in run.result.stdout.str()
    written = json.loads(path.read_text())
    assert written["judge_model"] == JUDGE and written["model"] == MODEL
    assert written["metrics"][SPEECH] == {"threshold": 6.5, "tolerance": 0.2}
    assert set(written["metrics"]) == {f"air_bench_chat.{g}.score" for g in (
        "speech", "sound", "music", "speech_and_sound", "speech_and_music", "mixed",
        "average")}
    # A new checkpoint, worse on every speech and sound question: the written baseline (with
    # its sample lines) gates it, paired. Its four speech questions alone are too few to
    # tell a drop from chance, the sixteen of the average are not.
    worse = [r["question"] for r in small_records
             if r["task_name"].startswith(("speech_", "sound_"))]
    _poor_on(servers, *worse)
    again = run_bench()
    assert again.result.ret == 1
    out = again.result.stdout.str()
    assert "air_bench_chat.average.score regressed" in out
    rows = {r["metric"]: r for r in again.report["benchmarks"][0]["gate"]["rows"]}
    assert rows[SPEECH]["status"] == "too small" and rows[SPEECH]["n"] == 4


def test_update_baseline_refuses_to_write_from_a_run_with_errors(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[4]["question"], replies=Reply(status=500))
    run = run_bench("--audiobench-update-baseline", "--audiobench-retries", "0")
    assert run.result.ret == 1
    assert "baseline NOT written" in run.result.stdout.str()
    assert not (pytester.path / "baselines").exists()


@pytest.mark.parametrize(("content", "expected"), [
    ("{not json", "not readable as JSON"),
    (json.dumps({"benchmark": "air_bench_chat", "model": MODEL}), "metrics: field required"),
    (json.dumps({"benchmark": "air_bench_chat", "model": MODEL,
                 "metrics": {SPEECH: {"threshold": 5, "tolerance": -1}}}),
     "tolerance: input should be greater than or equal to 0"),
    # Python's JSON writer and reader both take NaN; a NaN threshold would never fail.
    (json.dumps({"benchmark": "air_bench_chat", "model": MODEL,
                 "metrics": {SPEECH: {"threshold": float("nan"), "tolerance": 0.2}}}),
     "threshold: input should be a finite number"),
    (json.dumps({"benchmark": "air_bench_chat", "model": MODEL,
                 "metrics": {SPEECH: {"threshold": 5.0, "tolerance": float("inf")}}}),
     "tolerance: input should be a finite number"),
])
def test_a_malformed_baseline_is_a_one_line_error_naming_the_file(
        run_bench: Any, pytester: pytest.Pytester, content: str, expected: str) -> None:
    path = pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    run = run_bench()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    err = run.result.stderr.str()
    assert f"ERROR: baseline {path}:" in err and expected in err


# --- the published reference numbers in the repository's baselines/ ---------------------------

PUBLISHED_JUDGE = "gpt-4-0125-preview"
REPO_BASELINES = Path(__file__).resolve().parents[1] / "baselines"


def synthetic_chat_release(root: Path) -> Path:
    """One made-up record per task (no reference metadata needed)."""
    records = [{"path": f"clip{i}.wav", "question": f"Question {i} about the clip?",
                "answer_gt": f"The reference answer {i}.", "task_name": task,
                "dataset_name": "made", "meta_info": f"a clip of kind {i}", "uniq_id": i}
               for i, task in enumerate(TASK_CATEGORY)]
    return build_air_bench_chat(root, records)


@pytest.mark.parametrize(("answer", "held"), [("a good answer", True), ("a poor answer", False)])
def test_a_model_is_gated_against_the_published_numbers_of_a_reference_model(
        pytester: pytest.Pytester, servers: Servers, tmp_path: Path, answer: str,
        held: bool) -> None:
    servers.model.script = Scripted(answer)
    judge = FakeOpenAIServer(ScoringJudge(), models=[PUBLISHED_JUDGE])
    report = pytester.path / "report.json"
    with judge:
        result = pytester.runpytest(
            "-p", "no:cacheprovider", "--audiobench-model", MODEL, "--audiobench-api-url",
            servers.model.url, "--audiobench-judge-model", PUBLISHED_JUDGE,
            "--audiobench-judge-api-url", judge.url,
            f"--audiobench-data={synthetic_chat_release(tmp_path / 'release')}",
            f"--audiobench-baselines={REPO_BASELINES}", f"--audiobench-report={report}",
            "--audiobench-gate-against", "Qwen/Qwen2-Audio-7B-Instruct")
    summary = json.loads(report.read_text(encoding="utf-8"))["benchmarks"][0]
    assert summary["baseline_file"] == str(
        REPO_BASELINES / "air_bench_chat" / "Qwen__Qwen2-Audio-7B-Instruct.json")
    assert summary["gate"]["judge_mismatch"] is None
    assert result.ret == (pytest.ExitCode.OK if held else pytest.ExitCode.TESTS_FAILED), \
        result.stdout.str()
    rows = {row["metric"]: row for row in summary["gate"]["rows"]}
    assert rows[AVERAGE]["threshold"] == 6.93
    assert (rows[AVERAGE]["status"] == "above") is held


def test_gating_against_another_model_cannot_write_its_baseline(run_bench: Any) -> None:
    run = run_bench("--audiobench-gate-against", "Qwen/Qwen2-Audio-7B-Instruct",
                    "--audiobench-update-baseline")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--audiobench-gate-against Qwen/Qwen2-Audio-7B-Instruct reads another model's " \
           "baseline" in run.result.stderr.str()


def test_every_committed_baseline_loads_and_is_named_after_its_model() -> None:
    files = sorted(REPO_BASELINES.rglob("*.json"))
    assert len(files) >= 9
    for path in files:
        baseline = load(path)
        assert baseline is not None
        folder = path.parent.parent
        assert path_for(folder, baseline.benchmark, baseline.model) == path
        assert all(not math.isnan(t.threshold) for t in baseline.metrics.values())


def test_baselines_land_where_pytest_runs_not_where_it_guessed_its_rootdir(
        pytester: pytest.Pytester, servers: Servers, small_records: list[Any]) -> None:
    # The data beside the invocation folder, given as a separate argument and with no ini
    # file: pytest takes the value for a test path and puts its rootdir at the common
    # ancestor (pytest-dev/pytest#8846). The baseline must still land here.
    data = build_air_bench_chat(pytester.path.parent / f"{pytester.path.name}-data",
                                small_records)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL, "--audiobench-api-url",
        servers.model.url, "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url",
        servers.judge.url, "--audiobench-data", str(data), "--audiobench-update-baseline")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert f"rootdir: {pytester.path.parent}" in result.stdout.str()  # pytest's guess
    assert (pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json").is_file()
    assert not (pytester.path.parent / "baselines").exists()


def test_with_an_ini_file_the_baselines_are_beside_it(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path) -> None:
    pytester.makeini("[pytest]\n")
    sub = pytester.mkdir("sub")
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL, "--audiobench-api-url",
        servers.model.url, "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url",
        servers.judge.url, f"--audiobench-data={chat_data}", "--audiobench-update-baseline",
        f"--rootdir={sub}")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert (pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json").is_file()
    assert not (sub / "baselines").exists()


def test_a_metric_measurably_worse_inside_its_margin_reads_so_and_the_gate_holds(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    servers.judge.script = ScoringJudge({"good answer": 8, "fair answer": 7, "okay answer": 6})
    servers.model.script = Scripted("a good answer")
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    path = path_for(pytester.path / "baselines", "air_bench_chat", MODEL)
    written = json.loads(path.read_text())
    written["metrics"][AVERAGE]["margin"] = 2.0
    path.write_text(json.dumps(written))
    script = Scripted("a good answer")
    for n, record in enumerate(small_records[:8]):  # speech and sound: 1 or 2 points lower
        script.when(contains=record["question"], replies=("a fair answer", "an okay answer")[n % 2])
    servers.model.script = script
    page = pytester.path / "run.html"
    run = run_bench(f"--audiobench-html={page}")
    average = next(r for r in run.report["benchmarks"][0]["gate"]["rows"]
                   if r["metric"] == AVERAGE)
    # 8 of 16 samples 1.5 points lower on average: -0.75, its interval below zero, the margin 2.
    assert average["difference"] == pytest.approx(-0.75)
    assert average["high"] < 0 and average["margin"] == 2.0
    assert average["status"] == "worse within margin"
    assert run.report["gate_held"] is True
    out = run.result.stdout.str()
    assert any(line.startswith(AVERAGE) and line.endswith("worse within margin")
               for line in out.splitlines())
    assert "gate: held" in out
    assert '<tr class="worse"><td>air_bench_chat.average.score</td>' in page.read_text()
