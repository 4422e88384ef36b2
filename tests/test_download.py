"""`--audiobench-data modelscope`: the real modelscope download code against a local fake hub."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.air_bench_chat.download import (
    AIR_BENCH_CHAT_REPO,
    CHAT_FOLDERS,
    download_air_bench_chat,
)
from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub import modelscope
from pytest_audiobench.hub.modelscope import allow_patterns, resolve_endpoint
from tests.conftest import XDIST_MODES
from tests.fakes.modelscope_hub import FakeModelScopeHub
from tests.fakes.serving import closed_port

SPEECH_QA_FILES = [
    "Chat/speech_QA_iemocap/Ses01F_impro01_F000.wav",
    "Chat/speech_QA_iemocap/Ses01F_impro01_F001.wav",
    "Chat/speech_QA_common_voice_en/nested/common_voice_en_1.mp3",
]
OTHER_CHAT_FILES = [
    "Chat/sound_QA_clotho/clotho_1.wav",
    "Chat/music_QA_musiccaps/musiccaps_1.wav",
    "Chat/speech_QA_iemocap_extra/not_a_task_folder.wav",
]
META = "Chat/Chat_meta.json"


def _write(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A tiny AIR-Bench release: Chat meta, a few task folders, and a bigger Foundation file."""
    root = tmp_path / "remote" / "AIR-Bench"
    meta = [{"task_name": "speech_QA", "dataset_name": "iemocap", "path": "x.wav"}]
    _write(root, META, json.dumps(meta).encode())
    for i, rel in enumerate(SPEECH_QA_FILES + OTHER_CHAT_FILES):
        _write(root, rel, f"audio {i} of {rel}".encode() * (i + 1))
    _write(root, "Foundation/Foundation_meta.json", b"[]")
    _write(root, "Foundation/SQA/big.wav", b"\0" * 2_000_000)
    return root


@pytest.fixture(autouse=True)
def _modelscope_kept_home(isolated_modelscope: None) -> None:
    """Every test here keeps modelscope out of the real home (``conftest.py``)."""


@pytest.fixture
def hub(release: Path) -> Iterator[FakeModelScopeHub]:
    with FakeModelScopeHub({AIR_BENCH_CHAT_REPO: release}) as server:
        yield server


def test_speech_qa_fetches_only_the_meta_file_and_the_speech_qa_folders(
    hub: FakeModelScopeHub, tmp_path: Path
) -> None:
    download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=hub.url)

    assert sorted(hub.requested_files) == sorted([META, *SPEECH_QA_FILES])


def test_a_listing_longer_than_one_page_is_followed_to_the_end(
    release: Path, tmp_path: Path
) -> None:
    for i in range(450):  # modelscope lists 200 entries a page
        _write(release, f"Chat/sound_QA_clotho/many/{i:03d}.wav", b"x")
    _write(release, "Chat/speech_QA_iemocap/zz_last.wav", b"last")

    with FakeModelScopeHub({AIR_BENCH_CHAT_REPO: release}) as server:
        download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=server.url)

    pages = [p for m, p in server.requests if "/repo/tree?" in p]
    assert len(pages) == 3
    assert sorted(server.requested_files) == sorted(
        [META, *SPEECH_QA_FILES, "Chat/speech_QA_iemocap/zz_last.wav"]
    )


def test_the_returned_root_contains_the_meta_file_and_the_nested_audio(
    hub: FakeModelScopeHub, release: Path, tmp_path: Path
) -> None:
    root = download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=hub.url)

    assert root == tmp_path / "cache" / "evalscope--AIR-Bench"
    assert (root / META).read_bytes() == (release / META).read_bytes()
    for rel in SPEECH_QA_FILES:
        assert (root / rel).read_bytes() == (release / rel).read_bytes()
    assert not (root / "Foundation").exists()
    assert not (root / "Chat" / "sound_QA_clotho").exists()


