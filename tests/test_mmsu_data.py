"""MMSU's data layer: the converted layout read back in the release's order (each bad line one
line naming its file and line, a note when the release is not whole), a local snapshot of
the hub repo's parquet files converted once into it, and `download_mmsu` against a local fake
hub (the repo's parquet files converted into the layout `read_mmsu` reads, a bad row named).
What every hub download does is held once for all in ``test_hub_downloads.py``."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from pytest_audiobench.benchmarks.mmsu import data, facts
from pytest_audiobench.benchmarks.mmsu.data import MmsuRecord, read_mmsu
from pytest_audiobench.benchmarks.mmsu.download import download_mmsu
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import pyarrow_install
from tests.conftest import failed_download
from tests.fakes.datasets import tiny_wav
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

REPO = facts.HUB_REPO
FIRST, SECOND = "data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"


def _row(number: int, task: str, category: str, **changes: Any) -> dict[str, Any]:
    """A release row: four options, the answer the second."""
    row = {"id": f"{task}_{number}", "task_name": task,
           "audio": {"bytes": tiny_wav(number), "path": f"{task}_{number}.wav"},
           "question": f"Question {number}?", "choice_a": f"first {number}",
           "choice_b": f"second {number}", "choice_c": f"third {number}",
           "choice_d": f"fourth {number}", "answer_gt": f"second {number}",
           "category": category, "sub-category": "Phonetics",
           "sub-sub-category": "Stress", "linguistics_sub_discipline": "phonology"}
    return row | changes


def _rows() -> list[dict[str, Any]]:
    """Five rows over two tasks and both categories; the third has two options only (empty
    strings), the fourth nulls for them, the fifth an mp3 name and the last no name."""
    return [
        _row(1, "accent_identification", "perception"),
        _row(2, "accent_identification", "perception", audio={"bytes": tiny_wav(2), "path": ""}),
        _row(3, "emotion_reasoning", "reasoning", choice_c="", choice_d="",
             answer_gt="first 3"),
        _row(4, "emotion_reasoning", "reasoning", choice_c=None, choice_d=None,
             **{"sub-sub-category": None}),
        _row(5, "emotion_reasoning", "reasoning",
             audio={"bytes": tiny_wav(5), "path": "clips/original.mp3"}),
        _row(6, "accent_identification", "perception", audio={"bytes": tiny_wav(6), "path": None}),
    ]


IDS = [row["id"] for row in _rows()]


def _snapshot(base: Path, rows: Sequence[Mapping[str, Any]] | None = None) -> Path:
    """The hub repo's files under `base`: the rows in two parquet files, a card, a wav."""
    rows = _rows() if rows is None else rows
    write_parquet(base / FIRST, rows[:2])
    write_parquet(base / SECOND, rows[2:])
    (base / "README.md").write_text("# MMSU\n", encoding="utf-8")
    (base / "audio").mkdir()
    (base / "audio" / "accent_identification_1.wav").write_bytes(tiny_wav(1))
    return base


def _line(number: int = 1, **changes: Any) -> dict[str, Any]:
    """A line of the converted layout."""
    line = _row(number, "accent_identification", "perception")
    return line | {"audio": f"audio/accent_identification_{number}.wav"} | changes


def _converted(folder: Path, lines: Sequence[Mapping[str, Any] | str]) -> Path:
    """The converted layout in `folder`: the lines (a str written as it is) and a clip for
    each line of the usual form."""
    (folder / "audio").mkdir(parents=True)
    for number in range(1, len(lines) + 1):
        (folder / "audio" / f"accent_identification_{number}.wav").write_bytes(tiny_wav(number))
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                   for line in lines)
    (folder / facts.CONVERTED).write_text(text, encoding="utf-8")
    return folder


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- the converted layout ---------------------------------------------------------------------


