"""WenetSpeech's data layer: ``WenetSpeech.json`` read as a stream (other keys around its array,
records across chunks), its test segments validated field by field (each bad one one line
naming the file, the line, the recording or segment and what was expected) and cut once from
their recordings (an opus one, a 48 kHz stereo one resampled), a training recording never
opened, the cut layout read with its notes; the hub's parquet copy downloaded a split at a
time and a local snapshot of it converted once, rows named and clustered by their segment ids
where they have them. What every hub download does is held in ``test_hub_downloads.py``."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from pytest_audiobench.benchmarks.wenetspeech import facts, streaming
from pytest_audiobench.benchmarks.wenetspeech.data import read_split
from pytest_audiobench.benchmarks.wenetspeech.download import download_wenetspeech
from pytest_audiobench.benchmarks.wenetspeech.locating import release_folder
from pytest_audiobench.errors import DataError
from tests.conftest import failed_download
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import local_snapshot, write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

NET, MEETING = "test_net", "test_meeting"
SPLITS = (NET, MEETING)
RATE = 16_000
AID = "Y0000000009_26OUqTzrzv0"
MEET = "M0000000001_meeting"


def _segment(sid: str, begin: float, end: float, text: str, subset: str,
             **changes: Any) -> dict[str, Any]:
    return {"sid": sid, "confidence": 1.0, "begin_time": begin, "end_time": end,
            "subsets": [subset], "text": text} | changes


def _audios() -> list[dict[str, Any]]:
    """A training recording (no audio file), a test_net one of two segments and a
    test_meeting one of one, as the release writes them."""
    return [
        {"aid": "Y0000000000_train", "duration": 30.0, "path": "audio/train/Y0000000000.opus",
         "segments": [_segment("Y0000000000_train_S00000", 1.0, 2.0, "训练", "L")]},
        {"aid": AID, "duration": 2.0, "path": f"audio/test_net/{AID}.opus", "source": "youtube",
         "segments": [_segment(f"{AID}_S00624", 0.25, 0.75, "今天天气很好", "TEST_NET"),
                      _segment(f"{AID}_S00625", 1.0, 1.5, "我们去散步", "TEST_NET")]},
        {"aid": MEET, "duration": 1.0, "path": f"audio/test_meeting/{MEET}.flac",
         "segments": [_segment(f"{MEET}_S00000", 0.5, 1.0, "散会", "TEST_MEETING")]},
    ]


def _write_metadata(root: Path, audios: list[dict[str, Any]], indent: int | None = 2) -> Path:
    path = root / facts.METADATA
    text = json.dumps({"dataset": "WenetSpeech", "language": "Chinese", "audios": audios,
                       "version": "v1"}, ensure_ascii=False, indent=indent)
    path.write_text(text, encoding="utf-8")
    return path


def _tone(seconds: float, rate: int, channels: int = 1) -> Any:
    count = round(seconds * rate)
    wave = 0.3 * np.sin(2 * np.pi * 440 * np.arange(count) / rate)
    return np.repeat(wave[:, None], channels, axis=1) if channels > 1 else wave


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """The release's layout: the metadata file, an opus recording (16 kHz, as released) and a
    48 kHz stereo FLAC one; the training recording's audio absent."""
    root = tmp_path / "WenetSpeech"
    (root / "audio" / "test_net").mkdir(parents=True)
    (root / "audio" / "test_meeting").mkdir(parents=True)
    sf.write(root / "audio" / "test_net" / f"{AID}.opus", _tone(2.0, RATE), RATE,
             format="OGG", subtype="OPUS")
    sf.write(root / "audio" / "test_meeting" / f"{MEET}.flac", _tone(1.0, 48_000, 2), 48_000,
             format="FLAC")
    _write_metadata(root, _audios())
    return root


@pytest.fixture
def listed(tmp_path: Path) -> Path:
    """The metadata file alone: what is read before any recording is opened."""
    root = tmp_path / "WenetSpeech"
    root.mkdir()
    _write_metadata(root, _audios())
    return root


def _cut(root: Path, splits: tuple[str, ...] = SPLITS) -> Path:
    return release_folder(root, splits, root.parent / "cache")


def _one_line(raised: pytest.ExceptionInfo[DataError]) -> str:
    message = str(raised.value)
    assert "\n" not in message, message
    return message


# --- the metadata file as a stream ------------------------------------------------------------