def test_a_second_call_downloads_nothing_new_and_returns_the_same_root(
    hub: FakeModelScopeHub, tmp_path: Path
) -> None:
    first = download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=hub.url)
    fetched = hub.requested_files

    second = download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=hub.url)

    assert second == first
    assert hub.requested_files == fetched


def test_adding_a_task_later_fetches_only_that_task_s_folders(
    hub: FakeModelScopeHub, tmp_path: Path
) -> None:
    download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=hub.url)
    before = len(hub.requested_files)

    download_air_bench_chat(["speech_QA", "sound_QA"], tmp_path / "cache", endpoint=hub.url)

    assert hub.requested_files[before:] == ["Chat/sound_QA_clotho/clotho_1.wav"]


def test_the_endpoint_comes_from_modelscope_endpoint_when_none_is_passed(
    hub: FakeModelScopeHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MODELSCOPE_ENDPOINT", hub.url)

    root = download_air_bench_chat(["music_QA"], tmp_path / "cache")

    assert (root / "Chat/music_QA_musiccaps/musiccaps_1.wav").is_file()
    assert sorted(hub.requested_files) == [META, "Chat/music_QA_musiccaps/musiccaps_1.wav"]


def test_resolve_endpoint_prefers_the_argument_then_the_variables_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_endpoint() == "https://www.modelscope.cn"
    monkeypatch.setenv("MODELSCOPE_DOMAIN", "hub.example")
    assert resolve_endpoint() == "https://hub.example"
    monkeypatch.setenv("MODELSCOPE_ENDPOINT", "http://mirror.example/")
    assert resolve_endpoint() == "http://mirror.example"
    assert resolve_endpoint("http://127.0.0.1:9") == "http://127.0.0.1:9"


def test_allow_patterns_cover_files_in_nested_subfolders_but_not_sibling_folders() -> None:
    from fnmatch import fnmatch  # what modelscope matches allow-patterns with

    patterns = allow_patterns([META, *(f"Chat/{f}/" for f in CHAT_FOLDERS["speech_QA"])])

    def selected(path: str) -> bool:
        return any(fnmatch(path, p) for p in patterns)

    assert selected(META)
    assert selected("Chat/speech_QA_common_voice_en/nested/deeper/a.mp3")
    assert not selected("Chat/speech_QA_iemocap_extra/a.wav")
    assert not selected("Foundation/SQA/big.wav")


def test_every_chat_task_maps_to_its_folders() -> None:
    folders = [f for fs in CHAT_FOLDERS.values() for f in fs]
    assert len(folders) == len(set(folders)) == 10
    for task, task_folders in CHAT_FOLDERS.items():
        assert all(f.startswith(f"{task}_") for f in task_folders)


def test_an_unknown_task_is_a_value_error_naming_the_accepted_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="speech_QA, speech_dialogue_QA") as info:
        download_air_bench_chat(
            ["speech_QA", "speech_qa"], tmp_path / "cache", endpoint="http://127.0.0.1:9"
        )

    assert "'speech_qa'" in str(info.value)
    assert not (tmp_path / "cache").exists()


def test_no_task_at_all_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no AIR-Bench Chat task selected"):
        download_air_bench_chat([], tmp_path / "cache", endpoint="http://127.0.0.1:9")


def test_an_unreachable_hub_fails_fast_with_one_line_naming_what_where_and_the_fix(
    tmp_path: Path,
) -> None:
    endpoint = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()

    with pytest.raises(DownloadError) as info:
        download_air_bench_chat(["speech_dialogue_QA"], tmp_path / "cache", endpoint=endpoint)

    assert time.monotonic() - started < 5
    message = str(info.value)
    assert "\n" not in message
    assert AIR_BENCH_CHAT_REPO in message
    assert "speech_dialogue_QA_fisher" in message
    assert "speech_dialogue_QA_spokenwoz" in message
    assert endpoint in message
    assert "Connection refused" in message
    assert "--audiobench-data DIR" in message
    assert info.value.__cause__ is not None


