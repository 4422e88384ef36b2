"""Common Voice 15's data layer: a locale's test split read from Mozilla's layout (columns by
their header's names, quotes as text, two root forms, each bad row one line naming its file
and line, a missing locale naming the flag), the locales a run chooses, the hub copy fetched
one locale at a time and converted into Mozilla's layout (no Cantonese there, rows without a
speaker each their own cluster), and a local snapshot of it converted once into the cache.
What every hub download does is held once for all in ``test_hub_downloads.py``."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.common_voice import facts
from pytest_audiobench.benchmarks.common_voice.benchmark import CommonVoice, chosen_locales
from pytest_audiobench.benchmarks.common_voice.data import read_locale
from pytest_audiobench.benchmarks.common_voice.download import download_common_voice
from pytest_audiobench.errors import DataError, DownloadError
from tests.conftest import failed_download
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import common_voice_repo, local_snapshot, write_parquet
from tests.fakes.speech import Utterance, build_common_voice
from tests.settings import make_settings

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

REPO = facts.HUB_REPO
QUOTED = '"Why not?" she asked.'
"""A sentence that opens with a quote: CSV quoting would read it as a quoted cell."""
SAID = [
    Utterance("en", "aa11", QUOTED, ""),
    Utterance("en", "bb22", 'He said "yes" twice.', ""),
    Utterance("zh-CN", "cc33", "今天天气很好。", ""),
    Utterance("zh-CN", "dd44", "我们去公园。", ""),
    Utterance("fr", "ee55", "Le train part à huit heures.", ""),
]


def _read(root: Path, locale: str) -> list[tuple[str, str, str, str]]:
    return [(u.id, u.client_id, u.sentence, u.audio.name) for u in read_locale(root, locale)]


def _tsv(root: Path, locale: str, lines: Sequence[str]) -> Path:
    """`locale`'s test.tsv written as `lines`, a clip for every ``common_voice_*`` file named."""
    folder = root / locale
    (folder / "clips").mkdir(parents=True, exist_ok=True)
    for line in lines[1:]:
        for cell in line.split("\t"):
            if cell.startswith("common_voice_") and "/" not in cell:
                (folder / "clips" / cell).write_bytes(b"RIFF")
    path = folder / "test.tsv"
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


# --- reading a locale -------------------------------------------------------------------------


def test_a_locale_reads_in_file_order_its_quotes_as_text(tmp_path: Path) -> None:
    build_common_voice(tmp_path, SAID)
    assert _read(tmp_path, "en") == [
        ("common_voice_en_8000", "aa11", QUOTED, "common_voice_en_8000.wav"),
        ("common_voice_en_8001", "bb22", 'He said "yes" twice.', "common_voice_en_8001.wav")]


def test_columns_are_found_by_name_in_any_order_and_trailing_empty_ones_may_be_left_off(
        tmp_path: Path) -> None:
    _tsv(tmp_path, "fr", ["sentence\tvotes\tpath\tclient_id\tgender\tlocale",
                          "Bonjour à tous.\t3\tcommon_voice_fr_1.mp3\tff66",
                          "Merci beaucoup.\t1\tcommon_voice_fr_2.mp3\tgg77\tfemale_feminine\tfr"])
    utterances = read_locale(tmp_path, "fr")
    assert [(u.id, u.client_id, u.gender) for u in utterances] == [
        ("common_voice_fr_1", "ff66", ""), ("common_voice_fr_2", "gg77", "female_feminine")]


def test_mozilla_s_corpus_folder_and_its_parent_read_the_same(tmp_path: Path) -> None:
    corpus = tmp_path / facts.CORPUS_FOLDER
    build_common_voice(corpus, SAID)
    assert _read(tmp_path, "zh-CN") == _read(corpus, "zh-CN")
    assert [u.sentence for u in read_locale(tmp_path, "zh-CN")] == [
        "今天天气很好。", "我们去公园。"]


def test_a_missing_locale_names_where_it_looked_what_is_there_and_the_flag(
        tmp_path: Path) -> None:
    build_common_voice(tmp_path, SAID)
    with pytest.raises(DataError) as raised:
        read_locale(tmp_path, "yue")
    message = str(raised.value)
    assert "\n" not in message
    assert f"--audiobench-data {tmp_path}: no Common Voice yue test.tsv there" in message
    assert str(tmp_path / facts.CORPUS_FOLDER / "yue" / "test.tsv") in message
    assert "(it holds en, zh-CN, fr)" in message
    assert message.endswith("or select the locales it has with --audiobench-common-voice-locale")


def test_an_unknown_locale_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not a common_voice locale: 'de'"):
        read_locale(tmp_path, "de")


