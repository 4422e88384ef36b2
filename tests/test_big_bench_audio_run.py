"""Big Bench Audio end to end, as a user runs it (a real model server and a real judge
server on 127.0.0.1, with and without xdist): accuracy is the share of CORRECT replies on a
table worked by hand; the judge reads the question's text, the official answer and the
answer; the judge is asked at AU-Harness's temperature and its reply read in any letter case,
unless the options say otherwise; an unreadable judge reply is asked again and, when every
attempt is unreadable, the sample is an error, never a score; judge repeats average; a worse
model fails the paired gate and an unchanged one holds; the release runs from the hub's
parquet files."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers, regressed_once_worse, the_judged, written_then_held
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import big_bench_audio_repo, local_snapshot
from tests.fakes.openai_server import ChatRequest
from tests.fakes.speech import build_big_bench_audio, heard

FIRST = 500
"""The mark of the first clip: each clip is one value repeated, its sample's index + FIRST."""

# (category, official answer, the model's reply); the judge says CORRECT when the official
# answer is in the reply (case aside), and otherwise INCORRECT, but for the replies below.
TABLE = [
    ("formal_fallacies", "valid", "valid"),  # CORRECT
    ("formal_fallacies", "invalid", "It is not"),  # INCORRECT
    ("navigate", "Yes", "Yes, you end where you started."),  # CORRECT
    ("navigate", "No", ""),  # an empty answer is judged: INCORRECT, counted
    ("object_counting", "4", "HESITANT 4"),  # judge: 'CORRECT.' (unread), then CORRECT
    ("object_counting", "3", "5"),  # INCORRECT
    ("web_of_lies", "No", "No"),  # CORRECT
    ("web_of_lies", "Yes", "GARBLE yes"),  # judge never reads: an error, not counted
]
# Counted: 7 (the last is an error); CORRECT: rows 0, 2, 4, 6 -> 4 of 7 = 57.14 %.
# formal_fallacies 1 of 2, navigate 1 of 2, object_counting 1 of 2, web_of_lies 1 of 1.


def build(root: Path, table: list[tuple[str, str, str]]) -> Path:
    """The layout a run reads: ``metadata.jsonl`` with transcripts, a clip per question."""
    build_big_bench_audio(root, [
        {"id": f"q{index:02d}", "category": category, "official_answer": official,
         "transcript": f"Question {index}: what is the answer?"}
        for index, (category, official, _) in enumerate(table)], first=FIRST)
    return root


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("bba"), TABLE)


def answering(replies: list[str]) -> Any:
    """A model script: each clip answered with its question's reply."""
    return lambda request: replies[heard(request) - FIRST]


class GradingJudge:
    """CORRECT when the official answer is in the answer; a hesitant answer's first reply ends
    with a full stop (unread), a garbled answer's every reply has extra words."""

    def __init__(self) -> None:
        self.seen: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.asked: list[tuple[str, str, str]] = []

    def __call__(self, request: ChatRequest) -> str:
        question, official, answer = the_judged(request.text)
        with self.lock:
            self.asked.append((question, official, answer))
            self.seen[request.text] += 1
            first = self.seen[request.text] == 1
        said = "CORRECT" if official.lower() in answer.lower() else "INCORRECT"
        if "GARBLE" in answer:
            return f"The answer is {said}"
        if "HESITANT" in answer and first:
            return f"{said}."
        return said


@pytest.fixture
def judged(servers: Servers) -> GradingJudge:
    judge = GradingJudge()
    servers.judge.script = judge
    servers.model.script = answering([row[2] for row in TABLE])
    return judge


def _run(run_bench: Any, release: Path | str, *args: str, **kw: Any) -> Any:
    return run_bench(*args, data=release, benchmark="big_bench_audio", **kw)


