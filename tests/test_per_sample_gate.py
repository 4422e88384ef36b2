"""Per-sample baselines end to end: the file --audiobench-update-baseline writes beside the
thresholds, and items that read in pytest's own words against it (failed: regressed, xfailed:
under the bar as before, XPASS: clearing it now), with and without xdist."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import JUDGE, MODEL, ONE_WORKER, Servers, write_baseline
from tests.fakes.openai_server import Scripted

SAMPLES = Path("baselines") / "air_bench_chat" / f"{MODEL}.samples.jsonl"


def answering(servers: Servers, records: list[Any], poor: set[int]) -> None:
    """The model answers the records numbered in ``poor`` poorly (2 of 10), the rest well."""
    script = Scripted("a good answer")
    for index in sorted(poor):
        script.when(contains=records[index]["question"], replies="a poor answer")
    servers.model.script = script


@pytest.fixture
def baseline(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
             small_records: list[Any]) -> Path:
    """A per-sample baseline in which records 0 and 2 were under the bar."""
    answering(servers, small_records, {0, 2})
    written = run_bench("--audiobench-update-baseline")
    assert written.result.ret == 0, written.result.stdout.str()
    return pytester.path / SAMPLES


def test_the_sample_file_is_one_line_per_sample_in_node_id_order_and_stable(
        run_bench: Any, baseline: Path, small_records: list[Any]) -> None:
    text = baseline.read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    assert len(rows) == len(small_records) == 16
    assert [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    poor = next(r for r in rows if r["answer"] == "a poor answer")
    # Both judge passes, the answer's hash and text, the judge's raw replies.
    assert poor["draws"] == [2.0, 2.0] and poor["failed"] is True and poor["judged"] is True
    assert len(poor["answer_sha256"]) == 64 and poor["replies"] == ["6 2", "2 6"]
    run_bench("--audiobench-update-baseline", "--audiobench-reuse", "last")
    assert baseline.read_text(encoding="utf-8") == text  # the same run writes the same bytes
    noise = json.loads(baseline.with_name(f"{MODEL}.json").read_text())["noise"]
    assert noise == 0.0  # this judge never disagrees with itself


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_items_read_as_regressions_expected_failures_and_improvements(
        run_bench: Any, baseline: Path, servers: Servers, small_records: list[Any],
        xdist: list[str]) -> None:
    # 0 stays poor (xfail), 2 is good now (XPASS), 5 turns poor (a regression).
    answering(servers, small_records, {0, 5})
    run = run_bench("-rxX", xdist=xdist)
    run.result.assert_outcomes(passed=13, failed=1, xfailed=1, xpassed=1)
    outcomes = run.outcomes()
    ids = {i: f"audiobench::air_bench_chat::{r['task_name']}::{r['uniq_id']}"
           for i, r in enumerate(small_records)}
    assert (outcomes[ids[0]], outcomes[ids[2]], outcomes[ids[5]]) == (
        "xfailed", "xpassed", "failed")
    # What the gate made of each item is kept in its record, decided once (gate/sample_change), and
    # the summary, the page and junit read it there.
    changes = {s["nodeid"]: s["change"] for s in run.report["samples"]}
    assert (changes[ids[0]], changes[ids[2]], changes[ids[5]]) == (
        "xfailed", "xpassed", "regressed")
    assert sum(change is None for change in changes.values()) == 13
    out = run.result.stdout.str()
    assert "under its bar as in the baseline: baseline 2, now 2" in out
    assert "under its bar in the baseline (2), clears it now (8)" in out
    # The regression's report: both answers and both judges' replies side by side.
    assert "regressed: score 8 in the baseline, 2 now: a drop of 6" in out
    assert "baseline:  a good answer\nnow:       a poor answer" in out
    assert "judge then: '6 8' | '8 6' -> 8, 8\njudge now:  '6 2' | '2 6' -> 2, 2" in out
    # The gate is paired and holds (one drop, one rise); the last lines say why.
    assert run.result.ret == pytest.ExitCode.OK
    assert {r["test"] for r in run.report["benchmarks"][0]["gate"]["rows"]} == {"paired"}
    counts = run.report["benchmarks"][0]["counts"]
    assert (counts["failed"], counts["xfailed"], counts["xpassed"]) == (1, 1, 1)
    assert ("why: the gate held although 1 sample(s) regressed: their drops move no gated "
            "metric beyond its margin at this confidence.") in out


def test_last_failed_reruns_just_the_regressions(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path,
        small_records: list[Any], baseline: Path) -> None:
    flags = ["--audiobench-model", MODEL, "--audiobench-api-url", servers.model.url,
             f"--audiobench-data={chat_data}", "--audiobench-judge-model", JUDGE,
             "--audiobench-judge-api-url", servers.judge.url,
             f"--audiobench-cache-dir={pytester.path / 'cache'}"]
    answering(servers, small_records, {0, 5, 7})
    first = pytester.runpytest(*flags)
    first.assert_outcomes(passed=12, failed=2, xfailed=1, xpassed=1)
    again = pytester.runpytest(*flags, "--lf")
    again.assert_outcomes(failed=2)
    assert "run-last-failure: rerun previous 2 failures" in again.stdout.str()
    assert "xfail" not in again.stdout.str().split("audiobench summary")[0]


def test_a_gate_that_fails_with_no_sample_regressed_says_why(
        run_bench: Any, pytester: pytest.Pytester, baseline: Path, servers: Servers,
        small_records: list[Any]) -> None:
    # Every good answer now scores 7, not 8. This judge showed no noise, so on its own each
    # drop of 1 would be a regression: give the baseline the noise of a temperature-1 judge
    # (a draw's standard deviation of 1), which explains a drop of 1 on a sample.
    path = baseline.with_name(f"{MODEL}.json")
    written = json.loads(path.read_text())
    path.write_text(json.dumps({**written, "noise": 1.0}))
    servers.judge.script.scores["good answer"] = 7
    answering(servers, small_records, {0, 2})
    run = run_bench("--audiobench-no-cache")
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert run.report["benchmarks"][0]["counts"]["failed"] == 0
    out = run.result.stdout.str()
    assert "air_bench_chat.average.score regressed" in out
    assert ("why: the gate failed although no sample regressed on its own: many small drops, "
            "each too small to fail its item, add up") in out


def test_a_threshold_only_baseline_keeps_todays_bar(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    write_baseline(pytester.path, {"air_bench_chat.average.score": (7.0, 0.2)})
    answering(servers, small_records, {0})
    run = run_bench()
    run.result.assert_outcomes(passed=15, failed=1)
    assert run.result.ret == pytest.ExitCode.OK
    assert run.report["benchmarks"][0]["gate"]["rows"][0]["test"] == "threshold"
    out = run.result.stdout.str()
    assert "1 below the bar 5" in out and "xfail" not in out


def test_one_judge_draw_per_sample_leaves_the_items_to_the_bar_and_says_so(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    answering(servers, small_records, {0})
    assert run_bench("--audiobench-no-swap", "--audiobench-update-baseline").result.ret == 0
    assert "noise" not in json.loads((pytester.path / SAMPLES).with_name(
        f"{MODEL}.json").read_text())
    run = run_bench("--audiobench-no-swap")
    # Sample 0 is under the bar as before, but with the judge's noise unknown that cannot be
    # told from a drop: it fails on the bar, and the summary says why items are not paired.
    run.result.assert_outcomes(passed=15, failed=1)
    out = run.result.stdout.str()
    assert "items: held against the bar, not the per-sample baseline" in out
    assert "1 below the bar 5" in out
    assert {r["test"] for r in run.report["benchmarks"][0]["gate"]["rows"]} == {"paired"}


def test_updating_from_a_subset_keeps_the_lines_of_the_other_samples(
        run_bench: Any, baseline: Path, servers: Servers, small_records: list[Any]) -> None:
    # A baseline that gates Speech alone can be rewritten from the speech tasks alone.
    path = baseline.with_name(f"{MODEL}.json")
    written = json.loads(path.read_text())
    speech = "air_bench_chat.speech.score"
    path.write_text(json.dumps({**written, "metrics": {speech: written["metrics"][speech]}}))
    before = _lines(baseline)
    answering(servers, small_records, set())
    update = run_bench("--audiobench-update-baseline", "--audiobench-no-cache",
                       "--audiobench-tasks", "speech_QA,speech_dialogue_QA")
    assert "gate: baseline written" in update.result.stdout.str()
    after = _lines(baseline)
    assert after.keys() == before.keys()
    changed = {key for key in after if after[key] != before[key]}
    assert changed and all("speech" in key and "sound" not in key and "music" not in key
                           for key in changed)


def _lines(path: Path) -> dict[str, Any]:
    return {row["id"]: row for row in map(json.loads, path.read_text().splitlines())}


def test_a_sample_file_with_a_bad_or_repeated_line_names_the_file_and_line(
        run_bench: Any, baseline: Path) -> None:
    lines = baseline.read_text().splitlines()
    baseline.write_text("\n".join([lines[0], lines[0], *lines[1:]]) + "\n")
    run = run_bench()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"baseline samples {baseline} line 2: sample" in run.result.stderr.str()
    assert "appears twice" in run.result.stderr.str()
    baseline.write_text("\n".join([lines[0], '{"id": "x"}', *lines[1:]]) + "\n")
    run = run_bench()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"baseline samples {baseline} line 2: cluster: field required" in (
        run.result.stderr.str())
    # A line cut short (a copy that stopped), and one with a stray character.
    for bad, said in ((lines[1][:40], "control character (\\u0000-\\u001F) found while "
                                      "parsing a string at the end of the line"),
                      ('{"id" "x"}', "expected `:` at column 7")):
        baseline.write_text("\n".join([lines[0], lines[1], bad, *lines[2:]]) + "\n")
        run = run_bench()
        assert run.result.ret == pytest.ExitCode.USAGE_ERROR
        assert f"ERROR: baseline samples {baseline} line 3: not JSON: {said}" in (
            run.result.stderr.lines)


def test_the_paired_summary(run_bench: Any, baseline: Path, servers: Servers,
                            small_records: list[Any], snapshot: Any) -> None:
    from tests.test_run import _summary

    # 2 is good again, the 8 sound and music samples turn poor: 9 changes, 8 of them drops.
    answering(servers, small_records, {0, 4, 5, 6, 7, 8, 9, 10, 11})
    run = run_bench()
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert _summary(run.result.stdout.str()) == snapshot


def test_without_a_baseline_a_failing_item_is_below_the_bar_in_its_record(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    answering(servers, small_records, {5})
    run = run_bench("--junitxml=junit.xml")
    (failed,) = [s for s in run.report["samples"] if s["outcome"] == "failed"]
    assert failed["change"] == "below the bar"
    assert run.report["benchmarks"][0]["counts"]["regressed"] == 0
    junit = (run.report_path.parent / "junit.xml").read_text(encoding="utf-8")
    assert '<property name="audiobench_change" value="below the bar" />' in junit
