"""FLEURS's data layer: a language's test split read from the hub repo's layout (three root
forms, the release's order, `transcription` as the reference, each bad row one line naming its
file and line, a note when the split is not whole), `download_fleurs` against a local fake
hub (only the language's test.tsv and test archive fetched, once, unpacked safely), and a
local snapshot of the hub repo unpacked once into the cache. What every hub download does is
held once for all in ``test_hub_downloads.py``."""

from __future__ import annotations

import io
import tarfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from pytest_audiobench.benchmarks.fleurs import facts
from pytest_audiobench.benchmarks.fleurs.archive import release_folder
from pytest_audiobench.benchmarks.fleurs.data import (
    Utterance,
    check_language,
    language_folder,
    read_language,
)
from pytest_audiobench.benchmarks.fleurs.download import download_fleurs
from pytest_audiobench.errors import DataError, DownloadError
from tests.conftest import assert_one_line_naming
from tests.fakes.hf_hub import FakeHfHub
from tests.fakes.hub_repos import local_snapshot

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

REPO = facts.HUB_REPO
TSV, ARCHIVE = "data/en_us/test.tsv", "data/en_us/audio/test.tar.gz"
# Sentence 1906 read by two speakers; quotes in the text are text. Not in file-name order.
ROWS: tuple[tuple[str, ...], ...] = (
    ("1906", "9004.wav", 'He said "however" twice.', "he said however twice",
     "h e | s a i d", "120000", "FEMALE"),
    ("1906", "1003.wav", 'He said "however" twice.', "he said however twice",
     "h e | s a i d", "96000", "MALE"),
    ("1907", "5550.wav", "It costs $3.50, doesn't it?", "it costs $3.50 doesn't it",
     "i t | c o s t s", "64000", "FEMALE"),
)