def test_accuracy_is_the_share_of_correct_as_worked_by_hand(
        run_bench: Any, release: Path, judged: GradingJudge, servers: Servers) -> None:
    run = _run(run_bench, release)
    metrics = run.metrics
    assert metrics["big_bench_audio.accuracy"] == pytest.approx(400 / 7)
    for category in ("formal_fallacies", "navigate", "object_counting"):
        assert metrics[f"big_bench_audio.{category}.accuracy"] == pytest.approx(50.0)
    assert metrics["big_bench_audio.web_of_lies.accuracy"] == pytest.approx(100.0)
    counted = {name: m["n"] for b in run.report["benchmarks"]
               for name, m in b["metrics"].items()}
    assert counted["big_bench_audio.accuracy"] == 7
    outcomes = run.outcomes()
    assert [outcomes[f"audiobench::big_bench_audio::{c}::q{i:02d}"]
            for i, (c, _, _) in enumerate(TABLE)] == [
        "passed", "failed", "passed", "failed", "passed", "failed", "passed", "error"]
    # The judge read each question's text, its official answer and the model's answer.
    assert ("Question 3: what is the answer?", "No", "") in judged.asked
    assert ("Question 1: what is the answer?", "invalid", "It is not") in judged.asked
    # One request per question, the hesitant one twice, the garbled one three times.
    assert servers.judge.count() == 6 + 2 + 3
    out = run.result.stdout.str()
    assert ("JudgeError: judge judge-model replied neither CORRECT nor INCORRECT in 3 "
            "attempt(s) per draw; replies: 'The answer is CORRECT'; 'The answer is CORRECT'; "
            "'The answer is CORRECT'") in out
    assert run.result.ret != pytest.ExitCode.OK  # an error is never a silent drop


def test_a_wrong_answer_s_report_shows_the_question_the_official_answer_and_the_judge(
        run_bench: Any, release: Path, judged: GradingJudge) -> None:
    run = _run(run_bench, release, "-k", "q05")
    assert run.outcomes() == {"audiobench::big_bench_audio::object_counting::q05": "failed"}
    out = run.result.stdout.str()
    assert "judged INCORRECT\n" in out
    assert "question:  Question 5: what is the answer?" in out
    assert "official:  3" in out
    assert "answer:    5" in out
    assert "judge: 'INCORRECT' -> INCORRECT" in out


def _title_case_judge(request: ChatRequest) -> str:
    """A judge that replies in title case: "Correct"."""
    return "Correct"


def test_the_judge_is_asked_and_read_as_au_harness_asks_and_reads_it(
        run_bench: Any, tmp_path: Path, servers: Servers) -> None:
    root = build(tmp_path / "one", [("navigate", "Yes", "Yes")])
    servers.model.script = answering(["Yes"])
    servers.judge.script = _title_case_judge
    run = _run(run_bench, root)
    # "Correct" is CORRECT at once, as AU-Harness reads it; asked at its temperature 0.1, not
    # the run's judge temperature (1 by default).
    assert run.metrics["big_bench_audio.accuracy"] == 100.0
    assert [r.body["temperature"] for r in servers.judge.requests] == [0.1]
    out = run.result.stdout.str()
    assert ("judge judge-model (temperature 1, CORRECT/INCORRECT at temperature 0.1 read in "
            "any letter case, prompt built-in)") in out
    assert "judged at temperature 0.1 (not the run's judge temperature)" in out


def test_the_exact_reading_and_another_temperature_are_options(
        run_bench: Any, tmp_path: Path, servers: Servers) -> None:
    root = build(tmp_path / "one", [("navigate", "Yes", "Yes")])
    servers.model.script = answering(["Yes"])
    servers.judge.script = _title_case_judge
    run = _run(run_bench, root, "--audiobench-big-bench-audio-judge-reading", "exact",
               "--audiobench-big-bench-audio-judge-temperature", "0.7",
               "--audiobench-big-bench-audio-judge-retries", "1")
    # Read in upper case only, "Correct" is asked again, then the sample is an error.
    assert [r.body["temperature"] for r in servers.judge.requests] == [0.7, 0.7]
    assert run.outcomes() == {"audiobench::big_bench_audio::navigate::q00": "error"}
    assert "CORRECT/INCORRECT at temperature 0.7 read in upper case only" in \
        run.result.stdout.str()


def test_a_bad_reading_is_a_usage_error_naming_the_flag(run_bench: Any, release: Path) -> None:
    run = _run(run_bench, release, "--audiobench-big-bench-audio-judge-reading", "loose")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    run.result.stderr.fnmatch_lines(["*--audiobench-big-bench-audio-judge-reading*expected one "
                                     "of case-insensitive, exact; got 'loose'*"])


