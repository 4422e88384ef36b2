"""audiobench-history: a model's headline metrics across runs, the baseline changes between
them and the samples that keep flipping, from real reports (four runs, a baseline written by
the first and rewritten by the third) and from hand-made tables; its line chart on
hand-computed coordinates. tests/test_history_browser.py opens its page in a browser."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.commands import history
from pytest_audiobench.commands.history import runs as reading
from pytest_audiobench.commands.history.flips import baseline_changed, flip_runs, flipped
from pytest_audiobench.commands.history.runs import (
    Run,
    changes,
    in_order,
    placed,
    read_history,
    reports_in,
)
from pytest_audiobench.commands.history.text import render, strip_text
from pytest_audiobench.gate.decision import BaselineStatus
from pytest_audiobench.outcome.records import Outcome
from pytest_audiobench.report import charts
from pytest_audiobench.report.model import BenchmarkSummary, Counts
from tests.conftest import Servers
from tests.formats import as_format_6
from tests.pages import read_page
from tests.test_html_report import node
from tests.test_per_sample_gate import answering

POOR = [({0, 2}, True), ({0, 5}, False), ({2}, True), ({0, 5}, False)]
"""Per run, the records the model answers poorly, and whether it writes the baseline. Record 0
goes bad, bad, good, bad (2 flips); 2 bad, good, bad, good and 5 good, bad, good, bad (3)."""


def four_runs(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
              records: list[Any]) -> list[Path]:
    """The four runs of ``POOR``, their reports in ``runs/``, oldest first."""
    paths = []
    for index, (poor, update) in enumerate(POOR, 1):
        answering(servers, records, poor)
        path = pytester.path / "runs" / f"run-{index}.json"
        flags = ["--audiobench-update-baseline"] if update else []
        run = run_bench(f"--audiobench-report={path}", *flags)
        assert path.exists(), run.result.stdout.str()[-2000:]
        paths.append(path)
    return paths


@pytest.fixture(scope="module")
def _made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The folder of the four runs' reports, once the module's first test made them."""
    return {}


