"""Every selected sample has a record, even one whose xdist worker died under it; and a resume
costs only what is left: the samples an earlier session of the run did take their records
whole, their audio unread, nothing asked, nothing graded again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import XDIST_MODES, Servers, write_baseline
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.openai_server import Reply, Scripted

CRASHED = "audiobench::air_bench_chat::sound_QA::800"

CRASH_ONCE = """
import os
from pathlib import Path

def pytest_runtest_teardown(item):
    # The worker that runs the first sample of sound_QA dies in its teardown, once: after its
    # answers and grades, before its record could travel.
    flag = Path(__file__).with_name("crashed-once")
    if item.nodeid == CRASHED and os.environ.get("PYTEST_XDIST_WORKER") and not flag.exists():
        flag.write_text("")
        os._exit(1)
""".replace("CRASHED", repr(CRASHED))


def _records(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["nodeid"]: s for s in report["samples"]}


def test_a_sample_lost_with_its_worker_has_a_record_the_gate_counts_and_a_resume_asks_again(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    pytester.makeconftest(CRASH_ONCE)
    write_baseline(pytester.path, {"air_bench_chat.average.score": (7.0, 0.1)}, max_errors=0)
    first = run_bench("-n", "2", "--max-worker-restart", "1")
    out = first.result.stdout.str()
    assert "worker 'gw" in out and f"crashed while running '{CRASHED}'" in out
    report = first.report
    records = _records(report)
    # Every selected sample has its record, the crashed one's an error that says why.
    assert sorted(records) == sorted(report["selected"]) and len(records) == 16
    crashed = records[CRASHED]
    assert crashed["outcome"] == "error"
    assert crashed["message"].startswith("its worker crashed: worker 'gw")
    assert crashed["message"].endswith(f"crashed while running '{CRASHED}'")
    assert [n for n, r in records.items() if r["outcome"] != "passed"] == [CRASHED]
    # The gate counts it as every sample without a score: one error, none allowed.
    bench = report["benchmarks"][0]
    assert (bench["counts"]["errors"], bench["counts"]["not_run"]) == (1, 0)
    assert bench["gate"]["missing"] == 1 and report["gate_held"] is False
    assert "1 samples without a score, 0 allowed" in out
    assert first.result.ret == pytest.ExitCode.TESTS_FAILED
    assert report["run"]["finished"] is False
    paid = (servers.model.count(), servers.judge.count())
    # The resume asks that sample alone again (its replies are in the run's cache) and takes
    # the other fifteen records whole.
    again = run_bench("-n", "2", "--audiobench-resume")
    again.result.assert_outcomes(passed=16)
    assert again.result.ret == pytest.ExitCode.OK
    resumed = again.report
    assert resumed["run"]["id"] == report["run"]["id"]
    assert resumed["run"]["settled"] == 15 and resumed["run"]["finished"] is True
    assert "it left 1 samples undone (errors, not run)" in again.result.stdout.str()
    assert "15 samples done before took their records from the run's records" \
        in again.result.stdout.str()
    assert (servers.model.count(), servers.judge.count()) == paid
    now = _records(resumed)
    assert sorted(now) == sorted(records)
    assert {r["outcome"] for r in now.values()} == {"passed"}
    assert {n: r for n, r in now.items() if n != CRASHED} == \
        {n: r for n, r in records.items() if n != CRASHED}


def _broken(small_records: list[dict[str, Any]], count: int) -> Scripted:
    broken = Scripted("a good answer")
    for record in small_records[:count]:
        broken.when(contains=record["question"], replies=Reply(status=500))
    return broken


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_resume_reads_asks_and_grades_only_the_samples_left(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str]) -> None:
    data = build_air_bench_chat(pytester.path / "data", small_records)
    servers.model.script = _broken(small_records, 3)
    first = run_bench("--audiobench-retries", "0", data=data, xdist=xdist)
    first.result.assert_outcomes(passed=13, errors=3)
    done = {n: r for n, r in _records(first.report).items() if r["outcome"] == "passed"}
    assert len(done) == 13
    # What a done sample's item would need to be asked or graded again is gone: its audio
    # (an item that read it would be skipped for it) and every cached reply (an item that
    # asked again would be counted by the servers).
    for record in done.values():
        Path(record["audio_path"]).unlink()
    shutil.rmtree(pytester.path / "cache" / "responses")
    servers.model.script = Scripted("a good answer")
    paid = (servers.model.count(), servers.judge.count())
    # How the run goes (its pacing) is no part of what a record holds: the records serve.
    again = run_bench("--audiobench-resume", "--audiobench-concurrency", "3", data=data,
                      xdist=xdist)
    again.result.assert_outcomes(passed=16)
    assert again.report["run"]["settled"] == 13
    # The three samples left, each asked once and graded in both orders; nothing else.
    assert (servers.model.count() - paid[0], servers.judge.count() - paid[1]) == (3, 6)
    now = _records(again.report)
    assert {n: now[n] for n in done} == done
    assert {r["outcome"] for r in now.values()} == {"passed"}
    assert again.report["run"]["finished"] is True


def test_a_resume_with_another_judge_setting_grades_again_rather_than_take_the_records(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]]) -> None:
    servers.model.script = _broken(small_records, 2)
    run_bench("--audiobench-retries", "0").result.assert_outcomes(passed=14, errors=2)
    servers.model.script = Scripted("a good answer")
    again = run_bench("--audiobench-resume", "--audiobench-judge-max-answer-chars", "5000")
    again.result.assert_outcomes(passed=16)
    assert again.report["run"]["settled"] == 0
    assert all(r["outcome"] == "passed" for r in again.report["samples"])


def test_the_run_s_records_file_holds_one_line_per_record_it_got(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    run = run_bench()
    kept = list((pytester.path / "cache" / "runs").glob("*.records-*.jsonl"))
    assert len(kept) == 1 and kept[0].name.startswith(run.report["run"]["id"])
    lines = kept[0].read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["nodeid"] for line in lines] == \
        [s["nodeid"] for s in run.report["samples"]]


def _junit(path: Path) -> dict[str, tuple[str, dict[str, str]]]:
    """Per test case of a --junitxml file: how it ended and its properties."""
    import xml.etree.ElementTree as ElementTree

    cases = ElementTree.parse(path).getroot().iter("testcase")
    return {f"{case.get('classname')}::{case.get('name')}": (
        ",".join(sorted(child.tag for child in case if child.tag != "properties")),
        {p.get("name", ""): p.get("value", "") for p in case.iter("property")})
        for case in cases}


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_resume_replays_each_taken_record_to_the_end_it_had(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str]) -> None:
    script = _broken(small_records, 2)
    for record in small_records[2:4]:
        script.when(contains=record["question"], replies="a poor answer")
    servers.model.script = script
    first = run_bench("--audiobench-retries", "0", "--junitxml=first.xml", xdist=xdist)
    first.result.assert_outcomes(passed=12, failed=2, errors=2)
    servers.model.script = Scripted("a good answer")
    again = run_bench("--audiobench-resume", "--junitxml=again.xml", xdist=xdist)
    # The two below the bar fail again, from their records: the same failure, the same
    # properties; the two that errored are asked now.
    again.result.assert_outcomes(passed=14, failed=2)
    assert again.report["run"]["settled"] == 14
    before, now = _records(first.report), _records(again.report)
    failed = [n for n, r in before.items() if r["outcome"] == "failed"]
    assert len(failed) == 2 and all(now[n] == before[n] for n in failed)
    assert all("below the bar" in (now[n]["message"] or "") for n in failed)
    ended, kept = _junit(pytester.path / "first.xml"), _junit(pytester.path / "again.xml")
    assert {case: kept[case] for case in ended if ended[case][0] != "error"} == \
        {case: ended[case] for case in ended if ended[case][0] != "error"}
    assert sorted(kept[case][0] for case in kept) == [""] * 14 + ["failure"] * 2


def test_a_taken_xfail_is_an_xfail_again_and_the_baseline_is_written_from_every_record(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]]) -> None:
    script = _broken(small_records, 2)
    for record in small_records[2:4]:
        script.when(contains=record["question"], replies="a poor answer")
    servers.model.script = script
    # Writing the baseline, a sample under its bar is an xfail; the errors keep it unwritten.
    first = run_bench("--audiobench-retries", "0", "--audiobench-update-baseline")
    first.result.assert_outcomes(passed=12, xfailed=2, errors=2)
    servers.model.script = Scripted("a good answer")
    again = run_bench("--audiobench-resume", "--audiobench-update-baseline")
    again.result.assert_outcomes(passed=14, xfailed=2)
    assert again.report["run"]["settled"] == 14
    assert "baseline written to" in again.result.stdout.str()
    assert "from 16 samples (2 of them under their bar, recorded so: xfailed)" \
        in again.result.stdout.str()
