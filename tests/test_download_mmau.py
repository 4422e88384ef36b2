"""`download_mmau`: the real huggingface_hub download code against a local fake hub, and the
conversion of the hub's parquet rows into the maintainers' published layout, which a local
snapshot of the repo gets too, once, in the cache. What every hub download does is held once
for all in ``test_hub_downloads.py``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.mmau.data import read_mmau
from pytest_audiobench.benchmarks.mmau.download import download_mmau
from pytest_audiobench.benchmarks.mmau.facts import HUB_REPOS
from pytest_audiobench.benchmarks.mmau.parquet import release_folder
from pytest_audiobench.errors import DataError, DownloadError
from tests.conftest import failed_download
from tests.fakes.datasets import tiny_wav
from tests.fakes.filesystems import visible_names
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import local_snapshot, write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

REPO = HUB_REPOS["test-mini"]
TEST_REPO = HUB_REPOS["test"]
# Two files, so the rows of both are read in the order of their names.
FIRST = "data/test_mini-00000-of-00002.parquet"
SECOND = "data/test_mini-00001-of-00002.parquet"
CHOICES = ["(A) Man", "(B) Woman", "(C) Child", "(D) Robot"]


# The third is an MP3 stream named .wav, as some of MMAU's are: written as it is.
AUDIO = {"q1": tiny_wav(1), "q2": tiny_wav(2), "q3": b"ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb" * 8}


def _attributes(record_id: str, **changes: Any) -> dict[str, Any]:
    attributes = {"id": record_id, "dataset": "AudioSet", "task": "sound", "split": "test-mini",
                  "category": "Reasoning", "sub-category": "Acoustic Source Inference",
                  "difficulty": "medium"}
    return attributes | changes


def _row(record_id: str, **changes: Any) -> dict[str, Any]:
    row = {"instruction": f"Who speaks in {record_id}?", "choices": CHOICES,
           "answer": "(B) Woman",
           "context": {"bytes": AUDIO.get(record_id, tiny_wav(9)), "path": None},
           "other_attributes": json.dumps(_attributes(record_id))}
    return row | changes


def _rows() -> list[dict[str, Any]]:
    other = json.dumps(_attributes("q2", category=["Information Extraction"], task="speech"))
    return [_row("q1"), _row("q2", other_attributes=other, answer="(D) Robot"), _row("q3")]


def _published(record_id: str, **changes: Any) -> dict[str, Any]:
    record = {"id": record_id, "audio_id": f"./test-mini-audios/{record_id}.wav",
              "question": f"Who speaks in {record_id}?",
              "choices": ["Man", "Woman", "Child", "Robot"], "answer": "Woman"}
    attributes = {k: v for k, v in _attributes(record_id).items() if k != "id"}
    return record | attributes | changes


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A tiny MMAU-test-mini repo: three rows in two parquet files, and a README."""
    repo = tmp_path / "remote" / "MMAU-test-mini"
    rows = _rows()
    write_parquet(repo / FIRST, rows[:2])
    write_parquet(repo / SECOND, rows[2:])
    (repo / "README.md").write_text("# MMAU test-mini\n", encoding="utf-8")
    return repo


@pytest.fixture
def hub(release: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: release}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def _published_json(root: Path, name: str = "mmau-test-mini.json") -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((root / name).read_text(encoding="utf-8"))
    return records


# --- downloading and converting ---------------------------------------------------------------


