"""LibriSpeech's data layer: a split read from openslr's layout (either root form, sorted by id,
each bad record one line naming its file and line, a note when the split is not whole), and
`download_librispeech` against a local fake hub (only the split's parquet files fetched, once,
converted into that layout), and a local snapshot of the hub repo converted once, a split at
a time, into the cache. What every hub download does is held once for all in
``test_hub_downloads.py``."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from pytest_audiobench.benchmarks.librispeech import facts, parquet
from pytest_audiobench.benchmarks.librispeech.data import Utterance, read_split, split_folder
from pytest_audiobench.benchmarks.librispeech.download import download_librispeech
from pytest_audiobench.benchmarks.librispeech.parquet import release_folder
from pytest_audiobench.errors import DataError, DownloadError
from tests.conftest import assert_one_line_naming, failed_download
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import local_snapshot, write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

# Two speakers, three chapters; "121" sorts after "1089" as text.
TRANSCRIPTS: dict[tuple[str, str], dict[str, str]] = {
    ("121", "121726"): {"121-121726-0000": "ALSO A POPULAR CONTRIVANCE",
                        "121-121726-0001": "HARANGUE THE TIRESOME PRODUCT OF A TIRELESS TONGUE"},
    ("1089", "134691"): {"1089-134691-0000": "HE COULD WAIT NO LONGER"},
    ("1089", "134686"): {"1089-134686-0001": "STUFF IT INTO YOU HIS BELLY COUNSELLED HIM",
                         "1089-134686-0000": "HE HOPED THERE WOULD BE STEW FOR DINNER"},
}
IDS = sorted(uttid for lines in TRANSCRIPTS.values() for uttid in lines)
REPO = facts.HUB_REPO
FIRST, SECOND = "clean/test/0000.parquet", "clean/test/0001.parquet"
OTHER = "other/test/0000.parquet"
DECOYS = ("other/test/0000.parquet", "all/test.clean/0000.parquet", "clean/train.100/0000.parquet",
          "clean/validation/0000.parquet", "clean/test.extra/0000.parquet")


def flac(seed: int) -> bytes:
    """A tiny, valid 16 kHz mono FLAC file whose samples depend on `seed`."""
    samples = np.sin(np.arange(320) * (0.01 + seed / 100)).astype(np.float32) * 0.3
    buffer = io.BytesIO()
    sf.write(buffer, samples, 16000, format="FLAC")
    return buffer.getvalue()


def _release(base: Path, split: str = "test-clean",
             transcripts: Mapping[tuple[str, str], Mapping[str, str]] = TRANSCRIPTS) -> Path:
    """openslr's layout under `base`: LibriSpeech/<split>/<speaker>/<chapter>/."""
    for (speaker, chapter), lines in transcripts.items():
        folder = base / "LibriSpeech" / split / speaker / chapter
        folder.mkdir(parents=True)
        text = "".join(f"{uttid} {line}\n" for uttid, line in lines.items())
        (folder / f"{speaker}-{chapter}.trans.txt").write_text(text, encoding="utf-8")
        for seed, uttid in enumerate(lines):
            (folder / f"{uttid}.flac").write_bytes(flac(seed))
    return base


def _chapter(base: Path, speaker: str = "1089", chapter: str = "134686") -> Path:
    return base / "LibriSpeech" / "test-clean" / speaker / chapter


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- reading a split --------------------------------------------------------------------------


def test_a_split_reads_sorted_by_id_with_its_fields(tmp_path: Path) -> None:
    base = _release(tmp_path)

    utterances, note = read_split(base, "test-clean")

    assert [u.id for u in utterances] == IDS
    assert IDS[0] == "1089-134686-0000" and IDS[-1].startswith("121-")
    folder = _chapter(base)
    assert utterances[0] == Utterance("1089-134686-0000", "1089", "134686",
                                      "HE HOPED THERE WOULD BE STEW FOR DINNER",
                                      folder / "1089-134686-0000.flac")
    assert sf.info(str(utterances[0].audio)).samplerate == 16000
    assert note is not None


def test_the_librispeech_folder_and_its_parent_read_the_same(tmp_path: Path) -> None:
    base = _release(tmp_path)

    assert split_folder(base, "test-clean") == split_folder(base / "LibriSpeech", "test-clean")
    assert read_split(base / "LibriSpeech", "test-clean") == read_split(base, "test-clean")