def test_the_array_is_read_item_by_item_across_chunks_whatever_keys_surround_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(streaming, "CHUNK", 7)
    monkeypatch.setattr(streaming, "SLACK", 100)
    audios = _audios()
    for indent in (None, 4):
        path = _write_metadata(tmp_path, audios, indent)
        assert [item for _, item in streaming.array_items(path, "audios")] == audios
    path.write_text('{"n": 12345, "audios": [1.5, "x", {"a": [1, 2]}], "m": null}',
                    encoding="utf-8")
    assert [item for _, item in streaming.array_items(path, "audios")] == [1.5, "x",
                                                                            {"a": [1, 2]}]


@pytest.mark.parametrize(("text", "said"), [
    ('{"audios": [{"segments": []},\n {"segments": [],}]}',
     "line 2: not JSON (Expecting property"),
    ('{"audios": [{"segments": []}', "line 1: the end of the file where ',' or ']' after an "
                                     "item"),
    ('[{"aid": "a"}]', "line 1: '[' where a JSON object was expected"),
    ('{"dataset": "x"}', "no top-level 'audios'"),
], ids=["bad-item", "cut-short", "not-an-object", "no-audios"])
def test_a_metadata_file_that_is_not_the_json_expected_is_one_line_naming_where(
        listed: Path, text: str, said: str) -> None:
    (listed / facts.METADATA).write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as raised:
        _cut(listed)
    message = _one_line(raised)
    assert f"--audiobench-data {listed}: cannot convert its {facts.METADATA}" in message
    assert f"{listed / facts.METADATA}: {said}" in message, message


# --- validating the test segments -------------------------------------------------------------


def _changed(recording: int, segment: int | None = None, **changes: Any) -> Callable[
        [list[dict[str, Any]]], None]:
    """A change to the `recording`-th recording (or its `segment`-th segment)."""
    def change(audios: list[dict[str, Any]]) -> None:
        target = audios[recording] if segment is None else \
            audios[recording]["segments"][segment]
        for key, value in changes.items():
            if value is ...:
                del target[key]
            else:
                target[key] = value
    return change


