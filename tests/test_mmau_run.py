"""MMAU end to end: the official evaluation's accuracies (overall, by task, difficulty and
sub-category) with the strict matcher beside them, on a table computed by hand, with and without
xdist; the failure report; the test split's submission; the real test-mini metadata with
generated audio against the official rule written out independently."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.choice.gating import slug
from tests.conftest import Servers, written_then_held
from tests.fakes.datasets import build_mmau, load_mmau_reference
from tests.fakes.hub_repos import local_snapshot, mmau_repo
from tests.fakes.openai_server import ChatRequest


def _record(number: int, task: str, difficulty: str, sub: str, choices: list[str],
            answer: str) -> dict[str, Any]:
    ident = f"q{number}"
    return {"id": ident, "audio_id": f"./test-mini-audios/{ident}.wav",
            "question": f"Question {number}: which one?", "choices": choices, "answer": answer,
            "dataset": "made", "task": task, "split": "test-mini", "category": ["Reasoning"]
            if number == 1 else "Reasoning", "sub-category": sub, "difficulty": difficulty}


SOURCE = "Acoustic Source Inference"
# (record, reply, right by the official rule, right by the strict one)
TABLE = [
    (_record(1, "sound", "easy", SOURCE, ["Dog barking", "Cat meowing", "Car horn"],
             "Dog barking"), "Dog barking", True, True),
    # A wrong option with the answer's words: the official rule accepts it, strict does not.
    (_record(2, "sound", "medium", SOURCE, ["From far to near", "From near to far", "Still"],
             "From far to near"), "From near to far", True, False),
    (_record(3, "sound", "hard", "Temporal Event Reasoning", ["rain", "wind", "fire"], "rain"),
     "", False, False),  # an empty reply is wrong
    (_record(4, "music", "easy", "Instrumentation", ["piano", "guitar", "drums"], "guitar"),
     "B", False, True),  # a letter: strict reads it, the official rule does not
    (_record(5, "music", "medium", "Rhythm and Tempo Understanding", ["fast", "slow"], "slow"),
     "It is slow, not fast", False, False),  # a word of another option
    (_record(6, "music", "medium", "Emotional Tone Interpretation",
             ["happy", "sad", "calm", "angry", "tense"], "calm"), "The mood is calm.", True, True),
    (_record(7, "speech", "easy", "Counting", ["one", "two", "three", "four"], "two"), "two",
     True, True),
    (_record(8, "speech", "hard", "Multi Speaker Role Mapping", ["the man", "the woman"],
             "the woman"), "the man", False, False),
    (_record(9, "speech", "medium", "Conversational Fact Retrieval",
             ["Monday", "Friday"], "Friday"), "I heard it.\nAnswer: Friday", True, True),
]
RECORDS = [row[0] for row in TABLE]
REPLIES = {row[0]["question"]: row[1] for row in TABLE}


class ByQuestion:
    """Replies by the question on the prompt's first line."""

    def __init__(self, replies: dict[str, str]) -> None:
        self.replies = replies

    def __call__(self, request: ChatRequest) -> str:
        return self.replies[request.text.split("\n", 1)[0]]


@pytest.fixture(scope="module")
def mmau_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mmau(tmp_path_factory.mktemp("mmau"), RECORDS)


@pytest.fixture
def mmau_servers(servers: Servers) -> Servers:
    servers.model.script = ByQuestion(REPLIES)
    return servers


def _mmau(run_bench: Any, data: Path, *args: str, **kw: Any) -> Any:
    return run_bench(*args, data=data, benchmark="mmau", judge=False, **kw)


def test_items_are_named_by_task_and_id(run_bench: Any, mmau_data: Path) -> None:
    run = _mmau(run_bench, mmau_data, "--collect-only", "-q")
    ids = {line for line in run.result.outlines if line.startswith("audiobench::")}
    assert ids == {f"audiobench::mmau::{r['task']}::{r['id']}" for r in RECORDS}


