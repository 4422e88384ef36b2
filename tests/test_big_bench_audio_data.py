"""Big Bench Audio's data layer: ``metadata.jsonl`` read back in its order, its transcripts
inline or from ``transcripts.jsonl`` beside it (the original release has none: one line saying
the fix), found at the root or in the one subfolder that holds it, each bad line one line
naming its file and line, a note when the release is not whole; a local snapshot of the
parquet copy converted once into that layout; and `download_big_bench_audio` against a local
fake hub (the repo's parquet files converted into the layout the reader reads, a bad row
named). What every hub download does is held once for all in ``test_hub_downloads.py``."""

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

from pytest_audiobench.benchmarks.big_bench_audio import data, facts
from pytest_audiobench.benchmarks.big_bench_audio.data import (
    BigBenchAudioRecord,
    read_big_bench_audio,
)
from pytest_audiobench.benchmarks.big_bench_audio.download import download_big_bench_audio
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import pyarrow_install
from tests.conftest import failed_download
from tests.fakes.datasets import tiny_wav
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

REPO = facts.HUB_REPO
CONVERTED_ROOT = "fixie-ai--big_bench_audio"
FIRST, SECOND = "data/train-00000-of-00002.parquet", "data/train-00001-of-00002.parquet"
ANSWERS = {"formal_fallacies": "invalid", "navigate": "Yes", "object_counting": "7",
           "web_of_lies": "No"}


def _category(number: int) -> str:
    return facts.CATEGORIES[(number - 1) % len(facts.CATEGORIES)]


def _fields(number: int) -> dict[str, Any]:
    """A question's fields: the categories in turn, each with an answer of its kind."""
    category = _category(number)
    return {"id": f"bba_{number}", "category": category, "official_answer": ANSWERS[category],
            "transcript": f"Question {number}: is it so?"}


def _without(mapping: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- the layout a run reads -------------------------------------------------------------------


def _line(number: int = 1, **changes: Any) -> dict[str, Any]:
    """A line of ``metadata.jsonl`` with its transcript, its clip under ``data/``."""
    return {"file_name": f"data/bba_{number}.mp3", **_fields(number)} | changes


def _original(number: int = 1, **changes: Any) -> dict[str, Any]:
    """A line of the original release: no transcript."""
    return _without(_line(number), "transcript") | changes


def _release(folder: Path, lines: Sequence[Mapping[str, Any] | str],
             transcripts: Sequence[Mapping[str, Any] | str] | None = None) -> Path:
    """``metadata.jsonl`` in `folder` (a str line written as it is), a clip for each line of
    the usual form, and ``transcripts.jsonl`` when given."""
    (folder / "data").mkdir(parents=True)
    for number in range(1, len(lines) + 1):
        (folder / "data" / f"bba_{number}.mp3").write_bytes(tiny_wav(number))
    _jsonl(folder / facts.METADATA, lines)
    if transcripts is not None:
        _jsonl(folder / facts.TRANSCRIPTS, transcripts)
    return folder


def _jsonl(path: Path, lines: Sequence[Mapping[str, Any] | str]) -> None:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines), encoding="utf-8")


def _given(number: int, **changes: Any) -> dict[str, Any]:
    """A line of ``transcripts.jsonl``."""
    return {"id": f"bba_{number}", "transcript": _fields(number)["transcript"]} | changes


def test_the_layout_with_its_transcripts_reads_in_its_order_with_its_fields(
    tmp_path: Path,
) -> None:
    folder = _release(tmp_path / "bba", [_line(2), _line(1), _line(4), _line(3)])

    records, note = read_big_bench_audio(folder, tmp_path / "cache")

    assert [r.id for r in records] == ["bba_2", "bba_1", "bba_4", "bba_3"]
    first = records[0]
    assert (first.category, first.official_answer, first.transcript) == (
        "navigate", "Yes", "Question 2: is it so?")
    assert first.audio == folder.resolve() / "data" / "bba_2.mp3"
    assert first.audio.is_absolute() and sf.info(str(first.audio)).samplerate == 16000
    assert {r.category for r in records} == set(facts.CATEGORIES)
    assert note is not None
    assert not (tmp_path / "cache").exists()


