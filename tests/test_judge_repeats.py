"""--audiobench-judge-repeats K: every judge pass is drawn K times and the draws averaged; the
dry run counts K times the calls, and the cache keeps each draw apart."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest

from tests.conftest import Servers, fenced_answers
from tests.fakes.openai_server import ChatRequest

DRAWS = (4, 6, 8)


class DrawingJudge:
    """Scores the model's answer 4, 6, 8, 4, ... on the 1st, 2nd, 3rd, ... request of the same
    prompt (a judge at temperature 1 in miniature); the reference always 6."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> str:
        with self.lock:
            draw = self.seen[request.text]
            self.seen[request.text] += 1
        second = fenced_answers(request.text)[1]
        score = DRAWS[draw % len(DRAWS)]
        return f"6 {score}" if "good answer" in second else f"{score} 6"


@pytest.fixture
def drawing(servers: Servers) -> DrawingJudge:
    judge = DrawingJudge()
    servers.judge.script = judge
    return judge


def _scores(run: Any) -> list[float]:
    return [s["grades"][0]["model_score"] for s in run.report["samples"]]


def test_each_pass_is_drawn_k_times_and_the_draws_are_averaged(
        run_bench: Any, servers: Servers, drawing: DrawingJudge) -> None:
    run = run_bench("--audiobench-judge-repeats", "3")
    run.result.assert_outcomes(passed=16)
    # 16 samples x 2 swapped passes x 3 draws, each its own request.
    assert servers.judge.count() == 96
    assert set(drawing.seen.values()) == {3}
    assert _scores(run) == [6.0] * 16  # (4 + 6 + 8) / 3 in each pass
    grade = run.report["samples"][0]["grades"][0]
    assert len(grade["passes"]) == 6


def test_one_draw_per_pass_is_the_official_protocol(
        run_bench: Any, servers: Servers, drawing: DrawingJudge) -> None:
    run = run_bench()
    assert servers.judge.count() == 32
    assert _scores(run) == [4.0] * 16  # the first draw of each pass


def test_the_dry_run_counts_k_times_the_judge_calls_and_the_cache_replays_each_draw(
        run_bench: Any, servers: Servers, drawing: DrawingJudge) -> None:
    plan = run_bench("--audiobench-judge-repeats", "3", "--audiobench-dry-run")
    assert "judge calls: 96 (0 in the cache, 96 to send)" in plan.result.stdout.str()
    assert servers.judge.count() == 0
    first = run_bench("--audiobench-judge-repeats", "3")
    again = run_bench("--audiobench-judge-repeats", "3", "--audiobench-reuse", "last")
    assert servers.judge.count() == 96  # every draw came back from the cache
    assert _scores(again) == _scores(first)
    replan = run_bench("--audiobench-judge-repeats", "3", "--audiobench-dry-run",
                       "--audiobench-reuse", "last")
    assert "judge calls: 96 (96 in the cache, 0 to send)" in replan.result.stdout.str()
    # Two more draws per pass: the first three are reused, only the new ones are asked.
    run_bench("--audiobench-judge-repeats", "5", "--audiobench-reuse", "last")
    assert servers.judge.count() == 96 + 64


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_a_repeat_count_below_one_is_refused_naming_the_flag(run_bench: Any,
                                                             value: str) -> None:
    run = run_bench(f"--audiobench-judge-repeats={value}")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--audiobench-judge-repeats" in run.result.stderr.str()
