"""The data root holds: no audio from outside the release is read or sent, whether a record
names it with ``..`` or a link leads there (a file or a folder, in both benchmarks); a release
read from the copy a local snapshot was converted into is held to that copy."""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.release import check_inside, mini_root
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.errors import DataError
from tests.conftest import Servers
from tests.fakes.datasets import build_air_bench_chat, build_mmar
from tests.fakes.hub_repos import local_snapshot, mmau_repo

SECRET = b"RIFF-this-file-lies-outside-the-data-root"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the release, holding a file that must never be sent."""
    folder = tmp_path / "private"
    folder.mkdir()
    (folder / "secret.wav").write_bytes(SECRET)
    return folder


def chat_folder(root: Path, record: dict[str, Any]) -> Path:
    return root / "Chat" / f"{record['task_name']}_{record['dataset_name']}"


def dotdot_dataset(root: Path, records: list[dict[str, Any]], outside: Path) -> str:
    # A dataset_name that climbs out of Chat/ into the private folder.
    records[0]["dataset_name"] = f"x/../../../{outside.name}"
    records[0]["path"] = "secret.wav"
    build_air_bench_chat(root, records)
    return str(records[0]["uniq_id"])


def linked_wav(root: Path, records: list[dict[str, Any]], outside: Path) -> str:
    build_air_bench_chat(root, records)
    clip = chat_folder(root, records[0]) / records[0]["path"]
    clip.unlink()
    clip.symlink_to(outside / "secret.wav")
    return str(records[0]["uniq_id"])


def linked_task_folder(root: Path, records: list[dict[str, Any]], outside: Path) -> str:
    build_air_bench_chat(root, records)
    folder = chat_folder(root, records[0])
    for clip in folder.iterdir():
        os.replace(clip, outside / clip.name)
    folder.rmdir()
    folder.symlink_to(outside, target_is_directory=True)
    return str(records[0]["uniq_id"])


@pytest.mark.parametrize("escape", [dotdot_dataset, linked_wav, linked_task_folder],
                         ids=["dotdot_in_dataset_name", "linked_wav", "linked_task_folder"])
def test_air_bench_chat_never_reads_audio_from_outside_the_root(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]], tmp_path: Path,
        outside: Path, escape: Callable[[Path, list[dict[str, Any]], Path], str]) -> None:
    records = [dict(r) for r in small_records]
    uid = escape(tmp_path / "release", records, outside)
    run = run_bench(data=tmp_path / "release")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert f"air_bench_chat record {uid}: its audio" in errors[0]
    assert "outside the data root" in errors[0]
    assert servers.model.count() == 0


def test_a_release_root_that_is_itself_a_link_is_fine(
        run_bench: Any, small_records: list[dict[str, Any]], tmp_path: Path) -> None:
    real = build_air_bench_chat(tmp_path / "real", small_records)
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    run = run_bench(data=tmp_path / "link")
    run.result.assert_outcomes(passed=16)


# --- MMAR -----------------------------------------------------------------------------------------


MINI_MMAR = [json.loads(line) for line in (mini_root("mmar") / "MMAR-meta.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip()][:3]


def linked_audio_file(root: Path, outside: Path) -> str:
    build_mmar(root, MINI_MMAR)
    clip = root / MINI_MMAR[1]["audio_path"]
    clip.unlink()
    clip.symlink_to(outside / "secret.wav")
    return str(MINI_MMAR[1]["id"])


def linked_audio_subfolder(root: Path, outside: Path) -> str:
    records = [dict(r) for r in MINI_MMAR]
    records[2]["audio_path"] = "./audio/more/secret.wav"
    build_mmar(root, records, missing=[records[2]["id"]])
    (root / "audio" / "more").symlink_to(outside, target_is_directory=True)
    return str(records[2]["id"])


@pytest.mark.parametrize("escape", [linked_audio_file, linked_audio_subfolder],
                         ids=["linked_audio_file", "linked_audio_subfolder"])
def test_mmar_never_reads_audio_from_outside_the_root(
        run_bench: Any, servers: Servers, tmp_path: Path, outside: Path,
        escape: Callable[[Path, Path], str]) -> None:
    item = escape(tmp_path / "mmar", outside)
    run = run_bench(data=tmp_path / "mmar", benchmark="mmar")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and f"mmar record {item}: its audio" in errors[0]
    assert servers.model.count() == 0


def test_what_the_server_receives_is_the_release_s_own_audio(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    root = build_mmar(tmp_path / "mmar", MINI_MMAR)
    run_bench(data=root, benchmark="mmar")
    sent = {base64.b64decode(part["input_audio"]["data"])
            for request in servers.model.requests for part in request.audio_parts}
    assert sent == {(root / r["audio_path"]).read_bytes() for r in MINI_MMAR}
    assert SECRET not in sent


# --- a local snapshot converted into the cache --------------------------------------------------


def _converted_mmau(run_bench: Any, pytester: pytest.Pytester, tmp_path: Path) -> Path:
    """The bundled MMAU mini release as a local snapshot of its hub repo, converted by a first
    run into the cache; returns the converted folder."""
    snapshot = local_snapshot(mmau_repo(mini_root("mmau"), tmp_path / "repo"), tmp_path / "MMAU")
    first = run_bench("--collect-only", data=snapshot, benchmark="mmau", judge=False)
    assert first.result.ret == pytest.ExitCode.OK, first.result.stderr.str()
    [converted] = (pytester.path / "cache" / "mmau" / "test-mini").iterdir()
    return converted


def test_a_converted_snapshot_s_clips_are_checked_against_the_converted_folder(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester, tmp_path: Path,
        outside: Path) -> None:
    converted = _converted_mmau(run_bench, pytester, tmp_path)
    clip = sorted((converted / "test-mini-audios").iterdir())[0]
    clip.unlink()
    clip.symlink_to(outside / "secret.wav")  # the marker still says the folder is whole
    run = run_bench(data=tmp_path / "MMAU", benchmark="mmau", judge=False)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith(f"ERROR: --audiobench-data {tmp_path / 'MMAU'}: mmau record "
                                f"{clip.stem}: its audio")
    assert f"outside the folder it was read from {converted.resolve()}" in errors[0]
    assert servers.model.count() == 0


def test_check_inside_holds_a_release_to_the_folder_it_was_read_from(tmp_path: Path,
                                                                      outside: Path) -> None:
    root, converted = tmp_path / "snapshot", tmp_path / "cache" / "mmau" / "0123"
    for folder in (root, converted):
        folder.mkdir(parents=True)
        (folder / "q1.wav").write_bytes(b"RIFF")
    (converted / "q2.wav").symlink_to(outside / "secret.wav")

    def release(*names: str, folder: Path | None) -> Release:
        samples = [Sample(benchmark="mmau", id=name, task="sound", category="easy",
                          audio=(folder or root) / f"{name}.wav", question="", reference="")
                   for name in names]
        return Release(samples, (), folder=folder)

    check_inside(release("q1", folder=converted), root)  # the converted copy: inside it
    check_inside(release("q1", folder=None), root)  # no folder said: the data root
    with pytest.raises(DataError, match="outside the folder it was read from"):
        check_inside(release("q2", folder=converted), root)
    with pytest.raises(DataError, match="outside the data root"):
        check_inside(Release([release("q1", folder=converted).samples[0]], ()), root)
