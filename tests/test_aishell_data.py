"""AISHELL-1's and AISHELL-2's data layers. AISHELL-1: the test split read from openslr's layout
(both root forms, sorted by id, only test audio's transcript lines read, each bad one one line
naming the file and the line, a file without a line left out with a note, a note when the split
is not whole), its test speakers' tarballs unpacked once into the cache (the others left
alone, an unsafe or empty one refused, a half-unpacked release refused), a local snapshot of
the hub's parquet converted once, and the download taking the test files only. What every hub
download does is held once for all in ``test_hub_downloads.py``. AISHELL-2: each device's
test set read in ``trans.txt``'s order with its speakers, each bad line one line, a missing
device named, a packed one told how to extract it."""

from __future__ import annotations

import io
import shutil
import tarfile
from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.aishell1 import data as aishell1_data
from pytest_audiobench.benchmarks.aishell1.data import read_test
from pytest_audiobench.benchmarks.aishell1.download import download_aishell1
from pytest_audiobench.benchmarks.aishell1.snapshots import release_folder
from pytest_audiobench.benchmarks.aishell2.data import read_device
from pytest_audiobench.benchmarks.aishell2.facts import DEVICES
from pytest_audiobench.errors import DataError
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import aishell1_repo, local_snapshot, write_parquet
from tests.fakes.speech import Utterance, build_aishell1, build_aishell2, pack_aishell1_speakers

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

SPOKEN = [Utterance("test", "S0901", "图书馆 很 安静", ""),
          Utterance("test", "S0764", "今天 天气 很 好", ""),
          Utterance("test", "S0764", "我们 去 公园", "")]
"""Three test utterances: BAC009S0901W0001, BAC009S0764W0001, BAC009S0764W0002."""
TRAINING = ("BAC009S0002W0001", "火车 站 离 这里 不 远")
"""A training utterance's line, without audio."""
TRANSCRIPT = Path("data_aishell", "transcript", "aishell_transcript_v0.8.txt")


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def _release(root: Path) -> Path:
    build_aishell1(root, SPOKEN, unheard=[TRAINING])
    return root


def _ids(root: Path) -> list[str]:
    return [u.id for u in read_test(root)[0]]


# --- AISHELL-1: reading the test split --------------------------------------------------------


def test_the_test_split_reads_sorted_by_id_with_its_speakers_and_spaced_words(
        tmp_path: Path) -> None:
    utterances, notes = read_test(_release(tmp_path))

    assert [(u.id, u.speaker, u.transcript) for u in utterances] == [
        ("BAC009S0764W0001", "S0764", "今天 天气 很 好"),
        ("BAC009S0764W0002", "S0764", "我们 去 公园"),
        ("BAC009S0901W0001", "S0901", "图书馆 很 安静")]
    assert utterances[2].audio == tmp_path / "data_aishell/wav/test/S0901/BAC009S0901W0001.wav"
    assert notes == ("aishell1 test: 3 of 7,176 utterances (not the whole split: its numbers "
                     "are not comparable with published ones)",)


def test_data_aishell_and_the_folder_holding_it_read_the_same(tmp_path: Path) -> None:
    _release(tmp_path)
    assert _ids(tmp_path / "data_aishell") == _ids(tmp_path)


def test_lines_of_other_splits_are_passed_over_even_when_flawed(tmp_path: Path) -> None:
    _release(tmp_path)
    path = tmp_path / TRANSCRIPT
    # A training line twice, and one without text: neither is a test utterance's.
    path.write_text(path.read_text(encoding="utf-8") + f"{TRAINING[0]} again\nBAC009S0003W0001\n",
                    encoding="utf-8")
    assert len(_ids(tmp_path)) == 3


def test_a_missing_transcript_names_both_places_looked_at(tmp_path: Path) -> None:
    (tmp_path / "data_aishell" / "wav" / "test").mkdir(parents=True)

    with pytest.raises(DataError) as raised:
        read_test(tmp_path)

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {tmp_path}: no AISHELL-1 transcript there, "
                              f"neither {tmp_path / TRANSCRIPT} nor ")
    assert "carlot/AIShell (data/test-*.parquet)" in message


def test_a_release_without_the_test_folder_is_named(tmp_path: Path) -> None:
    (tmp_path / TRANSCRIPT).parent.mkdir(parents=True)
    (tmp_path / TRANSCRIPT).write_text(" ".join(TRAINING) + "\n", encoding="utf-8")

    with pytest.raises(DataError, match=r"no data_aishell/wav/test/ folder there") as raised:
        read_test(tmp_path)

    assert "wav/<speaker>.tar.gz" in _one_line(raised)


