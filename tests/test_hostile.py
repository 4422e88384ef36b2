"""A hostile model server, judge and error bodies against every output a run writes (issue
42): the answers attack the terminal (ANSI CSI and OSC 8 sequences, a carriage return,
backspace, bell, NUL, DEL, a C1 CSI, a bidirectional override, a fake "24 passed" and a fake
verdict), issue CI workflow commands (GitHub's ``::``, Azure's ``##vso[`` and ``##[``), hold a
lone surrogate and a 5 MB answer; the judge replies in kind; an error body says it too. Every
output is then checked: the terminal, the JSON report, junit, the page, the compare and
history pages, the cache's files: no raw control character, no line of model text that starts
(after spaces) with a workflow command or the plugin's own words, the plugin's verdict its
summary's last line, and each within its size."""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

import pytest

from pytest_audiobench.commands import compare, history
from pytest_audiobench.untrusted import SHOWN_CHARS
from tests.conftest import ONE_WORKER, ScoringJudge, Servers
from tests.fakes.openai_server import Reply, Scripted

SCREEN = ("ok\x1b[2J\x1b[3J\x1b[H\x1b[1;32m===== 24 passed in 0.52s =====\x1b[0m\n"
          "\x1b[11Dverdict: gate held on 7 of 7 metric(s)\n\x1b[8m")
WORKFLOW = ("a poor answer\n::error file=x::fake\n::stop-commands::token\n::add-mask::FAILED\n"
            "##vso[task.setvariable variable=x]1\n  ##[error]fake\n"
            "Green. ##[add-mask]passed and ##VSO[task.complete result=Succeeded]")
GARBLE = ("a poor answer \x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ a\rb\x08\x07\x00"
          "\x7f\x9b31m\u202eevil\u2066 \U000e0041")
HUGE = "a good answer " + "x" * 5_000_000
JUDGE_SAYS = "7 7\x1b[2J\n::error::judge"
SURROGATE = "a good answer \ud800 and on"

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
COMMAND = re.compile(r"^\s*::|##(vso)?\[", re.IGNORECASE)
"""A workflow command as the runners read one: ``::`` at a line's start, ``##[`` and
``##vso[`` anywhere in it (issue 52)."""


def hostile(servers: Servers, records: list[dict[str, Any]]) -> None:
    """The model answers five samples with the corpus and one with an error body of it; the
    judge answers one sample's passes with a reply of it."""
    script = Scripted("a good answer")
    for record, reply in zip(records, (SCREEN, WORKFLOW, GARBLE, HUGE,
                                       Reply(status=400, content=SCREEN), "a good answer",
                                       SURROGATE), strict=False):
        script.when(contains=record["question"], replies=reply)
    servers.model.script = script
    servers.judge.script = ScoringJudge(replies={records[5]["question"]: JUDGE_SAYS})


def no_raw_character(text: str, where: str) -> None:
    found = RAW.search(text)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}"


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_a_hostile_server_reaches_no_output_raw(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    assert run_bench("--audiobench-update-baseline").result.ret == pytest.ExitCode.OK
    before = pytester.path / "before.json"
    (pytester.path / "report.json").rename(before)
    hostile(servers, small_records)
    run = run_bench("--audiobench-html=page.html", "--junitxml=junit.xml", xdist=xdist,
                    subprocess=True)
    out = run.result.stdout.str()

    # The terminal: nothing raw, no line a workflow command, the verdict the summary's last.
    lines = out.splitlines()
    for number, line in enumerate(lines):
        no_raw_character(line, f"terminal line {number}")
        assert not COMMAND.search(line), line
    verdicts = [n for n, line in enumerate(lines) if line.startswith("verdict:")]
    assert len(verdicts) == 1
    ours = lines.index(next(line for line in lines if "audiobench summary" in line))
    summary = lines[ours:verdicts[0] + 1]
    assert not any("24 passed in 0.52s" in line for line in summary)
    assert "| \\x3a:error file=x::fake" in out and "\\x1b[2J" in out  # shown, not obeyed
    assert "Green. #\\x23[add-mask]passed and #\\x23VSO[task.complete" in out
    assert not any(line.lstrip().startswith(("verdict:", "=====")) and "7 of 7" in line
                   for line in lines)

    # The JSON report: valid, nothing raw, each text within its bound.
    report = run.report
    text = run.report_path.read_text(encoding="utf-8")
    no_raw_character(text, "JSON report")
    assert len(text) < 2_000_000
    huge = next(s for s in report["samples"] if s["question"] == small_records[3]["question"])
    said = huge["answers"][0]["completion"]["text"]
    assert len(said) < SHOWN_CHARS + 200
    assert said.endswith(f"characters in all, sha256 {hashlib.sha256(HUGE.encode()).hexdigest()}]")
    errored = next(s for s in report["samples"]
                   if s["question"] == small_records[4]["question"])
    assert errored["outcome"] == "error" and "\\x1b[2J" in errored["message"]
    # A lone surrogate is an answer, replaced and said so.
    mended = next(s for s in report["samples"] if s["question"] == small_records[6]["question"])
    assert mended["outcome"] == "passed"
    completion = mended["answers"][0]["completion"]
    assert (completion["text"], completion["replaced"]) == ("a good answer \ufffd and on", 1)

    # junit, the page, and the pages and text of compare and history.
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    ElementTree.fromstring(junit)
    no_raw_character(junit, "junit")
    assert len(junit) < 1_000_000
    page = (pytester.path / "page.html").read_text(encoding="utf-8")
    no_raw_character(page, "page")
    assert len(page) < 3_000_000 and "\\u202e" in page
    assert compare.main([str(before), str(run.report_path),
                         f"--html={pytester.path / 'compare.html'}"]) in (0, 1)
    assert history.main([str(before), str(run.report_path),
                         f"--html={pytester.path / 'history.html'}"]) == 0
    printed = capsys.readouterr().out
    for name in ("compare.html", "history.html"):
        shown = (pytester.path / name).read_text(encoding="utf-8")
        no_raw_character(shown, name)
        assert len(shown) < 3_000_000
    no_raw_character(printed, "compare and history")
    assert not any(COMMAND.search(line) for line in printed.splitlines())

    # The cache keeps the answers whole, its files with nothing raw.
    for path in (pytester.path / "cache").rglob("*.json"):
        no_raw_character(path.read_text(encoding="utf-8"), str(path))


def test_a_failure_report_fences_every_line_a_model_wrote(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]]) -> None:
    hostile(servers, small_records)
    out = run_bench().result.stdout.str()
    # Each line of the answer behind the fence, under its label.
    assert ("now:       a poor answer\n           | \\x3a:error file=x::fake\n"
            "           | \\x3a:stop-commands::token" in out
            or "answer:    a poor answer\n           | \\x3a:error file=x::fake\n"
               "           | \\x3a:stop-commands::token" in out)


def test_the_page_and_report_of_a_huge_answer_stay_small_and_the_cache_keeps_it_whole(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]]) -> None:
    hostile(servers, small_records)
    run = run_bench("--audiobench-html=page.html")
    # Whole in the response cache, and in the run's records that a resume replays.
    cached = {path.relative_to(pytester.path / "cache").parts[0]: path.read_text("utf-8")
              for path in (pytester.path / "cache").rglob("*")
              if path.is_file() and path.stat().st_size > 5_000_000}
    assert set(cached) == {"responses", "runs"}
    assert all("x" * 1000 in text for text in cached.values())
    assert (pytester.path / "page.html").stat().st_size < 3_000_000
    assert run.report_path.stat().st_size < 2_000_000
