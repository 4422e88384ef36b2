"""audiobench-compare: two runs' JSON reports held against each other, paired over the samples
both scored, with no baseline file; a non-zero exit when B is worse beyond the margin."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.commands import compare
from tests.conftest import JUDGE, MODEL, ScoringJudge, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Scripted
from tests.formats import as_format_6
from tests.test_noisy_judge import WORSE, Model, NoisyJudge, keys, noisy_run


def _compare(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_audiobench.commands.compare",
                           *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _run_to(run_bench: Any, pytester: pytest.Pytester, name: str, *args: str,
            data: Path | None = None) -> Path:
    path = pytester.path / name
    run = (noisy_run(run_bench, data, f"--audiobench-report={path}", *args) if data
           else run_bench(f"--audiobench-report={path}", *args))
    assert path.exists(), run.result.stdout.str()[-2000:]
    return path


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    """The model and judge servers of the whole module, as conftest's are of one test: the
    two checkpoints below are run once, and a report names its judge's URL (compare holds
    the whole judge identities against each other), so every run compared with them meets
    the same two."""
    model = FakeOpenAIServer(Scripted("a good answer"), models=[MODEL])
    judge = FakeOpenAIServer(ScoringJudge(), models=[JUDGE])
    with model, judge:
        yield Servers(model, judge)


@pytest.fixture(autouse=True)
def _scripted_as_conftest_does(servers: Servers) -> None:
    """Each test's servers answer as a new pair of conftest's does until the test says
    otherwise."""
    servers.model.script = Scripted("a good answer")
    servers.judge.script = ScoringJudge()


@pytest.fixture(scope="module")
def _checkpoints_made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The folder of the two checkpoints' reports and cache, once they were run."""
    return {}


