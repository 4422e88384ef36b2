"""A run is what it says: a model's answers are never another run's unless the user asks,
an interrupted run can be resumed, and the report and baselines say which model answered."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import MODEL, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Scripted

AVERAGE = "air_bench_chat.average.score"


def test_a_new_checkpoint_under_the_same_name_is_asked_again_and_fails_the_gate(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    written = run_bench("--audiobench-update-baseline")
    assert written.result.ret == pytest.ExitCode.OK
    # A worse checkpoint, served under the same model id at another URL.
    with FakeOpenAIServer(Scripted("a poor answer"), models=[MODEL]) as newer:
        run = run_bench("--audiobench-api-url", newer.url)
        assert newer.count() == 16  # every sample asked again, nothing replayed
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert "gate: FAILED against" in run.result.stdout.str()


def test_the_report_says_what_identifies_the_model(
        run_bench: Any, servers: Servers) -> None:
    servers.model.model_info[MODEL] = {"root": "/models/ckpt-1200", "max_model_len": 8192}
    run = run_bench("--audiobench-model-revision", "ckpt-1200")
    identity = run.report["run"]["identity"]
    assert identity["url"] == servers.model.url and identity["model"] == MODEL
    assert identity["revision"] == "ckpt-1200"
    assert identity["served"]["root"] == "/models/ckpt-1200"
    assert f"model {MODEL} (revision ckpt-1200) at {servers.model.url}" in (
        run.result.stdout.str())


def test_the_summary_says_when_the_baseline_was_written_for_other_weights(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    servers.model.model_info[MODEL] = {"root": "/models/ckpt-1200"}
    run_bench("--audiobench-model-revision", "ckpt-1200", "--audiobench-update-baseline")
    baseline = json.loads((pytester.path / "baselines/air_bench_chat/audio-model.json")
                          .read_text(encoding="utf-8"))
    assert baseline["identity"]["revision"] == "ckpt-1200"
    assert baseline["identity"]["served"]["root"] == "/models/ckpt-1200"
    servers.model.model_info[MODEL] = {"root": "/models/ckpt-1500"}
    run = run_bench("--audiobench-model-revision", "ckpt-1500")
    assert ("gate: note: the baseline was written for revision ckpt-1200 (this run: "
            "ckpt-1500); weights /models/ckpt-1200 (this run: /models/ckpt-1500)") in (
        run.result.stdout.str())


def test_answers_of_another_checkpoint_are_never_reused(
        run_bench: Any, servers: Servers) -> None:
    run_bench("--audiobench-model-revision", "ckpt-1200")
    run = run_bench("--audiobench-model-revision", "ckpt-1500", "--audiobench-reuse", "last")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and "its answers are not this model's" in errors[0]
    assert "revision ckpt-1200 (this run: ckpt-1500)" in errors[0]
    assert servers.model.count() == 16  # nothing sent by the refused run


def test_reuse_of_a_run_that_is_not_there_is_one_line_naming_the_latest(
        run_bench: Any) -> None:
    first = run_bench()
    first_id = first.report["run"]["id"]
    run = run_bench("--audiobench-reuse", "20990101T000000-000000")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"no such run in {first.report_path.parent / 'cache' / 'runs'} (the latest: " \
           f"{first_id})" in run.result.stderr.str()


def test_resume_without_a_run_that_left_work_undone_starts_a_new_one_and_says_so(
        run_bench: Any, servers: Servers) -> None:
    run_bench().result.assert_outcomes(passed=16)
    run = run_bench("--audiobench-resume")
    run.result.assert_outcomes(passed=16)
    assert servers.model.count() == 32  # the finished run's answers are not this run's
    assert "--audiobench-resume: no run with these settings left samples undone" in (
        run.result.stdout.str())
    assert run.report["run"]["resumed"] is False


def test_a_run_stopped_by_its_budget_is_resumed_paying_only_for_the_rest(
        run_bench: Any, servers: Servers) -> None:
    stopped = run_bench("--audiobench-budget-requests", "12", "--audiobench-concurrency", "1")
    assert stopped.partial["run"]["finished"] is False
    stopped_id = stopped.partial["run"]["id"]
    asked = servers.model.count()
    resumed = run_bench("--audiobench-resume")
    resumed.result.assert_outcomes(passed=16)
    assert resumed.report["run"]["id"] == stopped_id and resumed.report["run"]["resumed"]
    assert resumed.report["run"]["finished"] is True
    assert servers.model.count() == 16  # the answers it had are its own
    assert asked < 16


@pytest.mark.parametrize("flag", [("--audiobench-resume",), ("--audiobench-reuse", "last")])
def test_resume_and_reuse_need_the_cache(run_bench: Any, flag: tuple[str, ...]) -> None:
    run = run_bench("--audiobench-no-cache", *flag)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"{flag[0]} takes answers from the response cache, which --audiobench-no-cache " \
           "turns off" in run.result.stderr.str()