def test_the_converted_layout_reads_in_its_order_with_its_fields(tmp_path: Path) -> None:
    folder = _converted(tmp_path / "mmsu", [
        _line(2), _line(1, choice_c=None, choice_d="", answer_gt="first 1"),
    ])

    records, note = read_mmsu(folder, tmp_path / "cache")

    assert [r.id for r in records] == ["accent_identification_2", "accent_identification_1"]
    first, second = records
    assert first.audio == folder.resolve() / "audio" / "accent_identification_2.wav"
    assert first.audio.is_absolute() and sf.info(str(first.audio)).samplerate == 16000
    assert (first.task_name, first.category, first.sub_category, first.sub_sub_category,
            first.linguistics_sub_discipline) == ("accent_identification", "perception",
                                                  "Phonetics", "Stress", "phonology")
    assert first.choices == ("first 2", "second 2", "third 2", "fourth 2")
    assert second.choices == ("first 1", "second 1")
    assert second.letters == {"A": "first 1", "B": "second 1", "C": "", "D": ""}
    assert note is not None
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at column 2)"),
    ("[1, 2]", "found a JSON list; expected an object with the strings id, task_name"),
    ({k: v for k, v in _line(2).items() if k != "question"},
     "(id 'accent_identification_2'): question: field required"),
    (_line(2, choice_a=7), "choice_a: input should be a valid string"),
    (_line(2, answer_gt="B"), "answer_gt 'B' is none of the options ['first 2', 'second 2', "
                              "'third 2', 'fourth 2']"),
    (_line(2, answer_gt="", choice_d=""), "answer_gt: string should have at least 1 character"),
    (_line(2, task_name=""), "task_name: string should have at least 1 character"),
    (_line(2, category=""), "category: string should have at least 1 character"),
    (_line(2, id="accent_identification_1"),
     "the id 'accent_identification_1' already appears on line 1; expected every id once"),
    (_line(2, audio="../outside.wav"), "audio '../outside.wav' must stay inside the release "
                                       "root (no '..')"),
    (_line(2, audio="/tmp/clip.wav"), "audio '/tmp/clip.wav' must be relative"),
    (_line(2, audio="audio/missing.wav"), "no audio file"),
], ids=["not-json", "not-an-object", "no-question", "not-a-string", "answer-not-an-option",
        "empty-answer", "empty-task", "empty-category", "id-twice", "leaves-the-folder",
        "absolute", "missing-audio"])
def test_a_bad_line_is_one_line_naming_the_file_and_the_line(
    tmp_path: Path, line: dict[str, Any] | str, said: str
) -> None:
    folder = _converted(tmp_path / "mmsu", [_line(1), line, _line(3)])

    with pytest.raises(DataError) as raised:
        read_mmsu(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.CONVERTED}: line 2")
    assert said in message