SEG = f"recording '{AID}', segment '{AID}_S00625'"
BAD: dict[str, tuple[Callable[[list[dict[str, Any]]], None], str]] = {
    "no-sid": (_changed(1, 1, sid=...), f"recording '{AID}': no sid; expected an object with sid"),
    "sid-a-path": (_changed(1, 1, sid="a/b"), "segment 'a/b': the sid cannot name a file"),
    "end-before-begin": (_changed(1, 1, end_time=0.5),
                         f"{SEG}: begin_time 1.0 and end_time 0.5 are not a span"),
    "past-the-duration": (_changed(1, 1, end_time=9.0), "expected 0 <= begin_time < end_time"),
    "time-a-string": (_changed(1, 1, begin_time="1.0"), f"{SEG}: begin_time is '1.0'"),
    "negative": (_changed(1, 1, begin_time=-1), f"{SEG}: begin_time is -1.0; expected"),
    "empty-text": (_changed(1, 1, text=" "), f"{SEG}: text is empty; expected"),
    "no-text": (_changed(1, 1, text=...), f"{SEG}: no text; expected"),
    "confidence": (_changed(1, 1, confidence=2), f"{SEG}: confidence 2.0; expected a number "
                                                 "from 0 to 1"),
    "subsets-a-string": (_changed(1, 1, subsets="TEST_NET"), f"{SEG}: subsets is 'TEST_NET'; "
                                                             "expected a list of names"),
    "both-test-sets": (_changed(1, 1, subsets=["TEST_NET", "TEST_MEETING"]),
                       f"{SEG}: in both TEST_NET and TEST_MEETING"),
    "sid-twice": (_changed(2, 0, sid=f"{AID}_S00624"),
                  f"segment '{AID}_S00624': its sid is also a segment's at line"),
    "no-aid": (_changed(1, aid=...), ": no aid; expected an object with aid"),
    "absolute-path": (_changed(1, path="/etc/a.opus"), f"recording '{AID}': path '/etc/a.opus' "
                                                      "leaves the release's folder"),
    "up-path": (_changed(1, path="../a.opus"), "path '../a.opus' leaves the release's folder"),
    "duration-a-bool": (_changed(1, duration=True), f"recording '{AID}': duration is True"),
    "segments-a-dict": (_changed(1, segments={}), f"recording '{AID}': segments is a dict"),
    "segment-a-list": (_changed(1, segments=[[]]), f"recording '{AID}': a segment is a list"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_field_of_a_test_segment_is_one_line_naming_the_file_line_and_record(
        listed: Path, case: str) -> None:
    change, said = BAD[case]
    audios = _audios()
    change(audios)
    _write_metadata(listed, audios)
    with pytest.raises(DataError) as raised:
        _cut(listed)
    message = _one_line(raised)
    assert f"{listed / facts.METADATA}: line " in message
    assert said in message, message
    assert not list((listed.parent / "cache").rglob("recordings.json"))  # no index kept


def test_a_training_segment_s_fields_are_not_read_and_its_audio_never_opened(
        release: Path) -> None:
    audios = _audios()
    audios[0]["segments"][0].update(begin_time="soon", confidence=7)  # its subsets say "L"
    _write_metadata(release, audios)
    folder = _cut(release)
    assert [u.id for u in read_split(folder, NET)[0]] == [f"{AID}_S00624", f"{AID}_S00625"]


# --- cutting ----------------------------------------------------------------------------------


def test_each_test_segment_is_cut_into_a_16_khz_mono_clip_of_its_span(release: Path) -> None:
    folder = _cut(release)
    net, note = read_split(folder, NET)
    assert [(u.id, u.recording, u.text) for u in net] == [
        (f"{AID}_S00624", AID, "今天天气很好"), (f"{AID}_S00625", AID, "我们去散步")]
    assert note == "wenetspeech test_net: 2 of 24,774 segments (not the whole test set: its " \
                   "numbers are not comparable with published ones)"
    (meeting,), _ = read_split(folder, MEETING)
    for clip in (*[u.audio for u in net], meeting.audio):
        info = sf.info(clip)
        assert (info.samplerate, info.channels, info.subtype, info.frames) == (
            RATE, 1, "PCM_16", 8_000), clip
    # The 48 kHz stereo tone, mixed down and resampled, is the tone at 16 kHz from 0.5 s on
    # (the filter's edges aside).
    samples, _ = sf.read(meeting.audio)
    expected = _tone(1.0, RATE)[8_000:]
    assert np.abs(samples - expected)[200:-200].max() < 0.02
    assert folder.is_relative_to((release.parent / "cache").resolve())


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_release_is_cut_once_and_again_only_for_a_changed_recording(
        release: Path) -> None:
    folder = _cut(release)
    cut = _files(folder)
    assert _cut(release) == folder and _files(folder) == cut

    opus = release / "audio" / "test_net" / f"{AID}.opus"
    os.utime(opus, ns=(opus.stat().st_atime_ns, opus.stat().st_mtime_ns + 10**9))
    assert _cut(release) == folder
    now = _files(folder)
    assert now["index/recordings.json"] == cut["index/recordings.json"]  # not read again
    assert now[f"{NET}/segments.jsonl"] != cut[f"{NET}/segments.jsonl"]
    assert now[f"{MEETING}/segments.jsonl"] == cut[f"{MEETING}/segments.jsonl"]


def test_a_changed_metadata_file_is_read_into_a_folder_of_its_own(release: Path) -> None:
    folder = _cut(release, (NET,))
    audios = _audios()
    audios[1]["segments"][1]["text"] = "我们去公园"
    _write_metadata(release, audios)
    again = _cut(release, (NET,))
    assert again != folder
    assert read_split(again, NET)[0][1].text == "我们去公园"


@pytest.mark.parametrize(("change", "said"), [
    (lambda root: (root / "audio" / "test_meeting" / f"{MEET}.flac").unlink(),
     f"no audio for recording '{MEET}' of {facts.METADATA}; expected "),
    (lambda root: (root / "audio" / "test_meeting" / f"{MEET}.flac").write_bytes(b"not audio"),
     f"{MEET}.flac: recording '{MEET}' is not readable as audio"),
    (lambda root: sf.write(root / "audio" / "test_meeting" / f"{MEET}.flac",
                           _tone(0.6, RATE), RATE, format="FLAC"),
     f"segment '{MEET}_S00000': 0.5-1.0 s reaches past the recording's 0.60 s"),
], ids=["missing", "unreadable", "too-short"])
def test_a_recording_that_cannot_be_cut_is_one_line_naming_it(
        release: Path, change: Callable[[Path], object], said: str) -> None:
    change(release)
    with pytest.raises(DataError) as raised:
        _cut(release)
    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {release}: ")
    assert said in message, message
    # test_net, cut before, stays cut; test_meeting is not left half written.
    home = next((release.parent / "cache").resolve().glob("wenetspeech/*"))
    assert (home / NET / "segments.jsonl").is_file() and not (home / MEETING).exists()


def test_a_selected_set_the_metadata_file_lacks_is_named_with_the_fix(release: Path) -> None:
    _write_metadata(release, _audios()[:2])
    with pytest.raises(DataError) as raised:
        _cut(release)
    assert "has no segment of TEST_MEETING" in _one_line(raised)
    assert "select the splits it has with --audiobench-tasks" in str(raised.value)
    assert [u.id for u in read_split(_cut(release, (NET,)), NET)[0]] == [f"{AID}_S00624",
                                                                         f"{AID}_S00625"]


# --- the cut layout ---------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "said"), [
    ("{", "line 2: not JSON"),
    ('["x"]', "line 2: a list; expected a JSON object with id"),
    ('{"id": "b", "recording": null, "text": "", "audio": "audio/a.wav"}', "line 2: id 'b'"),
    ('{"id": "a", "recording": null, "text": "好", "audio": "audio/a.wav"}',
     "line 2: the id 'a' already appears on line 1"),
    ('{"id": "b", "recording": null, "text": "好", "audio": "audio/b.wav"}', "line 2: no clip "),
    ('{"id": "b", "recording": null, "text": "好", "audio": "../a.wav"}',
     "line 2: audio '../a.wav' is not a clip of the split's folder"),
], ids=["not-json", "not-an-object", "empty-text", "id-twice", "no-clip", "outside"])
def test_a_bad_line_of_the_cut_layout_is_one_line_naming_it(tmp_path: Path, line: str,
                                                             said: str) -> None:
    folder = tmp_path / NET
    (folder / "audio").mkdir(parents=True)
    sf.write(folder / "audio" / "a.wav", _tone(0.1, RATE), RATE)
    first = '{"id": "a", "recording": "r", "text": "好", "audio": "audio/a.wav"}'
    (folder / "segments.jsonl").write_text(f"{first}\n{line}\n", encoding="utf-8")
    with pytest.raises(DataError) as raised:
        read_split(tmp_path, NET)
    assert f"{folder / 'segments.jsonl'}: {said}" in _one_line(raised)


