"""Loading an AIR-Bench Chat release: the layout, the records' schema, and sample selection."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.air_bench_chat import SPEC, TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.benchmark import AirBenchChat
from pytest_audiobench.benchmarks.air_bench_chat.data import read_records
from pytest_audiobench.benchmarks.release import select
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.errors import DataError
from tests.fakes.datasets import (
    REFERENCE_DIR,
    build_air_bench_chat,
    chat_records,
    load_chat_reference,
    reference_available,
)
from tests.settings import make_settings

needs_reference = pytest.mark.skipif(
    not reference_available(),
    reason=f"reference metadata not found at {REFERENCE_DIR} (a clone outside this setup)",
)

OFFICIAL_COUNTS = {
    "speech_QA": 400,
    "speech_dialogue_QA": 400,
    "sound_QA": 400,
    "sound_generation_QA": 100,
    "music_QA": 400,
    "music_generation_analysis_QA": 100,
    "speech_and_sound_QA": 200,
    "speech_and_music_QA": 200,
}


def load(root: Path, tmp_path: Path, tasks: tuple[str, ...] = (),
         limit: int | None = None) -> list[Sample]:
    """The samples a run with these options takes: the release, then tasks and limit."""
    settings = make_settings(tmp_path, model="m", api_url="http://x", judge_model="j",
                             judge_api_url="http://y", data=str(root), tasks=tasks or None,
                             limit=limit)
    release = AirBenchChat(settings).load(root)
    return select(release.samples, SPEC, settings.tasks, settings.limit)


def write_meta(root: Path, data: Any) -> Path:
    """Write ``root/Chat/Chat_meta.json`` holding ``data`` (no audio) and return the file."""
    meta = root / "Chat" / "Chat_meta.json"
    meta.parent.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return meta


def record(uniq_id: int = 0, /, **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "path": f"clip{uniq_id}.wav", "question": "What do you hear?", "answer_gt": "A bell.",
        "task_name": "sound_QA", "dataset_name": "clotho", "meta_info": "{'caption': 'bell'}",
        "uniq_id": uniq_id,
    }
    for key, value in changes.items():
        if value is None:
            del base[key]
        else:
            base[key] = value
    return base


@pytest.fixture(scope="module")
def full_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2,200 reference records, shuffled so that file order is not id order (no audio)."""
    if not reference_available():
        pytest.skip(f"reference metadata not found at {REFERENCE_DIR}")
    records = load_chat_reference()
    random.Random(7).shuffle(records)
    root = tmp_path_factory.mktemp("full-release")
    write_meta(root, records)
    return root