def test_the_original_release_takes_its_transcripts_from_the_file_beside_it(
    tmp_path: Path,
) -> None:
    folder = _release(tmp_path / "bba", [_original(1), _original(2), _line(3), _original(4)],
                      [_given(4), _given(2), "", _given(1), _given(3)])

    records, _ = read_big_bench_audio(folder, tmp_path / "cache")

    assert [r.id for r in records] == ["bba_1", "bba_2", "bba_3", "bba_4"]
    assert [r.transcript for r in records] == [_fields(n)["transcript"] for n in range(1, 5)]


def test_the_original_release_without_transcripts_says_the_judge_needs_them_and_the_fix(
    tmp_path: Path,
) -> None:
    folder = _release(tmp_path / "bba", [_original(1), _original(2)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.METADATA}: line 1 (id 'bba_1'): no "
                              "transcript, and no transcripts.jsonl beside it;")
    assert f"the original release {facts.ORIGINAL_REPO} carries no question text" in message
    assert "the judge needs it" in message
    assert f"give {facts.TRANSCRIPTS} beside {facts.METADATA}" in message
    assert f"use the hub repo {REPO}" in message and "--audiobench-data huggingface" in message


def test_a_transcript_in_neither_file_names_the_line_and_the_transcripts_file(
    tmp_path: Path,
) -> None:
    folder = _release(tmp_path / "bba", [_original(1), _original(2)], [_given(1)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.METADATA}: line 2 (id 'bba_2'): no "
                              f"transcript, and {folder.resolve() / facts.TRANSCRIPTS} has "
                              "none for it;")
    assert REPO in message


def test_a_transcript_given_twice_must_be_the_same(tmp_path: Path) -> None:
    folder = _release(tmp_path / "bba", [_line(1), _line(2)],
                      [_given(1), _given(2, transcript="Another question?")])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.METADATA}: line 2 (id 'bba_2'): its "
                              "transcript differs from the one on line 2 of "
                              f"{folder.resolve() / facts.TRANSCRIPTS}")


