"""No way of running pytest turns a regressed model green (docs/gate.md, "How each way of
running pytest is gated"): every row of that table, run as a team runs it, for a regressed
model (the built-in ``random`` held against the cascade's baseline on the mini benchmark,
which fails the whole run's gate) and an unchanged one (``random`` against its own bundled
baseline), each row's exit status and the first words of its verdict line. In process, so
that the table fits the suite's time; two rows again under xdist."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from pytest_audiobench.commands import merge

TEAM = """
[tool.pytest.ini_options]
audiobench_benchmark = "air_bench_chat,mmar"
audiobench_data = "mini"
audiobench_judge_model = "overlap"
audiobench_report = "report.json"
"""
REGRESSED = ("--audiobench-model", "random", "--audiobench-gate-against", "cascade")
UNCHANGED = ("--audiobench-model", "random")
OK, FAILED, INTERRUPTED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED,
                           pytest.ExitCode.INTERRUPTED)
HELD, GATE_FAILED = "verdict: gate held", "verdict: gate FAILED"
TOLD_NOTHING = "verdict: gate told nothing"
"""The unchanged model's verdict on the mini benchmark, whose every metric is too small to
gate or can't tell: a passing verdict that says it held nothing (issue 53)."""
NO_VERDICT, BLIND, BLIND_HELD = ("verdict: NO RELEASE VERDICT", "verdict: gate BLIND",
                                 "verdict: gate blind")
SHARD = "verdict: a shard, no release verdict"

CTRL_C = """
import pytest

seen = []

def pytest_runtest_logreport(report):
    if report.when == "teardown" and report.nodeid.startswith("audiobench::"):
        seen.append(report.nodeid)
        if len(seen) == 5:
            raise KeyboardInterrupt
"""


@dataclass(frozen=True)
class Mode:
    """A way of running pytest: the invocations in order (the last one is judged), each the
    arguments after the model's; and what each model's last run must give."""

    runs: tuple[tuple[str, ...], ...]
    regressed: tuple[int, str]
    unchanged: tuple[int, str]
    conftest: str | None = None
    """A conftest for the runs; one that raises KeyboardInterrupt runs them in a subprocess."""


MODES = {
    "whole run": Mode(((),), (FAILED, GATE_FAILED), (OK, TOLD_NOTHING)),
    "--lf after it": Mode(((), ("--lf",)), (FAILED, NO_VERDICT), (OK, TOLD_NOTHING)),
    "--ff after it": Mode(((), ("--ff",)), (FAILED, GATE_FAILED), (OK, TOLD_NOTHING)),
    "--sw": Mode((("--sw",),), (INTERRUPTED, NO_VERDICT), (OK, TOLD_NOTHING)),
    "--sw twice": Mode((("--sw",), ("--sw",)), (INTERRUPTED, NO_VERDICT), (OK, TOLD_NOTHING)),
    "-x": Mode((("-x",),), (FAILED, NO_VERDICT), (OK, TOLD_NOTHING)),
    "--maxfail 3": Mode((("--maxfail=3",),), (FAILED, NO_VERDICT), (OK, TOLD_NOTHING)),
    "-k": Mode((("-k", "speech"),), (FAILED, BLIND), (OK, HELD)),
    "-m": Mode((("-m", "audiobench"),), (FAILED, GATE_FAILED), (OK, TOLD_NOTHING)),
    "--deselect": Mode((("--deselect", "audiobench::mmar::speech::mini-011"),),
                       (FAILED, GATE_FAILED), (OK, BLIND_HELD)),
    "--audiobench-limit 1": Mode((("--audiobench-limit", "1"),), (FAILED, BLIND),
                                 (OK, BLIND_HELD)),
    "--audiobench-limit 2": Mode((("--audiobench-limit", "2"),), (FAILED, GATE_FAILED),
                                 (OK, HELD)),
    "a shard without its merge": Mode((("--audiobench-shard", "1/2"),), (OK, SHARD),
                                      (OK, SHARD)),
    "the deadline reached": Mode((("--audiobench-deadline", "0.001"),), (FAILED, NO_VERDICT),
                                 (FAILED, NO_VERDICT)),
    "the deadline not reached": Mode((("--audiobench-deadline", "600"),),
                                     (FAILED, GATE_FAILED), (OK, TOLD_NOTHING)),
    "Ctrl-C": Mode(((),), (INTERRUPTED, NO_VERDICT), (INTERRUPTED, NO_VERDICT), CTRL_C),
}


