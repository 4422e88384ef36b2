"""The run plan a worker is sent whole, and the rejudging a worker is built with: a worker
rebuilt from what the controller sent must judge exactly as the controller decided."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.air_bench_chat.judge import ChatGrade
from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.run.worker import Rejudging
from tests.settings import make_settings

NODE = "audiobench::air_bench_chat::sound_QA::7"


def _plan() -> RunPlan:
    record = SampleRecord(benchmark="air_bench_chat", sample_id="7", task="sound_QA",
                          category="sound", nodeid=NODE, outcome="passed", audio_path="a.wav",
                          grades=[ChatGrade(passes=[], model_score=6.0)])
    return RunPlan(roots={"air_bench_chat": Path("/data/chat")}, run_id="r1", reuse="r0",
                   deadline_at=1.5, budget_share=2, spent=(3, 400),
                   comparisons={"air_bench_chat": JudgeComparison(rejudged=True, why="drifted")},
                   judged_again_ahead={NODE: ([ChatGrade(passes=[], model_score=4.0)], None),
                                 "audiobench::air_bench_chat::sound_QA::8": ([], "Timeout")},
                   done_ahead={NODE: record})


def test_a_worker_receives_the_plan_the_controller_sent_under_one_key() -> None:
    sent = _plan().sent()
    assert list(sent) == [RunPlan.KEY]
    received = RunPlan.received({"workerid": "gw0", **sent})
    assert received == _plan()
    grades, failed = received.judged_again_ahead[NODE]
    assert type(grades[0]) is ChatGrade and grades[0].model_score == 4.0
    assert failed is None
    assert type(received.done_ahead[NODE].grades[0]) is ChatGrade


def _file_baseline() -> LoadedBaseline:
    return LoadedBaseline.of(Path("b.json"), None, {}, 0.95)


def test_the_plan_decides_only_the_benchmarks_it_names() -> None:
    decided = _plan().decide({"air_bench_chat": _file_baseline(), "mmar": _file_baseline()})
    assert decided["air_bench_chat"].comparison == JudgeComparison(rejudged=True, why="drifted")
    assert decided["mmar"].comparison is None


def test_rejudging_asks_fresh_replies_where_the_judge_changed_and_always_head_to_head(
        tmp_path: Path) -> None:
    settings = make_settings(tmp_path, model="new", api_url="http://127.0.0.1:1/v1",
                             baseline_model="old", baseline_api_url="http://127.0.0.1:2/v1",
                             data="mini", judge_model="overlap")
    assert settings.baseline_endpoint is not None
    live = LoadedBaseline.live(settings.baseline_endpoint, 0.95)
    kept = _file_baseline().decided(JudgeComparison(rejudged=False, why="same judge"))
    rejudged = _file_baseline().decided(JudgeComparison(rejudged=True, why="drifted"))
    rejudging = Rejudging({"a": _file_baseline(), "b": kept, "c": rejudged, "d": live})
    assert [rejudging.fresh_replies(name) for name in "abcde"] == [False, False, True, True, False]