def test_judge_repeats_average_each_answer_s_draws(run_bench: Any, tmp_path: Path,
                                                   servers: Servers) -> None:
    root = build(tmp_path / "two", [("navigate", "Yes", "Yes"), ("navigate", "No", "No")])
    servers.model.script = answering(["Yes", "No"])
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def drawing(request: ChatRequest) -> str:  # CORRECT, INCORRECT, CORRECT, ... per prompt
        with lock:
            seen[request.text] += 1
            return "CORRECT" if seen[request.text] % 2 else "INCORRECT"

    servers.judge.script = drawing
    run = _run(run_bench, root, "--audiobench-judge-repeats", "3")
    assert run.metrics["big_bench_audio.accuracy"] == pytest.approx(100 * 2 / 3)
    assert servers.judge.count() == 6
    assert set(run.outcomes().values()) == {"passed"}  # two of three draws say CORRECT


def test_a_worse_model_fails_the_paired_gate_and_an_unchanged_one_holds(
        run_bench: Any, tmp_path: Path, servers: Servers) -> None:
    categories = ("formal_fallacies", "navigate", "object_counting", "web_of_lies")
    table = [(categories[i % 4], "Yes", "") for i in range(40)]
    root = build(tmp_path / "big", table)
    servers.judge.script = GradingJudge()
    servers.model.script = answering(["Yes"] * 40)

    def worsen() -> None:
        servers.model.script = answering(["No"] * 40)

    worse = regressed_once_worse(lambda *args: _run(run_bench, root, *args),
                                 tmp_path / "baselines", worsen)
    assert worse.gate_rows["big_bench_audio.accuracy"]["status"] == "regressed"
    worse.result.assert_outcomes(failed=40)


def test_it_runs_from_the_hub_s_parquet_files(run_bench: Any, release: Path,
                                               judged: GradingJudge, tmp_path: Path,
                                               isolated_hf: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = big_bench_audio_repo(release, tmp_path / "hub" / "bba")
    with FakeHfHub({"fixie-ai/big_bench_audio": repo},
                   lfs_patterns=PARQUET_AS_LFS) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        run = _run(run_bench, "huggingface")
    assert run.metrics["big_bench_audio.accuracy"] == pytest.approx(400 / 7)
    assert len(run.outcomes()) == len(TABLE)


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["no-xdist", "xdist"])
def test_a_local_snapshot_of_the_hub_repo_runs_end_to_end(
        run_bench: Any, release: Path, judged: GradingJudge, tmp_path: Path,
        xdist: tuple[str, ...]) -> None:
    # As `huggingface-cli download --repo-type dataset fixie-ai/big_bench_audio --local-dir
    # DIR` leaves it: converted once into the cache, its clips read from there.
    table = TABLE[:-1]  # every sample judged (the garbled one is an error, which stops a gate)
    snapshot = local_snapshot(big_bench_audio_repo(build(tmp_path / "made", table),
                                                   tmp_path / "repo"), tmp_path / "BBA")
    run = written_then_held(run_bench, tmp_path / "baselines", data=snapshot,
                            benchmark="big_bench_audio", xdist=xdist)
    assert run.metrics["big_bench_audio.accuracy"] == pytest.approx(400 / 7)
    assert run.outcomes()["audiobench::big_bench_audio::navigate::q02"] == "passed"
    assert len(run.outcomes()) == len(table)
    assert ("Question 1: what is the answer?", "invalid", "It is not") in judged.asked


def test_the_page_shows_each_grade_and_the_judge_s_replies(
        run_bench: Any, release: Path, judged: GradingJudge) -> None:
    from tests.pages import read_page

    run = _run(run_bench, release, "-k", "q04 or q05", "--audiobench-html=page.html")
    page = read_page(run.report_path.parent / "page.html")
    samples = page.samples()

    def shown(ident: str, tag: str, cls: str | None = None) -> list[str]:
        sample = samples[f"audiobench::big_bench_audio::object_counting::{ident}"]
        return ["".join(e.text) for e in page.inside(sample, tag)
                if cls is None or cls in e.classes]

    assert shown("q04", "span", "score") == ["CORRECT"]
    assert shown("q05", "span", "score") == ["INCORRECT"]
    assert shown("q04", "pre") == ["judge: 'CORRECT.' | 'CORRECT' -> CORRECT"]
    report, judge = shown("q05", "pre")  # why the item failed, then the judge's reply
    assert report == "judged INCORRECT"
    assert judge == "judge: 'INCORRECT' -> INCORRECT"