def run_mode(pytester: pytest.Pytester, model: Sequence[str], mode: Mode,
             *more: str) -> pytest.RunResult:
    pytester.makefile(".toml", pyproject=TEAM)
    if mode.conftest:
        pytester.makeconftest(mode.conftest)
    result = None
    start = pytester.runpytest_subprocess if mode.conftest else pytester.runpytest
    for args in mode.runs:
        result = start(*model, *args, *more)
    assert result is not None
    return result


def verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.stdout.lines if line.startswith("verdict:")]
    return line


@pytest.mark.parametrize("name", list(MODES))
@pytest.mark.parametrize("model", ["regressed", "unchanged"])
def test_no_way_of_running_pytest_turns_a_regressed_model_green(
        pytester: pytest.Pytester, name: str, model: str) -> None:
    mode = MODES[name]
    result = run_mode(pytester, REGRESSED if model == "regressed" else UNCHANGED, mode)
    status, words = mode.regressed if model == "regressed" else mode.unchanged
    said = verdict(result)
    assert (result.ret, said[:len(words)]) == (status, words), said
    if model == "regressed":
        assert not (result.ret == OK and said.startswith((HELD, TOLD_NOTHING)))


@pytest.mark.parametrize(("args", "status"), [(("--lf",), FAILED), (("-x",), INTERRUPTED)],
                         ids=["--lf", "-x"])
def test_a_rerun_and_an_early_stop_are_no_verdict_under_xdist_too(
        pytester: pytest.Pytester, args: tuple[str, ...], status: int) -> None:
    # xdist stops a run at -x by interrupting it: pytest's status 2 stands. The whole run
    # before --lf only leaves its failures in pytest's cache (the same node ids with or
    # without xdist): it runs in this process, and the rerun under xdist.
    xdist = ("-n", "2")
    runs = ((), (*args, *xdist)) if "--lf" in args else ((*args, *xdist),)
    mode = Mode(runs, (status, NO_VERDICT), (OK, TOLD_NOTHING))
    result = run_mode(pytester, REGRESSED, mode)
    assert (result.ret, verdict(result)[:len(NO_VERDICT)]) == (status, NO_VERDICT)


def test_a_rerun_says_what_it_was_and_leaves_the_whole_runs_report(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject=TEAM)
    whole = pytester.runpytest(*REGRESSED)
    report = pytester.path / "report.json"
    written = report.read_bytes()
    run_id = json.loads(written)["run"]["id"]
    rerun = pytester.runpytest(*REGRESSED, "--lf")
    assert whole.ret == rerun.ret == FAILED
    said = verdict(rerun)
    assert said.startswith("verdict: NO RELEASE VERDICT (FAILED): --lf: a rerun of the 20 "
                           "sample(s) that failed last time, not a sample of the benchmark; 20 "
                           "item(s) failed; the last whole run (" + run_id)
    assert said.endswith("FAILED: a rerun cannot overturn it; run the whole selection again")
    # No metric table, no interval over a selection made of failures.
    assert not [line for line in rerun.stdout.lines if line.startswith("mmar.avg ")]
    assert report.read_bytes() == written
    partial = json.loads((pytester.path / "report.partial.json").read_text())
    assert partial["verdict"]["kind"] == "partial" and partial["gate_held"] is False
    assert partial["scope"]["rerun"].startswith("--lf: a rerun of the 20 sample(s)")
    assert {b["baseline_status"] for b in partial["benchmarks"]} == {"partial"}
    assert f"partial run: {report} left as the last whole run wrote them" in rerun.stdout.str()


