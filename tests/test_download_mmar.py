"""`download_mmar`: the real huggingface_hub download code against a local fake hub: the
archive's audio folder found and unpacked safely, the legacy meta file, the probe. What every
hub download does is held once for all in ``test_hub_downloads.py``."""

from __future__ import annotations

import io
import json
import re
import socket
import tarfile
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.mmar.download import (
    MMAR_ARCHIVE,
    MMAR_LEGACY_META,
    MMAR_META,
    MMAR_REPO,
    download_mmar,
)
from pytest_audiobench.errors import DownloadError
from pytest_audiobench.hub import huggingface
from pytest_audiobench.hub.huggingface import resolve_hf_endpoint
from tests.fakes.datasets import tiny_wav
from tests.fakes.filesystems import visible_names
from tests.fakes.hf_hub import FakeHfHub

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

NAMES = ("a", "b", "c")


AUDIO = {f"{name}.wav": tiny_wav(i) for i, name in enumerate(NAMES)}


def _meta_records() -> list[dict[str, object]]:
    return [
        {
            "id": name,
            "audio_path": f"./audio/{name}.wav",
            "question": f"What is heard in {name}?",
            "choices": ["a dog", "a cat"],
            "answer": "a dog",
        }
        for name in NAMES
    ]


def _file(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def _special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, b""


def _write_archive(path: Path, members: Sequence[tuple[tarfile.TarInfo, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return path


def _audio_members(
    prefix: str, audio: Mapping[str, bytes] = AUDIO
) -> list[tuple[tarfile.TarInfo, bytes]]:
    return [_file(f"{prefix}{name}", data) for name, data in audio.items()]


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """A tiny MMAR repo: a 3-line MMAR-meta.jsonl and mmar-audio.tar.gz with audio/*.wav."""
    repo = tmp_path / "remote" / "MMAR"
    repo.mkdir(parents=True)
    lines = (json.dumps(r) for r in _meta_records())
    (repo / MMAR_META).write_text("\n".join(lines) + "\n", encoding="utf-8")
    _write_archive(repo / MMAR_ARCHIVE, _audio_members("audio/"))
    (repo / "README.md").write_text("# MMAR\n", encoding="utf-8")
    return repo


@pytest.fixture
def hub(release: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({MMAR_REPO: release}) as server:
        yield server


def _assert_one_line_with_the_fix(error: DownloadError, endpoint: str) -> None:
    message = str(error)
    assert "\n" not in message
    assert endpoint in message
    assert "(MMAR-meta.jsonl and audio/)" in message
    assert "--audiobench-data DIR" in message


# --- downloading and unpacking ---------------------------------------------------------------


def test_it_downloads_the_meta_file_and_the_archive_and_unpacks_the_audio_to_root_audio(
    hub: FakeHfHub, release: Path, tmp_path: Path
) -> None:
    root = download_mmar(tmp_path / "cache", endpoint=hub.url)

    assert root == tmp_path / "cache" / "BoJack--MMAR"
    assert hub.downloaded == [MMAR_META, MMAR_ARCHIVE]
    assert visible_names(root) == {MMAR_META, "audio"}
    assert (root / MMAR_META).read_bytes() == (release / MMAR_META).read_bytes()
    assert {p.name: p.read_bytes() for p in (root / "audio").iterdir()} == AUDIO
    assert not any(p.name.startswith(".audio-partial-") for p in root.iterdir())


def test_every_audio_path_of_the_meta_file_exists_under_the_root(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    root = download_mmar(tmp_path / "cache", endpoint=hub.url)

    lines = (root / MMAR_META).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3
    for line in lines:
        assert (root / json.loads(line)["audio_path"]).is_file()


def test_a_changed_archive_replaces_the_audio_folder_whole(
    hub: FakeHfHub, release: Path, tmp_path: Path
) -> None:
    root = download_mmar(tmp_path / "cache", endpoint=hub.url)
    _write_archive(release / MMAR_ARCHIVE, _audio_members("audio/", {"d.wav": tiny_wav(9)}))

    again = download_mmar(tmp_path / "cache", endpoint=hub.url)

    assert again == root
    assert hub.downloaded == [MMAR_META, MMAR_ARCHIVE, MMAR_ARCHIVE]
    assert sorted(p.name for p in (root / "audio").iterdir()) == ["d.wav"]


def test_an_audio_folder_deleted_beside_its_marker_is_unpacked_again_without_a_download(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    import shutil

    root = download_mmar(tmp_path / "cache", endpoint=hub.url)
    shutil.rmtree(root / "audio")

    download_mmar(tmp_path / "cache", endpoint=hub.url)

    assert hub.downloaded == [MMAR_META, MMAR_ARCHIVE]
    assert {p.name for p in (root / "audio").iterdir()} == set(AUDIO)


def test_without_mmar_meta_jsonl_the_legacy_mmar_meta_json_is_fetched(
    release: Path, tmp_path: Path
) -> None:
    (release / MMAR_META).unlink()
    (release / MMAR_LEGACY_META).write_text(json.dumps(_meta_records()), encoding="utf-8")

    with FakeHfHub({MMAR_REPO: release}) as server:
        root = download_mmar(tmp_path / "cache", endpoint=server.url)

    assert server.downloaded == [MMAR_LEGACY_META, MMAR_ARCHIVE]
    assert ("HEAD", f"/datasets/{MMAR_REPO}/resolve/main/{MMAR_META}") in server.requests
    assert visible_names(root) == {MMAR_LEGACY_META, "audio"}
    assert (root / MMAR_LEGACY_META).read_bytes() == (release / MMAR_LEGACY_META).read_bytes()


def test_when_the_repo_moves_to_the_jsonl_meta_file_the_legacy_copy_is_dropped(
    release: Path, tmp_path: Path
) -> None:
    jsonl = (release / MMAR_META).read_bytes()
    (release / MMAR_META).unlink()
    (release / MMAR_LEGACY_META).write_text(json.dumps(_meta_records()), encoding="utf-8")
    with FakeHfHub({MMAR_REPO: release}) as server:
        root = download_mmar(tmp_path / "cache", endpoint=server.url)
        (release / MMAR_LEGACY_META).unlink()
        (release / MMAR_META).write_bytes(jsonl)

        download_mmar(tmp_path / "cache", endpoint=server.url)

    assert visible_names(root) == {MMAR_META, "audio"}


@pytest.mark.parametrize(
    "prefix",
    ["audio/", "./audio/", "mmar-audio/audio/", "MMAR/data/audio/", "", "mmar-audio/wavs/"],
    ids=["audio", "dot-audio", "top-folder", "two-folders-deep", "no-folder", "other-name"],
)
def test_the_folder_that_holds_the_wav_files_becomes_root_audio(
    release: Path, tmp_path: Path, prefix: str
) -> None:
    # Other files next to the audio folder are dropped (with no folder there is nothing else).
    extra = [_file("mmar-audio/README.txt", b"read me")] if prefix else []
    members = [*extra, *_audio_members(prefix)]
    _write_archive(release / MMAR_ARCHIVE, members)

    with FakeHfHub({MMAR_REPO: release}) as server:
        root = download_mmar(tmp_path / "cache", endpoint=server.url)

    assert visible_names(root) == {MMAR_META, "audio"}
    assert {p.name: p.read_bytes() for p in (root / "audio").iterdir()} == AUDIO


def test_folder_members_in_the_archive_are_fine(release: Path, tmp_path: Path) -> None:
    folder = tarfile.TarInfo("mmar-audio/audio")
    folder.type = tarfile.DIRTYPE
    folder.mode = 0o555  # read-only: must not keep the files from being written into it
    _write_archive(release / MMAR_ARCHIVE, [(folder, b""), *_audio_members("mmar-audio/audio/")])

    with FakeHfHub({MMAR_REPO: release}) as server:
        root = download_mmar(tmp_path / "cache", endpoint=server.url)

    assert {p.name for p in (root / "audio").iterdir()} == set(AUDIO)


# --- unsafe and broken archives --------------------------------------------------------------


@pytest.mark.parametrize(
    ("member", "expected"),
    [
        (_file("../../../evil", b"evil"), "'..' component"),
        (_file("audio/../../../../evil", b"evil"), "'..' component"),
        (_file("{tmp}/evil", b"evil"), "absolute path"),
        (_special("audio/evil.wav", tarfile.SYMTYPE, "{tmp}/evil"), "symbolic link"),
        (_special("audio/evil", tarfile.SYMTYPE, "../../../evil"), "symbolic link"),
        (_special("audio/evil.wav", tarfile.LNKTYPE, "audio/a.wav"), "hard link"),
        (_special("audio/evil", tarfile.CHRTYPE), "device file"),
        (_special("audio/evil", tarfile.FIFOTYPE), "FIFO"),
    ],
    ids=[
        "dotdot",
        "inner-dotdot",
        "absolute",
        "symlink-abs",
        "symlink-up",
        "hardlink",
        "device",
        "fifo",
    ],
)
def test_an_unsafe_member_fails_the_download_and_nothing_is_written_outside(
    release: Path, tmp_path: Path, member: tuple[tarfile.TarInfo, bytes], expected: str
) -> None:
    info, data = member
    info.name = info.name.replace("{tmp}", str(tmp_path))
    info.linkname = info.linkname.replace("{tmp}", str(tmp_path))
    # A good member first, so the unsafe one comes in the middle of the unpacking.
    _write_archive(release / MMAR_ARCHIVE, [*_audio_members("audio/"), (info, data)])

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match=re.escape(expected)) as raised,
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)

    message = str(raised.value)
    _assert_one_line_with_the_fix(raised.value, url)
    assert info.name in message
    assert "only regular files and folders" in message
    assert not (tmp_path / "evil").exists()
    assert [p for p in tmp_path.rglob("evil*")] == []
    root = tmp_path / "cache" / "BoJack--MMAR"
    assert visible_names(root) == set()  # no audio/ and no meta file: not a release root
    assert list(root.glob(".audio-partial-*")) == []


def test_an_unsafe_archive_keeps_an_earlier_complete_unpacking_but_fails(
    hub: FakeHfHub, release: Path, tmp_path: Path
) -> None:
    root = download_mmar(tmp_path / "cache", endpoint=hub.url)
    _write_archive(release / MMAR_ARCHIVE, [_file("../../../evil", b"evil")])

    with pytest.raises(DownloadError, match=re.escape("'..' component")):
        download_mmar(tmp_path / "cache", endpoint=hub.url)

    assert {p.name for p in (root / "audio").iterdir()} == set(AUDIO)
    assert not (tmp_path / "evil").exists()


def test_an_archive_that_is_not_a_tar_file_is_a_download_error_naming_the_cached_file(
    release: Path, tmp_path: Path
) -> None:
    (release / MMAR_ARCHIVE).write_bytes(b"this is not gzip data" * 10)

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match="not a readable tar archive") as raised,
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)

    _assert_one_line_with_the_fix(raised.value, url)
    assert str(tmp_path / "cache" / "huggingface") in str(raised.value)


def test_an_archive_without_audio_files_is_a_download_error(release: Path, tmp_path: Path) -> None:
    _write_archive(release / MMAR_ARCHIVE, [_file("mmar-audio/README.txt", b"nothing")])

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match="holds no audio files"),
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)


def test_wav_files_spread_over_folders_none_named_audio_are_a_download_error(
    release: Path, tmp_path: Path
) -> None:
    members = [_file("x/a.wav", AUDIO["a.wav"]), _file("y/b.wav", AUDIO["b.wav"])]
    _write_archive(release / MMAR_ARCHIVE, members)

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match="spread over 2 folders"),
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)