def test_a_hub_that_accepts_but_never_answers_fails_after_the_probe_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(modelscope, "_PROBE_TIMEOUT", (0.5, 0.5))
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()

        with pytest.raises(DownloadError, match="timed out") as info:
            download_air_bench_chat(["sound_QA"], tmp_path / "cache", endpoint=endpoint)

    assert time.monotonic() - started < 3
    assert "\n" not in str(info.value)


def test_an_unreachable_hub_points_at_an_earlier_complete_download(
    hub: FakeModelScopeHub, tmp_path: Path
) -> None:
    url = hub.url
    root = download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=url)
    hub.stop()

    with pytest.raises(DownloadError, match="an earlier download") as info:
        download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=url)

    assert f"--audiobench-data {root}" in str(info.value)


def test_a_dataset_missing_from_the_hub_is_a_download_error_naming_it(
    hub: FakeModelScopeHub, tmp_path: Path
) -> None:
    with pytest.raises(DownloadError, match="has no dataset someone/else") as info:
        download_air_bench_chat(
            ["speech_QA"], tmp_path / "cache", repo_id="someone/else", endpoint=hub.url
        )

    assert "\n" not in str(info.value)


def test_a_repo_without_the_chat_meta_file_is_an_unexpected_layout(
    release: Path, tmp_path: Path
) -> None:
    (release / META).unlink()
    with (
        FakeModelScopeHub({AIR_BENCH_CHAT_REPO: release}) as server,
        pytest.raises(DownloadError, match="unexpected layout") as info,
    ):
        download_air_bench_chat(["speech_QA"], tmp_path / "cache", endpoint=server.url)

    assert "Chat/Chat_meta.json" in str(info.value)
    assert "\n" not in str(info.value)


# --- through the plugin ---------------------------------------------------------------------


@pytest.fixture
def chat_release(tmp_path: Path) -> Path:
    from tests.fakes.datasets import build_air_bench_chat
    from tests.fakes.made_records import made_chat_records

    return build_air_bench_chat(tmp_path / "release", made_chat_records(2))


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_plugin_downloads_only_the_selected_tasks_once_and_runs_them(
        pytester: pytest.Pytester, chat_release: Path, monkeypatch: pytest.MonkeyPatch,
        xdist: list[str]) -> None:
    from tests.conftest import JUDGE, MODEL, ScoringJudge
    from tests.fakes.openai_server import FakeOpenAIServer, Scripted

    cache = pytester.path / "cache"
    with FakeModelScopeHub({AIR_BENCH_CHAT_REPO: chat_release}) as hub, \
            FakeOpenAIServer(Scripted("a good answer"), models=[MODEL]) as model, \
            FakeOpenAIServer(ScoringJudge(), models=[JUDGE]) as judge:
        monkeypatch.setenv("MODELSCOPE_ENDPOINT", hub.url)
        result = pytester.runpytest_subprocess(
            "--audiobench-model", MODEL, "--audiobench-api-url", model.url,
            "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url", judge.url,
            "--audiobench-data", "modelscope", f"--audiobench-cache-dir={cache}",
            "--audiobench-tasks", "sound_QA", *xdist)
        result.assert_outcomes(passed=2)
        files = hub.requested_files
    assert sorted(files) == sorted(
        ["Chat/Chat_meta.json"]
        + [p.relative_to(chat_release).as_posix()
           for p in (chat_release / "Chat" / "sound_QA_clotho").iterdir()])


def test_the_plugin_says_in_one_line_when_the_hub_is_unreachable(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("MODELSCOPE_ENDPOINT", f"http://127.0.0.1:{port}")
    result = pytester.runpytest_subprocess(
        "--audiobench-model", "m", "--audiobench-api-url", "http://127.0.0.1:9/v1",
        "--audiobench-judge-model", "j", "--audiobench-judge-api-url", "http://127.0.0.1:9/v1",
        "--audiobench-data", "modelscope", f"--audiobench-cache-dir={pytester.path / 'c'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith("ERROR: --audiobench-data modelscope: cannot download AIR-Bench")
    assert "--audiobench-data DIR" in errors[0]
