"""MMAR release loading: the real metadata, the legacy json, and bad records."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.mmar import MODALITIES, MODALITY_COUNTS
from pytest_audiobench.benchmarks.mmar.data import (
    CATEGORIES,
    CATEGORY_COUNTS,
    RECORD_COUNT,
    SUB_CATEGORIES,
    MmarRecord,
    audio_path,
    read_mmar,
)
from pytest_audiobench.errors import DataError
from tests.fakes.datasets import (
    MMAR_LEGACY_FIELDS,
    REFERENCE_DIR,
    build_mmar,
    load_mmar_reference,
    reference_available,
)

needs_reference = pytest.mark.skipif(
    not reference_available(), reason="the MMAR reference metadata (../shared/reference) is absent")

REAL_ROOT = REFERENCE_DIR / "mmar"

CRITERION = {"name": "Cue", "scoring_point": "Award 1 point if ...", "note": "n",
             "choices": [0, 1]}
RECORD: dict[str, Any] = {
    "id": "clip_00-00-00_00-00-10",
    "audio_path": "./audio/clip_00-00-00_00-00-10.wav",
    "question": "What type of natural environment might this music originate from",
    "choices": ["Mountain Canyon", "Dense Forest", "Open Grassland", "City Streets"],
    "answer": "Open Grassland",
    "modality": "music",
    "category": "Cultural Layer",
    "sub-category": "Professional Knowledge and Reasoning",
    "language": None,
    "source": "youtube",
    "url": "https://example.invalid/v",
    "timestamp": "00:00:00,00:00:10",
    "thinking": "Throat singing suggests the steppe.",
    "cue": ["Throat Singing"],
    "rubric": [CRITERION] * 5,
}


_DROP = object()
"""A change that removes the field."""


def record(number: int = 0, **changes: Any) -> dict[str, Any]:
    made = {**RECORD, "id": f"clip{number}", "audio_path": f"./audio/clip{number}.wav"}
    made.update(changes)
    return {k: v for k, v in made.items() if v is not _DROP}


def write_jsonl(root: Path, records: list[Any], *, trailing_newline: bool = False) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    text = "\n".join(json.dumps(r) for r in records) + ("\n" if trailing_newline else "")
    (root / "MMAR-meta.jsonl").write_text(text, encoding="utf-8")
    return root


# --- the real metadata ------------------------------------------------------------------------


@needs_reference
def test_the_real_release_loads_1000_records_with_rubrics() -> None:
    records, has_rubrics = read_mmar(REAL_ROOT)
    assert len(records) == RECORD_COUNT == 1000
    assert has_rubrics is True
    assert all(r.rubric is not None and len(r.rubric) == 5 for r in records)
    assert all(r.thinking for r in records)
    assert [r.id for r in records] == [raw["id"] for raw in load_mmar_reference()]


@needs_reference
def test_the_real_release_has_the_published_modality_counts() -> None:
    records, _ = read_mmar(REAL_ROOT)
    counts = Counter(r.modality for r in records)
    assert counts == {"speech": 294, "mix-sound-speech": 218, "music": 206, "sound": 165,
                      "mix-music-speech": 82, "mix-sound-music-speech": 24,
                      "mix-sound-music": 11}
    assert counts == MODALITY_COUNTS
    assert set(MODALITIES) == set(counts)


@needs_reference
def test_the_real_release_has_the_published_category_counts() -> None:
    records, _ = read_mmar(REAL_ROOT)
    counts = Counter(r.category for r in records)
    assert counts == {"Semantic Layer": 412, "Perception Layer": 404, "Cultural Layer": 141,
                      "Signal Layer": 43}
    assert counts == CATEGORY_COUNTS
    assert set(CATEGORIES) == set(counts)


@needs_reference
def test_the_real_release_has_16_sub_categories() -> None:
    records, _ = read_mmar(REAL_ROOT)
    sub_categories = Counter(r.sub_category for r in records)
    assert len(sub_categories) == 16
    assert set(sub_categories) == set(SUB_CATEGORIES)
    assert sum(sub_categories.values()) == 1000


@needs_reference
def test_audio_comes_from_the_audio_path_field_not_the_id() -> None:
    records, _ = read_mmar(REAL_ROOT)
    root = Path("/data/mmar")
    differing = [r for r in records if audio_path(root, r).stem != r.id]
    assert len(differing) == 46
    example = next(r for r in records if r.id == "BV1kx411m7UN_2-45_3-15")
    assert audio_path(root, example) == root / "audio" / "BV1kx411m7UN_00-02-45_00-03-15.wav"
    assert all(audio_path(root, r).parent == root / "audio" for r in records)


@needs_reference
def test_a_built_release_has_audio_where_every_record_points(tmp_path: Path) -> None:
    raws = load_mmar_reference()
    chosen = [r for r in raws if Path(r["audio_path"]).stem != r["id"]][:5] + raws[:5]
    root = build_mmar(tmp_path / "mmar", chosen)
    records, has_rubrics = read_mmar(root)
    assert has_rubrics
    assert all(audio_path(root, r).is_file() for r in records)


@needs_reference
def test_the_legacy_json_loads_without_rubrics(tmp_path: Path) -> None:
    raws = load_mmar_reference()[:30]
    root = build_mmar(tmp_path / "mmar", raws, legacy_json=True)
    assert not (root / "MMAR-meta.jsonl").exists()
    records, has_rubrics = read_mmar(root)
    assert has_rubrics is False
    assert [r.id for r in records] == [raw["id"] for raw in raws]
    assert all(r.rubric is None and r.thinking is None and r.cue is None for r in records)
    assert records[0].model_dump(by_alias=True, include={"id", "sub_category"}) == {
        "id": raws[0]["id"], "sub-category": raws[0]["sub-category"]}
    assert len(MMAR_LEGACY_FIELDS) == 12


# --- layout -----------------------------------------------------------------------------------


def test_the_jsonl_is_preferred_when_both_files_are_present(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1)])
    (root / "MMAR-meta.json").write_text(json.dumps([record(2)]), encoding="utf-8")
    records, has_rubrics = read_mmar(root)
    assert [r.id for r in records] == ["clip1"]
    assert has_rubrics


@pytest.mark.parametrize("trailing_newline", [False, True], ids=["no_final_newline",
                                                                  "final_newline"])
def test_blank_lines_and_the_final_newline_are_tolerated(tmp_path: Path,
                                                         trailing_newline: bool) -> None:
    root = tmp_path / "mmar"
    root.mkdir()
    lines = [json.dumps(record(1)), "", "   ", json.dumps(record(2)), "\r"]
    text = "\n".join(lines) + ("\n" if trailing_newline else "")
    (root / "MMAR-meta.jsonl").write_text(text, encoding="utf-8")
    records, _ = read_mmar(root)
    assert [r.id for r in records] == ["clip1", "clip2"]


def test_a_record_without_any_rubric_means_a_release_without_rubrics(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1, rubric=_DROP), record(2, rubric=None)])
    _, has_rubrics = read_mmar(root)
    assert has_rubrics is False


def test_extra_fields_such_as_predictions_are_ignored(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1, answer_prediction="Open Grassland")])
    records, _ = read_mmar(root)
    assert records[0].answer == "Open Grassland"


def test_a_placeholder_empty_choice_is_kept_as_in_the_release(tmp_path: Path) -> None:
    choices = ["Yes", "No, there is distortion", ""]
    root = write_jsonl(tmp_path, [record(1, choices=choices, answer="Yes")])
    assert read_mmar(root)[0][0].choices == choices


@pytest.mark.parametrize(("value", "expected"), [
    pytest.param("./audio/a.wav", Path("audio/a.wav"), id="dot_slash"),
    pytest.param("audio/a.wav", Path("audio/a.wav"), id="plain_relative"),
    pytest.param(".\\audio\\a.wav", Path("audio/a.wav"), id="windows_separators"),
])
def test_audio_path_resolves_under_the_root(tmp_path: Path, value: str, expected: Path) -> None:
    made = MmarRecord.model_validate(record(1, audio_path=value))
    assert audio_path(tmp_path, made) == tmp_path / expected


@pytest.mark.parametrize("value", ["/etc/passwd", "../outside.wav", "./audio/../../x.wav",
                                   "C:\\audio\\a.wav", "."])
def test_audio_path_refuses_to_leave_the_root(tmp_path: Path, value: str) -> None:
    # A record built without validation, as a caller might: audio_path checks again.
    unchecked = MmarRecord.model_construct(**{**record(1), "audio_path": value})
    with pytest.raises(DataError, match="clip1"):
        audio_path(tmp_path, unchecked)


# --- errors -----------------------------------------------------------------------------------

BAD_RECORDS = [
    pytest.param({"answer": "Snowy Tundra"}, "choices do not contain the answer 'Snowy Tundra'",
                 id="answer_not_among_choices"),
    pytest.param({"answer": "open grassland"}, "choices do not contain the answer",
                 id="answer_differs_in_case"),
    pytest.param({"choices": ["Only"], "answer": "Only"}, "choices: list should have at least 2",
                 id="one_choice"),
    pytest.param({"choices": list("abcdefg"), "answer": "a"}, "choices: list should have at most 6",
                 id="seven_choices"),
    pytest.param({"choices": ["Open Grassland", 3]}, "choices.1: input should be a valid string",
                 id="a_number_choice"),
    pytest.param({"choices": "Open Grassland"}, "choices: input should be a valid list",
                 id="choices_as_a_string"),
    pytest.param({"question": _DROP}, "question: field required", id="no_question"),
    pytest.param({"sub-category": _DROP}, "sub-category: field required", id="no_sub_category"),
    pytest.param({"modality": "noise"}, "unknown modality 'noise'", id="unknown_modality"),
    pytest.param({"category": "Layer Cake"}, "unknown category 'Layer Cake'",
                 id="unknown_category"),
    pytest.param({"rubric": [CRITERION] * 4}, "rubric: list should have at least 5",
                 id="four_criteria"),
    pytest.param({"rubric": [CRITERION] * 6}, "rubric: list should have at most 5",
                 id="six_criteria"),
    pytest.param({"rubric": [{**CRITERION, "choices": []}] * 5},
                 "rubric.0.choices: list should have at least 1", id="criterion_without_choices"),
    pytest.param({"rubric": [{**CRITERION, "choices": ["0", "1"]}] * 5},
                 "rubric.0.choices.0: input should be a valid integer",
                 id="criterion_with_string_choices"),
    pytest.param({"audio_path": "/abs/clip.wav"}, "must be relative to the release root",
                 id="absolute_audio_path"),
    pytest.param({"audio_path": "./audio/../../clip.wav"}, "must stay inside the release root",
                 id="audio_path_with_dot_dot"),
]


@pytest.mark.parametrize(("changes", "message"), BAD_RECORDS)
def test_a_bad_record_names_the_flag_file_line_id_and_expectation(
        tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    root = write_jsonl(tmp_path, [record(1), record(2), record(3, **changes)])
    with pytest.raises(DataError) as caught:
        read_mmar(root)
    text = str(caught.value)
    assert text.startswith(f"--audiobench-data {root}: {root / 'MMAR-meta.jsonl'} line 3 "
                           "(id 'clip3'): ")
    assert message in text
    assert "expected an object with id, audio_path" in text


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1)])
    with (root / "MMAR-meta.jsonl").open("a", encoding="utf-8") as f:
        f.write('\n{"id": "clip2", ')
    with pytest.raises(DataError, match=r"MMAR-meta.jsonl line 2: not valid JSON .*expected "
                                        "one JSON object per line"):
        read_mmar(root)


def test_a_line_that_is_not_an_object_is_rejected(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1), [1, 2]])
    with pytest.raises(DataError, match="line 2: found a JSON list; expected an object"):
        read_mmar(root)


def test_a_record_without_id_still_names_its_line(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1, id=_DROP)])
    with pytest.raises(DataError, match=r"line 1: id: field required"):
        read_mmar(root)


def test_duplicate_ids_name_both_lines(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1), record(2), record(1)])
    with pytest.raises(DataError, match=r"line 3: id 'clip1' already appears on line 1"):
        read_mmar(root)


def test_rubrics_on_some_records_only_are_rejected(tmp_path: Path) -> None:
    root = write_jsonl(tmp_path, [record(1), record(2, rubric=_DROP), record(3)])
    with pytest.raises(DataError, match=r"line 2 \(id 'clip2'\): no rubric, while 2 other "
                                        "records have one"):
        read_mmar(root)


def test_an_empty_metadata_file_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "MMAR-meta.jsonl").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataError, match="holds no records; expected the 1,000 MMAR records"):
        read_mmar(tmp_path)


def test_a_file_that_is_not_utf8_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "MMAR-meta.jsonl").write_bytes(b"\xff\xfe{}")
    with pytest.raises(DataError, match=r"cannot read .* as UTF-8 text"):
        read_mmar(tmp_path)


def test_a_folder_without_metadata_says_what_is_expected(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        read_mmar(tmp_path)
    assert str(caught.value) == (
        f"--audiobench-data {tmp_path}: neither MMAR-meta.jsonl nor MMAR-meta.json is there; "
        "expected the MMAR release root, the folder that holds MMAR-meta.jsonl (or the older "
        "MMAR-meta.json) and the audio/ folder")


@pytest.mark.parametrize("name", ["MMAR-meta.jsonl", "MMAR-meta.json"])
def test_passing_the_metadata_file_itself_suggests_its_folder(tmp_path: Path, name: str) -> None:
    meta = tmp_path / name
    meta.write_text("[]", encoding="utf-8")
    with pytest.raises(DataError, match=re.escape(f"pass its folder, {tmp_path}")):
        read_mmar(meta)


def test_a_parent_folder_of_the_release_is_pointed_to_it(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "MMAR", [record(1)])
    with pytest.raises(DataError, match=r"did you mean .*MMAR"):
        read_mmar(tmp_path)


# --- the legacy json --------------------------------------------------------------------------

Legacy = Callable[[list[Any]], Path]


@pytest.fixture
def legacy(tmp_path: Path) -> Legacy:
    def write(records: list[Any]) -> Path:
        text = json.dumps(records, indent=4)
        (tmp_path / "MMAR-meta.json").write_text(text, encoding="utf-8")
        return tmp_path
    return write


def _legacy(number: int, **changes: Any) -> dict[str, Any]:
    full = record(number, **changes)
    return {k: full[k] for k in MMAR_LEGACY_FIELDS if k in full}


def test_a_bad_legacy_record_names_the_line_it_starts_on(legacy: Legacy) -> None:
    root = legacy([_legacy(1), _legacy(2), _legacy(3, answer="Snowy Tundra")])
    text = (root / "MMAR-meta.json").read_text(encoding="utf-8")
    start = text.count("\n", 0, text.index('"id": "clip3"'))  # the line of its "{"
    with pytest.raises(DataError, match=rf"MMAR-meta.json line {start} \(id 'clip3'\): "
                                        "choices do not contain the answer"):
        read_mmar(root)


def test_a_legacy_file_that_is_not_an_array_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "MMAR-meta.json").write_text('{"id": "x"}', encoding="utf-8")
    with pytest.raises(DataError, match="expected a JSON array of records"):
        read_mmar(tmp_path)


def test_a_broken_legacy_array_names_the_line(tmp_path: Path) -> None:
    body = json.dumps([_legacy(1)], indent=4)[:-1] + '    {"id": \n]'
    (tmp_path / "MMAR-meta.json").write_text(body, encoding="utf-8")
    with pytest.raises(DataError, match=r"MMAR-meta.json line \d+: "):
        read_mmar(tmp_path)


def test_a_legacy_array_with_duplicate_ids_is_rejected(legacy: Legacy) -> None:
    root = legacy([_legacy(1), _legacy(1)])
    with pytest.raises(DataError, match="id 'clip1' already appears on line 2"):
        read_mmar(root)