HEADER = "client_id\tpath\tsentence\tlocale"
BAD = [
    ("client_id\tpath\tlocale", 1, "(the header): has no sentence column"),
    ("client_id\tpath\tsentence\tpath", 1, "(the header): names path more than once"),
    (f"{HEADER}\naa\tcommon_voice_en_1.mp3\tA tab\there.\ten", 2,
     "5 cells where the header names 4 columns"),
    (f"{HEADER}\naa\tcommon_voice_en_1.mp3", 2, "2 cells, none for sentence"),
    (f"{HEADER}\naa\tclips/common_voice_en_1.mp3\tHello.\ten", 2,
     "the path 'clips/common_voice_en_1.mp3' names no file"),
    (f"{HEADER}\naa\tcommon_voice_en_1.mp3\tHello.\ten\nbb\tcommon_voice_en_1.wav\tHi.\ten", 3,
     "makes the id 'common_voice_en_1' of line 2 again"),
    (f"{HEADER}\naa\tcommon_voice_en_1.mp3\t  \ten", 2,
     "the sentence of 'common_voice_en_1.mp3' is empty"),
    (f"{HEADER}\naa\tcommon_voice_en_1.mp3\tBonjour.\tfr", 2,
     "the locale of 'common_voice_en_1.mp3' is 'fr'; expected 'en'"),
    (f"{HEADER}\naa\tgone.mp3\tHello.\ten", 2, "no clip for 'gone.mp3'; expected "),
    (HEADER, None, "holds a header and no rows"),
    ("\n\n", None, "holds no rows"),
]


@pytest.mark.parametrize(("text", "line", "said"), BAD, ids=[f"case{i}" for i in range(len(BAD))])
def test_a_bad_row_is_one_line_naming_the_file_and_the_line(
        tmp_path: Path, text: str, line: int | None, said: str) -> None:
    tsv = _tsv(tmp_path, "en", text.split("\n"))
    with pytest.raises(DataError) as raised:
        read_locale(tmp_path, "en")
    message = str(raised.value)
    assert "\n" not in message
    where = f"{tsv}: line {line}" if line is not None else f"{tsv}: "
    assert message.startswith(where) and said in message, message


def test_a_file_that_is_not_utf_8_is_named(tmp_path: Path) -> None:
    tsv = _tsv(tmp_path, "en", [HEADER])
    tsv.write_bytes(HEADER.encode() + b"\naa\tx.mp3\t\xff\xfe\ten\n")
    with pytest.raises(DataError, match="not readable as UTF-8 tab-separated text"):
        read_locale(tmp_path, "en")


# --- the locales a run chooses ----------------------------------------------------------------


@pytest.mark.parametrize(("flagged", "tasks", "hub", "chosen"), [
    ((), (), False, ["en", "zh-CN", "yue", "fr"]),
    ((), (), True, ["en", "zh-CN", "fr"]),  # the hub copy has no Cantonese
    ((), ("fr", "test-clean"), False, ["fr"]),
    ((), ("yue",), True, ["yue"]),  # asked of the hub: its download says it has none
    (("yue", "en"), (), False, ["yue", "en"]),
    (("yue", "en"), ("en",), True, ["en"]),
    (("fr",), ("en",), False, ["fr"]),  # tasks outside the flag's leave it whole
])
def test_the_locales_come_from_the_flag_else_the_source_narrowed_by_the_tasks(
        flagged: tuple[str, ...], tasks: tuple[str, ...], hub: bool, chosen: list[str]) -> None:
    assert chosen_locales(flagged, tasks, hub) == chosen


def _bench(here: Path, data: str | Path, **more: object) -> CommonVoice:
    settings = make_settings(here, model="random", data=str(data),
                             benchmark=(facts.NAME,), cache_dir=here / "cache", **more)
    bench = registry.create(facts.NAME, settings)
    assert isinstance(bench, CommonVoice)
    return bench


