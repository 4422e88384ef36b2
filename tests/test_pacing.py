"""Rate limits, the deadline and the budget: runs that never hang and never overspend."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.conftest import XDIST_MODES, Servers
from tests.fakes.openai_server import Reply, Scripted


def test_a_flood_of_429s_lowers_the_limit_and_every_sample_still_passes(
        run_bench: Any, servers: Servers) -> None:
    limited = [Reply(status=429, headers={"Retry-After": "0"})] * 6 + ["a good answer"]
    servers.model.script = Scripted("a good answer").when(replies=limited)
    run = run_bench("--audiobench-concurrency", "8")
    run.result.assert_outcomes(passed=16)
    assert servers.model.count() == 16 + 6
    attempts = sum(a["completion"]["attempts"] for s in run.report["samples"]
                   for a in s["answers"])
    assert attempts == 22


def test_the_deadline_stops_new_requests_and_the_waiting_samples_are_not_run(
        run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted(Reply("a good answer", delay=0.4))
    started = time.monotonic()
    run = run_bench("--audiobench-deadline", "1", "--audiobench-concurrency", "2")
    assert time.monotonic() - started < 20
    counts = run.partial["benchmarks"][0]["counts"]
    assert counts["not_run"] > 0 and counts["passed"] < 16 and counts["errors"] == 0
    assert all("deadline (--audiobench-deadline) has passed" in s["message"]
               for s in run.partial["samples"] if s["outcome"] == "not_run")
    assert servers.model.count() < 16


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_request_budget_stops_new_calls_and_reports_what_was_not_run(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    run = run_bench("--audiobench-budget-requests", "12", "--audiobench-concurrency", "1",
                    xdist=xdist)
    sent = servers.model.count() + servers.judge.count()
    assert sent <= 12
    counts = run.partial["benchmarks"][0]["counts"]
    assert counts["not_run"] > 0 and counts["passed"] + counts["not_run"] == 16
    assert "not run: request budget spent" in run.result.stdout.str() or counts["not_run"]
    not_run = [s for s in run.partial["samples"] if s["outcome"] == "not_run"]
    assert all("budget" in s["message"] for s in not_run)
    # Stopped early, with a baseline or not: what was not asked was not measured.
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert (run.partial["verdict"]["kind"], run.partial["gate_held"]) == ("partial", False)
    assert "verdict: NO RELEASE VERDICT (FAILED): stopped early: request budget spent" in \
        run.result.stdout.str()


def test_cached_replies_are_free_under_a_budget(run_bench: Any, servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    again = run_bench("--audiobench-budget-requests", "1", "--audiobench-reuse", "last")
    again.result.assert_outcomes(passed=16)
    assert servers.model.count() == 16


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_progress_line_says_done_in_flight_errors_and_cached(run_bench: Any,
                                                               xdist: list[str]) -> None:
    run = run_bench("--audiobench-progress", "0.000001", xdist=xdist)
    lines = [line for line in run.result.outlines if "samples done" in line]
    assert all(line.startswith("audiobench: ") for line in lines), lines  # never after dots
    assert lines[-1].startswith("audiobench: 16/16 samples done (100%), ")
    assert "requests in flight, 0 errors, 0 answers from the cache" in lines[-1]
    assert any("/16 samples done" in line and "left" in line for line in lines[:-1])


def test_no_progress_line_with_progress_0(run_bench: Any) -> None:
    run = run_bench("--audiobench-progress", "0")
    assert not [line for line in run.result.outlines if "samples done" in line]