def wav(seed: int) -> bytes:
    """A tiny, valid 16 kHz mono WAV file whose samples depend on `seed`."""
    samples = np.sin(np.arange(320) * (0.01 + seed / 100)).astype(np.float32) * 0.3
    buffer = io.BytesIO()
    sf.write(buffer, samples, 16000, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def _tsv(rows: Sequence[Sequence[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def _language(folder: Path, rows: Sequence[Sequence[str]] = ROWS) -> Path:
    """A language folder: test.tsv and audio/test/<file_name>."""
    (folder / "audio" / "test").mkdir(parents=True)
    (folder / "test.tsv").write_text(_tsv(rows), encoding="utf-8")
    for seed, row in enumerate(rows):
        (folder / "audio" / "test" / row[1]).write_bytes(wav(seed))
    return folder


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- reading a language -----------------------------------------------------------------------


def test_a_language_reads_in_the_release_order_with_transcription_as_the_reference(
    tmp_path: Path,
) -> None:
    folder = _language(tmp_path / "en_us")

    utterances, note = read_language(tmp_path, "en_us")

    assert [u.id for u in utterances] == ["9004", "1003", "5550"]
    assert utterances[0] == Utterance("9004", "1906", "he said however twice",
                                      'He said "however" twice.', "FEMALE",
                                      folder / "audio" / "test" / "9004.wav")
    assert [u.sentence for u in utterances] == ["1906", "1906", "1907"]
    assert utterances[2].transcription == "it costs $3.50 doesn't it"
    assert utterances[2].raw_transcription == "It costs $3.50, doesn't it?"
    assert note is not None


@pytest.mark.parametrize("where", ["en_us", "data/en_us", "."], ids=["parent", "hub", "itself"])
def test_the_three_root_forms_read_the_same(tmp_path: Path, where: str) -> None:
    folder = _language(tmp_path / "release" / where)
    root = tmp_path / "release"

    assert language_folder(root, "en_us") == folder
    assert [u.id for u in read_language(root, "en_us")[0]] == ["9004", "1003", "5550"]


def test_a_missing_language_names_the_places_looked_at(tmp_path: Path) -> None:
    _language(tmp_path / "fr_fr")

    with pytest.raises(DataError) as raised:
        read_language(tmp_path, "en_us")

    message = _one_line(raised)
    assert f"--audiobench-data {tmp_path}: no FLEURS en_us test.tsv there" in message
    for place in (tmp_path / "en_us", tmp_path / "data" / "en_us", tmp_path):
        assert str(place / "test.tsv") in message


def test_a_language_that_is_not_a_config_name_is_a_value_error(tmp_path: Path) -> None:
    assert check_language("cmn_hans_cn") == "cmn_hans_cn"
    with pytest.raises(ValueError, match=r"not a FLEURS language: '\.\./en_us'"):
        read_language(tmp_path, "../en_us")


@pytest.mark.parametrize(("second", "said"), [
    (ROWS[1][:6], "6 columns; expected the 7 tab-separated columns id, file_name, "
                  "raw_transcription, transcription, phonemes, num_samples, gender"),
    ((*ROWS[1], "extra"), "8 columns; expected the 7"),
    (ROWS[0], "the file_name '9004.wav' already appears on line 1; expected every file_name "
              "once"),
    ((*ROWS[1][:3], " ", *ROWS[1][4:]), "the transcription of '1003.wav' is empty"),
    ((ROWS[1][0], "../1003.wav", *ROWS[1][2:]), "the file_name '../1003.wav' names no file"),
], ids=["six-columns", "eight-columns", "file-twice", "empty-transcription", "unsafe-name"])
def test_a_bad_row_is_one_line_naming_the_file_and_the_line(
    tmp_path: Path, second: Sequence[str], said: str
) -> None:
    folder = _language(tmp_path / "en_us")
    (folder / "test.tsv").write_text(_tsv([ROWS[0], second, ROWS[2]]), encoding="utf-8")

    with pytest.raises(DataError) as raised:
        read_language(tmp_path, "en_us")

    assert f"{folder / 'test.tsv'}: line 2: {said}" in _one_line(raised)


def test_a_missing_audio_file_names_the_file_it_expected(tmp_path: Path) -> None:
    folder = _language(tmp_path / "en_us")
    audio = folder / "audio" / "test" / "5550.wav"
    audio.unlink()

    with pytest.raises(DataError) as raised:
        read_language(tmp_path, "en_us")

    assert _one_line(raised) == (f"{folder / 'test.tsv'}: line 3: no audio for '5550.wav'; "
                                 f"expected {audio}")


def test_a_transcript_file_without_rows_is_an_error(tmp_path: Path) -> None:
    folder = _language(tmp_path / "en_us", rows=())

    with pytest.raises(DataError, match="holds no rows") as raised:
        read_language(tmp_path, "en_us")

    assert _one_line(raised).startswith(f"{folder / 'test.tsv'}: holds no rows")


def test_part_of_the_split_gets_a_note_the_whole_none_an_unknown_language_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _language(tmp_path / "en_us")
    _language(tmp_path / "fr_fr")

    _, part = read_language(tmp_path, "en_us")
    _, unknown = read_language(tmp_path, "fr_fr")
    monkeypatch.setitem(facts.TEST_SIZES, "en_us", len(ROWS))
    _, whole = read_language(tmp_path, "en_us")

    assert part == ("fleurs en_us: 3 of 647 utterances (not the whole test split: its numbers "
                    "are not comparable with published ones)")
    assert unknown == ("fleurs fr_fr: 3 utterances; the size of its test split is not known "
                       "here, so whether they are all of it is not checked")
    assert whole is None


# --- downloading from the hub -----------------------------------------------------------------


def _archive(path: Path, members: Mapping[str, bytes], *, link: str | None = None) -> None:
    """A tar.gz of `members` (name -> bytes), and a symbolic link member when `link` is set."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link is not None:
            info = tarfile.TarInfo(link)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)


def _audio(rows: Sequence[Sequence[str]] = ROWS) -> dict[str, bytes]:
    return {f"test/{row[1]}": wav(seed) for seed, row in enumerate(rows)}


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo: en_us's test split, its other splits and another language (decoys)."""
    repo = tmp_path / "remote" / "fleurs"
    (repo / "data" / "en_us").mkdir(parents=True)
    (repo / TSV).write_text(_tsv(ROWS), encoding="utf-8")
    _archive(repo / ARCHIVE, _audio())
    for decoy in ("data/en_us/train.tsv", "data/en_us/dev.tsv", "data/fr_fr/test.tsv"):
        (repo / decoy).parent.mkdir(parents=True, exist_ok=True)
        (repo / decoy).write_text(_tsv(ROWS[:1]), encoding="utf-8")
    for decoy in ("data/en_us/audio/train.tar.gz", "data/fr_fr/audio/test.tar.gz"):
        _archive(repo / decoy, _audio(ROWS[:1]))
    (repo / "README.md").write_text("# FLEURS\n", encoding="utf-8")
    return repo


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: remote}) as server:
        yield server


def test_only_the_languages_test_files_are_fetched_and_unpacked(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_fleurs(tmp_path / "cache", ["en_us"], endpoint=hub.url)

    assert root == tmp_path / "cache" / "google--fleurs"
    assert hub.downloaded == [TSV, ARCHIVE]
    assert not [path for _, path in hub.requests
                if "fr_fr" in path or "train" in path or "dev" in path]
    utterances, _ = read_language(root, "en_us")
    assert [u.id for u in utterances] == ["9004", "1003", "5550"]
    assert utterances[1].audio == root / "en_us" / "audio" / "test" / "1003.wav"
    assert utterances[1].audio.read_bytes() == wav(1)
    assert sorted(p.name for p in (root / "en_us").iterdir() if not p.name.startswith(".")) \
        == ["audio", "test.tsv"]


def test_an_unsafe_archive_is_one_line_and_nothing_is_unpacked(
    remote: Path, tmp_path: Path
) -> None:
    _archive(remote / ARCHIVE, _audio(), link="test/evil.wav")

    with FakeHfHub({REPO: remote}) as server, pytest.raises(DownloadError) as raised:
        url = server.url
        download_fleurs(tmp_path / "cache", ["en_us"], endpoint=url)

    assert_one_line_naming(raised.value, REPO, url)
    assert f"cannot convert FLEURS en_us of {REPO} from {url}: {ARCHIVE} (" in str(raised.value)
    assert "member 'test/evil.wav' is a symbolic link" in str(raised.value)
    assert not (tmp_path / "cache" / "google--fleurs" / "en_us").exists()


def test_an_archive_without_audio_is_one_line(remote: Path, tmp_path: Path) -> None:
    _archive(remote / ARCHIVE, {"test/README.txt": b"no audio here"})

    with FakeHfHub({REPO: remote}) as server, pytest.raises(DownloadError) as raised:
        download_fleurs(tmp_path / "cache", ["en_us"], endpoint=server.url)

    assert f"{ARCHIVE}: it holds no .wav files" in _one_line(raised)


def test_a_language_the_hub_lacks_is_an_unexpected_layout(hub: FakeHfHub, tmp_path: Path) -> None:
    with pytest.raises(DownloadError, match="unexpected layout") as raised:
        download_fleurs(tmp_path / "cache", ["de_de"], endpoint=hub.url)

    assert_one_line_naming(raised.value, REPO, hub.url)
    assert "it lacks one of data/de_de/test.tsv, data/de_de/audio/test.tar.gz" in str(raised.value)


# --- a local snapshot of the hub repo ---------------------------------------------------------


def test_a_local_snapshot_s_archive_is_unpacked_into_the_cache_once(
    remote: Path, tmp_path: Path
) -> None:
    snapshot = local_snapshot(remote, tmp_path / "fleurs")
    cache = tmp_path / "cache"

    folder = release_folder(snapshot, ["en_us"], cache)

    assert folder.parent == cache.resolve() / "fleurs"
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == ["en_us"]
    utterances, _ = read_language(folder, "en_us")
    assert [u.id for u in utterances] == ["9004", "1003", "5550"]
    assert utterances[1].audio == folder / "en_us" / "audio" / "test" / "1003.wav"
    assert utterances[1].audio.read_bytes() == wav(1)
    written = utterances[1].audio.stat().st_mtime_ns
    assert release_folder(snapshot / "data", ["en_us"], cache) == folder  # the repo's data/
    assert release_folder(snapshot, ["en_us"], cache) == folder
    assert utterances[1].audio.stat().st_mtime_ns == written


def test_a_language_already_unpacked_is_read_where_it_is(tmp_path: Path) -> None:
    _language(tmp_path / "data" / "en_us")
    _archive(tmp_path / ARCHIVE, _audio())  # the archive beside the unpacked audio

    assert release_folder(tmp_path, ["en_us"], tmp_path / "cache") == tmp_path
    assert not (tmp_path / "cache").exists()


def test_an_unsafe_archive_of_a_snapshot_is_one_line_and_nothing_is_unpacked(
    remote: Path, tmp_path: Path
) -> None:
    _archive(remote / ARCHIVE, _audio(), link="test/evil.wav")
    snapshot = local_snapshot(remote, tmp_path / "fleurs")

    with pytest.raises(DataError) as raised:
        release_folder(snapshot, ["en_us"], tmp_path / "cache")

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot}: cannot convert its FLEURS en_us "
                              f"audio archive: {ARCHIVE} ({snapshot / ARCHIVE}): ")
    assert "member 'test/evil.wav' is a symbolic link" in message
    assert not list((tmp_path / "cache" / "fleurs").glob("*/en_us"))
