"""A baseline is what a team commits and replaces, and a gate is only as sound as the file it
reads: a baseline that lost its per-sample file is refused in one line, one that never had one
is held by its thresholds and says so, and replacing a baseline is an informed act (the run is
held against the one it replaces, the new file records it, and a job may refuse a replacement
that regresses). On the mini benchmark, in process: ``random`` is the regressed model, a copy
of the cascade's committed baseline standing as its own."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_audiobench.config.names import bundled

BENCHMARKS = ("air_bench_chat", "mmar", "librispeech")
TEAM = f"""
[tool.pytest.ini_options]
audiobench_benchmark = "{",".join(BENCHMARKS)}"
audiobench_data = "mini"
audiobench_judge_model = "overlap"
audiobench_report = "report.json"
"""
RANDOM = ("--audiobench-model", "random")


def cascades_as_randoms(pytester: pytest.Pytester) -> Path:
    """The cascade's committed baselines copied in as the project's own baselines of
    ``random`` (the project's mini baselines win over the bundled ones): the folder."""
    pytester.makefile(".toml", pyproject=TEAM)
    folder = pytester.path / "baselines" / "mini"
    for name in BENCHMARKS:
        (folder / name).mkdir(parents=True)
        theirs = bundled("baselines", "mini", name)
        shutil.copy(theirs / "cascade.json", folder / name / "random.json")
        shutil.copy(theirs / "cascade.samples.jsonl", folder / name / "random.samples.jsonl")
    return folder


def verdict(result: pytest.RunResult) -> str:
    (line,) = [line for line in result.stdout.lines if line.startswith("verdict:")]
    return line


def test_a_baseline_that_lost_its_per_sample_file_stops_the_run_in_one_line(
        pytester: pytest.Pytester) -> None:
    folder = cascades_as_randoms(pytester)
    lost = folder / "mmar" / "random.samples.jsonl"
    lost.unlink()  # what a .gitignore with *.jsonl does to a committed baseline
    result = pytester.runpytest_subprocess(*RANDOM)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [
        f"ERROR: baseline {folder / 'mmar' / 'random.json'}: its per-sample file {lost} is "
        "missing: the baseline was written with it (28 lines) and is held paired against it, "
        "never by its thresholds alone (a .gitignore that drops *.jsonl loses it); restore the "
        "file, or write the baseline again with --audiobench-update-baseline"]
    assert "audiobench::" not in result.stdout.str()  # nothing ran, nothing was asked


def test_a_baseline_without_per_sample_lines_is_held_by_thresholds_and_says_so(
        pytester: pytest.Pytester) -> None:
    folder = cascades_as_randoms(pytester)
    for name in BENCHMARKS:  # thresholds a team wrote by hand: no per-sample file named
        path = folder / name / "random.json"
        raw = json.loads(path.read_text(encoding="utf-8"))
        del raw["samples"]
        path.write_text(json.dumps(raw), encoding="utf-8")
        (folder / name / "random.samples.jsonl").unlink()
    result = pytester.runpytest(*RANDOM)
    out = result.stdout.str()
    assert "gate: FAILED (by thresholds, not paired) against" in out
    assert verdict(result).startswith("verdict: gate FAILED: air_bench_chat: held by "
                                      "thresholds, not paired: air_bench_chat.")
    rows = [row for b in json.loads((pytester.path / "report.json").read_text())["benchmarks"]
            for row in b["gate"]["rows"]]
    # No row without an interval reads ok: a threshold is above or below (a word error
    # rate's, a ceiling, under or over).
    assert {row["status"] for row in rows} <= {"above", "below", "under", "over",
                                                "not measured"}
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_replacing_a_baseline_holds_the_run_against_it_and_records_what_it_replaced(
        pytester: pytest.Pytester) -> None:
    folder = cascades_as_randoms(pytester)
    before = json.loads((folder / "air_bench_chat" / "random.json").read_text())
    assert pytester.runpytest(*RANDOM).ret == pytest.ExitCode.TESTS_FAILED
    replaced = pytester.runpytest(*RANDOM, "--audiobench-update-baseline")
    # Written as asked, and the run fails: it fell short of the baseline it replaced, and a
    # job that writes the baseline can fail on that (issue 53).
    assert replaced.ret == pytest.ExitCode.TESTS_FAILED
    said = verdict(replaced)
    assert said.startswith("verdict: gate FAILED: air_bench_chat: baseline written over one this "
                           "run falls short of: air_bench_chat.average.score regressed (changed "
                           "-2.708;")
    assert said.endswith("; 11 item(s) regressed against their baseline lines (and 2 more "
                         "benchmark(s))")
    out = replaced.stdout.str()
    assert "gate: against the baseline it replaces, this run FAILED: " \
           "air_bench_chat.average.score regressed" in out
    # A benchmark whose metrics are too small to gate falls short by its items.
    assert "gate: against the baseline it replaces, this run FAILED: 13 item(s) regressed " \
           "against their baseline lines" in out
    assert _files_line(replaced, "written") == [folder / name / "random.json"
                                                for name in BENCHMARKS]
    written = json.loads((folder / "air_bench_chat" / "random.json").read_text())
    record = written["replaces"]
    assert (record["model"], record["held"]) == ("cascade", False)
    assert record["reasons"][0].startswith("air_bench_chat.average.score regressed")
    assert record["reasons"][1] == "11 item(s) regressed against their baseline lines"
    assert len(record["digest"]) == 16 and record["digest"] != _digest(written)
    assert written["samples"]["lines"] == 24 and written["written"]
    assert before["model"] == "cascade" and written["model"] == "random"
    speech = json.loads((folder / "librispeech" / "random.json").read_text())["replaces"]
    assert (speech["held"], speech["reasons"]) == (
        False, ["13 item(s) regressed against their baseline lines"])


def test_a_job_can_refuse_a_replacement_that_regresses_by_its_metrics_or_its_items(
        pytester: pytest.Pytester) -> None:
    folder = cascades_as_randoms(pytester)
    kept = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    refused = pytester.runpytest(*RANDOM, "--audiobench-update-baseline",
                                 "--audiobench-update-if-held")
    assert refused.ret == pytest.ExitCode.TESTS_FAILED
    assert verdict(refused) == (
        "verdict: gate FAILED: air_bench_chat: baseline NOT written: it falls short of the "
        "baseline it would replace: air_bench_chat.average.score regressed (changed -2.708; at "
        "most -1.715, beyond the margin -0.1; p 0.011 at level 0.013) (and 1 more) "
        "(--audiobench-update-if-held) (and 2 more benchmark(s))")
    out = refused.stdout.str()
    # MMAR and LibriSpeech are too small to gate, and their items regressed: refused too.
    assert ("baseline NOT written to {}: it falls short of the baseline it would replace: 13 "
            "item(s) regressed against their baseline lines (--audiobench-update-if-held)"
            .format(folder / "librispeech" / "random.json")) in out
    assert _files_line(refused, "refused, not written") == [folder / name / "random.json"
                                                             for name in BENCHMARKS]
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == kept


def test_an_update_if_held_that_held_nothing_writes_nothing(pytester: pytest.Pytester) -> None:
    """An unchanged model on benchmarks too small to gate regresses nothing and holds nothing:
    --audiobench-update-if-held writes only what a run showed to hold (issue 53)."""
    pytester.makefile(".toml", pyproject=TEAM)
    assert pytester.runpytest(*RANDOM, "--audiobench-update-baseline").ret == pytest.ExitCode.OK
    folder = pytester.path / "baselines" / "mini"
    kept = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    again = pytester.runpytest(*RANDOM, "--audiobench-update-baseline",
                               "--audiobench-update-if-held")
    assert again.ret == pytest.ExitCode.TESTS_FAILED
    assert ("baseline NOT written: it held nothing against the baseline it would replace: none "
            "of its 7 metric(s) could be told from chance (too small to gate, or can't tell), so "
            "nothing shows that it holds (--audiobench-update-if-held)") in verdict(again)
    assert "gate: against the baseline it replaces, this run told nothing: none of 7 " \
           "metric(s) could be told from chance" in again.stdout.str()
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == kept
    # Without --audiobench-update-if-held it is written, and the run passes: it fell short of
    # nothing.
    plain = pytester.runpytest(*RANDOM, "--audiobench-update-baseline")
    assert plain.ret == pytest.ExitCode.OK
    assert _files_line(plain, "written") == [folder / name / "random.json"
                                             for name in BENCHMARKS]


def _files_line(result: pytest.RunResult, what: str) -> list[Path]:
    """The files the summary's line of baselines ``what`` names."""
    (line,) = [line for line in result.stdout.lines if line.startswith(f"baselines {what}: ")]
    return [Path(path) for path in line.removeprefix(f"baselines {what}: ").split(", ")]


def test_a_first_baseline_is_written_as_before(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject=TEAM)
    result = pytester.runpytest(*RANDOM, "--audiobench-update-baseline",
                                "--audiobench-baselines=own")
    assert result.ret == pytest.ExitCode.OK
    assert verdict(result) == ("verdict: baseline written for air_bench_chat, mmar, librispeech: "
                               "later runs are held to it")
    written = json.loads((pytester.path / "own" / "mini" / "mmar" / "random.json").read_text())
    assert "replaces" not in written and written["samples"]["file"] == "random.samples.jsonl"


def _digest(raw: dict[str, object]) -> str:
    from pytest_audiobench.gate.baseline import Baseline

    return Baseline.model_validate(raw).digest()
