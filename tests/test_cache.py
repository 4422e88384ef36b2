"""The response cache: nothing is paid twice, across runs, workers and crashes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import JUDGE, MODEL, XDIST_MODES, ScoringJudge, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted


def _requests(run: Any) -> dict[str, int]:
    usage = run.report["usage"]
    return {k: usage[k] for k in ("model_requests", "model_cached", "judge_requests",
                                  "judge_cached")}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_second_run_asks_the_model_again_and_reuses_identical_judge_requests(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    first = run_bench(xdist=xdist)
    first.result.assert_outcomes(passed=16)
    first_id, first_metrics = first.report["run"]["id"], first.metrics  # one report file
    assert (servers.model.count(), servers.judge.count()) == (16, 32)
    second = run_bench(xdist=xdist)
    second.result.assert_outcomes(passed=16)
    # A model's answers are never another run's: a new checkpoint under the same id is asked.
    # The judge's replies are reused: the same judge, prompt and answer, every input alike.
    assert (servers.model.count(), servers.judge.count()) == (32, 32)
    assert second.metrics == first_metrics
    assert _requests(second) == {"model_requests": 16, "model_cached": 0,
                                 "judge_requests": 32, "judge_cached": 32}
    assert second.report["run"]["id"] != first_id


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_reusing_the_last_run_sends_no_request_and_says_whose_answers_they_are(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    first = run_bench(xdist=xdist)
    earlier, first_metrics = first.report["run"]["id"], first.metrics  # one report file
    second = run_bench("--audiobench-reuse", "last", xdist=xdist)
    second.result.assert_outcomes(passed=16)
    assert (servers.model.count(), servers.judge.count()) == (16, 32)
    assert second.metrics == first_metrics
    assert second.report["run"]["reused"] == earlier
    assert _requests(second) == {"model_requests": 16, "model_cached": 16,
                                 "judge_requests": 32, "judge_cached": 32}
    assert second.report["usage"]["model_reused"] == 16
    assert (f"answers: model 16 (16 from the cache, 16 of them answers of run {earlier}), "
            "judge 32 (32 from the cache)") in second.result.stdout.str()


def test_changing_the_judge_rejudges_without_asking_the_model_again(
        run_bench: Any, servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    again = run_bench("--audiobench-judge-temperature", "0.5", "--audiobench-reuse", "last")
    again.result.assert_outcomes(passed=16)
    assert (servers.model.count(), servers.judge.count()) == (16, 64)
    assert _requests(again)["model_cached"] == 16 and _requests(again)["judge_cached"] == 0


def test_a_new_sampling_setting_or_run_asks_the_model_again(run_bench: Any,
                                                            servers: Servers) -> None:
    first = run_bench()
    first.result.assert_outcomes(passed=16)
    first_id = first.report["run"]["id"]
    run_bench("--audiobench-max-tokens", "16", "--audiobench-reuse",
              first_id).result.assert_outcomes(passed=16)
    assert servers.model.count() == 32
    run_bench("--audiobench-runs", "2", "--audiobench-reuse", first_id).result.assert_outcomes(
        passed=16)
    assert servers.model.count() == 48  # run 0 from the first run, run 1 asked


def test_no_cache_sends_everything_and_clear_cache_forgets(run_bench: Any,
                                                           servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    run_bench("--audiobench-no-cache").result.assert_outcomes(passed=16)
    assert (servers.model.count(), servers.judge.count()) == (32, 64)
    run_bench("--audiobench-clear-cache").result.assert_outcomes(passed=16)
    assert (servers.model.count(), servers.judge.count()) == (48, 96)
    run_bench("--audiobench-reuse", "last").result.assert_outcomes(passed=16)
    assert (servers.model.count(), servers.judge.count()) == (48, 96)


def test_errors_are_not_cached(run_bench: Any, servers: Servers,
                               small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"], replies=Reply(status=500))
    run_bench("--audiobench-retries", "0").result.assert_outcomes(passed=15, errors=1)
    servers.model.script = Scripted("a good answer")
    run_bench("--audiobench-reuse", "last").result.assert_outcomes(passed=16)
    assert servers.model.count() == 17


def test_a_run_killed_half_way_resumes_paying_only_for_what_had_not_completed(
        pytester: pytest.Pytester, chat_data: Path) -> None:
    cache = pytester.path / "cache"
    delayed = Scripted(Reply("a good answer", delay=0.3))
    with FakeOpenAIServer(delayed, models=[MODEL]) as model, \
            FakeOpenAIServer(ScoringJudge(), models=[JUDGE]) as judge:
        args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                "--audiobench-model", MODEL, "--audiobench-api-url", model.url,
                "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url", judge.url,
                f"--audiobench-data={chat_data}", f"--audiobench-cache-dir={cache}",
                "--audiobench-concurrency", "2"]
        process = subprocess.Popen(args, cwd=pytester.path, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 60
        while judge.count() < 10 and time.monotonic() < deadline:
            time.sleep(0.02)
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        # A request the run wrote just before it died may still be read by a server after
        # this point: count once the servers have read everything they were sent.
        sent_before = _settled(model, judge)
        assert 0 < judge.count() < 32, "the run should have been killed half way"
        kept = [p for p in (cache / "responses").rglob("*.json")]
        assert not [p for p in kept if p.name.startswith(".tmp-")]
        resumed = subprocess.run([*args, "--audiobench-resume"], cwd=pytester.path,
                                 capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stdout[-2000:]
        assert "16 passed" in resumed.stdout
        assert "resuming run " in resumed.stdout
        sent_after = _settled(model, judge) - sent_before
    # Every reply that was stored before the kill is reused; only the rest is asked.
    assert sent_after == 16 + 32 - len(kept)


def _settled(*servers: FakeOpenAIServer, quiet: float = 0.5, limit: float = 10.0) -> int:
    """The requests ``servers`` received, once none came in for ``quiet`` seconds."""
    deadline = time.monotonic() + limit
    seen = sum(server.count() for server in servers)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = sum(server.count() for server in servers)
        if now == seen:
            return now
        seen = now
    raise AssertionError(f"the servers kept receiving requests for {limit} s after the kill")


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_dry_run_sends_nothing_and_counts_the_calls_minus_the_cache(
        run_bench: Any, servers: Servers, small_records: list[Any], xdist: list[str]) -> None:
    dry = run_bench("--audiobench-dry-run", xdist=xdist)
    assert dry.result.ret == 0
    assert (servers.model.count(), servers.judge.count()) == (0, 0)
    out = dry.result.stdout.str()
    assert "model calls: 16 (0 in the cache, 16 to send)" in out
    assert "judge calls: 32 (0 in the cache, 32 to send), retries not counted" in out
    # Half the samples answered and judged: the dry run subtracts exactly those.
    run_bench("--audiobench-tasks", "speech_QA,sound_QA,music_QA,speech_and_sound_QA")
    assert (servers.model.count(), servers.judge.count()) == (8, 16)
    again = run_bench("--audiobench-dry-run", "--audiobench-reuse", "last", xdist=xdist)
    out = again.result.stdout.str()
    assert "model calls: 16 (8 in the cache, 8 to send)" in out
    assert "judge calls: 32 (16 in the cache, 16 to send)" in out
    assert "to send in all: 24" in out
    assert (servers.model.count(), servers.judge.count()) == (8, 16)
    plan = json.loads(again.report_path.read_text())
    assert plan["model_cached"] == 8 and plan["judge_calls"] == 32


def _corrupt_every_entry(cache: Path) -> int:
    """Truncate, garble or empty each cached reply in turn; return how many."""
    entries = sorted(p for p in (cache / "responses").rglob("*.json"))
    for index, path in enumerate(entries):
        text = path.read_bytes()
        path.write_bytes([text[: len(text) // 2], b"\xff\xfe garbled \x00", b""][index % 3])
    return len(entries)


def test_unreadable_cache_entries_are_asked_again_rewritten_and_counted(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    sent = servers.model.count() + servers.judge.count()
    corrupted = _corrupt_every_entry(pytester.path / "cache")
    assert corrupted >= sent
    again = run_bench("--audiobench-reuse", "last")
    again.result.assert_outcomes(passed=16)  # never an item error
    assert servers.model.count() + servers.judge.count() == 2 * sent
    assert again.report["traffic"]["cache_unreadable"] == corrupted
    assert f"cache: {corrupted} unreadable entries were asked again and rewritten" in (
        again.result.stdout.str())
    third = run_bench("--audiobench-reuse", "last")
    assert third.report["traffic"]["cache_unreadable"] == 0


def test_a_dry_run_over_unreadable_cache_entries_counts_them_as_to_send(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    _corrupt_every_entry(pytester.path / "cache")
    plan = run_bench("--audiobench-dry-run", "--audiobench-reuse", "last")
    assert plan.result.ret == pytest.ExitCode.OK, plan.result.stdout.str()
    assert "model calls: 16 (0 in the cache, 16 to send)" in plan.result.stdout.str()
