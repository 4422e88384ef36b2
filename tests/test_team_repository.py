"""A team's repository, built as docs/configuration.md describes it: the page's team file as
its ``pyproject.toml`` (its servers' URLs and its data's paths the test's own), two tests of
its own, and the page's two commands as written. The gate holds, and every way of leaving the
benchmark samples out (``-m``, ``-k``, ``--deselect``, with and without paths, with and
without xdist) exits on the team's tests alone and leaves the last report as it was."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL, Servers, on_two_workers
from tests.fakes.datasets import build_mmar
from tests.fakes.made_records import made_mmar_records
from tests.test_mmar_run import BothJudges

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
UNIT_TESTS = ("def test_parses():\n    assert int('7') == 7\n\n\n"
              "def test_adds():\n    assert 1 + 1 == 2\n")


def _page_blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def _commands() -> list[list[str]]:
    """The page's two commands, each as its arguments after ``python -m pytest``."""
    block = next(b for b in _page_blocks("bash") if b.startswith("python -m pytest tests\n"))
    commands = [shlex.split(line) for line in block.splitlines() if line.strip()]
    assert all(c[:3] == ["python", "-m", "pytest"] for c in commands) and len(commands) == 2
    return [c[3:] for c in commands]


@pytest.fixture
def team(pytester: pytest.Pytester, servers: Servers, chat_data: Path,
         tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The team's repository, and a function that runs pytest in it with given arguments (the
    page's model and server replaced by the test's)."""
    mmar = build_mmar(tmp_path_factory.mktemp("mmar"), made_mmar_records())
    text = _page_blocks("toml")[0]
    data = re.search(r'audiobench_data = "(.*)"', text)
    judge = re.search(r'audiobench_judge_api_url = "(.*)"', text)
    assert data is not None and judge is not None
    text = text.replace(data.group(1), f"air_bench_chat={chat_data},mmar={mmar}")
    text = text.replace(judge.group(1), servers.judge.url)
    pytester.makefile(".toml", pyproject=text)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_units.py").write_text(UNIT_TESTS, encoding="utf-8")
    servers.judge.models.clear()  # it answers to the page's judge id
    servers.judge.script = BothJudges()
    monkeypatch.setenv("TEAM_JUDGE_KEY", "a-judge-key-for-the-team")

    def run(*args: str) -> pytest.RunResult:
        swapped = {"my-audio-model": MODEL,
                   "--audiobench-api-url=http://localhost:8000/v1":
                       f"--audiobench-api-url={servers.model.url}"}
        return pytester.runpytest_subprocess(
            *(swapped.get(a, a).replace("$GITHUB_SHA", "0123abc") for a in on_two_workers(args)))

    return run


def test_the_two_commands_of_the_page_run_the_teams_tests_and_hold_the_gate(
        team: Any, pytester: pytest.Pytester) -> None:
    tests, gate = _commands()
    own = team(*tests)
    own.assert_outcomes(passed=2)
    assert own.ret == pytest.ExitCode.OK and "audiobench summary" not in own.stdout.str()
    # The first baseline, written on purpose in one process (the samples are the gate's, the
    # workers too: each is a Python start); then the gate as written.
    asked = gate[gate.index("--audiobench-model"):]
    assert team(*asked, "--audiobench-update-baseline").ret == pytest.ExitCode.OK
    held = team(*gate)
    assert held.ret == pytest.ExitCode.OK, held.stdout.str()[-3000:]
    out = held.stdout.str()
    # An unchanged model on 38 samples: every metric too small or can't tell, and the verdict
    # says the gate told nothing rather than that it held.
    assert "gate: held" in out and re.search(r"verdict: gate told nothing: none of the \d+ "
                                             r"metric\(s\)", out)
    assert (pytester.path / "audiobench-report.json").is_file()
    assert "2 passed" not in out  # the gate's run is the samples alone
    # A selection that keeps some samples gates what they measure and names the rest; too
    # small a look to tell any metric, the gate overrules no item, and none failed.
    part = team(*gate, "-k", "speech_QA or mmar")
    assert part.ret == pytest.ExitCode.OK, part.stdout.str()[-3000:]
    out = part.stdout.str()
    assert re.search(r"selection: 14 of its samples left out \(.*\); not measured, so not "
                     r"gated: air_bench_chat\.sound\.score, ", out)
    assert re.search(r"verdict: gate blind: it told no metric, past can't tell \(.* not "
                     r"selected\); -k, -m, --deselect or paths left 14 of the 38 configured "
                     r"samples out .*: its items decide, as in any pytest run: none failed", out)


def test_leaving_every_sample_out_never_fails_and_keeps_the_last_report(
        team: Any, pytester: pytest.Pytester) -> None:
    _, gate = _commands()
    asked = gate[gate.index("--audiobench-model"):]
    # The baseline and the report the runs below must leave alone; written in one process
    # (the page's xdist workers, and the baseline they write, are the test above's).
    assert team(*asked, "--audiobench-update-baseline").ret == pytest.ExitCode.OK
    report = pytester.path / "audiobench-report.json"
    written = report.read_bytes()
    # Each way of leaving them out once, two of them under xdist (each run is a subprocess
    # with the plugin's whole start: five of them instead of ten keep the suite in time).
    for selection, tests_run, xdist in ((["tests", "-m", "not audiobench"], 2, []),
                                        (["-m", "not audiobench"], 0, ["-n", "2"]),
                                        (["tests", "-k", "parses"], 1, []),
                                        (["tests", "--deselect", "audiobench"], 2, ["-n", "2"])):
        result = team(*selection, *asked, *xdist)
        assert result.ret == pytest.ExitCode.OK, (selection, result.stdout.str()[-3000:])
        if tests_run:
            result.assert_outcomes(passed=tests_run)
        out = result.stdout.str()
        assert "not written, no benchmark sample was selected" in out, selection
        assert report.read_bytes() == written, selection
        assert [line for line in out.splitlines() if line.startswith("verdict:")] == [
            "verdict: not gated: air_bench_chat no sample selected; mmar no sample selected"]
