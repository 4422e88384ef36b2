"""Head to head in one run (--audiobench-baseline-model): a second, live model answers every
sample beside the model, the same judge grades both in the run, and the paired gate holds the
model against it with no baseline file; the items show the two answers side by side."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.gate.drift import calibrating
from pytest_audiobench.gate.paired import allowed_drop, judge_noise
from pytest_audiobench.outcome.lines import SampleLine
from tests.conftest import ONE_WORKER, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted
from tests.formats import as_format_6

RIVAL = "prod-model"


def _line(sample: str, draws: list[float]) -> SampleLine:
    mean = sum(draws) / len(draws)
    return SampleLine(id=sample, cluster=sample, groups={"by": "g"}, values={"v": mean},
                      draws=draws, judged=True, failed=False, answer_sha256="", answer="")


def test_the_noise_of_the_statistics_page_example_by_hand() -> None:
    # docs/statistics.md, head to head: four samples, both orders on each answer.
    model = {"s1": [7, 8], "s2": [5, 5], "s3": [9, 8], "s4": [6, 6]}
    live = {"s1": [8, 8], "s2": [6, 4], "s3": [7, 7], "s4": [6, 5]}
    lines = [_line(k, [float(x) for x in v]) for table in (model, live) for k, v in table.items()]
    noise = judge_noise(lines)
    assert noise == pytest.approx(math.sqrt(3.5 / 8)) and round(noise, 3) == 0.661
    drop = allowed_drop(_line("a", [7.0, 7.0]), _line("a", [6.0, 5.0]), noise, 0.95)
    assert drop is not None and round(drop, 2) == 1.30  # the 1.5 of the example is beyond
    # One answer alone, both draws equal: no spread, and no noise to measure.
    assert judge_noise([_line("a", [7.0, 7.0])]) == 0.0
    assert judge_noise([_line("a", [7.0])]) is None


@pytest.fixture
def rival() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Scripted("a good answer"), models=[RIVAL]) as server:
        yield server


def _against(rival: FakeOpenAIServer) -> list[str]:
    return ["--audiobench-baseline-model", RIVAL, "--audiobench-baseline-api-url", rival.url]


def test_an_unchanged_model_holds_against_the_live_baseline_model(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer) -> None:
    run = run_bench(*_against(rival))
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()
    summary = run.report["benchmarks"][0]
    assert summary["baseline_status"] == "applied"
    assert summary["baseline_model"] == f"{RIVAL} at {rival.url}"
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    head = rows["air_bench_chat.average.score"]
    assert (head["test"], head["n"], head["difference"]) == ("paired", 16, pytest.approx(0.0))
    # Every sample asked of both models once, nothing asked twice (the share run before the
    # items serves them).
    assert rival.count() == 16 and servers.model.count() == 16
    out = run.result.stdout.str()
    assert f"gate: held (0 without a score, 0 allowed) against {RIVAL} at {rival.url}" in out
    assert (f"judge: the gate pairs this run against {RIVAL} at {rival.url}, its answers "
            "judged by the same judge in this run: head to head: both models answered every "
            "sample in this run; the judge's noise 0.00, measured on 4 samples graded before "
            "the items") in out
    # The same answer on both sides is the same judge request: graded once.
    assert servers.judge.count() == 16 * 2


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_a_regressed_model_fails_against_the_live_baseline_model_and_its_items_show_both(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer, xdist: list[str]) -> None:
    servers.model.script = Scripted("a poor answer")
    run = run_bench(*_against(rival), *xdist)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    out = run.result.stdout.str()
    summary = run.report["benchmarks"][0]
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["difference"] == pytest.approx(-6.0)
    assert set(run.outcomes().values()) == {"failed"}
    assert "baseline:  a good answer\nnow:       a poor answer\n" in out
    # Both graded in this run, by the same judge: the baseline's side is not "then".
    assert "judge base: '6 8' | '8 6' -> 8, 8\njudge now:  '6 2' | '2 6' -> 2, 2" in out


def test_a_sample_the_baseline_model_cannot_answer_errors_and_a_resume_asks_it_alone(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer,
        small_records: list[Any]) -> None:
    broken = Scripted("a good answer")
    for record in small_records[:3]:
        broken.when(contains=record["question"], replies=Reply(status=500))
    rival.script = broken
    first = run_bench(*_against(rival), "--audiobench-retries", "0")
    # Not scored: a sample with nothing to pair against is no score, and no failure either.
    first.result.assert_outcomes(passed=13, errors=3)
    out = first.result.stdout.str()
    assert (f"head to head, the sample has no answer of the baseline model graded by the judge "
            f"to pair against (the baseline model {RIVAL} did not answer (EndpointError:") in out
    assert first.report["benchmarks"][0]["gate"]["missing"] == 3
    assert first.result.ret == pytest.ExitCode.TESTS_FAILED  # 3 without a score, 0 allowed
    paid = (servers.model.count(), rival.count(), servers.judge.count())
    rival.script = Scripted("a good answer")
    again = run_bench(*_against(rival), "--audiobench-resume")
    again.result.assert_outcomes(passed=16)
    assert again.result.ret == pytest.ExitCode.OK
    # The resume pays once: the three answers the baseline model owed and their grading;
    # the model's answers and every other reply come from the run's cache.
    assert servers.model.count() == paid[0] and rival.count() - paid[1] == 3
    assert servers.judge.count() - paid[2] <= 3 * 2


def test_an_unreachable_baseline_model_is_said_before_anything_is_paid(
        run_bench: Any, servers: Servers) -> None:
    run = run_bench("--audiobench-baseline-model", RIVAL,
                    "--audiobench-baseline-api-url", "http://127.0.0.1:9/v1")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "http://127.0.0.1:9/v1" in run.result.stderr.str()
    assert servers.model.count() == 0 and servers.judge.count() == 0


def test_the_dry_run_counts_the_baseline_model_s_answers(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer) -> None:
    run = run_bench(*_against(rival), "--audiobench-dry-run")
    out = run.result.stdout.str()
    assert "model calls: 32 (0 in the cache, 32 to send)" in out
    assert ("model calls include 16 to the baseline model (head to head), each answer judged "
            "like the model's") in out
    assert "judge calls: 64 (0 in the cache, 64 to send)" in out
    assert rival.count() == servers.model.count() == servers.judge.count() == 0


def test_the_budget_counts_the_baseline_model_s_requests(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer) -> None:
    run = run_bench(*_against(rival), "--audiobench-budget-requests", "40")
    sent = servers.model.count() + rival.count() + servers.judge.count()
    assert sent <= 40
    assert "not_run" in {s["outcome"] for s in run.partial["samples"]}


def test_shards_and_their_merge_hold_against_the_live_baseline_model(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer, pytester: pytest.Pytester,
        small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"], replies="a poor answer")
    paths = []
    for k in (1, 2):
        path = pytester.path / f"shard-{k}.json"
        run = run_bench(*_against(rival), "--audiobench-shard", f"{k}/2",
                        f"--audiobench-report={path}", xdist=["-n2"] if k == 2 else [])
        assert run.result.ret == 0, run.result.stdout.str()
        paths.append(path)
    assert rival.count() == 16  # each shard asks its own samples
    merged = pytester.path / "merged.json"
    done = subprocess.run([sys.executable, "-m", "pytest_audiobench.commands.merge", *paths,
                           "--report", merged], cwd=pytester.path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(merged.read_text())["benchmarks"][0]
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    head = rows["air_bench_chat.average.score"]
    assert (head["n"], head["difference"]) == (16, pytest.approx(-6 / 16))
    assert summary["baseline_model"] == f"{RIVAL} at {rival.url}"
    assert f"against {RIVAL} at {rival.url}" in done.stdout


def test_the_page_sets_the_baseline_model_s_answer_beside_the_model_s(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer,
        pytester: pytest.Pytester) -> None:
    servers.model.script = Scripted("a poor answer")
    page = pytester.path / "page.html"
    run_bench(*_against(rival), f"--audiobench-html={page}")
    text = "".join(p.read_text(encoding="utf-8") for p in [page])
    assert "baseline answer (score 8)" in text and "this run answer (score 2)" in text


def test_with_several_inference_runs_the_live_model_answers_as_often_as_the_model(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer) -> None:
    servers.model.script = Scripted("a poor answer")
    run = run_bench(*_against(rival), "--audiobench-runs", "3")
    assert rival.count() == servers.model.count() == 16 * 3
    summary = run.report["benchmarks"][0]
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    head = rows["air_bench_chat.average.score"]
    assert (head["test"], head["n"], head["baseline"], head["value"]) == (
        "paired", 16, pytest.approx(8.0), pytest.approx(2.0))
    assert all(len(s["baseline_answers"]) == len(s["baseline_grades"]) == 3
               for s in run.report["samples"])
    usage = run.report["usage"]
    # Each side's answers in its own fields; the terminal names both.
    assert (usage["model_requests"], usage["baseline_model_requests"]) == (16 * 3, 16 * 3)
    assert "answers: model 48 (0 from the cache), baseline model 48 (0 from the cache)" in (
        run.result.stdout.str())


def test_a_format_4_report_is_read_with_each_model_s_answers_in_its_own_fields(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer, tmp_path: Path) -> None:
    from pytest_audiobench.gate.decision import RunVerdict
    from pytest_audiobench.report.reading import read_report

    rival.script = Scripted(Reply("their answer", usage={"prompt_tokens": 100,
                                                          "completion_tokens": 7}))
    servers.model.script = Scripted(Reply("our answer", usage={"prompt_tokens": 50,
                                                               "completion_tokens": 3}))
    run = run_bench(*_against(rival), "-k", "speech_QA")
    now = json.loads(run.report_path.read_text(encoding="utf-8"))
    theirs = [a for s in now["samples"] for a in s["baseline_answers"]]
    assert len(theirs) == now["usage"]["baseline_model_requests"] > 0
    assert now["usage"]["model"]["prompt_tokens"] == 50 * now["usage"]["model_requests"]
    assert now["usage"]["baseline_model"]["prompt_tokens"] == 100 * len(theirs)
    # Format 4 counted both models under "model" and named the baseline's grades
    # "judged_again" (format 6, "baseline_verdicts").
    usage = {k: v for k, v in now["usage"].items()
             if k not in ("baseline_model_requests", "baseline_model_cached")}
    both = {k: now["usage"]["model"][k] + now["usage"]["baseline_model"][k]
            for k in now["usage"]["model"]}
    usage.update(model=both, model_requests=now["usage"]["model_requests"] + len(theirs))
    then = as_format_6(now)
    judged_again = {"baseline_verdicts": "judged_again",
                    "baseline_verdicts_failed": "judged_again_failed"}
    samples = [{judged_again.get(k, k): v for k, v in s.items()} for s in then["samples"]]
    assert any("judged_again" in s for s in samples)
    old = tmp_path / "format-4.json"
    # Format 4 (and 5) kept the verdict's kind alone; what format 6 adds to it is not there.
    old.write_text(json.dumps({**then, "format": 4, "usage": usage, "samples": samples,
                               "verdict": now["verdict"]["kind"]}))
    read = read_report(run.report_path, "audiobench-history")
    kept = RunVerdict(read.verdict.kind, read.verdict.held)
    assert read_report(old, "audiobench-history") == read.model_copy(update={"verdict": kept})


def test_the_baseline_model_s_key_comes_from_its_own_variable_and_goes_to_its_server_alone(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDIOBENCH_BASELINE_API_KEY", "prod-secret")
    run = run_bench(*_against(rival), "-k", "speech_QA")
    assert run.result.ret == pytest.ExitCode.OK
    auth = {r.headers.get("Authorization", r.headers.get("authorization")) for r in rival.requests}
    assert auth == {"Bearer prod-secret"}
    assert not any("prod-secret" in str(r.headers) for r in servers.model.requests)
    # A variable named for it must be set: one line naming it, before anything is sent.
    named = run_bench(*_against(rival), "--audiobench-baseline-api-key-env", "PROD_KEY")
    assert named.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "PROD_KEY is not set" in named.result.stderr.str()


def test_a_selection_by_k_is_said_when_the_share_run_ahead_lies_outside_it(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer) -> None:
    every = run_bench(*_against(rival)).report["selected"]
    share = calibrating(every, 0.25)  # picked from every sample: -k is not known yet
    outside = sum("::speech_QA::" not in nodeid for nodeid in share)
    run = run_bench(*_against(rival), "-k", "speech_QA")
    assert run.result.ret == pytest.ExitCode.OK
    said = (f"run: head to head: {outside} of the {len(share)} samples run before the items to "
            "measure the judge's noise are outside this run's selection (-k, -m, --deselect); "
            "--audiobench-tasks and --audiobench-limit narrow what is picked")
    assert (len(share), outside > 0) == (4, True) and said in run.result.stdout.str()
    narrowed = run_bench(*_against(rival), "--audiobench-tasks", "speech_QA")
    assert "outside this run's selection" not in narrowed.result.stdout.str()
