"""MMSU end to end, as a user runs it (a real server on 127.0.0.1, with and without xdist):
the official rule's accuracies over the replies it counts, the strict ones beside them and the
replies it left out, per category and sub-category, on a table worked by hand; the tasks read
from the data; a worse model fails the paired gate and an unchanged one holds."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers, regressed_once_worse, written_then_held
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import local_snapshot, mmsu_repo
from tests.fakes.openai_server import ChatRequest
from tests.fakes.speech import build_mmsu

# (task, category, sub-category, reply); every question's answer is its option B.
TABLE = [
    ("emotion", "perception", "paralinguistics", "B"),  # right both ways
    ("emotion", "perception", "paralinguistics", "C"),  # wrong both ways
    ("emotion", "perception", "paralinguistics", "Answer: B"),  # officially A, strictly B
    ("stress", "perception", "phonology", "**B**"),  # officially left out, strictly B
    ("stress", "perception", "phonology", "The answer is B."),  # B both ways
    ("intent", "reasoning", "semantics", ""),  # wrong both ways (counted officially)
    ("intent", "reasoning", "semantics", "b"),  # officially left out, strictly B
    ("intent", "reasoning", "semantics", "(B)"),  # B both ways
    ("irony", "reasoning", "paralinguistics", "None"),  # wrong both ways
    ("irony", "reasoning", "paralinguistics", "D"),  # wrong both ways
    ("irony", "reasoning", "paralinguistics", "B"),  # right both ways
    ("irony", "reasoning", "paralinguistics", "B"),
]
# Official: 10 counted (2 left out), right: rows 0, 4, 7, 10, 11 -> 50 %; strict: 12 counted,
# right: rows 0, 2, 3, 4, 6, 7, 10, 11 -> 66.67 %. Perception officially 2 of 4, reasoning
# 3 of 6; strictly 4 of 5 and 4 of 7.


FIRST = 300
"""The mark of the first clip: each question its own clip."""


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mmsu")
    build_mmsu(root, [
        {"id": f"q{index:02d}", "task_name": task, "audio": f"audio/q{index:02d}.wav",
         "question": f"Question {index}: which one?", "choice_a": "first",
         "choice_b": "second", "choice_c": "third", "choice_d": "" if index % 3 else "fourth",
         "answer_gt": "second", "category": category, "sub-category": sub,
         "sub-sub-category": "x", "linguistics_sub_discipline": "y"}
        for index, (task, category, sub, _) in enumerate(TABLE)], first=FIRST)
    return root


def _by_question(replies: list[str]) -> Any:
    def answer(request: ChatRequest) -> str:
        number = int(request.text.split(":", 1)[0].removeprefix("Question "))
        return replies[number]
    return answer


@pytest.fixture
def mmsu_servers(servers: Servers) -> Servers:
    servers.model.script = _by_question([row[3] for row in TABLE])
    return servers


def _run(run_bench: Any, release: Path | str, *args: str, **kw: Any) -> Any:
    return run_bench(*args, data=release, benchmark="mmsu", judge=False, **kw)


def test_both_rules_accuracies_and_the_left_out_count_as_worked_by_hand(
        run_bench: Any, release: Path, mmsu_servers: Servers) -> None:
    run = _run(run_bench, release)
    metrics = run.metrics
    assert metrics["mmsu.official.avg"] == pytest.approx(50.0)
    assert metrics["mmsu.avg"] == pytest.approx(50.0)
    assert metrics["mmsu.strict.avg"] == pytest.approx(800 / 12)
    assert (metrics["mmsu.official.fail_num"], metrics["mmsu.official.differs_num"]) == (2, 1)
    assert metrics["mmsu.category.perception.official.avg"] == pytest.approx(50.0)
    assert metrics["mmsu.category.reasoning.official.avg"] == pytest.approx(50.0)
    assert metrics["mmsu.category.perception.strict.avg"] == pytest.approx(80.0)
    assert metrics["mmsu.category.reasoning.strict.avg"] == pytest.approx(400 / 7)
    assert metrics["mmsu.subcategory.reasoning_paralinguistics.official.avg"] == \
        pytest.approx(50.0)
    counted = {b["benchmark"]: b["metrics"]["mmsu.official.avg"]["n"]
               for b in run.report["benchmarks"]}
    assert counted == {"mmsu": 10}
    outcomes = run.outcomes()
    assert outcomes["audiobench::mmsu::emotion::q00"] == "passed"
    assert outcomes["audiobench::mmsu::emotion::q02"] == "failed"  # read A officially
    out = run.result.stdout.str()
    assert "official:  A (its first or second-to-last character)" in out
    assert "strict:    B (names option B by its letter)" in out


def test_a_left_out_reply_fails_its_item_and_says_why(run_bench: Any, release: Path,
                                                      mmsu_servers: Servers) -> None:
    run = _run(run_bench, release, "-k", "q03")
    assert run.outcomes() == {"audiobench::mmsu::stress::q03": "failed"}
    assert ("official:  left out of every official count: neither its first nor its "
            "second-to-last character is A-D") in run.result.stdout.str()


def test_the_tasks_are_the_release_s_and_a_task_it_lacks_is_one_line(
        run_bench: Any, release: Path, mmsu_servers: Servers) -> None:
    run = _run(run_bench, release, "--audiobench-tasks", "irony,stress")
    assert sorted(run.outcomes()) == [
        "audiobench::mmsu::irony::q08", "audiobench::mmsu::irony::q09",
        "audiobench::mmsu::irony::q10", "audiobench::mmsu::irony::q11",
        "audiobench::mmsu::stress::q03", "audiobench::mmsu::stress::q04"]
    wrong = _run(run_bench, release, "--audiobench-tasks", "irony,sarcasm")
    assert wrong.result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--audiobench-tasks sarcasm: not a task of --audiobench-benchmark mmsu; its tasks "
            "are: emotion, stress, intent, irony") in wrong.result.stderr.str()


def test_a_worse_model_fails_the_paired_gate_and_an_unchanged_one_holds(
        run_bench: Any, tmp_path: Path, mmsu_servers: Servers) -> None:
    # Forty questions, each its own clip, every reply right: then every reply wrong.
    root = tmp_path / "big"
    build_mmsu(root, [
        {"id": f"b{index}", "task_name": "emotion", "audio": f"audio/b{index}.wav",
         "question": f"Question {index}: which one?", "choice_a": "first",
         "choice_b": "second", "answer_gt": "second",
         "category": "perception" if index % 2 else "reasoning", "sub-category": "semantics"}
        for index in range(40)], first=FIRST)
    mmsu_servers.model.script = _by_question(["B"] * 40)

    def worsen() -> None:
        mmsu_servers.model.script = _by_question(["A"] * 40)

    worse = regressed_once_worse(lambda *args: _run(run_bench, root, *args),
                                 tmp_path / "baselines", worsen)
    rows = worse.gate_rows
    assert rows["mmsu.avg"]["status"] == "regressed"
    assert rows["mmsu.avg"]["method"] == "exact"  # McNemar's on 40 discordant pairs
    worse.result.assert_outcomes(failed=40)


def test_it_runs_from_the_hub_s_parquet_files(run_bench: Any, release: Path,
                                               mmsu_servers: Servers, tmp_path: Path,
                                               isolated_hf: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    repo = mmsu_repo(release, tmp_path / "hub" / "mmsu")
    with FakeHfHub({"ddwang2000/MMSU": repo}, lfs_patterns=PARQUET_AS_LFS) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        run = _run(run_bench, "huggingface")
    assert run.metrics["mmsu.official.avg"] == pytest.approx(50.0)
    assert run.metrics["mmsu.strict.avg"] == pytest.approx(800 / 12)
    assert len(run.outcomes()) == len(TABLE)


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["no-xdist", "xdist"])
def test_a_local_snapshot_of_the_hub_repo_runs_end_to_end(
        run_bench: Any, release: Path, mmsu_servers: Servers, tmp_path: Path,
        xdist: tuple[str, ...]) -> None:
    # As `huggingface-cli download --repo-type dataset ddwang2000/MMSU --local-dir DIR` leaves
    # it: converted once into the cache, its clips read from there, never refused.
    snapshot = local_snapshot(mmsu_repo(release, tmp_path / "repo"), tmp_path / "MMSU")
    run = written_then_held(run_bench, tmp_path / "baselines", data=snapshot,
                            benchmark="mmsu", judge=False, xdist=xdist)
    assert run.metrics["mmsu.official.avg"] == pytest.approx(50.0)
    assert run.metrics["mmsu.strict.avg"] == pytest.approx(800 / 12)
    assert run.outcomes()["audiobench::mmsu::emotion::q00"] == "passed"
    assert len(run.outcomes()) == len(TABLE)


# Options the real release leaves null in any position (a two-option question padded to four):
# each keeps its letter, as the official script reads the letter against choice_a to choice_d.
PADDED = {
    "q00": {"choice_a": None, "choice_d": None},  # reply B: right ("second" is still B)
    "q01": {"choice_b": None, "choice_c": "second", "choice_d": None},  # reply C: right
    "q10": {"choice_a": None, "choice_b": None, "choice_c": "first",
            "choice_d": "second"},  # reply B: an option that is not there, wrong both ways
}


def test_options_missing_in_any_position_keep_their_letters_through_a_run(
        run_bench: Any, release: Path, mmsu_servers: Servers, tmp_path: Path) -> None:
    snapshot = local_snapshot(mmsu_repo(release, tmp_path / "repo", PADDED), tmp_path / "MMSU")
    run = _run(run_bench, snapshot, "-k", "q00 or q01 or q10")
    assert run.outcomes() == {"audiobench::mmsu::emotion::q00": "passed",
                              "audiobench::mmsu::emotion::q01": "passed",
                              "audiobench::mmsu::irony::q10": "failed"}
    asked = {r.text.split(":", 1)[0]: r.text for r in mmsu_servers.model.requests}
    assert "\nB. second\nC. third\n\nReply with the letter of the correct option only (B, " \
           "C), nothing else." in asked["Question 0"]
    assert "A." not in asked["Question 0"] and "D." not in asked["Question 0"]
    assert "\nA. first\nC. second\n\n" in asked["Question 1"]
    out = run.result.stdout.str()
    assert "choices:   C. first | D. second" in out
    assert "strict:    none (names no option)" in out