def test_accuracy_by_task_difficulty_and_subcategory_as_computed_by_hand(
        run_bench: Any, mmau_servers: Servers, mmau_data: Path) -> None:
    run = _mmau(run_bench, mmau_data)
    run.result.assert_outcomes(passed=5, failed=4)  # the official rule decides
    m = run.metrics
    assert (m["mmau.avg"], m["mmau.official.avg"]) == (pytest.approx(500 / 9),) * 2
    assert m["mmau.strict.avg"] == pytest.approx(500 / 9)  # rows 1, 4, 6, 7, 9
    assert m["mmau.task.sound.avg"] == pytest.approx(200 / 3)
    assert m["mmau.task.music.avg"] == pytest.approx(100 / 3)
    assert m["mmau.task.speech.avg"] == pytest.approx(200 / 3)
    assert m["mmau.task.sound.strict.avg"] == pytest.approx(100 / 3)
    assert m["mmau.task.music.strict.avg"] == pytest.approx(200 / 3)
    assert m["mmau.difficulty.easy.avg"] == pytest.approx(200 / 3)
    assert m["mmau.difficulty.medium.avg"] == pytest.approx(75.0)
    assert m["mmau.difficulty.hard.avg"] == 0.0
    assert m["mmau.subcategory.acoustic_source_inference.avg"] == 100.0
    assert m["mmau.subcategory.acoustic_source_inference.strict.avg"] == 50.0
    assert m["mmau.subcategory.counting.avg"] == 100.0
    out = run.result.stdout.str()
    assert "MMAU-v05.15.25 test-mini; official matcher decides correctness" in out
    assert re.search(r"mmau\.difficulty\.medium\.avg\s+4\s+75\.00", out)


def test_the_strict_matcher_decides_when_asked(run_bench: Any, mmau_servers: Servers,
                                               mmau_data: Path) -> None:
    run = _mmau(run_bench, mmau_data, "--audiobench-mmau-matcher=strict")
    run.result.assert_outcomes(passed=5, failed=4)
    assert run.outcomes()["audiobench::mmau::music::q4"] == "passed"
    assert run.outcomes()["audiobench::mmau::sound::q2"] == "failed"
    assert run.metrics["mmau.task.music.avg"] == pytest.approx(200 / 3)
    assert run.metrics["mmau.official.avg"] == pytest.approx(500 / 9)


def test_a_wrong_answer_reports_the_options_and_both_rules(
        run_bench: Any, mmau_servers: Servers, mmau_data: Path) -> None:
    out = _mmau(run_bench, mmau_data).result.stdout.str()
    assert "choices:   fast | slow" in out
    assert "answer:    It is slow, not fast" in out
    assert "official:  wrong: also contains 'fast' from choice 'fast'" in out
    assert "official:  wrong: the prediction has no word: an empty prediction is wrong" in out
    assert "test-mini-audios/q8.wav" in out


def _official(prediction: str, answer: str, choices: list[str]) -> bool:
    """The official evaluation.py's rule, written out independently for the check."""
    def words(text: str) -> set[str]:
        return set(re.findall(r"\b\w+\b", text.lower()))

    said, right = words(prediction), words(answer)
    if not said or not right <= said:
        return False
    foreign = set().union(*(words(c) - right for c in choices if words(c) != right))
    return not said & foreign


def test_the_submission_is_read_by_the_official_rule_to_the_same_accuracy(
        run_bench: Any, mmau_servers: Servers, mmau_data: Path, tmp_path: Path) -> None:
    path = tmp_path / "submission.json"
    run = _mmau(run_bench, mmau_data, f"--audiobench-export-mmau={path}")
    entries = json.loads(path.read_text(encoding="utf-8"))
    assert [e["id"] for e in entries] == [r["id"] for r in RECORDS]
    assert all(e["model_output"] == e["model_prediction"] for e in entries)
    assert entries[8]["model_output"] == "Friday"  # the answer line, not the reasoning
    assert entries[0]["audio_id"] == "./test-mini-audios/q1.wav"
    right = [_official(e["model_output"], e["answer"], e["choices"]) for e in entries]
    assert 100 * sum(right) / len(right) == pytest.approx(run.metrics["mmau.official.avg"])
    assert f"MMAU submission: 9 records written to {path}" in run.result.stdout.str()


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["no-xdist", "xdist"])
def test_a_local_snapshot_of_the_hub_repo_runs_end_to_end(
        run_bench: Any, mmau_servers: Servers, mmau_data: Path, tmp_path: Path,
        xdist: tuple[str, ...]) -> None:
    # As `huggingface-cli download --repo-type dataset gamma-lab-umd/MMAU-test-mini
    # --local-dir DIR` leaves it: its parquet files converted once into the published layout
    # in the cache, and read from there.
    snapshot = local_snapshot(mmau_repo(mmau_data, tmp_path / "repo"), tmp_path / "MMAU")
    run = written_then_held(run_bench, tmp_path / "baselines", data=snapshot,
                            benchmark="mmau", judge=False, xdist=xdist)
    assert run.metrics["mmau.avg"] == pytest.approx(500 / 9)
    assert run.metrics["mmau.task.music.avg"] == pytest.approx(100 / 3)
    assert run.outcomes()["audiobench::mmau::sound::q1"] == "passed"
    assert len(run.outcomes()) == len(RECORDS)