def test_a_folder_without_the_set_names_every_layout_it_could_be(tmp_path: Path) -> None:
    with pytest.raises(DataError) as raised:
        read_split(release_folder(tmp_path, (NET,), tmp_path / "cache"), NET)
    message = _one_line(raised)
    assert f"--audiobench-data {tmp_path}: no WenetSpeech test_net there" in message
    assert facts.METADATA in message and "data/test_net-*.parquet" in message


# --- the hub's parquet copy -------------------------------------------------------------------


def wav(seed: int) -> bytes:
    buffer = io.BytesIO()
    sf.write(buffer, _tone(0.1 + seed / 100, RATE), RATE, format="WAV")
    return buffer.getvalue()


def _row(number: int, text: str, path: str | None = None, **more: Any) -> dict[str, Any]:
    return {"audio": {"bytes": wav(number), "path": path}, "text": text} | more


FIRST, SECOND = "data/test_net-00000-of-00002.parquet", "data/test_net-00001-of-00002.parquet"
DECOYS = ("data/test_meeting-00000-of-00001.parquet", "data/dev-00000-of-00001.parquet",
          "data/test_network-00000-of-00001.parquet")


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo: test_net in two files (rows named by their clips' names, one by no
    name), and decoys that must not be fetched."""
    repo = tmp_path / "remote" / "WenetSpeech"
    write_parquet(repo / FIRST, [_row(0, "今天天气很好", f"{AID}_S00624.wav"),
                                 _row(1, "我们去散步", f"{AID}_S00625.opus")])
    write_parquet(repo / SECOND, [_row(2, "下雨了", None)])
    for decoy in DECOYS:
        write_parquet(repo / decoy, [_row(3, "别读我", "decoy.wav")])
    (repo / "README.md").write_text("# WenetSpeech\n", encoding="utf-8")
    return repo


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({facts.HUB_REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def test_only_the_set_s_parquet_files_are_fetched_and_each_row_named_by_its_segment_id(
        hub: FakeHfHub, tmp_path: Path) -> None:
    root = download_wenetspeech(tmp_path / "cache", NET, endpoint=hub.url)
    assert root == tmp_path / "cache" / "lmms-lab-audio--WenetSpeech"
    assert hub.downloaded == [FIRST, SECOND]
    utterances, _ = read_split(root, NET)
    # A clip named by a segment id gives the row its id and recording; one without is the
    # split's row number, its own cluster. Each clip is written as it came, suffix kept.
    assert [(u.id, u.recording, u.text, u.audio.name) for u in utterances] == [
        (f"{AID}_S00624", AID, "今天天气很好", f"{AID}_S00624.wav"),
        (f"{AID}_S00625", AID, "我们去散步", f"{AID}_S00625.opus"),
        ("test_net-000003", None, "下雨了", "test_net-000003.wav")]
    assert [u.audio.read_bytes() for u in utterances] == [wav(0), wav(1), wav(2)]


@pytest.mark.parametrize(("row", "said"), [
    (_row(5, " ", "x.wav"), "the text is empty"),
    (_row(5, "好", None, sid="a/b"), "the id 'a/b' cannot name a file"),
    (_row(5, "好", None, id=True), "the id is a bool"),
    (_row(5, "好", f"{AID}_S00624.wav"), f"the id '{AID}_S00624' is an earlier row's too"),
    ({"text": "好", "audio": {"bytes": None, "path": None}}, "audio has no bytes"),
], ids=["empty-text", "unsafe-id", "bool-id", "id-twice", "no-audio"])
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
        remote: Path, tmp_path: Path, row: dict[str, Any], said: str) -> None:
    # The first row has the bad row's columns, null: a parquet file's columns are its first
    # row's.
    first = _row(2, "下雨了") | {key: None for key in row if key not in ("text", "audio")}
    write_parquet(remote / SECOND, [first, row])
    message = failed_download(
        lambda url: download_wenetspeech(tmp_path / "cache", NET, endpoint=url),
        facts.HUB_REPO, remote)
    assert f"cannot convert WenetSpeech test_net of {facts.HUB_REPO}" in message
    assert f"{SECOND}: row 2" in message and said in message, message


def test_a_local_snapshot_is_converted_once_a_set_at_a_time_and_rows_with_ids_cluster(
        remote: Path, tmp_path: Path) -> None:
    write_parquet(remote / DECOYS[0], [_row(4, "散会", None, sid=f"{MEET}_S00003", id=None),
                                       _row(5, "开会", None, sid=None, id="meeting-two")])
    snapshot = local_snapshot(remote, tmp_path / "snapshot")
    folder = release_folder(snapshot, (MEETING,), tmp_path / "cache")
    assert folder.is_relative_to((tmp_path / "cache").resolve())
    meeting, _ = read_split(folder, MEETING)
    assert [(u.id, u.recording) for u in meeting] == [(f"{MEET}_S00003", MEET),
                                                      ("meeting-two", None)]
    assert not (folder / NET).exists()  # not selected: not converted
    converted = _files(folder)
    assert release_folder(snapshot, (MEETING,), tmp_path / "cache") == folder
    assert _files(folder) == converted


def test_a_snapshot_without_a_selected_set_s_files_names_it(remote: Path,
                                                            tmp_path: Path) -> None:
    snapshot = local_snapshot(remote, tmp_path / "snapshot")
    for path in snapshot.rglob("test_meeting-*"):
        path.unlink()
    with pytest.raises(DataError) as raised:
        release_folder(snapshot, SPLITS, tmp_path / "cache")
    assert ("without test_meeting (no data/test_meeting-*.parquet); expected each selected "
            "split's parquet files") in _one_line(raised)


# --- the bundled mini part --------------------------------------------------------------------


def test_the_mini_part_is_cut_from_three_recordings_into_both_sets(tmp_path: Path) -> None:
    from pytest_audiobench.benchmarks.release import mini_root

    root = mini_root(facts.NAME)
    assert sorted(p.suffix for p in root.rglob("*.*")) == [".json", ".opus", ".opus", ".opus"]
    folder = release_folder(root, SPLITS, tmp_path / "cache")
    net, meeting = (read_split(folder, split)[0] for split in SPLITS)
    assert (len(net), len(meeting)) == (5, 3)
    assert len({u.recording for u in [*net, *meeting]}) == 3
    for utterance in (*net, *meeting):
        samples, rate = sf.read(utterance.audio, dtype="int16")
        assert rate == RATE and samples.ndim == 1
        assert 1.5 <= len(samples) / RATE <= 5.0, utterance.id
        assert np.abs(samples).max() > 3_000, utterance.id  # speech, not the silence between