def test_an_audio_link_that_leaves_the_folder_is_named(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.wav"
    outside.write_bytes(tiny_wav(9))
    folder = _converted(tmp_path / "mmsu", [_line(1), _line(2, audio="audio/linked.wav")])
    (folder / "audio" / "linked.wav").symlink_to(outside)

    with pytest.raises(DataError) as raised:
        read_mmsu(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.CONVERTED}: line 2")
    assert f"leads to {outside.resolve()}, outside {folder.resolve()}" in message


def test_an_empty_converted_file_holds_no_records(tmp_path: Path) -> None:
    folder = _converted(tmp_path / "mmsu", [])

    with pytest.raises(DataError, match="holds no records; expected the 5,000 questions"):
        read_mmsu(folder, tmp_path / "cache")


def test_a_folder_with_neither_layout_names_the_root_and_both_layouts(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# MMSU\n", encoding="utf-8")

    with pytest.raises(DataError) as raised:
        read_mmsu(tmp_path, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {tmp_path.resolve()}: neither mmsu.jsonl "
                              "nor any *.parquet file in it nor below it;")
    assert "the converted layout (mmsu.jsonl" in message and REPO in message
    with pytest.raises(DataError, match=r"there \(no such folder\)"):
        read_mmsu(tmp_path / "missing", tmp_path / "cache")


def test_part_of_the_release_gets_a_note_and_the_whole_release_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _converted(tmp_path / "mmsu", [_line(1), _line(2)])

    _, part = read_mmsu(folder, tmp_path / "cache")
    monkeypatch.setattr(data, "SIZE", 2)
    _, whole = read_mmsu(folder, tmp_path / "cache")
    monkeypatch.setattr(data, "SIZE", 1)
    _, more = read_mmsu(folder, tmp_path / "cache")

    assert part == ("mmsu: 2 of 5,000 questions (not the whole release: its numbers are not "
                    "comparable with published ones)")
    assert whole is None
    assert more is not None and more.startswith("mmsu: 2 questions where the release has 1")


PADDED_ROWS = [  # the release pads two- and three-option items with nulls in any place
    _row(1, "gender", "perception", choice_a=None, choice_d=None, answer_gt="second 1"),
    _row(2, "gender", "perception", choice_b=None, answer_gt="third 2"),
    _row(3, "gender", "perception", choice_a=None, choice_c=None, answer_gt="fourth 3"),
    _row(4, "gender", "perception", choice_a="", choice_b=None, choice_c=None,
         answer_gt="fourth 4"),
]


def test_options_missing_in_any_place_are_read_and_keep_their_letters(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "MMSU", PADDED_ROWS)

    records, _ = read_mmsu(snapshot, tmp_path / "cache")

    assert [r.letters for r in records] == [
        {"A": "", "B": "second 1", "C": "third 1", "D": ""},
        {"A": "first 2", "B": "", "C": "third 2", "D": "fourth 2"},
        {"A": "", "B": "second 3", "C": "", "D": "fourth 3"},
        {"A": "", "B": "", "C": "", "D": "fourth 4"},
    ]
    assert records[0].choices == ("second 1", "third 1")
    [folder] = _converted_folders(tmp_path / "cache")
    lines = [json.loads(line) for line in
             (folder / facts.CONVERTED).read_text(encoding="utf-8").splitlines()]
    assert [(line["choice_a"], line["choice_d"]) for line in lines[:1]] == [("", "")]
    assert read_mmsu(folder, tmp_path / "elsewhere")[0] == records


def test_a_row_without_any_option_names_the_row(tmp_path: Path) -> None:
    empty = _row(5, "gender", "perception", choice_a=None, choice_b=None, choice_c="",
                 choice_d=None)
    snapshot = _snapshot(tmp_path / "MMSU", [*PADDED_ROWS[:2], empty])

    with pytest.raises(DataError) as raised:
        read_mmsu(snapshot, tmp_path / "cache")

    message = _one_line(raised)
    assert f"{snapshot.resolve() / SECOND}: row 1 (id 'gender_5'): answer_gt 'second 5' is " \
           "none of the options []" in message


def test_a_record_is_frozen() -> None:
    record = MmsuRecord.model_validate(_line(1) | {"audio": Path("/clips/a.wav")})
    with pytest.raises(ValueError, match="frozen"):
        record.id = "another"


# --- a local snapshot of the hub repo ---------------------------------------------------------


def _expected_lines() -> list[dict[str, Any]]:
    """The converted lines of `_rows()`: the clips' extensions from their original names."""
    suffixes = [".wav", ".wav", ".wav", ".wav", ".mp3", ".wav"]
    lines = []
    for row, suffix in zip(_rows(), suffixes, strict=True):
        line = {key: ("" if value is None else value) for key, value in row.items()}
        lines.append({field: line[field] for field in facts.FIELDS}
                     | {"audio": f"audio/{row['id']}{suffix}"})
    return lines


def _converted_folders(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "mmsu").iterdir() if not p.name.startswith("."))


def test_a_local_snapshot_is_converted_into_the_cache_and_read_in_the_releases_order(
    tmp_path: Path,
) -> None:
    snapshot = _snapshot(tmp_path / "MMSU")

    records, note = read_mmsu(snapshot, tmp_path / "cache")

    [folder] = _converted_folders(tmp_path / "cache")
    assert len(folder.name) == 16
    assert [r.id for r in records] == IDS
    lines = (folder / facts.CONVERTED).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == _expected_lines()
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(r.audio.read_bytes() == by_id[r.id] for r in records)
    assert all(r.audio.parent == folder.resolve() / "audio" for r in records)
    assert records[4].audio.name == "emotion_reasoning_5.mp3"
    assert [r.choices for r in records[2:4]] == [("first 3", "second 3"), ("first 4", "second 4")]
    assert records[3].sub_sub_category == ""
    assert {r.category for r in records} == set(facts.CATEGORIES)
    assert note is not None and note.startswith("mmsu: 6 of 5,000 questions")
    assert read_mmsu(folder, tmp_path / "elsewhere") == (records, note)


def test_a_second_read_converts_nothing(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "MMSU")
    first, _ = read_mmsu(snapshot, tmp_path / "cache")
    [folder] = _converted_folders(tmp_path / "cache")
    written = [(folder / name).stat().st_mtime_ns for name in (data.RELEASE.marker,
                                                                facts.CONVERTED)]

    again, _ = read_mmsu(snapshot, tmp_path / "cache")

    assert again == first
    assert _converted_folders(tmp_path / "cache") == [folder]
    assert [(folder / name).stat().st_mtime_ns for name in (data.RELEASE.marker,
                                                             facts.CONVERTED)] == written


def test_a_changed_parquet_file_is_converted_again(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "MMSU")
    read_mmsu(snapshot, tmp_path / "cache")
    changed = _row(7, "speaker_counting", "perception")
    write_parquet(snapshot / SECOND, [changed])
    os.utime(snapshot / SECOND, ns=(time.time_ns(), time.time_ns() + 10**9))

    records, _ = read_mmsu(snapshot, tmp_path / "cache")

    assert [r.id for r in records] == [*IDS[:2], "speaker_counting_7"]
    assert len(_converted_folders(tmp_path / "cache")) == 2


def test_hidden_folders_of_the_snapshot_are_left_out(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "MMSU")
    write_parquet(snapshot / ".cache" / "huggingface" / "stale.parquet",
                   [_row(9, "decoy", "perception")])

    records, _ = read_mmsu(snapshot, tmp_path / "cache")

    assert [r.id for r in records] == IDS


def _bad_rows() -> list[tuple[dict[str, Any], str]]:
    return [
        (_row(8, "decoy", "reasoning", answer_gt="B"),
         "(id 'decoy_8'): answer_gt 'B' is none of the options"),
        (_row(8, "decoy", "reasoning", task_name=None), "task_name: input should be a valid"),
        (_row(8, "decoy", "reasoning", audio={"bytes": None, "path": "x.wav"}),
         "(id 'decoy_8'): audio has no bytes"),
        (_row(8, "decoy", "reasoning", id="../decoy_8"), "the id '../decoy_8' cannot name a file"),
        (_row(1, "accent_identification", "perception"),
         "the id 'accent_identification_1' is {first}: row 1's too"),
    ]


@pytest.mark.parametrize(("row", "said"), _bad_rows(),
                         ids=["answer-not-an-option", "no-task", "no-audio", "unsafe-id",
                              "id-twice"])
def test_a_bad_local_row_is_one_line_naming_the_file_and_the_row(
    tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    snapshot = _snapshot(tmp_path / "MMSU", [*_rows()[:3], row])

    with pytest.raises(DataError) as raised:
        read_mmsu(snapshot, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot.resolve()}: cannot convert its "
                              f"MMSU parquet files: {snapshot.resolve() / SECOND}: row 2")
    assert said.format(first=snapshot.resolve() / FIRST) in message
    assert not _converted_folders(tmp_path / "cache")


def test_without_pyarrow_a_local_snapshot_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = _snapshot(tmp_path / "MMSU")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)

    with pytest.raises(DataError) as raised:
        read_mmsu(snapshot, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot.resolve()}: holds MMSU as 2 "
                              "parquet file(s)")
    assert f"install it with {pyarrow_install()}" in message