@pytest.fixture
def two_checkpoints(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
                    small_records: list[Any], _checkpoints_made: dict[str, Path],
                    tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A answers every question well (8 of 10); B answers 6 of the 16 poorly (2 of 10). Run
    by the module's first test that asks; the others get their reports, and the cache the
    runs left, in their own folder."""
    made = _checkpoints_made.get("folder")
    if made is not None:
        for name in ("a.json", "b.json"):
            shutil.copy2(made / name, pytester.path / name)
        shutil.copytree(made / "cache", pytester.path / "cache")
        return pytester.path / "a.json", pytester.path / "b.json"
    a = _run_to(run_bench, pytester, "a.json")
    poor = Scripted("a good answer")
    for record in small_records[:6]:
        poor.when(contains=record["question"], replies="a poor answer")
    servers.model.script = poor
    b = _run_to(run_bench, pytester, "b.json")
    made = _checkpoints_made["folder"] = tmp_path_factory.mktemp("checkpoints")
    for name in ("a.json", "b.json"):
        shutil.copy2(pytester.path / name, made / name)
    shutil.copytree(pytester.path / "cache", made / "cache")
    return a, b


def test_a_worse_checkpoint_exits_1_and_the_table_names_what_dropped(
        two_checkpoints: tuple[Path, Path], pytester: pytest.Pytester, snapshot: Any) -> None:
    a, b = two_checkpoints
    result = _compare(a.name, b.name, cwd=pytester.path)
    assert result.returncode == 1, result.stderr
    assert result.stdout == snapshot


def test_a_run_compared_with_itself_is_not_worse(
        two_checkpoints: tuple[Path, Path], pytester: pytest.Pytester) -> None:
    a, _ = two_checkpoints
    result = _compare(a.name, a.name, cwd=pytester.path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "B is not worse than A beyond any margin" in result.stdout
    # Every difference is 0 and this judge has no noise: nothing to build an interval from.
    assert "+0.00 [n/a]" in result.stdout


def test_the_reverse_comparison_is_an_improvement(
        two_checkpoints: tuple[Path, Path], pytester: pytest.Pytester) -> None:
    a, b = two_checkpoints
    result = _compare(b.name, a.name, cwd=pytester.path)
    assert result.returncode == 0
    assert "samples that dropped by more than their grading's noise explains: none" in (
        result.stdout)


def test_a_margin_as_wide_as_the_drop_lets_b_pass(
        two_checkpoints: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two_checkpoints
    # Every headline metric, Average included, drops by at most 6 points (a task of 2
    # samples with both poor: 8 -> 2).
    margins = [f"--margin=air_bench_chat.{name}.score=6.5"
               for name in ("speech", "sound", "music", "mixed", "average")]
    assert compare.main([str(a), str(b), *margins]) == 0
    assert "B is not worse than A beyond any margin" in capsys.readouterr().out


def test_metrics_all_compares_every_paired_metric(
        two_checkpoints: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two_checkpoints
    assert compare.main([str(a), str(b), "--metrics", "all"]) == 1
    out = capsys.readouterr().out
    assert "air_bench_chat.speech_QA.score" in out and "air_bench_chat.sound.win_rate" in out
    chosen = compare.main([str(a), str(b), "--metrics", "air_bench_chat.music_QA.score"])
    out = capsys.readouterr().out
    # Two samples: reported, not held.
    assert "across 0 metrics (1 too small to hold)" in out
    assert "air_bench_chat.average.score" not in out and chosen == 0
    assert compare.main([str(a), str(b), "--metrics", "air_bench_chat.music_QA.score",
                         "--gate-small"]) == 0
    assert "across 1 metrics" in capsys.readouterr().out
    assert json.loads(b.read_text())["format"] == 7


def test_a_metric_that_cannot_be_compared_is_one_clear_line(
        two_checkpoints: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = two_checkpoints
    assert compare.main([str(a), str(b), "--metrics", "air_bench_chat.nope.score"]) == 4
    assert ("--metrics: air_bench_chat.nope.score is not a metric both runs measured"
            in capsys.readouterr().err)


@pytest.mark.parametrize(("args", "expected"), [
    (["--margin", "air_bench_chat.average.score"], "--margin: expected NAME=VALUE"),
    (["--margin", "air_bench_chat.average.score=-1"], "--margin: expected a number of at least"),
    (["--margin", "air_bench_chat.average.score=nan"], "--margin: expected a finite number"),
    (["--confidence", "1.5"], "--confidence: expected a confidence from 0.5"),
])
def test_a_bad_option_is_a_usage_error_naming_it(
        two_checkpoints: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
        args: list[str], expected: str) -> None:
    a, b = two_checkpoints
    with pytest.raises(SystemExit) as exited:
        compare.main([str(a), str(b), *args])
    assert exited.value.code == 2
    assert expected in capsys.readouterr().err


def test_reports_judged_by_different_judges_are_not_compared(
        run_bench: Any, pytester: pytest.Pytester, two_checkpoints: tuple[Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = two_checkpoints
    other = pytester.path / "overlap.json"
    run_bench(f"--audiobench-report={other}", "--audiobench-judge-model=overlap", judge=False)
    assert compare.main([str(a), str(other)]) == 4
    assert ("A was judged by judge-model, B by overlap: their scores are not comparable"
            in capsys.readouterr().err)


def test_files_that_are_not_reports_name_the_file(
        two_checkpoints: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    a, _ = two_checkpoints
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert compare.main([str(a), str(garbage)]) == 4
    assert f"{garbage}: cannot read it as JSON" in capsys.readouterr().err
    old = tmp_path / "old.json"
    old.write_text(json.dumps({**json.loads(a.read_text()), "format": 1}))
    assert compare.main([str(old), str(a)]) == 4
    assert "a report of format 1; this audiobench-compare reads formats 3, 4, 5, 6 and 7" in (
        capsys.readouterr().err)


def _as_format_3(report: dict[str, Any], live: str | None = None) -> dict[str, Any]:
    """``report`` as format 3 wrote it: its grades and gate rows under format 6's names (as
    they were until format 7), a summary's status under ``baseline``, the file (or, head to
    head, the ``live`` model its judge comparison names) under ``baseline_path``, and the
    live baseline model's endpoint and answers under ``rival``."""
    report = as_format_6(report)
    summaries = []
    for summary in report["benchmarks"]:
        old = {k: v for k, v in summary.items()
               if k not in ("baseline_status", "baseline_file", "baseline_model")}
        old["baseline"] = summary["baseline_status"]
        old["baseline_path"] = live or summary["baseline_file"]
        if live is not None:
            old["judge_comparison"] = {"rejudged": True, "why": "head to head", "rival": live}
        summaries.append(old)
    settings = {("rival" if k == "baseline_endpoint" else k): v
                for k, v in report["settings"].items()}
    samples = [{("rival" if k == "baseline_answers" else k): v for k, v in record.items()}
               for record in report["samples"]]
    kept = {k: v for k, v in report.items() if k != "verdict"}  # format 3 had gate_held alone
    return {**kept, "format": 3, "benchmarks": summaries, "settings": settings,
            "samples": samples}


def test_a_format_3_report_is_read_in_format_4_s_words(
        two_checkpoints: tuple[Path, Path], tmp_path: Path) -> None:
    from pytest_audiobench.gate.decision import RunVerdict
    from pytest_audiobench.report.reading import read_report

    a, _ = two_checkpoints
    now = json.loads(a.read_text())
    old, live = tmp_path / "old.json", tmp_path / "live.json"
    old.write_text(json.dumps(_as_format_3(now)))
    live.write_text(json.dumps(_as_format_3(now, "rival-model at http://127.0.0.1:1/v1")))
    # Format 3 kept whether the gate held, not what its verdict was nor what format 6 adds.
    now_read = read_report(a, "audiobench-history")
    held = now_read.verdict.held
    kept = RunVerdict("held" if held else "failed", held)
    assert read_report(old, "audiobench-history") == now_read.model_copy(update={"verdict": kept})
    summary = read_report(live, "audiobench-history").benchmarks[0]
    assert (summary.baseline_model, summary.baseline_file) == (
        "rival-model at http://127.0.0.1:1/v1", None)
    assert summary.baseline_status == now["benchmarks"][0]["baseline_status"]