# --- hub errors --------------------------------------------------------------------------------


def test_a_repo_without_any_meta_file_is_an_unexpected_layout(
    release: Path, tmp_path: Path
) -> None:
    (release / MMAR_META).unlink()

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match="unexpected layout") as raised,
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)

    assert f"neither {MMAR_META} nor {MMAR_LEGACY_META}" in str(raised.value)
    _assert_one_line_with_the_fix(raised.value, url)
    assert server.downloaded == []


def test_a_repo_without_the_archive_is_an_unexpected_layout(release: Path, tmp_path: Path) -> None:
    (release / MMAR_ARCHIVE).unlink()

    with (
        FakeHfHub({MMAR_REPO: release}) as server,
        pytest.raises(DownloadError, match=f"it has no {MMAR_ARCHIVE}") as raised,
    ):
        url = server.url
        download_mmar(tmp_path / "cache", endpoint=url)

    _assert_one_line_with_the_fix(raised.value, url)


# --- endpoints and offline use -----------------------------------------------------------------


def test_a_hub_that_accepts_but_never_answers_fails_after_the_probe_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(huggingface, "_HF_PROBE_TIMEOUT", 0.5)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        endpoint = f"http://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()

        with pytest.raises(DownloadError, match="timed out") as raised:
            download_mmar(tmp_path / "cache", endpoint=endpoint)

    assert time.monotonic() - started < 3
    assert "\n" not in str(raised.value)