def test_a_transcript_of_no_record_is_a_mismatched_file(tmp_path: Path) -> None:
    folder = _release(tmp_path / "bba", [_original(1), _original(2)],
                      [_given(1), _given(2), _given(7), _given(8)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.TRANSCRIPTS}: line 3: the id "
                              f"'bba_7' is in no record of {folder.resolve() / facts.METADATA} "
                              "(nor are 1 more of its ids)")
    assert "another release's file" in message


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at column 2)"),
    ('"bba_2"', "found a JSON str; expected an object with id"),
    (_without(_given(2), "transcript"), "(id 'bba_2'): transcript: field required"),
    (_given(2, transcript=" "), "transcript: must not be empty nor only spaces"),
    (_given(2, id=None), "id: input should be a valid string"),
    (_given(1), "the id 'bba_1' already appears on line 1; expected one transcript per id"),
], ids=["not-json", "not-an-object", "no-transcript", "empty-transcript", "no-id", "id-twice"])
def test_a_bad_line_of_the_transcripts_is_one_line_naming_the_file_and_the_line(
    tmp_path: Path, line: dict[str, Any] | str, said: str
) -> None:
    folder = _release(tmp_path / "bba", [_original(1), _original(2)],
                      [_given(1), line, _given(2)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.TRANSCRIPTS}: line 2")
    assert said in message


def test_integer_ids_and_answers_are_kept_as_their_strings(tmp_path: Path) -> None:
    folder = _release(tmp_path / "bba", [
        _original(1, id=101, category="object_counting", official_answer=7),
        _original(2, id=102, official_answer=0),
        _line(3, id=103),
    ], [{"id": "101", "transcript": "How many?"}, {"id": 102, "transcript": "Where?"}])

    records, _ = read_big_bench_audio(folder, tmp_path / "cache")

    assert [(r.id, r.official_answer, r.transcript) for r in records] == [
        ("101", "7", "How many?"), ("102", "0", "Where?"),
        ("103", "7", _fields(3)["transcript"])]


def test_a_metadata_file_in_the_one_subfolder_that_holds_it_is_read(tmp_path: Path) -> None:
    root = tmp_path / "snapshot"
    folder = _release(root / "nested" / "release", [_original(1), _original(2)],
                      [_given(1), _given(2)])
    _release(root / ".cache" / "stale", [_line(1)])
    (root / "README.md").write_text("# Big Bench Audio\n", encoding="utf-8")

    records, _ = read_big_bench_audio(root, tmp_path / "cache")

    assert [r.id for r in records] == ["bba_1", "bba_2"]
    assert records[0].audio == folder.resolve() / "data" / "bba_1.mp3"


def test_more_than_one_metadata_file_below_the_root_names_them(tmp_path: Path) -> None:
    _release(tmp_path / "bba" / "one", [_line(1)])
    _release(tmp_path / "bba" / "two", [_line(1)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(tmp_path / "bba", tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {(tmp_path / 'bba').resolve()}: 2 "
                              "metadata.jsonl files below it (one/metadata.jsonl, "
                              "two/metadata.jsonl); expected one")


@pytest.mark.parametrize(("line", "said"), [
    ("{not json", "not JSON (Expecting property name enclosed in double quotes at column 2)"),
    ("[1, 2]", "found a JSON list; expected an object with id (a string or an integer), "
               "category (one of formal_fallacies, navigate, object_counting, web_of_lies)"),
    (_without(_line(2), "category"), "(id 'bba_2'): category: field required"),
    (_without(_line(2), "file_name"), "(id 'bba_2'): file_name: field required"),
    (_line(2, id=2.5), "(id 2.5): id: input should be a valid string"),
    (_line(2, id=""), "id: must not be empty"),
    (_line(2, category="sports_understanding"),
     "category: 'sports_understanding' is none of the categories formal_fallacies, navigate, "
     "object_counting, web_of_lies"),
    (_line(2, official_answer=" "), "official_answer: must not be empty nor only spaces"),
    (_line(2, official_answer=["Yes"]), "official_answer: input should be a valid string"),
    (_line(2, transcript=""), "transcript: must not be empty nor only spaces"),
    (_line(2, transcript=3), "transcript: input should be a valid string"),
    (_line(2, file_name=2), "file_name: must be a string, the clip's path relative to the "
                            "folder (found int)"),
    (_line(2, id="bba_1"),
     "the id 'bba_1' already appears on line 1; expected every id once"),
    (_line(2, file_name="../outside.mp3"),
     "file_name '../outside.mp3' must stay inside the release root (no '..')"),
    (_line(2, file_name="/tmp/clip.mp3"), "file_name '/tmp/clip.mp3' must be relative"),
    (_line(2, file_name="data/missing.mp3"), "no audio file"),
], ids=["not-json", "not-an-object", "no-category", "no-file-name", "id-not-a-string",
        "empty-id", "unknown-category", "empty-answer", "answer-not-a-string",
        "empty-transcript", "transcript-not-a-string", "file-name-not-a-string", "id-twice",
        "leaves-the-folder", "absolute", "missing-audio"])
def test_a_bad_line_is_one_line_naming_the_file_the_line_and_what_was_expected(
    tmp_path: Path, line: dict[str, Any] | str, said: str
) -> None:
    folder = _release(tmp_path / "bba", [_line(1), line, _line(3)])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.METADATA}: line 2")
    assert said in message
    assert "expected" in message


def test_an_audio_link_that_leaves_the_folder_is_named(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.mp3"
    outside.write_bytes(tiny_wav(9))
    folder = _release(tmp_path / "bba", [_line(1), _line(2, file_name="data/linked.mp3")])
    (folder / "data" / "linked.mp3").symlink_to(outside)

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(folder, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"{folder.resolve() / facts.METADATA}: line 2 (id 'bba_2')")
    assert f"leads to {outside.resolve()}, outside {folder.resolve()}" in message


def test_an_empty_metadata_file_holds_no_records(tmp_path: Path) -> None:
    folder = _release(tmp_path / "bba", [])

    with pytest.raises(DataError, match="holds no records; expected the 1,000 questions"):
        read_big_bench_audio(folder, tmp_path / "cache")


def test_a_folder_with_neither_layout_names_the_root_and_both_layouts(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Big Bench Audio\n", encoding="utf-8")

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(tmp_path, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {tmp_path.resolve()}: neither "
                              "metadata.jsonl nor any *.parquet file in it nor below it;")
    assert f"the original release {facts.ORIGINAL_REPO}, with transcripts.jsonl" in message
    assert f"a snapshot of the hub repo {REPO}" in message
    with pytest.raises(DataError, match=r"there \(no such folder\)"):
        read_big_bench_audio(tmp_path / "missing", tmp_path / "cache")


def test_part_of_the_release_gets_a_note_and_the_whole_release_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _release(tmp_path / "bba", [_line(1), _line(2)])

    _, part = read_big_bench_audio(folder, tmp_path / "cache")
    monkeypatch.setattr(data, "SIZE", 2)
    _, whole = read_big_bench_audio(folder, tmp_path / "cache")
    monkeypatch.setattr(data, "SIZE", 1)
    _, more = read_big_bench_audio(folder, tmp_path / "cache")

    assert part == ("big_bench_audio: 2 of 1,000 questions (not the whole release: its numbers "
                    "are not comparable with published ones)")
    assert whole is None
    assert more is not None and more.startswith("big_bench_audio: 2 questions where the "
                                                "release has 1")


def test_a_record_is_frozen() -> None:
    record = BigBenchAudioRecord.model_validate(_line(1) | {"file_name": Path("/clips/a.mp3")})
    assert record.audio == Path("/clips/a.mp3")
    with pytest.raises(ValueError, match="frozen"):
        record.id = "another"


# --- a local snapshot of the parquet copy -----------------------------------------------------


def _row(number: int, **changes: Any) -> dict[str, Any]:
    """A row of the parquet copy: the question's fields and its clip."""
    return _fields(number) | {"audio": {"bytes": tiny_wav(number),
                                        "path": f"bba_{number}.mp3"}} | changes


def _rows() -> list[dict[str, Any]]:
    """Five rows over the four categories; the fourth's file name has no extension, the
    last has none."""
    return [_row(1), _row(2), _row(3), _row(4, audio={"bytes": tiny_wav(4), "path": "clip"}),
            _row(5, audio={"bytes": tiny_wav(5), "path": None})]


IDS = [row["id"] for row in _rows()]


def _snapshot(base: Path, rows: Sequence[Mapping[str, Any]] | None = None) -> Path:
    """The hub repo's files under `base`: the rows in two parquet files and a card."""
    rows = _rows() if rows is None else rows
    write_parquet(base / FIRST, rows[:2])
    write_parquet(base / SECOND, rows[2:])
    (base / "README.md").write_text("# Big Bench Audio\n", encoding="utf-8")
    return base


def _expected_lines() -> list[dict[str, Any]]:
    """The converted lines of `_rows()`: the clips' extensions from their original names."""
    suffixes = [".mp3", ".mp3", ".mp3", ".wav", ".wav"]
    return [_fields(number) | {"file_name": f"audio/bba_{number}{suffix}"}
            for number, suffix in enumerate(suffixes, 1)]


def _converted_folders(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "big_bench_audio").iterdir()
                  if not p.name.startswith("."))


def test_a_local_snapshot_is_converted_into_the_cache_and_read_in_its_order(
    tmp_path: Path,
) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio")

    records, note = read_big_bench_audio(snapshot, tmp_path / "cache")

    [folder] = _converted_folders(tmp_path / "cache")
    assert len(folder.name) == 16
    assert [r.id for r in records] == IDS
    lines = (folder / facts.METADATA).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == _expected_lines()
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(r.audio.read_bytes() == by_id[r.id] for r in records)
    assert all(r.audio.parent == folder.resolve() / "audio" for r in records)
    assert [r.transcript for r in records] == [row["transcript"] for row in _rows()]
    assert {r.category for r in records} == set(facts.CATEGORIES)
    assert note is not None and note.startswith("big_bench_audio: 5 of 1,000 questions")
    assert read_big_bench_audio(folder, tmp_path / "elsewhere") == (records, note)


def test_integer_ids_and_answers_of_the_parquet_rows_become_strings(tmp_path: Path) -> None:
    rows = [_row(n, id=100 + n, official_answer=n) for n in range(1, 4)]
    snapshot = _snapshot(tmp_path / "big_bench_audio", rows)

    records, _ = read_big_bench_audio(snapshot, tmp_path / "cache")

    assert [(r.id, r.official_answer) for r in records] == [("101", "1"), ("102", "2"),
                                                            ("103", "3")]
    assert records[0].audio.name == "101.mp3"


def test_a_second_read_converts_nothing(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio")
    first, _ = read_big_bench_audio(snapshot, tmp_path / "cache")
    [folder] = _converted_folders(tmp_path / "cache")
    written = [(folder / name).stat().st_mtime_ns for name in (data.RELEASE.marker,
                                                                facts.METADATA)]

    again, _ = read_big_bench_audio(snapshot, tmp_path / "cache")

    assert again == first
    assert _converted_folders(tmp_path / "cache") == [folder]
    assert [(folder / name).stat().st_mtime_ns for name in (data.RELEASE.marker,
                                                             facts.METADATA)] == written


def test_a_changed_parquet_file_is_converted_again(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio")
    read_big_bench_audio(snapshot, tmp_path / "cache")
    write_parquet(snapshot / SECOND, [_row(7)])
    os.utime(snapshot / SECOND, ns=(time.time_ns(), time.time_ns() + 10**9))

    records, _ = read_big_bench_audio(snapshot, tmp_path / "cache")

    assert [r.id for r in records] == [*IDS[:2], "bba_7"]
    assert len(_converted_folders(tmp_path / "cache")) == 2


def test_hidden_folders_of_the_snapshot_are_left_out(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio")
    write_parquet(snapshot / ".cache" / "huggingface" / "stale.parquet", [_row(9)])

    records, _ = read_big_bench_audio(snapshot, tmp_path / "cache")

    assert [r.id for r in records] == IDS


def _bad_rows() -> list[tuple[dict[str, Any], str]]:
    return [
        (_row(8, category="date_understanding"),
         "(id 'bba_8'): category: 'date_understanding' is none of the categories"),
        (_row(8, transcript=None), "transcript: input should be a valid string"),
        (_row(8, official_answer=""), "official_answer: must not be empty nor only spaces"),
        (_row(8, audio={"bytes": None, "path": "x.mp3"}), "(id 'bba_8'): audio has no bytes"),
        (_row(8, id="../bba_8"), "the id '../bba_8' cannot name a file"),
        (_row(8, id=None), "no id; expected the columns id"),
        (_row(1), "the id 'bba_1' is {first}: row 1's too"),
    ]


BAD_ROW_IDS = ["unknown-category", "no-transcript", "empty-answer", "no-audio", "unsafe-id",
               "no-id", "id-twice"]


@pytest.mark.parametrize(("row", "said"), _bad_rows(), ids=BAD_ROW_IDS)
def test_a_bad_local_row_is_one_line_naming_the_file_and_the_row(
    tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio", [*_rows()[:3], row])

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(snapshot, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot.resolve()}: cannot convert its "
                              "Big Bench Audio parquet files: "
                              f"{snapshot.resolve() / SECOND}: row 2")
    assert said.format(first=snapshot.resolve() / FIRST) in message
    assert not _converted_folders(tmp_path / "cache")


def test_without_pyarrow_a_local_snapshot_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    snapshot = _snapshot(tmp_path / "big_bench_audio")
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)

    with pytest.raises(DataError) as raised:
        read_big_bench_audio(snapshot, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot.resolve()}: holds Big Bench Audio "
                              "as 2 parquet file(s)")
    assert f"install it with {pyarrow_install()}" in message


# --- downloading from the hub -----------------------------------------------------------------


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo: the rows in two parquet files and a card."""
    return _snapshot(tmp_path / "remote" / "big_bench_audio")


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def test_the_parquet_files_are_fetched_and_converted_into_the_layout_the_reader_reads(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_big_bench_audio(tmp_path / "cache", endpoint=hub.url)

    assert root == tmp_path / "cache" / CONVERTED_ROOT
    assert hub.downloaded == [FIRST, SECOND]
    lines = (root / facts.METADATA).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == _expected_lines()
    records, note = read_big_bench_audio(root, tmp_path / "cache")
    assert [r.id for r in records] == IDS and note is not None
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(r.audio.read_bytes() == by_id[r.id] for r in records)
    assert [r.transcript for r in records] == [row["transcript"] for row in _rows()]
    assert not (tmp_path / "cache" / "big_bench_audio").exists()


@pytest.mark.parametrize(("row", "said"), _bad_rows(), ids=BAD_ROW_IDS)
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
    remote: Path, tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    write_parquet(remote / SECOND, [_rows()[2], row])

    message = failed_download(
        lambda url: download_big_bench_audio(tmp_path / "cache", endpoint=url), REPO, remote)

    assert f"cannot convert Big Bench Audio of {REPO}" in message
    assert f"{SECOND}: row 2" in message and said.format(first=FIRST) in message
    assert not (tmp_path / "cache" / CONVERTED_ROOT).exists()