def test_a_missing_split_names_the_root_the_split_and_both_places(tmp_path: Path) -> None:
    base = _release(tmp_path, split="test-other")

    with pytest.raises(DataError) as raised:
        read_split(base, "test-clean")

    message = _one_line(raised)
    assert f"--audiobench-data {base}: no LibriSpeech test-clean folder there" in message
    assert f"neither {base / 'test-clean'} nor {base / 'LibriSpeech' / 'test-clean'}" in message


def test_the_split_folder_itself_is_pointed_to_its_parent(tmp_path: Path) -> None:
    base = _release(tmp_path)
    folder = base / "LibriSpeech" / "test-clean"

    with pytest.raises(DataError, match=r"it is the test-clean folder itself: pass its parent"):
        read_split(folder, "test-clean")


def test_an_unknown_split_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown LibriSpeech split 'dev-clean'; expected one "
                                         "of test-clean, test-other"):
        read_split(_release(tmp_path), "dev-clean")


def _rewrite(base: Path, text: str) -> Path:
    path = _chapter(base) / "1089-134686.trans.txt"
    path.write_text(text, encoding="utf-8")
    return path


GOOD_FIRST = "1089-134686-0000 HE HOPED THERE WOULD BE STEW FOR DINNER\n"


@pytest.mark.parametrize(("second", "said"), [
    ("1089-134686-0001\n", "'1089-134686-0001' has no transcript; expected \"UTTID TRANSCRIPT\""),
    ("1089-134690-0001 STUFF IT\n", "the id '1089-134690-0001' is not of this chapter; expected "
                                    "1089-134686-<number>, as its folder 1089/134686/ says"),
    ("1089-134686-x STUFF IT\n", "the id '1089-134686-x' is not of this chapter"),
    ("1089-134686-0000 AGAIN\n", "the id '1089-134686-0000' already appears on line 1; "
                                 "expected every id once"),
    ("1089-134686-0001 STUFF IT\n1089-134686-0002 MORE\n", "no audio for '1089-134686-0002'"),
], ids=["no-transcript", "other-chapter", "malformed-id", "id-twice", "no-audio"])
def test_a_bad_line_is_one_line_naming_the_file_and_the_line(
    tmp_path: Path, second: str, said: str
) -> None:
    path = _rewrite(_release(tmp_path), GOOD_FIRST + second)

    with pytest.raises(DataError) as raised:
        read_split(tmp_path, "test-clean")

    line = 3 if said.startswith("no audio") else 2
    assert f"{path}: line {line}: {said}" in _one_line(raised)


def test_a_missing_audio_names_the_file_it_expected(tmp_path: Path) -> None:
    base = _release(tmp_path)
    audio = _chapter(base) / "1089-134686-0001.flac"
    audio.unlink()

    with pytest.raises(DataError) as raised:
        read_split(base, "test-clean")

    assert _one_line(raised).endswith(f"no audio for '1089-134686-0001'; expected {audio}")


def test_an_audio_file_without_a_line_is_named(tmp_path: Path) -> None:
    base = _release(tmp_path)
    path = _rewrite(base, GOOD_FIRST)

    with pytest.raises(DataError) as raised:
        read_split(base, "test-clean")

    assert _one_line(raised).startswith(
        f"{_chapter(base) / '1089-134686-0001.flac'}: no line for '1089-134686-0001' in {path}")


def test_a_chapter_without_its_transcript_file_is_named(tmp_path: Path) -> None:
    base = _release(tmp_path)
    (_chapter(base) / "1089-134686.trans.txt").unlink()

    with pytest.raises(DataError) as raised:
        read_split(base, "test-clean")

    assert _one_line(raised).startswith(f"{_chapter(base)}: no 1089-134686.trans.txt; expected")


def test_an_empty_split_folder_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "LibriSpeech" / "test-other"
    folder.mkdir(parents=True)

    with pytest.raises(DataError) as raised:
        read_split(tmp_path, "test-other")

    assert _one_line(raised).startswith(f"{folder}: holds no utterances; expected the 2,939")