def test_with_hf_hub_offline_the_legacy_meta_file_is_found_in_the_cache(
    release: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (release / MMAR_META).unlink()
    (release / MMAR_LEGACY_META).write_text(json.dumps(_meta_records()), encoding="utf-8")
    with FakeHfHub({MMAR_REPO: release}) as server:
        root = download_mmar(tmp_path / "cache", endpoint=server.url)
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")

        download_mmar(tmp_path / "cache", endpoint=server.url)

    assert visible_names(root) == {MMAR_LEGACY_META, "audio"}


def test_the_endpoint_comes_from_hf_endpoint_as_set_at_the_call(
    hub: FakeHfHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_ENDPOINT", f"{hub.url}/")  # huggingface_hub is imported already

    root = download_mmar(tmp_path / "cache")

    assert hub.downloaded == [MMAR_META, MMAR_ARCHIVE]
    assert (root / MMAR_META).is_file()


def test_resolve_hf_endpoint_prefers_the_argument_then_hf_endpoint_then_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_hf_endpoint() == "https://huggingface.co"
    monkeypatch.setenv("HF_ENDPOINT", "hf-mirror.example/")
    assert resolve_hf_endpoint() == "https://hf-mirror.example"
    assert resolve_hf_endpoint("http://127.0.0.1:9") == "http://127.0.0.1:9"


# --- through the plugin ---------------------------------------------------------------------


def test_the_plugin_downloads_mmar_once_from_the_hub_and_runs_it(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.conftest import MODEL
    from tests.fakes.datasets import build_mmar
    from tests.fakes.made_records import made_mmar_records
    from tests.fakes.openai_server import FakeOpenAIServer

    records = made_mmar_records()[:4]
    built = build_mmar(tmp_path / "built", records)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / MMAR_META).write_bytes((built / MMAR_META).read_bytes())
    with tarfile.open(repo / MMAR_ARCHIVE, "w:gz") as tar:
        tar.add(built / "audio", arcname="audio")
    answers = {r["question"]: r["answer"] for r in records}
    cache = pytester.path / "cache"
    with FakeHfHub({MMAR_REPO: repo}) as hub, FakeOpenAIServer(
            lambda request: answers[request.text.split("\n", 1)[0]], models=[MODEL]) as model:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        args = ["--audiobench-model", MODEL, "--audiobench-api-url", model.url,
                "--audiobench-benchmark", "mmar", "--audiobench-data", "huggingface",
                f"--audiobench-cache-dir={cache}"]
        pytester.runpytest_subprocess(*args).assert_outcomes(passed=4)
        pytester.runpytest_subprocess(*args, "-n2").assert_outcomes(passed=4)
        assert sorted(hub.downloaded) == sorted([MMAR_ARCHIVE, MMAR_META])