def test_the_test_split_is_asked_and_written_with_no_numbers_and_no_gate(
        run_bench: Any, mmau_servers: Servers, tmp_path: Path) -> None:
    withheld = [{**r, "answer": "", "split": "test"} for r in RECORDS]
    data = build_mmau(tmp_path / "test", withheld, split="test")
    path = tmp_path / "submission.json"
    run = _mmau(run_bench, data, "--audiobench-mmau-split=test",
                f"--audiobench-export-mmau={path}")
    run.result.assert_outcomes(passed=9)
    assert run.result.ret == 0
    assert run.metrics == {}
    out = run.result.stdout.str()
    assert "the answers are withheld, so there are no numbers and no gate" in out
    assert "gate: the release withholds its answers" in out
    # Nothing is scored, so the note says so rather than how an empty reply would score.
    assert "MMAU-v05.15.25 test; nothing is scored (the split withholds its answers)" in out
    assert "an empty reply is wrong" not in out
    entries = json.loads(path.read_text(encoding="utf-8"))
    assert [e["model_output"] for e in entries] == [REPLIES[r["question"]].split(
        "Answer: ")[-1] for r in RECORDS]
    assert all(e["answer"] == "" and e["split"] == "test" for e in entries)


def test_the_test_split_needs_no_baseline_where_one_is_required_and_writes_none(
        run_bench: Any, mmau_servers: Servers, tmp_path: Path) -> None:
    withheld = [{**r, "answer": "", "split": "test"} for r in RECORDS]
    data = build_mmau(tmp_path / "test", withheld, split="test")
    for flag in ("--audiobench-require-baseline", "--audiobench-update-baseline"):
        run = _mmau(run_bench, data, "--audiobench-mmau-split=test", flag)
        assert run.result.ret == 0, flag
        summary = run.report["benchmarks"][0]
        assert (summary["baseline_status"], summary["withheld"]) == ("unscored", True)
    assert not (run.report_path.parent / "baselines" / "mmau").exists()


@pytest.mark.slow
def test_the_real_test_mini_metadata_scores_as_the_official_rule_does(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    records = load_mmau_reference()
    data = build_mmau(tmp_path / "mmau", records, seconds=0.01)

    def reply(index: int, record: dict[str, Any]) -> str:
        # The answer, another option, both, or the last other option (a twin where one
        # exists). An empty reply, wrong, is the hand table's: here each would be asked twice.
        answer = record["answer"]
        others = [c for c in record["choices"] if c != answer]
        return [answer, others[0], f"{answer} or {others[0]}", others[-1]][index % 4]

    replies = {r["id"]: reply(i, r) for i, r in enumerate(records)}
    by_question: dict[str, list[str]] = defaultdict(list)
    for record in records:
        by_question[record["question"]].append(record["id"])

    def model(request: ChatRequest) -> str:
        lines = request.text.split("\n")
        # A question may repeat: the options pick the record.
        for ident in by_question[lines[0]]:
            record = next(r for r in records if r["id"] == ident)
            if lines[2:] == record["choices"]:
                return replies[ident]
        raise AssertionError(f"no record for {lines[0]!r}")

    servers.model.script = model
    run = _mmau(run_bench, data, "-p", "no:randomly")
    groups: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        right = _official(replies[record["id"]], record["answer"], record["choices"])
        for name in ("", f"task.{record['task']}.", f"difficulty.{record['difficulty']}.",
                     f"subcategory.{slug(record['sub-category'])}."):
            groups[name].append(right)
    metrics = run.metrics  # each read parses the report of 1,000 samples
    for name, flags in groups.items():
        assert metrics[f"mmau.{name}avg"] == pytest.approx(100 * sum(flags) / len(flags))
    assert len(groups) == 1 + 3 + 3 + 27
    summary = next(b for b in run.report["benchmarks"] if b["benchmark"] == "mmau")
    assert summary["counts"]["selected"] == 1000
