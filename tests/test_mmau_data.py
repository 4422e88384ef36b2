"""MMAU's records as the maintainers publish them: the real test-mini metadata read whole, and
each way a record can be wrong named in one line with its file, record and what was expected."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.mmau.data import audio_path, read_mmau
from pytest_audiobench.benchmarks.mmau.facts import DIFFICULTY_COUNTS, TASK_COUNTS
from pytest_audiobench.errors import DataError
from tests.fakes.datasets import MMAU_REFERENCE, load_mmau_reference


def test_the_real_test_mini_metadata_reads_whole_with_its_published_counts() -> None:
    load_mmau_reference()  # skips, saying why, in a clone without ../shared
    records = read_mmau(MMAU_REFERENCE.parent, "test-mini")
    assert len(records) == 1000
    assert Counter(r.task for r in records) == TASK_COUNTS
    assert Counter(r.difficulty for r in records) == DIFFICULTY_COUNTS
    # 664 say "Reasoning", 13 say ["Reasoning"]: all 677 read as the one category.
    assert Counter(r.category for r in records) == {"Reasoning": 677,
                                                    "Information Extraction": 323}
    assert Counter(len(r.choices) for r in records) == {4: 948, 2: 27, 5: 24, 8: 1}
    assert len({r.sub_category for r in records}) == 27
    first = records[0]
    assert audio_path(MMAU_REFERENCE.parent, first) == \
        MMAU_REFERENCE.parent / "test-mini-audios" / f"{first.id}.wav"


def _good(number: int = 1, **changes: Any) -> dict[str, Any]:
    record = {"id": f"q{number}", "audio_id": f"./test-mini-audios/q{number}.wav",
              "question": "What is heard?", "choices": ["Man", "Woman", "Child", "Robot"],
              "answer": "Man", "dataset": "AudioSet", "task": "sound", "split": "test-mini",
              "category": "Reasoning", "sub-category": "Acoustic Source Inference",
              "difficulty": "medium"}
    return record | changes


def _release(tmp_path: Path, records: list[dict[str, Any]], split: str = "test-mini") -> Path:
    name = {"test-mini": "mmau-test-mini.json", "test": "mmau-test.json"}[split]
    (tmp_path / name).write_text(json.dumps(records), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(("changes", "said"), [
    ({"answer": "Dog"}, "record 2 (id 'q2'): the choices ['Man', 'Woman', 'Child', 'Robot'] do "
                        "not contain the answer 'Dog'"),
    ({"choices": [str(n) for n in range(9)], "answer": "0"},
     "record 2 (id 'q2'): choices: list should have at most 8 items after validation, not 9"),
    ({"choices": ["Man"]}, "record 2 (id 'q2'): choices: list should have at least 2 items"),
    ({"task": "noise"}, "record 2 (id 'q2'): task: unknown task 'noise'"),
    ({"difficulty": "extreme"}, "difficulty: unknown difficulty 'extreme'"),
    ({"category": ["Reasoning", "Information Extraction"]},
     "category: a list of 2 categories; expected one"),
    ({"answer": ""}, "record 2 (id 'q2'): no answer; the test-mini split has every answer"),
    ({"audio_id": "/data/q2.wav"}, "audio_id: '/data/q2.wav' must be relative to "
                                   "the release root, not absolute"),
    ({"id": "q1"}, "record 2: id 'q1' already appears as record 1; expected every id once"),
])
def test_a_bad_record_is_one_line_naming_the_file_and_the_record(
        tmp_path: Path, changes: dict[str, Any], said: str) -> None:
    root = _release(tmp_path, [_good(1), _good(2, **changes)])
    with pytest.raises(DataError) as caught:
        read_mmau(root, "test-mini")
    message = str(caught.value)
    assert "\n" not in message and said in message
    assert message.startswith(str(root / "mmau-test-mini.json"))


def test_the_test_split_reads_its_withheld_answers_as_none(tmp_path: Path) -> None:
    root = _release(tmp_path, [_good(1, split="test", answer=""),
                               {k: v for k, v in _good(2).items() if k != "answer"}], "test")
    assert [r.answer for r in read_mmau(root, "test")] == [None, None]


def test_a_missing_split_file_says_what_the_root_should_hold(tmp_path: Path) -> None:
    _release(tmp_path, [_good(1)], "test")
    with pytest.raises(DataError, match=r"no mmau-test-mini\.json there; expected the MMAU "
                                        r"release root of the test-mini split"):
        read_mmau(tmp_path, "test-mini")