@pytest.mark.parametrize(("line", "number", "said"), [
    ("BAC009S0764W0001 今天", 5, "the id 'BAC009S0764W0001' already appears on line 3; expected "
                                "every id once"),
    ("BAC009S0764W0002   ", 4, "'BAC009S0764W0002' has no text; expected \"UTTID "
                              "word-segmented text\""),
], ids=["id-twice", "no-text"])
def test_a_bad_line_of_a_test_utterance_is_one_line_naming_the_file_and_the_line(
        tmp_path: Path, line: str, number: int, said: str) -> None:
    _release(tmp_path)
    path = tmp_path / TRANSCRIPT
    lines = path.read_text(encoding="utf-8").splitlines()  # training, S0901, S0764 twice
    lines[number - 1:number] = [line]  # the line replaced, or added after the last
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    with pytest.raises(DataError) as raised:
        read_test(tmp_path)

    assert _one_line(raised).startswith(f"{path}: line {number}: {said}")


def test_an_audio_file_not_named_as_its_speaker_s_is_refused(tmp_path: Path) -> None:
    _release(tmp_path)
    stray = tmp_path / "data_aishell/wav/test/S0764/BAC009S0901W0009.wav"
    stray.write_bytes(b"")

    with pytest.raises(DataError) as raised:
        read_test(tmp_path)

    assert _one_line(raised).startswith(f"{stray}: not an utterance of speaker S0764; expected a "
                                        "file named <prefix>S0764W<number>.wav")


def test_a_test_file_without_a_line_is_left_out_with_a_note_and_the_whole_split_has_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _release(tmp_path)
    (tmp_path / "data_aishell/wav/test/S0764/BAC009S0764W0077.wav").write_bytes(b"RIFF")
    monkeypatch.setattr(aishell1_data, "TEST_SIZE", 3)

    utterances, notes = read_test(tmp_path)

    assert len(utterances) == 3
    assert notes == ("aishell1 test: 1 audio file(s) without a line in "
                     "transcript/aishell_transcript_v0.8.txt left out (no reference to score "
                     "them against; the published 3 count the utterances that have one)",)


# --- AISHELL-1: the speakers' tarballs, packed as openslr ships them ---------------------------


def test_packed_test_speakers_are_unpacked_once_into_the_cache_and_others_left_alone(
        tmp_path: Path) -> None:
    packed = pack_aishell1_speakers(_release(tmp_path / "release"))
    # A training speaker's tarball, unreadable: opening it would fail the run.
    (packed / "data_aishell" / "wav" / "S0002.tar.gz").write_bytes(b"not a tarball")
    cache = tmp_path / "cache"

    folder = release_folder(packed, cache)

    assert folder.parent == cache.resolve() / "aishell1"
    utterances, _ = read_test(folder)
    assert [u.id for u in utterances] == _ids(_release(tmp_path / "unpacked"))
    assert utterances[0].audio == folder / "data_aishell/wav/test/S0764/BAC009S0764W0001.wav"
    written = utterances[0].audio.stat().st_mtime_ns
    assert release_folder(packed / "data_aishell", cache) == folder
    assert utterances[0].audio.stat().st_mtime_ns == written
    assert sorted(p.name for p in (folder / "data_aishell" / "wav").iterdir()) == ["test"]