def test_a_rerun_whose_items_pass_now_cannot_overturn_the_whole_run_that_failed(
        pytester: pytest.Pytester) -> None:
    # The whole run failed; a rerun of its failures whose items all pass now (here: a -k that
    # keeps only samples that did not fail, on the same record of failures) still fails.
    pytester.makefile(".toml", pyproject=TEAM)
    assert pytester.runpytest(*REGRESSED).ret == FAILED
    cache = pytester.path / ".pytest_cache" / "v" / "cache" / "lastfailed"
    failed = json.loads(cache.read_text())
    passing = "audiobench::mmar::sound::mini-002"
    assert passing not in failed
    cache.write_text(json.dumps({**failed, passing: True}), encoding="utf-8")
    rerun = pytester.runpytest(*REGRESSED, "--lf", "-k", "mini-002")
    said = verdict(rerun)
    assert rerun.ret == FAILED and said.startswith(
        "verdict: NO RELEASE VERDICT (FAILED): --lf: a rerun of the 1 sample(s)")
    assert "no item failed" in said and "a rerun cannot overturn it" in said


def test_a_shard_and_its_merge_gate_as_the_whole_run(pytester: pytest.Pytester,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makefile(".toml", pyproject=TEAM)
    shards = []
    for k in (1, 2):
        shard = pytester.path / f"shard-{k}.json"
        result = pytester.runpytest(*REGRESSED, "--audiobench-shard", f"{k}/2",
                                    f"--audiobench-report={shard}")
        assert result.ret == OK and verdict(result).startswith(SHARD)
        shards.append(str(shard))
    status = merge.main(shards)
    printed = capsys.readouterr().out
    assert status == FAILED and GATE_FAILED in printed


def test_a_stopped_shard_makes_its_merge_no_verdict(pytester: pytest.Pytester,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makefile(".toml", pyproject=TEAM)
    whole = pytester.path / "shard-1.json"
    pytester.runpytest(*UNCHANGED, "--audiobench-shard", "1/2", f"--audiobench-report={whole}")
    pytester.makeconftest(CTRL_C)  # the second shard is interrupted after five samples
    interrupted = pytester.runpytest_subprocess(*UNCHANGED, "--audiobench-shard", "2/2",
                                                "--audiobench-report=shard-2.json")
    assert interrupted.ret == INTERRUPTED
    # The stopped shard's report is beside its configured one; the merge reads what it wrote.
    stopped = pytester.path / "shard-2.partial.json"
    export = pytester.path / "mmar-submission.jsonl"
    status = merge.main([str(whole), str(stopped), "--export-mmar", str(export)])
    printed = capsys.readouterr().out
    assert status == FAILED
    assert "verdict: NO RELEASE VERDICT (FAILED): stopped early: shard-2.partial.json: " \
           "interrupted" in printed
    # It ends as such a run does (ending.py): no partial submission in place of a whole one.
    assert not export.exists()
    assert f"--audiobench-export-mmar {export}: not written: stopped early" in printed


def test_reruns_of_pytest_rerunfailures_never_turn_a_regressed_item_green(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pytest_rerunfailures", reason="the dev extra installs it")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:html -p no:metadata")  # rerunfailures on
    regressed = run_mode(pytester, REGRESSED, Mode(((),), (0, ""), (0, "")), "--reruns", "2")
    assert regressed.ret == FAILED and verdict(regressed).startswith(GATE_FAILED)
    assert regressed.parseoutcomes()["rerun"] == 40  # each of the 20 failed items, twice
    unchanged = run_mode(pytester, UNCHANGED, Mode(((),), (0, ""), (0, "")), "--reruns", "2")
    assert unchanged.ret == OK and verdict(unchanged).startswith(TOLD_NOTHING)


def test_a_model_that_runs_here_is_said_to_run_in_each_xdist_worker(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject=TEAM)
    alone = pytester.runpytest(*UNCHANGED, "-k", "mini-001")
    spread = pytester.runpytest(*UNCHANGED, "-k", "mini-001", "-n", "2")
    assert "audiobench: air_bench_chat,mmar on random in this process, judge overlap" in \
        alone.stdout.lines
    assert "model random in this process; offline judge overlap" in alone.stdout.str()
    assert ("audiobench: air_bench_chat,mmar on random in each of the 2 xdist workers, judge "
            "overlap") in spread.stdout.lines
    assert "model random in each of the 2 xdist workers; offline judge" in spread.stdout.str()