@pytest.fixture(scope="module")
def small_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three real records of each task, with generated audio at the official paths."""
    if not reference_available():
        pytest.skip(f"reference metadata not found at {REFERENCE_DIR}")
    return build_air_bench_chat(tmp_path_factory.mktemp("small-release"), chat_records(3))


# --- the full reference ----------------------------------------------------------------------


@needs_reference
def test_the_full_release_loads_every_record_with_the_official_counts(
        full_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    samples = load(full_root, tmp_path)
    elapsed = time.perf_counter() - start
    with capsys.disabled():
        print(f"\nloaded {len(samples)} AIR-Bench Chat records in {elapsed * 1000:.0f} ms")
    assert len(samples) == 2200
    assert Counter(s.task for s in samples) == OFFICIAL_COUNTS


@needs_reference
def test_every_sample_carries_its_tasks_category(full_root: Path, tmp_path: Path) -> None:
    samples = load(full_root, tmp_path)
    assert all(s.category == TASK_CATEGORY[s.task] for s in samples)
    assert Counter(s.category for s in samples) == {
        "speech": 800, "sound": 500, "music": 500, "speech_and_sound": 200,
        "speech_and_music": 200}


@needs_reference
def test_samples_come_in_uniq_id_order_whatever_the_file_order(full_root: Path,
                                                               tmp_path: Path) -> None:
    ids = [int(s.id) for s in load(full_root, tmp_path)]
    assert ids == list(range(2200))


@needs_reference
def test_each_sample_carries_its_records_fields(full_root: Path, tmp_path: Path) -> None:
    by_id = {r["uniq_id"]: r for r in load_chat_reference()}
    for sample in load(full_root, tmp_path):
        raw = by_id[int(sample.id)]
        assert sample.benchmark == "air_bench_chat"
        assert sample.task == raw["task_name"]
        assert sample.question == raw["question"]
        assert sample.reference == raw["answer_gt"]
        assert sample.context == raw["meta_info"]
        assert sample.audio == (full_root / "Chat" / f"{raw['task_name']}_{raw['dataset_name']}"
                                / raw["path"])
        assert sample.nodeid == f"audiobench::air_bench_chat::{raw['task_name']}::{sample.id}"


def test_the_samples_of_a_task_share_one_string_for_its_name(tmp_path: Path) -> None:
    # The run keeps every sample to its end: a name each would cost a string a sample.
    write_meta(tmp_path / "release", [record(i) for i in range(3)])
    samples = load(tmp_path / "release", tmp_path)
    assert len({id(s.task) for s in samples}) == len({id(s.category) for s in samples}) == 1


@needs_reference
def test_the_release_uses_ten_audio_folders(full_root: Path, tmp_path: Path) -> None:
    folders = {s.audio.parent for s in load(full_root, tmp_path)}
    assert len(folders) == 10
    assert all(folder.parent == full_root / "Chat" for folder in folders)


@needs_reference
@pytest.mark.parametrize("task", sorted(OFFICIAL_COUNTS))
def test_one_task_selects_only_its_samples(full_root: Path, tmp_path: Path, task: str) -> None:
    samples = load(full_root, tmp_path, tasks=(task,))
    assert {s.task for s in samples} == {task}
    assert len(samples) == OFFICIAL_COUNTS[task]


@needs_reference
def test_several_tasks_select_their_union(full_root: Path, tmp_path: Path) -> None:
    samples = load(full_root, tmp_path, tasks=("speech_QA", "sound_generation_QA"))
    assert Counter(s.task for s in samples) == {"speech_QA": 400, "sound_generation_QA": 100}


@needs_reference
def test_a_limit_takes_the_lowest_uniq_ids_of_each_task(full_root: Path, tmp_path: Path) -> None:
    samples = load(full_root, tmp_path, limit=3)
    assert Counter(s.task for s in samples) == dict.fromkeys(OFFICIAL_COUNTS, 3)
    lowest: dict[str, list[int]] = {}
    for raw in sorted(load_chat_reference(), key=lambda r: r["uniq_id"]):
        lowest.setdefault(raw["task_name"], []).append(raw["uniq_id"])
    for task in OFFICIAL_COUNTS:
        assert [int(s.id) for s in samples if s.task == task] == lowest[task][:3]


@needs_reference
def test_a_limit_gives_the_same_samples_on_every_call(full_root: Path, tmp_path: Path) -> None:
    first = load(full_root, tmp_path, limit=3)
    assert load(full_root, tmp_path, limit=3) == first
    assert load(full_root, tmp_path, limit=3) == first


@needs_reference
def test_a_limit_applies_within_the_selected_tasks(full_root: Path, tmp_path: Path) -> None:
    samples = load(full_root, tmp_path, tasks=("music_QA",), limit=5)
    assert [s.task for s in samples] == ["music_QA"] * 5


@needs_reference
def test_a_limit_above_a_tasks_size_takes_the_whole_task(full_root: Path, tmp_path: Path) -> None:
    samples = load(full_root, tmp_path, limit=150)
    counts = Counter(s.task for s in samples)
    assert counts["sound_generation_QA"] == 100
    assert counts["speech_QA"] == 150


# --- a small release with audio --------------------------------------------------------------


@needs_reference
def test_every_sample_points_at_the_audio_file_the_release_holds(small_root: Path,
                                                                 tmp_path: Path) -> None:
    samples = load(small_root, tmp_path)
    assert len(samples) == 24
    assert all(s.audio.is_file() for s in samples)
    for sample, raw in zip(samples, sorted(chat_records(3), key=lambda r: r["uniq_id"]),
                           strict=True):
        assert sample.audio == (small_root / "Chat" / f"{raw['task_name']}_{raw['dataset_name']}"
                                / raw["path"])


def test_read_records_keeps_the_files_order_and_types_the_records(tmp_path: Path) -> None:
    write_meta(tmp_path, [record(5), record(2, task_name="music_QA", dataset_name="musiccaps")])
    records = read_records(tmp_path)
    assert [(r.uniq_id, r.task_name) for r in records] == [(5, "sound_QA"), (2, "music_QA")]
    assert records[0].meta_info == "{'caption': 'bell'}"


def test_extra_fields_of_a_record_are_ignored(tmp_path: Path) -> None:
    write_meta(tmp_path, [record(0, duration=3.5)])
    assert [r.uniq_id for r in read_records(tmp_path)] == [0]


def test_an_empty_task_selection_means_every_task(tmp_path: Path) -> None:
    write_meta(tmp_path, [record(0), record(1, task_name="speech_QA",
                                            dataset_name="iemocap")])
    assert [s.task for s in load(tmp_path, tmp_path, tasks=())] == ["sound_QA", "speech_QA"]


# --- a release that is not where it should be -------------------------------------------------


def test_a_missing_meta_file_names_the_flag_and_the_expected_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"--audiobench-data {tmp_path}:")
    assert "Chat/Chat_meta.json" in message
    assert "pass its parent" not in message


def test_pointing_at_the_chat_folder_itself_says_to_pass_its_parent(tmp_path: Path) -> None:
    write_meta(tmp_path, [record(0)])
    with pytest.raises(DataError, match="pass its parent") as caught:
        read_records(tmp_path / "Chat")
    assert str(tmp_path) in str(caught.value)


def test_the_loader_reports_the_same_error_as_read_records(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="--audiobench-data"):
        load(tmp_path, tmp_path)


# --- a meta file that is not an array of records ----------------------------------------------


@pytest.mark.parametrize("content", [
    pytest.param(b"[{\"uniq_id\": 0,", id="truncated_json"),
    pytest.param(b"", id="an_empty_file"),
    pytest.param(b"[\"caf\xe9\"]", id="not_utf8"),
])
def test_a_meta_file_that_is_not_json_names_the_file(tmp_path: Path, content: bytes) -> None:
    meta = write_meta(tmp_path, [])
    meta.write_bytes(content)
    with pytest.raises(DataError, match="not readable as JSON") as caught:
        read_records(tmp_path)
    assert str(meta) in str(caught.value)


@pytest.mark.parametrize(("data", "found"), [
    pytest.param({"records": []}, "dict", id="an_object"),
    pytest.param("records", "str", id="a_string"),
    pytest.param(None, "NoneType", id="null"),
])
def test_a_meta_file_that_is_not_an_array_names_what_it_found(tmp_path: Path, data: Any,
                                                              found: str) -> None:
    meta = write_meta(tmp_path, data)
    with pytest.raises(DataError, match=f"expected a JSON array of records, found {found}") as err:
        read_records(tmp_path)
    assert str(meta) in str(err.value)


# --- a record that does not fit the schema ----------------------------------------------------


@pytest.mark.parametrize("field", ["path", "question", "answer_gt", "task_name", "dataset_name",
                                   "meta_info", "uniq_id"])
def test_a_record_missing_a_field_names_the_file_the_record_and_the_field(
        tmp_path: Path, field: str) -> None:
    meta = write_meta(tmp_path, [record(10), record(11), record(12, **{field: None})])
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{meta}: record 2")
    assert f"{field}: field required" in message
    if field != "uniq_id":
        assert "(uniq_id 12)" in message


def test_a_record_missing_its_question_names_everything_needed_to_find_it(
        tmp_path: Path) -> None:
    meta = write_meta(tmp_path, [record(0), record(41, question=None)])
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    assert str(caught.value).startswith(f"{meta}: record 1 (uniq_id 41): question: field required")


BAD_VALUES = [
    pytest.param({"uniq_id": "5"}, "uniq_id: input should be a valid integer",
                 id="a_uniq_id_written_as_a_string"),
    pytest.param({"uniq_id": 5.0}, "uniq_id: input should be a valid integer",
                 id="a_uniq_id_written_as_a_float"),
    pytest.param({"uniq_id": True}, "uniq_id: input should be a valid integer",
                 id="a_uniq_id_written_as_a_boolean"),
    pytest.param({"meta_info": {"caption": "bell"}}, "meta_info: input should be a valid string",
                 id="meta_info_as_an_object_not_a_string"),
    pytest.param({"path": ""}, "path: string should have at least 1 character",
                 id="an_empty_path"),
    pytest.param({"answer_gt": 7}, "answer_gt: input should be a valid string",
                 id="a_numeric_answer"),
]


@pytest.mark.parametrize(("changes", "problem"), BAD_VALUES)
def test_a_record_with_a_wrong_type_is_a_data_error(tmp_path: Path, changes: dict[str, Any],
                                                    problem: str) -> None:
    raw = record(5)
    raw.update({k: v for k, v in changes.items() if v is not None})
    for key in (k for k, v in changes.items() if v is None):
        del raw[key]
    meta = write_meta(tmp_path, [raw])
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{meta}: record 0")
    assert problem in message
    assert "uniq_id (integer)" in message


def test_a_uniq_id_string_is_quoted_in_the_message(tmp_path: Path) -> None:
    write_meta(tmp_path, [record(0, uniq_id="5")])
    with pytest.raises(DataError, match=r"record 0 \(uniq_id '5'\)"):
        read_records(tmp_path)


@pytest.mark.parametrize("item", [pytest.param("a string", id="a_string"),
                                  pytest.param([1, 2], id="a_list"),
                                  pytest.param(None, id="null")])
def test_a_record_that_is_not_an_object_is_a_data_error(tmp_path: Path, item: Any) -> None:
    meta = write_meta(tmp_path, [record(0), item])
    with pytest.raises(DataError, match="valid dictionary") as caught:
        read_records(tmp_path)
    assert str(caught.value).startswith(f"{meta}: record 1")


def test_an_unknown_task_name_lists_the_accepted_ones(tmp_path: Path) -> None:
    meta = write_meta(tmp_path, [record(3, task_name="speech_qa")])
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{meta}: record 0 (uniq_id 3): unknown task_name 'speech_qa'")
    assert "expected one of " + ", ".join(TASK_CATEGORY) in message


def test_a_duplicate_uniq_id_is_a_data_error_naming_it(tmp_path: Path) -> None:
    meta = write_meta(tmp_path, [record(7), record(8), record(7, question="Another?")])
    with pytest.raises(DataError) as caught:
        read_records(tmp_path)
    assert str(caught.value) == f"{meta}: uniq_id 7 appears more than once"


@pytest.mark.parametrize("path", [
    pytest.param("../../../secret.wav", id="a_path_climbing_out_of_the_release"),
    pytest.param("/etc/passwd", id="an_absolute_path"),
])
def test_a_record_path_that_is_not_a_bare_file_name_is_rejected(tmp_path: Path,
                                                                path: str) -> None:
    write_meta(tmp_path, [record(0, path=path)])
    with pytest.raises(DataError, match="path"):
        load(tmp_path, tmp_path)