def test_part_of_a_split_gets_a_note_and_the_whole_split_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = _release(tmp_path)

    _, part = read_split(base, "test-clean")
    monkeypatch.setitem(facts.SPLITS, "test-clean", len(IDS))
    _, whole = read_split(base, "test-clean")
    monkeypatch.setitem(facts.SPLITS, "test-clean", 3)
    _, more = read_split(base, "test-clean")

    assert part == ("librispeech test-clean: 5 of 2,620 utterances (not the whole split: its "
                    "numbers are not comparable with published ones)")
    assert whole is None
    assert more is not None and more.startswith(
        "librispeech test-clean: 5 utterances where the release has 3")


# --- downloading from the hub -----------------------------------------------------------------


def _row(uttid: str, text: str, seed: int = 0, **changes: Any) -> dict[str, Any]:
    speaker, chapter, _ = uttid.split("-")
    row = {"file": f"/cache/extracted/{uttid}.flac",
           "audio": {"bytes": flac(seed), "path": f"{uttid}.flac"},
           "text": text, "speaker_id": int(speaker), "chapter_id": int(chapter), "id": uttid}
    return row | changes


def _rows() -> list[dict[str, Any]]:
    return [_row(uttid, text, seed) for seed, (uttid, text) in enumerate(
        (uttid, text) for lines in TRANSCRIPTS.values() for uttid, text in lines.items())]


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo: test-clean in two parquet files, and decoys that must not be fetched."""
    repo = tmp_path / "remote" / "librispeech_asr"
    rows = _rows()
    write_parquet(repo / FIRST, rows[:3])
    write_parquet(repo / SECOND, rows[3:])
    for decoy in DECOYS:
        write_parquet(repo / decoy, [_row("3570-5694-0000", "DECOY", 7)])
    (repo / "README.md").write_text("# LibriSpeech\n", encoding="utf-8")
    return repo


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def test_only_the_splits_parquet_files_are_fetched_and_converted_into_openslrs_layout(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_librispeech(tmp_path / "cache", "test-clean", endpoint=hub.url)

    assert root == tmp_path / "cache" / "openslr--librispeech_asr"
    assert hub.downloaded == [FIRST, SECOND]
    assert not [path for _, path in hub.requests if "other" in path or "all/" in path
                or "train" in path or "validation" in path or "test.extra" in path]
    utterances, _ = read_split(root, "test-clean")
    assert [u.id for u in utterances] == IDS
    assert [u.transcript for u in utterances[:2]] == [
        "HE HOPED THERE WOULD BE STEW FOR DINNER", "STUFF IT INTO YOU HIS BELLY COUNSELLED HIM"]
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(u.audio.read_bytes() == by_id[u.id] for u in utterances)
    chapter = root / "LibriSpeech" / "test-clean" / "1089" / "134686"
    assert (chapter / "1089-134686.trans.txt").read_text(encoding="utf-8") == (
        "1089-134686-0000 HE HOPED THERE WOULD BE STEW FOR DINNER\n"
        "1089-134686-0001 STUFF IT INTO YOU HIS BELLY COUNSELLED HIM\n")


def test_test_other_takes_the_other_config_beside_test_clean(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_librispeech(tmp_path / "cache", "test-clean", endpoint=hub.url)

    again = download_librispeech(tmp_path / "cache", "test-other", endpoint=hub.url)

    assert again == root
    assert hub.downloaded == [FIRST, SECOND, OTHER]
    assert [u.id for u in read_split(root, "test-other")[0]] == ["3570-5694-0000"]
    assert len(read_split(root, "test-clean")[0]) == len(IDS)


@pytest.mark.parametrize(("row", "said"), [
    (_row("121-121726-0009", "", 1), "the text of '121-121726-0009' is empty"),
    (_row("121-121726-0009", "X", 1, audio={"bytes": None, "path": None}),
     "audio has no bytes"),
    (_row("121-121726-0009", "X", 1, id="121-99-0009"),
     "the id '121-99-0009' is not of speaker 121, chapter 121726"),
    (_row("121-121726-0009", "X", 1, id="../121-121726-0009"),
     "the id '../121-121726-0009' is not of speaker 121"),
    (_row("121-121726-0000", "AGAIN", 1), "the id '121-121726-0000' is an earlier row's too"),
    ({k: v for k, v in _row("121-121726-0009", "X", 1).items() if k != "speaker_id"},
     "no speaker_id"),
], ids=["empty-text", "no-audio", "other-chapter", "unsafe-id", "id-twice", "no-speaker"])
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
    remote: Path, tmp_path: Path, row: dict[str, Any], said: str
) -> None:
    write_parquet(remote / SECOND, [_rows()[3], row])

    message = failed_download(
        lambda url: download_librispeech(tmp_path / "cache", "test-clean", endpoint=url), REPO,
        remote)

    assert f"cannot convert LibriSpeech test-clean of {REPO}" in message
    assert f"{SECOND}: row 2: {said}" in message
    assert not (tmp_path / "cache" / "openslr--librispeech_asr" / "LibriSpeech" /
                "test-clean").exists()


def test_a_repo_without_the_splits_parquet_files_is_an_unexpected_layout(
    remote: Path, tmp_path: Path
) -> None:
    shutil.rmtree(remote / "clean" / "test")

    with (
        FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server,
        pytest.raises(DownloadError, match="unexpected layout") as raised,
    ):
        url = server.url
        download_librispeech(tmp_path / "cache", "test-clean", endpoint=url)

    assert_one_line_naming(raised.value, REPO, url)
    assert "it has no clean/test/*.parquet file" in str(raised.value)
    assert server.downloaded == []


def test_an_unknown_split_is_a_value_error_before_any_request(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match="unknown LibriSpeech split 'dev-clean'"):
        download_librispeech(tmp_path / "cache", "dev-clean", endpoint=hub.url)
    assert hub.requests == []


# --- a local snapshot of the hub repo ---------------------------------------------------------


def test_a_local_snapshot_s_splits_are_converted_into_the_cache_once_each(
    remote: Path, tmp_path: Path
) -> None:
    snapshot = local_snapshot(remote, tmp_path / "librispeech_asr")
    cache = tmp_path / "cache"

    folder = release_folder(snapshot, ["test-clean"], cache)

    assert folder.parent == cache.resolve() / "librispeech"
    assert [p.name for p in (folder / "LibriSpeech").iterdir()] == ["test-clean"]
    utterances, _ = read_split(folder, "test-clean")
    assert [u.id for u in utterances] == IDS
    by_id = {row["id"]: row["audio"]["bytes"] for row in _rows()}
    assert all(u.audio.read_bytes() == by_id[u.id] for u in utterances)
    marker = folder / "LibriSpeech" / "test-clean" / parquet.MARKER
    written = marker.stat().st_mtime_ns
    # Both splits selected: the same folder, test-other added, test-clean left as it was.
    assert release_folder(snapshot, ["test-clean", "test-other"], cache) == folder
    assert marker.stat().st_mtime_ns == written
    assert [u.id for u in read_split(folder, "test-other")[0]] == ["3570-5694-0000"]


def test_a_folder_in_openslr_s_layout_is_read_where_it_is(tmp_path: Path) -> None:
    base = _release(tmp_path / "openslr")

    assert release_folder(base, ["test-clean"], tmp_path / "cache") == base
    assert not (tmp_path / "cache").exists()


def test_a_snapshot_without_a_selected_split_s_files_names_it(remote: Path,
                                                              tmp_path: Path) -> None:
    snapshot = local_snapshot(remote, tmp_path / "librispeech_asr")
    shutil.rmtree(snapshot / "other")

    with pytest.raises(DataError) as raised:
        release_folder(snapshot, ["test-clean", "test-other"], tmp_path / "cache")

    assert _one_line(raised) == (
        f"--audiobench-data {snapshot}: a snapshot of {REPO} without test-other "
        "(other/test/*.parquet); expected each selected split's parquet files, or select the "
        "splits it has with --audiobench-tasks")


def test_a_bad_row_of_a_snapshot_names_the_file_and_the_row(remote: Path,
                                                             tmp_path: Path) -> None:
    write_parquet(remote / SECOND, [_row("1089-134686-0000", "   ")])
    snapshot = local_snapshot(remote, tmp_path / "librispeech_asr")

    with pytest.raises(DataError) as raised:
        release_folder(snapshot, ["test-clean"], tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot}: cannot convert its LibriSpeech "
                              f"test-clean parquet files: {snapshot / SECOND}: row 1: the text "
                              "of '1089-134686-0000' is empty")