# --- downloading from the hub -----------------------------------------------------------------


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo: the rows in two parquet files, a card and an audio/ folder not taken."""
    return _snapshot(tmp_path / "remote" / "MMSU")


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def test_the_parquet_files_are_fetched_and_converted_into_the_layout_read_mmsu_reads(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_mmsu(tmp_path / "cache", endpoint=hub.url)

    assert root == tmp_path / "cache" / "ddwang2000--MMSU"
    assert hub.downloaded == [FIRST, SECOND]
    lines = (root / facts.CONVERTED).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == _expected_lines()
    records, note = read_mmsu(root, tmp_path / "cache")
    assert [r.id for r in records] == IDS and note is not None
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(r.audio.read_bytes() == by_id[r.id] for r in records)
    assert not (tmp_path / "cache" / "mmsu").exists()


@pytest.mark.parametrize(("row", "said"), _bad_rows(),
                         ids=["answer-not-an-option", "no-task", "no-audio", "unsafe-id",
                              "id-twice"])
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
    remote: Path, tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    write_parquet(remote / SECOND, [_rows()[2], row])

    message = failed_download(lambda url: download_mmsu(tmp_path / "cache", endpoint=url),
                              REPO, remote)

    assert f"cannot convert MMSU of {REPO}" in message
    assert f"{SECOND}: row 2" in message and said.format(first=FIRST) in message
    assert not (tmp_path / "cache" / "ddwang2000--MMSU").exists()