@pytest.fixture
def runs(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
         small_records: list[Any], _made: dict[str, Path],
         tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The four runs of ``POOR``, in this test's ``runs/``: run by the module's first test
    that asks, copied for the others (they read reports only, and one rewrites its copies)."""
    if "runs" not in _made:
        paths = four_runs(run_bench, pytester, servers, small_records)
        _made["runs"] = tmp_path_factory.mktemp("history") / "runs"
        shutil.copytree(paths[0].parent, _made["runs"])
        return paths
    shutil.copytree(_made["runs"], pytester.path / "runs")
    return [pytester.path / "runs" / f"run-{index}.json" for index in range(1, len(POOR) + 1)]


def _history(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest_audiobench.commands.history",
                           *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def _steady(text: str) -> str:
    """The output with what changes from run to run (ids, times) replaced, as wide."""
    for pattern, said in ((r"\d{8}T\d{6}-[0-9a-f]{6}", "<run id>"),
                          (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", "<started>")):
        text = re.sub(pattern, lambda found, said=said: said.ljust(len(found[0])), text)
    return text


def test_the_history_table(runs: list[Path], pytester: pytest.Pytester, snapshot: Any) -> None:
    result = _history(*reversed(runs), cwd=pytester.path)
    assert result.returncode == 0, result.stderr
    assert _steady(result.stdout) == snapshot
    assert max(map(len, result.stdout.splitlines())) <= 100
    assert result.stdout.splitlines()[-1].startswith("HTML report: audiobench-history.html (")
    assert (pytester.path / "audiobench-history.html").exists()


def test_a_folder_is_its_json_reports_by_name(runs: list[Path], pytester: pytest.Pytester,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    page = pytester.path / "page.html"
    assert history.main([str(runs[0].parent), f"--html={page}"]) == 0
    from_folder = capsys.readouterr().out
    assert history.main([*map(str, runs), f"--html={page}"]) == 0
    assert capsys.readouterr().out == from_folder
    assert reports_in([runs[0].parent]) == runs
    assert reports_in([runs[0].parent, runs[0]]) == runs  # each read once
    empty = pytester.path / "empty"
    empty.mkdir()
    assert history.main([str(empty)]) == 4
    assert capsys.readouterr().err == (f"audiobench-history: error: {empty}: a folder without "
                                       "a JSON report (*.json) in it\n")


def test_format_6_reports_make_the_history_their_format_7_twins_make(
        runs: list[Path], pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    """Format 7 calls a gate row's ``verdict`` its ``status``, and an answer's ``verdicts`` its
    ``grades`` (issue 54): the four runs written by format 6 make the same history."""
    old = pytester.path / "format-6"
    old.mkdir()
    for path in runs:
        written = as_format_6(json.loads(path.read_text(encoding="utf-8")))
        assert all("verdicts" in record for record in written["samples"])
        (old / path.name).write_text(json.dumps(written), encoding="utf-8")
    rows = [row for path in old.iterdir()
            for summary in json.loads(path.read_text(encoding="utf-8"))["benchmarks"]
            for gate in (summary["gate"], summary["replaced"]) if gate for row in gate["rows"]]
    assert rows and all("verdict" in row and "status" not in row for row in rows)
    page = pytester.path / "page.html"
    assert history.main([str(runs[0].parent), f"--html={page}"]) == 0
    now = capsys.readouterr().out
    assert history.main([str(old), f"--html={page}"]) == 0
    assert capsys.readouterr().out == now
    assert "7.25 unclear" in now and "5.00 above" in now  # statuses read from the old key


def test_the_flip_counts_and_the_baseline_changes_of_real_runs(
        runs: list[Path], small_records: list[Any]) -> None:
    made = read_history(runs)
    ranked = flipped(made.outcomes.strips("air_bench_chat", made.runs))
    assert [(f.nodeid, strip_text(f.strip), len(f.flips)) for f in ranked] == [
        (node(small_records[5]), ".F.F", 3),  # ties: the same last flip, then by node id
        # A run that writes a baseline (the first and third) xfails what is under its bar.
        (node(small_records[2]), "xXxX", 3),
        (node(small_records[0]), "xxXF", 2)]
    summaries = [r.benchmarks["air_bench_chat"] for r in made.runs]
    assert [s.baseline_status for s in summaries] == ["written", "applied", "written", "applied"]
    # The first run had no baseline to digest: the second is marked because the first wrote
    # one; the third used the same file as the second, the fourth the one the third wrote.
    digests = [s.baseline_digest for s in summaries]
    assert digests[0] is None and digests[1] == digests[2] != digests[3]
    assert changes(made.runs, "air_bench_chat") == [False, True, False, True]


def test_only_the_reports_holding_the_shown_records_are_read_again(
        runs: list[Path], pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    read: list[str] = []
    real = reading.read_report

    def counted(path: Path, tool: str) -> Any:
        read.append(path.name)
        return real(path, tool)

    monkeypatch.setattr(reading, "read_report", counted)
    assert history.main([*map(str, runs), f"--html={pytester.path / 'page.html'}"]) == 0
    # Every flipped sample's latest record is in the fourth run: only it is read again.
    assert read == ["run-1.json", "run-2.json", "run-3.json", "run-4.json", "run-4.json"]


def test_the_page_holds_the_runs_the_charts_and_the_flipped_samples(
        runs: list[Path], pytester: pytest.Pytester, small_records: list[Any],
        capsys: pytest.CaptureFixture[str]) -> None:
    target = pytester.path / "out" / "history.html"
    assert history.main([*map(str, runs), f"--html={target}", "--samples=2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith(f"HTML report: {target} (")
    page = read_page(target)
    assert len([e for e in page.all("tr") if e.text and e.text[0].strip().isdigit()]) == 8
    assert len(page.all("svg", "history")) == 7  # a chart per headline metric
    assert len(page.all("line", "change")) == 14  # runs 2 and 4, on each chart
    assert list(page.samples()) == [node(small_records[5]), node(small_records[2])]
    assert [e.attrs["data-flips"] for e in page.all("div", "flipped")] == ["3", "3"]
    assert "change -0.38 [-1.50, +0.75], margin 0.1" in page.source
    assert not re.search(r"""(src|href)=["']https?:""", page.source)


def test_one_run_is_a_one_row_history(runs: list[Path], pytester: pytest.Pytester,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert history.main([str(runs[1]), f"--html={pytester.path / 'one.html'}"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 run, oldest first")
    assert "samples that flipped between good and bad: none" in out
    assert len([line for line in out.splitlines() if line.startswith("1  ")]) == 3
    blocked = pytester.path / "a-file"
    blocked.write_text("")
    assert history.main([str(runs[1]), f"--html={blocked / 'page.html'}"]) == 3
    assert capsys.readouterr().err.startswith(
        f"audiobench-history: error: cannot write the page {blocked / 'page.html'}: ")


def test_the_runs_go_by_start_time_and_a_merge_by_its_file_time(
        runs: list[Path], pytester: pytest.Pytester) -> None:
    started = ["2026-01-01T10:00:00+00:00", "2026-01-02T10:00:00+00:00",
               "2026-01-03T10:00:00+00:00", "2026-01-04T10:00:00+00:00"]
    for path, when in zip(runs, reversed(started), strict=True):  # the first ran last
        report = json.loads(path.read_text())
        path.write_text(json.dumps({**report, "run": {**report["run"], "started": when}}))
    merged = runs[0].with_name("merged.json")
    merged.write_text(json.dumps({**json.loads(runs[0].read_text()), "run": None}))
    os.utime(merged, (0, placed("2026-01-02T12:00:00+00:00", 0).timestamp()))
    made = read_history([merged, *runs])
    assert [r.path.name for r in made.runs] == [
        "run-4.json", "run-3.json", "merged.json", "run-2.json", "run-1.json"]
    assert made.runs[2].id == "merged.json" and made.runs[2].started is None
    table = render(made, 20)
    assert re.search(r"^3  merged\.json +2026-01-02T12:00:00\+00:00 \(file time\) ",
                     "\n".join(table), re.M)


def _run(name: str, started: str | None, modified: float) -> Run:
    return Run(path=Path(name), place=0, id=name, started=started, modified=modified,
               model="m", revision=None, gate_held=True, benchmarks={})


def test_the_order_rule() -> None:
    noon = placed("2026-03-01T12:00:00+00:00", 0).timestamp()
    made = [_run("late", "2026-03-01T13:00:00+00:00", 0), _run("merge", None, noon),
            _run("early", "2026-03-01T11:00:00", noon + 99), _run("tie-b", None, noon + 7200),
            _run("tie-a", "2026-03-01T14:00:00+00:00", noon + 7200)]
    # A time without a zone is UTC; equal times go by file time, then by path.
    assert [r.id for r in in_order(made)] == ["early", "merge", "late", "tie-a",
                                                      "tie-b"]


def test_an_unreadable_report_is_an_error_naming_it(
        runs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    page = tmp_path / "page.html"
    assert history.main([str(runs[0]), str(garbage), f"--html={page}"]) == 4
    assert capsys.readouterr().err == (
        f"audiobench-history: error: {garbage}: cannot read it as JSON (Expecting property "
        "name enclosed in double quotes: line 1 column 2 (char 1))\n")
    other = tmp_path / "other.json"
    other.write_text('{"tool": "something else"}')
    assert history.main([str(other), f"--html={page}"]) == 4
    assert capsys.readouterr().err == (
        f"audiobench-history: error: {other}: not a pytest-audiobench JSON report\n")
    assert history.main([]) == 4
    assert capsys.readouterr().err == (
        "audiobench-history: error: no reports given: pass JSON reports (--audiobench-report) "
        "or folders of them\n")
    assert not page.exists()
    with pytest.raises(SystemExit) as exited:
        history.main([str(runs[0]), "--samples=-1"])
    assert exited.value.code == 2


@pytest.mark.parametrize(("strip", "flips"), [
    (["failed"], []),                                       # one run
    ([None], []),
    (["passed", "failed", "passed", "failed"], [1, 2, 3]),
    (["xfailed", "xpassed", "failed", "passed"], [1, 2, 3]),  # x and X count as bad and good
    ([None, "passed", None, "failed"], [3]),                 # present in some runs only
    (["passed", "error", "failed"], [2]),                    # an error flips nothing...
    (["passed", "error", "passed"], []),                     # ...and breaks nothing
    (["failed", "skipped", "not_run", "xfailed", "passed"], [4]),
])
def test_the_flips_of_a_strip(strip: list[Outcome | None], flips: list[int]) -> None:
    assert flip_runs(strip) == flips


def test_the_samples_that_flipped_most_come_first() -> None:
    table: dict[str, list[Outcome | None]] = {
        "c": ["passed", "failed", "passed", "passed"],       # 2 flips, the last at run 3
        "b": ["passed", "passed", "failed", "passed"],       # 2 flips, the last at run 4
        "a": ["failed", "passed", "failed", "passed"],       # 3 flips
        "d": ["passed", "failed", "passed", None],           # 2 flips, the last at run 3
        "never": ["passed", "error", "passed", "passed"],    # none: not listed
        "once": [None, None, None, "failed"],
    }
    assert [(f.nodeid, len(f.flips)) for f in flipped(table)] == [
        ("a", 3), ("b", 2), ("c", 2), ("d", 2)]
    assert strip_text(table["d"]) == ".F.-"


def _summary(path: str = "b.json", digest: str | None = None,
             status: BaselineStatus = "applied") -> BenchmarkSummary:
    return BenchmarkSummary(benchmark="x", metrics={}, headline=[], counts=Counts(selected=0),
                            baseline_file=path, baseline_digest=digest, baseline_status=status)


@pytest.mark.parametrize(("before", "after", "changed"), [
    (_summary(digest="1"), _summary(digest="2"), True),
    (_summary(digest="1", status="written"), _summary("other.json", digest="1"), False),
    (_summary(), _summary(), False),
    (_summary(digest="1"), _summary(), False),                 # one digest unknown: by path
    (_summary(), _summary("other.json"), True),
    (_summary(status="written"), _summary(), True),            # the run before wrote one
    (_summary(status="missing"), _summary(digest="1"), False),
])
def test_the_baseline_change_rule(before: BenchmarkSummary, after: BenchmarkSummary,
                                  changed: bool) -> None:
    assert baseline_changed(before, after) is changed


def test_a_run_without_the_benchmark_is_skipped_by_the_change_rule() -> None:
    def ran(summary: BenchmarkSummary | None) -> Run:
        return Run(path=Path("r"), place=0, id="r", started=None, modified=0, model="m",
                   revision=None, gate_held=True,
                   benchmarks={} if summary is None else {"x": summary})

    made = [ran(_summary(status="written")), ran(None), ran(_summary()), ran(_summary())]
    assert changes(made, "x") == [False, False, True, False]


def test_the_line_chart_of_two_runs() -> None:
    # Values 0 and 10 (the second's interval 9..10): the axis runs from -1 to 11, 10 pixels
    # a unit from y 12; the runs stand at the plot's ends, x 56 and 456.
    svg = charts.history([charts.Point("1", 0.0, state="ok"),
                          charts.Point("2", 10.0, 9.0, 10.0, "failed", baseline_changed=True)],
                         "two runs")
    assert '<path class="line" d="M56.0 122.0 L456.0 22.0"/>' in svg
    assert '<g class="run ok" data-run="1"><circle class="point" cx="56.0" cy="122.0"' in svg
    assert ('<g class="run failed" data-run="2"><line class="change" x1="456.0" y1="12" '
            'x2="456.0" y2="132">') in svg
    assert '<line class="interval" x1="456.0" y1="22.0" x2="456.0" y2="32.0"/>' in svg
    assert '<circle class="point" cx="456.0" cy="22.0" r="4">' in svg
    assert '<text class="ytick" x="48" y="126.0">0.00</text>' in svg
    assert '<text class="ytick" x="48" y="26.0">10.00</text>' in svg
    assert '<text class="tick" x="456.0" y="150">2</text>' in svg


def test_the_line_chart_of_one_run_and_of_equal_values() -> None:
    # One value, 5: the axis is 4 to 6 (all values equal: 1 either side), the dot in the middle.
    svg = charts.history([charts.Point("1", 5.0)], "one run")
    assert '<circle class="point" cx="256.0" cy="72.0" r="4">' in svg
    assert "<path" not in svg and svg.count('class="ytick"') == 1
    assert 'class="run none"' in svg


def test_the_line_chart_with_a_missing_value() -> None:
    svg = charts.history([charts.Point("1", 5.0), charts.Point("2", None)], "missing")
    assert '<text class="missing" x="456.0" y="128">-</text>' in svg
    assert svg.count("<circle") == 1 and "<path" not in svg
    gap = charts.history([charts.Point("1", None), charts.Point("2", 0.0),
                          charts.Point("3", 10.0)], "gap")
    assert '<path class="line" d="M256.0 122.0 L456.0 22.0"/>' in gap
    assert charts.history([charts.Point("1", None)], "none") == ""