def test_it_converts_the_parquet_rows_into_the_published_layout(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_mmau(tmp_path / "cache", "test-mini", endpoint=hub.url)

    assert root == tmp_path / "cache" / "gamma-lab-umd--MMAU-test-mini"
    assert hub.downloaded == [FIRST, SECOND]
    assert visible_names(root) == {"mmau-test-mini.json", "test-mini-audios"}
    records = _published_json(root)
    assert records == [
        _published("q1"),
        _published("q2", answer="Robot", task="speech", category=["Information Extraction"]),
        _published("q3"),
    ]
    assert list(records[0]) == ["id", "audio_id", "question", "choices", "answer", "dataset",
                                "task", "split", "category", "sub-category", "difficulty"]
    assert {p.stem: p.read_bytes() for p in (root / "test-mini-audios").iterdir()} == AUDIO


def test_read_mmau_reads_the_converted_root(hub: FakeHfHub, tmp_path: Path) -> None:
    root = download_mmau(tmp_path / "cache", "test-mini", endpoint=hub.url)

    records = read_mmau(root, "test-mini")

    assert [(r.id, r.answer, r.category) for r in records] == [
        ("q1", "Woman", "Reasoning"), ("q2", "Robot", "Information Extraction"),
        ("q3", "Woman", "Reasoning")]


def test_the_test_split_writes_its_withheld_answers_as_empty(tmp_path: Path) -> None:
    repo = tmp_path / "remote" / "MMAU-test"
    other = json.dumps(_attributes("q2", split="test"))
    write_parquet(repo / "test.parquet",
                   [_row("q1", answer=""), _row("q2", answer=None, other_attributes=other)])

    with FakeHfHub({TEST_REPO: repo}, lfs_patterns=PARQUET_AS_LFS) as server:
        root = download_mmau(tmp_path / "cache", "test", endpoint=server.url)

    assert root.name == "gamma-lab-umd--MMAU-test"
    assert visible_names(root) == {"mmau-test.json", "test-audios"}
    records = _published_json(root, "mmau-test.json")
    assert [(r["audio_id"], r["answer"], r["choices"][0]) for r in records] == [
        ("./test-audios/q1.wav", "", "Man"), ("./test-audios/q2.wav", "", "Man")]
    assert [r.answer for r in read_mmau(root, "test")] == [None, None]


@pytest.mark.parametrize(
    ("choices", "answer"),
    [
        (["(A) Man", "(C) Woman"], "(A) Man"),
        (["(A) Man", "Woman"], "(A) Man"),
        (["(B) Man", "(A) Woman"], "(A) Woman"),
        (["(A) Man", "(B) Woman"], "Woman"),
        (["Man", "Woman"], "Woman"),
    ],
    ids=["other-letter", "one-unprefixed", "swapped", "answer-unprefixed", "none-prefixed"],
)
def test_the_prefixes_stay_unless_every_choice_has_its_own_letter(
    release: Path, tmp_path: Path, choices: list[str], answer: str
) -> None:
    write_parquet(release / SECOND, [_row("q3", choices=choices, answer=answer)])

    with FakeHfHub({REPO: release}, lfs_patterns=PARQUET_AS_LFS) as server:
        root = download_mmau(tmp_path / "cache", "test-mini", endpoint=server.url)

    record = _published_json(root)[2]
    assert (record["choices"], record["answer"]) == (choices, answer)


# --- bad rows and missing pieces ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ({k: v for k, v in _row("q3").items() if k != "instruction"}, "no instruction"),
        (_row("q3", other_attributes="{'id': 'q3'"), "other_attributes is not JSON"),
        (_row("q3", other_attributes=json.dumps({"id": "../q3"})), "the id '../q3' in other"),
        (_row("q3", context={"bytes": None, "path": None}), "context has no audio bytes"),
        (_row("q3", other_attributes=json.dumps(_attributes("q1"))), "the id 'q1' is an earlier"),
    ],
    ids=["no-instruction", "bad-json", "unsafe-id", "no-audio", "id-twice"],
)
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
    release: Path, tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    write_parquet(release / SECOND, [_row("q4"), row])

    message = failed_download(
        lambda url: download_mmau(tmp_path / "cache", "test-mini", endpoint=url), REPO, release)

    assert f"{SECOND}: row 2: {said}" in message
    assert not (tmp_path / "cache" / "gamma-lab-umd--MMAU-test-mini").exists()


def test_an_unreadable_parquet_file_is_named(release: Path, tmp_path: Path) -> None:
    (release / SECOND).write_bytes(b"not parquet at all" * 10)

    with (
        FakeHfHub({REPO: release}, lfs_patterns=PARQUET_AS_LFS) as server,
        pytest.raises(DownloadError, match=f"{SECOND} .* is not a readable parquet file"),
    ):
        download_mmau(tmp_path / "cache", "test-mini", endpoint=server.url)


# --- offline use ------------------------------------------------------------------------------


# --- a local snapshot of the hub repo ---------------------------------------------------------


def test_a_local_snapshot_is_converted_as_the_download_is_into_the_cache_once(
    release: Path, hub: FakeHfHub, tmp_path: Path
) -> None:
    snapshot = local_snapshot(release, tmp_path / "MMAU-test-mini")
    cache = tmp_path / "cache"

    folder = release_folder(snapshot, "test-mini", cache)

    assert folder.parent == cache.resolve() / "mmau" / "test-mini"
    assert visible_names(folder) == {"mmau-test-mini.json", "test-mini-audios"}
    downloaded = download_mmau(tmp_path / "downloaded", "test-mini", endpoint=hub.url)
    assert _published_json(folder) == _published_json(downloaded)
    assert [r.id for r in read_mmau(folder, "test-mini")] == ["q1", "q2", "q3"]
    written = (folder / "mmau-test-mini.json").stat().st_mtime_ns
    assert release_folder(snapshot, "test-mini", cache) == folder
    assert (folder / "mmau-test-mini.json").stat().st_mtime_ns == written
    assert release_folder(downloaded, "test-mini", cache) == downloaded  # published: as it is


def test_a_bad_row_of_a_local_snapshot_names_the_flag_the_file_and_the_row(
    release: Path, tmp_path: Path
) -> None:
    write_parquet(release / SECOND, [_row("q3", context={"bytes": None, "path": None})])
    snapshot = local_snapshot(release, tmp_path / "MMAU-test-mini")

    with pytest.raises(DataError) as raised:
        release_folder(snapshot, "test-mini", tmp_path / "cache")

    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"--audiobench-data {snapshot}: cannot convert its MMAU "
                              f"test-mini parquet files: {snapshot / SECOND}: row 1: context "
                              "has no audio bytes")