def test_format_6_reports_are_compared_as_the_format_7_ones_they_were(
        two_checkpoints: tuple[Path, Path], pytester: pytest.Pytester) -> None:
    """Format 7 calls an answer's grades ``grades`` where format 6 said ``verdicts`` (issue
    54): the two checkpoints written by format 6 read back as the same runs, and compare as
    they do."""
    from pytest_audiobench.report.reading import read_report

    old = pytester.path / "format-6"
    old.mkdir()
    for path in two_checkpoints:
        written = as_format_6(json.loads(path.read_text(encoding="utf-8")))
        assert written["samples"] and all("verdicts" in record and "grades" not in record
                                          for record in written["samples"])
        (old / path.name).write_text(json.dumps(written), encoding="utf-8")
        assert read_report(old / path.name, "audiobench-compare") == read_report(
            path, "audiobench-compare")
    a, b = (path.name for path in two_checkpoints)
    now, then = _compare(a, b, cwd=pytester.path), _compare(a, b, cwd=old)
    assert (then.returncode, then.stdout, then.stderr) == (now.returncode, now.stdout,
                                                           now.stderr)
    assert now.returncode == 1 and "B is worse than A beyond the margin" in now.stdout


def test_runs_on_different_data_share_no_sample_and_are_not_compared(
        run_bench: Any, pytester: pytest.Pytester, two_checkpoints: tuple[Path, Path],
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.fakes.datasets import build_air_bench_chat
    from tests.fakes.made_records import made_chat_records

    a, _ = two_checkpoints
    renamed = [{**r, "uniq_id": 5000 + r["uniq_id"]} for r in made_chat_records(2)]
    other = pytester.path / "other.json"
    run_bench(f"--audiobench-report={other}",
              data=build_air_bench_chat(tmp_path / "other", renamed))
    assert compare.main([str(a), str(other)]) == 4
    assert "no metric could be paired" in capsys.readouterr().err


@pytest.fixture
def noisy(servers: Servers) -> tuple[Model, NoisyJudge]:
    model, judge = Model(), NoisyJudge()
    servers.model.script, servers.judge.script = model, judge
    return model, judge


def test_under_a_noisy_judge_an_unchanged_model_passes_and_a_drop_fails(
        run_bench: Any, pytester: pytest.Pytester, noisy: tuple[Model, NoisyJudge],
        tmp_path: Path) -> None:
    from tests.fakes.datasets import build_air_bench_chat
    from tests.test_noisy_judge import RECORDS

    model, judge = noisy
    data = build_air_bench_chat(tmp_path / "noisy", RECORDS)
    a = _run_to(run_bench, pytester, "a.json", data=data)
    judge.seed = 1
    same = _run_to(run_bench, pytester, "same.json", data=data)
    model.worse = keys(0.3, salt="compare")
    judge.seed = 2
    worse = _run_to(run_bench, pytester, "worse.json", data=data)
    held = _compare(a, same, cwd=pytester.path)
    assert held.returncode == 0, held.stdout
    failed = _compare(a, worse, cwd=pytester.path)
    assert failed.returncode == 1, failed.stdout
    assert "B is worse than A beyond the margin: air_bench_chat: " in failed.stdout
    listed = re.findall(r"^  (audiobench::\S+): A ", failed.stdout, re.M)
    worse_ids = {s["nodeid"] for s in json.loads(worse.read_text())["samples"]
                 if s["answers"][0]["completion"]["text"].startswith(WORSE)}
    # The ten largest drops are all samples that got the worse answer, not judge noise.
    assert len(listed) == 10 and set(listed) <= worse_ids


def test_runs_judged_at_another_temperature_are_not_compared_as_the_gate_would_not(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    # The same model id, another sampling: the one rule (gate/drift.other_judge) that the gate
    # and the drift measure hold says another judge, and so does compare (it compared the
    # model ids alone before).
    a = _run_to(run_bench, pytester, "a.json")
    b = _run_to(run_bench, pytester, "b.json", "--audiobench-judge-temperature", "0")
    result = _compare(a.name, b.name, cwd=pytester.path)
    assert result.returncode == 4, result.stdout + result.stderr
    assert ("A was judged by judge-model, B by judge-model (sampling {'temperature': 1.0, "
            "'max_tokens': 1024} (today: {'temperature': 0.0, 'max_tokens': 1024})): their "
            "scores are not comparable") in result.stderr


def test_the_compare_page_holds_b_against_a_as_an_applied_gate(
        two_checkpoints: tuple[Path, Path]) -> None:
    from pytest_audiobench.commands.compare import compare, compare_page, verdict_of
    from pytest_audiobench.report.reading import read_report

    a, b = (read_report(path, "audiobench-compare") for path in two_checkpoints)
    compared = compare(a, b)
    page = compare_page(b, compared, verdict_of(compared), 0, "B against A")
    summary = page.report.benchmarks[0]
    assert b.benchmarks[0].baseline_status != "applied"  # B's own run had no baseline
    assert (summary.baseline_status, summary.holds_items) == ("applied", True)
    assert summary.gate is not None and summary.gate.rows