def test_speakers_packed_beside_unpacked_ones_are_named(tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    wav = release / "data_aishell" / "wav"
    with tarfile.open(wav / "S0765.tar.gz", "w:gz") as archive:
        archive.add(wav / "test" / "S0764", arcname="test/S0765")

    with pytest.raises(DataError) as raised:
        release_folder(release, tmp_path / "cache")

    assert _one_line(raised).startswith(f"--audiobench-data {release}: test speakers S0765 are "
                                        "still packed (wav/S0765.tar.gz, ...) beside the "
                                        "unpacked wav/test/")


def _tarball(path: Path, members: Sequence[str], *, link: str | None = None) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name in members:
            info = tarfile.TarInfo(name)
            info.size = 4
            archive.addfile(info, io.BytesIO(b"RIFF"))
        if link is not None:
            info = tarfile.TarInfo(link)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            archive.addfile(info)


@pytest.mark.parametrize(("members", "link", "said"), [
    (["test/S0764/BAC009S0764W0001.wav"], "test/S0764/evil.wav",
     "member 'test/S0764/evil.wav' is a symbolic link"),
    (["train/S0764/BAC009S0764W0001.wav"], None,
     "holds no test/S0764/*.wav file; expected the members test/S0764/<UTTID>.wav"),
], ids=["unsafe", "no-test-audio"])
def test_a_bad_speaker_tarball_is_one_line_and_nothing_is_unpacked(
        tmp_path: Path, members: Sequence[str], link: str | None, said: str) -> None:
    release = pack_aishell1_speakers(_release(tmp_path / "release"))
    tarball = release / "data_aishell" / "wav" / "S0764.tar.gz"
    _tarball(tarball, members, link=link)

    with pytest.raises(DataError) as raised:
        release_folder(release, tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {release}: cannot convert its AISHELL-1 test "
                              f"speakers' tarballs: {tarball}: ")
    assert said in message
    assert not list((tmp_path / "cache" / "aishell1").glob("*/data_aishell"))


# --- AISHELL-1: the hub's parquet -------------------------------------------------------------


def test_a_local_snapshot_of_the_hub_repo_is_converted_once_and_reads_as_the_release(
        tmp_path: Path) -> None:
    release = _release(tmp_path / "release")
    snapshot = local_snapshot(aishell1_repo(release, tmp_path / "repo", others=True),
                              tmp_path / "AIShell")
    cache = tmp_path / "cache"

    folder = release_folder(snapshot, cache)

    assert folder.parent == cache.resolve() / "aishell1"
    got, mini = read_test(folder)[0], read_test(release)[0]
    assert [(u.id, u.speaker, u.transcript, u.audio.read_bytes()) for u in got] == [
        (u.id, u.speaker, u.transcript, u.audio.read_bytes()) for u in mini]
    # The converted transcript holds the test lines alone, single-spaced.
    assert (folder / "transcript/aishell_transcript_v0.8.txt").read_text(encoding="utf-8") \
        .splitlines()[0] == "BAC009S0764W0001 今天 天气 很 好"
    assert release_folder(snapshot, cache) == folder


def test_a_bad_row_of_a_snapshot_names_the_file_and_the_row(tmp_path: Path) -> None:
    parquet = write_parquet(tmp_path / "AIShell" / "data" / "test-00000-of-00001.parquet", [
        {"audio": {"bytes": b"RIFF", "path": "BAC009S0764W0001.wav"}, "transcription": " 好"},
        {"audio": {"bytes": b"RIFF", "path": "S0764W0002.wav"}, "transcription": " 好"}])

    with pytest.raises(DataError) as raised:
        release_folder(tmp_path / "AIShell", tmp_path / "cache")

    assert f"{parquet}: row 2: the audio's path 'S0764W0002.wav' names no AISHELL-1 " \
           "utterance" in _one_line(raised)


def test_the_download_takes_the_test_parquet_alone(tmp_path: Path) -> None:
    repo = aishell1_repo(_release(tmp_path / "release"), tmp_path / "repo", others=True)

    with FakeHfHub({"carlot/AIShell": repo}, lfs_patterns=PARQUET_AS_LFS) as hub:
        root = download_aishell1(tmp_path / "cache", endpoint=hub.url)
        downloaded = hub.downloaded

    assert downloaded == ["data/test-00000-of-00001.parquet"]
    assert root == (tmp_path / "cache").resolve() / "carlot--AIShell"
    assert _ids(root) == _ids(tmp_path / "release")


# --- AISHELL-2: a device's test set -----------------------------------------------------------


DEVICE_SET = [Utterance("ios", "T0012", "播放音乐", ""), Utterance("ios", "T0011", "打开灯", ""),
              Utterance("android", "T0011", "打开灯", ""), Utterance("mic", "T0011", "打开灯", "")]


def _set(root: Path) -> Path:
    build_aishell2(root, DEVICE_SET)
    return root


def _test(root: Path, device: str = "iOS") -> Path:
    return root / "AISHELL-DEV-TEST-SET" / device / "test"


def test_each_device_reads_in_its_transcript_order_with_the_speaker_of_its_folder(
        tmp_path: Path) -> None:
    _set(tmp_path)

    ios, notes = read_device(tmp_path, "ios")

    assert [(u.id, u.speaker, u.transcript) for u in ios] == [
        ("IT0012W0001", "T0012", "播放音乐"), ("IT0011W0001", "T0011", "打开灯")]
    assert ios[1].audio == _test(tmp_path) / "wav" / "T0011" / "IT0011W0001.wav"
    assert notes == ("aishell2 ios: 2 of 5,000 utterances (not the whole test set: its numbers "
                     "are not comparable with published ones)",)
    assert [u.id for u in read_device(tmp_path / "AISHELL-DEV-TEST-SET", "mic")[0]] == [
        "MT0011W0001"]


def test_a_missing_device_is_named(tmp_path: Path) -> None:
    _set(tmp_path)
    shutil.rmtree(_test(tmp_path, "Mic").parent)

    with pytest.raises(DataError) as raised:
        read_device(tmp_path, "mic")

    assert _one_line(raised).startswith(f"--audiobench-data {tmp_path}: no AISHELL-2 Mic test set "
                                        f"there ({tmp_path / 'AISHELL-DEV-TEST-SET' / 'Mic'})")
    assert "--audiobench-tasks" in str(raised.value)


def test_a_test_set_still_packed_says_how_to_extract_it(tmp_path: Path) -> None:
    device = tmp_path / "AISHELL-DEV-TEST-SET" / "Android"
    device.mkdir(parents=True)
    (device / "test.tar.gz").write_bytes(b"packed")

    with pytest.raises(DataError) as raised:
        read_device(tmp_path, "android")

    assert _one_line(raised) == (
        f"{device / 'test.tar.gz'}: the Android test set is still packed; extract it where it "
        f"is (tar -xzf {device / 'test.tar.gz'} -C {device}), which makes {device / 'test'}/ "
        "with wav.scp, trans.txt and wav/")


@pytest.mark.parametrize(("file", "line", "said"), [
    ("wav.scp", "IT0011W0001", "'IT0011W0001' has nothing after it; expected "
                               "\"UTTID<tab>wav/<speaker>/<UTTID>.wav\""),
    ("wav.scp", "IT0011W0001\t../T0011/IT0011W0001.wav", "the path '../T0011/IT0011W0001.wav' "
                                                         "of 'IT0011W0001' is not a file"),
    ("wav.scp", "IT0011W0001\twav/T0099/IT0011W0001.wav", "the id 'IT0011W0001' does not hold "
                                                          "the speaker 'T0099'"),
    ("wav.scp", "IT0012W0001\twav/T0012/IT0012W0001.wav", "the id 'IT0012W0001' already appears "
                                                          "on line 1"),
    ("trans.txt", "IT0011W0001\t ", "'IT0011W0001' has nothing after it"),
    ("trans.txt", "IT0012W0001\t播放", "the id 'IT0012W0001' already appears on line 1"),
    ("trans.txt", "IT0013W0001\t关灯", "'IT0013W0001' has no line in"),
], ids=["scp-no-path", "scp-outside", "scp-not-the-speaker", "scp-twice", "trans-no-text",
        "trans-twice", "trans-unlisted"])
def test_a_bad_line_is_one_line_naming_the_file_and_the_line(
        tmp_path: Path, file: str, line: str, said: str) -> None:
    _set(tmp_path)
    path = _test(tmp_path) / file
    first = path.read_text(encoding="utf-8").splitlines()[0]
    path.write_text(f"{first}\n{line}\n", encoding="utf-8")

    with pytest.raises(DataError) as raised:
        read_device(tmp_path, "ios")

    assert _one_line(raised).startswith(f"{path}: line 2: {said}")


def test_missing_audio_names_the_line_and_the_file_it_expected(tmp_path: Path) -> None:
    _set(tmp_path)
    audio = _test(tmp_path) / "wav" / "T0011" / "IT0011W0001.wav"
    audio.unlink()

    with pytest.raises(DataError) as raised:
        read_device(tmp_path, "ios")

    assert _one_line(raised) == (f"{_test(tmp_path) / 'wav.scp'}: line 2: no audio for "
                                 f"'IT0011W0001'; expected {audio}")


def test_listed_audio_without_a_transcript_is_left_out_with_a_note(tmp_path: Path) -> None:
    _set(tmp_path)
    trans = _test(tmp_path) / "trans.txt"
    trans.write_text(trans.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")

    utterances, notes = read_device(tmp_path, "ios")

    assert [u.id for u in utterances] == ["IT0012W0001"]
    assert notes[0] == ("aishell2 ios: 1 utterance(s) of wav.scp without a line in trans.txt "
                        "left out (no reference to score them against)")


def test_each_device_reads_its_own_folder_alone(tmp_path: Path) -> None:
    _set(tmp_path)
    assert {device: len(read_device(tmp_path, device)[0]) for device in DEVICES} == {
        "ios": 2, "android": 1, "mic": 1}