# --- the hub copy -----------------------------------------------------------------------------


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub copy made from a release of en, zh-CN and fr (and yue, which it leaves out)."""
    build_common_voice(tmp_path / "made", [*SAID, Utterance("yue", "hh88", "我哋飲茶。", "")])
    return common_voice_repo(tmp_path / "made", tmp_path / "remote")


def test_only_the_locale_s_parquet_files_are_fetched_and_read_as_mozilla_s_layout(
        remote: Path, tmp_path: Path) -> None:
    assert not (remote / "yue").exists()
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as hub:
        root = download_common_voice(tmp_path / "cache", "zh-CN", endpoint=hub.url)
    assert sorted(hub.downloaded) == ["zh-CN/test-00000-of-00002.parquet",
                                      "zh-CN/test-00001-of-00002.parquet"]
    assert _read(root, "zh-CN") == _read(tmp_path / "made", "zh-CN")
    assert not (root / "en").exists()


def test_rows_without_a_client_id_are_each_their_own_cluster_and_a_note_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build_common_voice(tmp_path / "made", SAID)
    remote = common_voice_repo(tmp_path / "made", tmp_path / "remote", drop=("client_id",))
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        bench = _bench(tmp_path, "huggingface", tasks=("en",))
        release = bench.load(bench.download("huggingface"))
    assert [s.category for s in release.samples] == [
        "utterance common_voice_en_8000", "utterance common_voice_en_8001"]
    assert any("en: 2 of 2 utterances name no speaker" in note for note in release.notes)


def test_cantonese_from_the_hub_is_one_line_sending_to_mozilla_before_any_request(
        remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        bench = _bench(tmp_path, "huggingface", common_voice_locale=("en", "yue"))
        with pytest.raises(DownloadError) as raised:
            bench.download("huggingface")
        assert hub.requests == []
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"the hub copy {REPO} has no Common Voice 15 yue (it holds en, "
                              "zh-CN, fr): download yue from Mozilla")
    assert "--audiobench-data DIR" in message


@pytest.mark.parametrize(("change", "said"), [
    ({"sentence": " "}, "row 1: the sentence of 'common_voice_en_8000.wav' is empty"),
    ({"locale": "fr"}, "row 1: the locale of 'common_voice_en_8000.wav' is 'fr'"),
    ({"path": "en_test_0/"}, "row 1: the path 'en_test_0/' names no clip file"),
    ({"client_id": 7}, "row 1: client_id is a int"),
    ({"audio": {"bytes": b"", "path": "x.mp3"}}, "row 1: the audio of "),
])
def test_a_bad_row_is_one_line_naming_the_parquet_file_and_the_row(
        remote: Path, tmp_path: Path, change: dict[str, object], said: str) -> None:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    first = remote / "en" / "test-00000-of-00002.parquet"
    rows = pq.read_table(first).to_pylist()
    write_parquet(first, [rows[0] | change, *rows[1:]])
    message = failed_download(
        lambda url: download_common_voice(tmp_path / "cache", "en", endpoint=url), REPO, remote)
    assert f"en/test-00000-of-00002.parquet: {said}" in message, message


def test_a_clip_in_two_rows_is_named(remote: Path, tmp_path: Path) -> None:
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    first, second = sorted((remote / "en").glob("*.parquet"))
    write_parquet(second, [pq.read_table(first).to_pylist()[0]])
    message = failed_download(
        lambda url: download_common_voice(tmp_path / "cache", "en", endpoint=url), REPO, remote)
    assert "row 1: the clip 'common_voice_en_8000.wav' is an earlier row's too" in message


# --- a local snapshot of the hub copy ---------------------------------------------------------


def test_a_local_snapshot_is_converted_into_the_cache_once_and_reads_as_the_release(
        remote: Path, tmp_path: Path) -> None:
    snapshot = local_snapshot(remote, tmp_path / "common_voice_15")
    bench = _bench(tmp_path, snapshot, common_voice_locale=("en", "fr"))
    release = bench.load(snapshot)
    folder = release.folder
    assert folder is not None and folder.is_relative_to((tmp_path / "cache").resolve())
    made = _bench(tmp_path, tmp_path / "made", common_voice_locale=("en", "fr"))
    assert [(s.id, s.task, s.reference, s.category, s.audio.read_bytes())
            for s in release.samples] == [
        (s.id, s.task, s.reference, s.category, s.audio.read_bytes())
        for s in made.load(tmp_path / "made").samples]
    written = {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()}
    bench.load(snapshot)
    assert {p: p.stat().st_mtime_ns for p in folder.rglob("*") if p.is_file()} == written


def test_a_snapshot_lacks_cantonese_unless_the_flag_leaves_it_out(
        remote: Path, tmp_path: Path) -> None:
    snapshot = local_snapshot(remote, tmp_path / "common_voice_15")
    with pytest.raises(DataError) as raised:
        _bench(tmp_path, snapshot).load(snapshot)
    message = str(raised.value)
    assert "\n" not in message
    assert (f"--audiobench-data {snapshot}: a snapshot of {REPO} without yue "
            "(yue/test-*.parquet); the hub copy holds en, zh-CN, fr") in message
    assert message.endswith("--audiobench-common-voice-locale")


def test_a_snapshot_mixed_with_mozilla_s_layout_is_refused(remote: Path, tmp_path: Path) -> None:
    snapshot = local_snapshot(remote, tmp_path / "mixed")
    build_common_voice(snapshot, [Utterance("yue", "hh88", "我哋飲茶。", "")])
    with pytest.raises(DataError, match="yue in Mozilla's layout beside the hub copy's parquet "
                                        "files; expected one layout"):
        _bench(tmp_path, snapshot).load(snapshot)
