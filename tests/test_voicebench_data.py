"""VoiceBench's data layer: the converted layout read back per subset in the release's order
(each bad line one line naming its file and line and what its subset needs, a note for each
subset that is not whole), a local snapshot of the hub repo converted once per subset, and
`download_voicebench` against a local fake hub fetching the chosen subsets' files and no
other. The repos are made from the bundled mini part by ``tests/fakes/hub_repos.py``."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.release import mini_root
from pytest_audiobench.benchmarks.voicebench import data, facts
from pytest_audiobench.benchmarks.voicebench.data import VoiceBenchRecord, read_voicebench
from pytest_audiobench.benchmarks.voicebench.download import download_voicebench
from pytest_audiobench.benchmarks.voicebench.ifeval import PUNKT_USERS
from pytest_audiobench.benchmarks.voicebench.mini import IFEVAL_ARGUMENTS
from pytest_audiobench.errors import DataError, DownloadError
from tests.conftest import assert_one_line_naming, failed_download
from tests.fakes.datasets import tiny_wav
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.hub_repos import local_snapshot, voicebench_repo, write_parquet

# Every test here keeps huggingface_hub out of the real home (``conftest.py``).
pytestmark = pytest.mark.usefixtures("isolated_hf")

MINI = mini_root(facts.NAME)
ALL = tuple(facts.SUBSETS)
REPO = facts.HUB_REPO
NOWHERE = Path("/nonexistent")  # the converted layout needs no cache

Seen = tuple[str, str, str, str, str | None, str | None, int | None, tuple[str, ...],
             tuple[dict[str, Any], ...], bytes]


def _seen(records: list[VoiceBenchRecord]) -> list[Seen]:
    """Every field of the records, the clip's bytes for its path."""
    return [(r.subset, r.split, r.id, r.prompt, r.reference, r.bbh_id, r.key, r.instruction_ids,
             r.kwargs, r.audio.read_bytes()) for r in records]


def _one_line(error: pytest.ExceptionInfo[Exception]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


# --- the converted layout (the bundled mini part) ---------------------------------------------


def test_the_mini_holds_every_subset_in_the_releases_forms() -> None:
    records, notes = read_voicebench(MINI, NOWHERE, ALL)

    assert list(Counter(r.subset for r in records).items()) == [
        ("alpacaeval_full", 2), ("commoneval", 2), ("wildvoice", 2), ("sd-qa", 4), ("mmsu", 2),
        ("openbookqa", 2), ("bbh", 4), ("ifeval", 2), ("advbench", 2)]
    by = {subset: [r for r in records if r.subset == subset] for subset in ALL}
    assert [r.id for r in by["sd-qa"]] == ["gbr-0000", "gbr-0001", "usa-0000", "usa-0001"]
    assert [r.prompt for r in by["sd-qa"][:2]] == [r.prompt for r in by["sd-qa"][2:]]
    assert [(r.split, r.id, r.reference) for r in by["mmsu"]] == [
        ("biology", "biology-0000", "C"), ("history", "history-0000", "B")]
    assert [r.reference for r in by["openbookqa"]] == ["B", "A"]
    assert [(r.bbh_task, r.reference) for r in by["bbh"]] == [
        ("sports_understanding", "yes"), ("hyperbaton", "(A)"), ("navigate", "yes"),
        ("web_of_lies", "no")]
    lowercase = by["ifeval"][1]
    assert lowercase.instruction_ids == ("change_case:english_lowercase",
                                         "length_constraints:number_words")
    assert all(list(kwargs) == list(IFEVAL_ARGUMENTS) for kwargs in lowercase.kwargs)
    assert {k: v for k, v in lowercase.kwargs[1].items() if v is not None} == {
        "num_words": 40, "relation": "less than"}
    # None reads nltk's Punkt model, which the offline main job could not download.
    assert not PUNKT_USERS.intersection(i for r in by["ifeval"] for i in r.instruction_ids)
    assert all(r.reference is None for s in ("alpacaeval_full", "advbench") for r in by[s])
    assert all(r.audio.is_file() and r.audio.is_relative_to(MINI / r.subset / "audio")
               for r in records)
    assert len(notes) == len(ALL)
    assert notes[3] == ("voicebench sd-qa: 4 of 6,083 questions (not the whole release: its "
                        "numbers are not comparable with published ones)")


def test_the_subsets_chosen_are_read_in_the_leaderboards_order() -> None:
    records, notes = read_voicebench(MINI, NOWHERE, ["ifeval", "bbh", "sd-qa"])

    assert list(dict.fromkeys(r.subset for r in records)) == ["sd-qa", "bbh", "ifeval"]
    assert [note.split(":")[0] for note in notes] == [
        "voicebench sd-qa", "voicebench bbh", "voicebench ifeval"]
    with pytest.raises(ValueError, match=r"unknown VoiceBench subset.*'alpacaeval'"):
        read_voicebench(MINI, NOWHERE, ["alpacaeval"])


def test_a_whole_subset_gets_no_note_and_a_larger_one_says_so(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data, "SIZES", {**facts.SIZES, "bbh": 4, "ifeval": 1})

    _, notes = read_voicebench(MINI, NOWHERE, ["sd-qa", "bbh", "ifeval"])

    assert notes == [
        "voicebench sd-qa: 4 of 6,083 questions (not the whole release: its numbers are not "
        "comparable with published ones)",
        "voicebench ifeval: 2 questions where the release has 1 (not the published release: "
        "its numbers are not comparable with published ones)"]


def test_a_chosen_subset_missing_from_the_root_names_it_and_its_folder(tmp_path: Path) -> None:
    root = (tmp_path / "voicebench").resolve()
    shutil.copytree(MINI / "sd-qa", root / "sd-qa")
    (root / "bbh").mkdir()  # an empty folder holds neither layout

    with pytest.raises(DataError) as raised:
        read_voicebench(root, tmp_path / "cache", ["sd-qa", "bbh", "advbench"])

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {root}: no VoiceBench bbh, advbench there; "
                              f"expected {root / 'bbh'} and {root / 'advbench'}, each holding "
                              "voicebench.jsonl and audio/")
    assert REPO in message and "--audiobench-tasks" in message
    assert read_voicebench(root, tmp_path / "cache", ["sd-qa"])[0]


def _folder(tmp_path: Path, subset: str, line: dict[str, Any] | str, at: int = 1) -> Path:
    """A root holding the mini's `subset` with its line number `at` replaced by `line`
    (changes to it, or text written as it is)."""
    root = tmp_path / "root"
    shutil.copytree(MINI / subset, root / subset)
    path = root / subset / facts.CONVERTED
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[at - 1] = line if isinstance(line, str) else json.dumps(
        {k: v for k, v in {**json.loads(lines[at - 1]), **line}.items() if v is not None})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize(("subset", "line", "said"), [
    ("sd-qa", {"reference": None}, "(id 'gbr-0001'): sd-qa needs a reference (the correct "
                                   "answer), found none"),
    ("sd-qa", {"split": "texas"}, "split 'texas' is none of sd-qa's accents (aus, gbr, ind_n,"),
    ("mmsu", {"split": "test"}, "split 'test' is none of mmsu's domains (biology, business,"),
    ("commoneval", {"split": "dev"}, "split 'dev': commoneval has the one split test"),
    ("openbookqa", {"reference": "E"}, "reference 'E' is not a letter A to D"),
    ("bbh", {"reference": "maybe"}, "reference 'maybe' is none of yes, no, (A), (B)"),
    ("bbh", {"bbh_id": "logical_deduction_3"}, "bbh id 'logical_deduction_3' names none of the "
                                               "tasks sports_understanding, hyperbaton,"),
    ("bbh", {"bbh_id": None}, "bbh needs its id, which names its task"),
    ("ifeval", {"instruction_ids": None, "kwargs": None},
     "ifeval needs its instruction ids (instruction_id_list), found none"),
    ("ifeval", {"kwargs": [{}, {}, {}]}, "2 instruction id(s) but 3 kwargs; expected one"),
    ("ifeval", {"key": "1002"}, "key: input should be a valid integer"),
    ("wildvoice", {"prompt": ""}, "prompt: string should have at least 1 character"),
    ("wildvoice", {"subset": "commoneval"}, "(id 'test-0001'): subset 'commoneval' in the "
                                            "folder of wildvoice"),
    ("advbench", {"subset": "alpacaeval"}, "subset 'alpacaeval' is none of VoiceBench's"),
    ("advbench", {"id": "test-0000"}, "the id 'test-0000' already appears on line 1"),
    ("advbench", {"audio": "audio/missing.mp3"}, "no audio file"),
    ("advbench", {"audio": "../../outside.mp3"}, "must stay inside the release root"),
    ("advbench", "[1]", "found a JSON list; expected an object with the strings subset,"),
], ids=["no-reference", "not-an-accent", "not-a-domain", "not-test", "not-a-letter",
        "not-a-bbh-answer", "no-bbh-task", "no-bbh-id", "no-instructions", "kwargs-not-one-each",
        "key-not-an-integer", "empty-prompt", "another-subset", "unknown-subset", "id-twice",
        "missing-audio", "leaves-the-folder", "not-an-object"])
def test_a_bad_line_is_one_line_naming_the_file_the_line_and_what_its_subset_needs(
    tmp_path: Path, subset: str, line: dict[str, Any] | str, said: str
) -> None:
    at = 1 if subset == "mmsu" else 2
    root = _folder(tmp_path, subset, line, at)

    with pytest.raises(DataError) as raised:
        read_voicebench(root, tmp_path / "cache", [subset])

    message = _one_line(raised)
    assert message.startswith(f"{root.resolve() / subset / facts.CONVERTED}: line {at}")
    assert said in message


# --- a local snapshot of the hub repo ---------------------------------------------------------


def _converted(cache: Path) -> dict[str, Path]:
    """Each subset's folder converted into the cache."""
    return {subset: folder for subset in ALL
            for folder in sorted((cache / f"voicebench-{subset}").glob("[!.]*"))}


def test_a_local_snapshot_is_converted_once_per_subset_into_the_minis_very_lines(
    tmp_path: Path
) -> None:
    snapshot = local_snapshot(voicebench_repo(MINI, tmp_path / "remote"), tmp_path / "snapshot")
    assert (snapshot / "sd-qa" / "usa-00000-of-00001.parquet").is_file()
    assert (snapshot / "mmsu" / "history-00000-of-00001.parquet").is_file()

    records, notes = read_voicebench(snapshot, tmp_path / "cache", ALL)

    assert _seen(records) == _seen(read_voicebench(MINI, NOWHERE, ALL)[0])
    assert notes == read_voicebench(MINI, NOWHERE, ALL)[1]
    converted = _converted(tmp_path / "cache")
    assert list(converted) == list(ALL)
    for subset, folder in converted.items():
        assert (folder / facts.CONVERTED).read_bytes() == (
            MINI / subset / facts.CONVERTED).read_bytes(), subset
    marked = {p: p.stat().st_mtime_ns for subset, folder in converted.items()
              for p in (folder / facts.CONVERTED, folder / data.RELEASES[subset].marker)}

    again, _ = read_voicebench(snapshot, tmp_path / "cache", ALL)

    assert _seen(again) == _seen(records)
    assert _converted(tmp_path / "cache") == converted
    assert {p: p.stat().st_mtime_ns for p in marked} == marked


def _snapshot_with(tmp_path: Path, subset: str, name: str, rows: list[dict[str, Any]]) -> Path:
    """A snapshot of the mini's `subset` only, the parquet file `name` written with `rows`."""
    snapshot = voicebench_repo(MINI, tmp_path / "snapshot")
    for other in ALL:
        if other != subset:
            shutil.rmtree(snapshot / other)
    write_parquet(snapshot / subset / name, rows)
    return snapshot


def _row(**columns: Any) -> dict[str, Any]:
    return {"audio": {"bytes": tiny_wav(1), "path": "clip.wav"}, "prompt": "Say hello."} | columns


@pytest.mark.parametrize(("subset", "name", "rows", "said"), [
    ("mmsu", "test-00000-of-00001.parquet", [_row(reference="A")],
     "test-00000-of-00001.parquet: row 1 (id 'test-0000'): split 'test' is none of mmsu's "
     "domains"),
    ("sd-qa", "usa.parquet", [_row(reference="Paris")],
     "usa.parquet: not named as a split's file, <split>-NNNNN-of-NNNNN.parquet"),
    ("bbh", "test-00001-of-00002.parquet", [_row(reference="yes", id="sports_understanding_9"),
                                            _row(reference="yes")],
     "test-00001-of-00002.parquet: row 2 (id 'test-0005'): bbh needs its id"),
    ("openbookqa", "test-00001-of-00002.parquet", [_row()],
     "row 1 (id 'test-0002'): openbookqa needs a reference"),
    ("ifeval", "test-00001-of-00002.parquet", [_row(key=7, instruction_id_list=[])],
     "ifeval needs its instruction ids"),
    ("wildvoice", "test-00001-of-00002.parquet", [_row(audio={"bytes": None, "path": "x.wav"})],
     "(id 'test-0002'): audio has no bytes"),
], ids=["mmsu-test-split", "unnamed-file", "bbh-without-id", "no-reference", "no-instructions",
        "no-audio"])
def test_a_bad_local_row_is_one_line_naming_the_file_and_the_row(
    tmp_path: Path, subset: str, name: str, rows: list[dict[str, Any]], said: str
) -> None:
    snapshot = _snapshot_with(tmp_path, subset, name, rows)

    with pytest.raises(DataError) as raised:
        read_voicebench(snapshot, tmp_path / "cache", [subset])

    message = _one_line(raised)
    assert message.startswith(f"--audiobench-data {snapshot.resolve() / subset}: cannot convert "
                              f"its VoiceBench {subset} parquet files: ")
    assert said in message
    assert not _converted(tmp_path / "cache")


# --- downloading from the hub -----------------------------------------------------------------


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """The hub repo made from the mini, with configs beside it that no download takes: the
    199-item alpacaeval (a prefix of alpacaeval_full's name) and mtbench."""
    repo = voicebench_repo(MINI, tmp_path / "remote")
    for other in ("alpacaeval", "mtbench"):
        write_parquet(repo / other / "test-00000-of-00001.parquet", [_row()])
    return repo


@pytest.fixture
def hub(remote: Path) -> Iterator[FakeHfHub]:
    with FakeHfHub({REPO: remote}, lfs_patterns=PARQUET_AS_LFS) as server:
        yield server


def test_only_the_chosen_subsets_are_fetched_and_converted_under_one_root(
    hub: FakeHfHub, tmp_path: Path
) -> None:
    chosen = ["bbh", "alpacaeval_full", "sd-qa"]

    root = download_voicebench(chosen, tmp_path / "cache", endpoint=hub.url)

    assert root == tmp_path / "cache" / "hlt-lab--voicebench"
    assert hub.downloaded == ["alpacaeval_full/test-00000-of-00001.parquet",
                              "sd-qa/gbr-00000-of-00001.parquet",
                              "sd-qa/usa-00000-of-00001.parquet",
                              "bbh/test-00000-of-00001.parquet"]
    assert sorted(p.name for p in root.iterdir()) == sorted(chosen)
    records, notes = read_voicebench(root, tmp_path / "cache", chosen)
    assert _seen(records) == _seen(read_voicebench(MINI, NOWHERE, chosen)[0])
    assert len(notes) == 3
    assert not (tmp_path / "cache" / "voicebench-bbh").exists()  # read as converted
    for subset in chosen:
        assert (root / subset / facts.CONVERTED).read_bytes() == (
            MINI / subset / facts.CONVERTED).read_bytes()

    download_voicebench(["sd-qa", "ifeval"], tmp_path / "cache", endpoint=hub.url)

    assert hub.downloaded[4:] == ["ifeval/test-00000-of-00001.parquet"]


def test_a_bad_row_fails_the_download_in_one_line_naming_the_file_and_the_row(
    remote: Path, tmp_path: Path
) -> None:
    write_parquet(remote / "mmsu" / "law-00000-of-00001.parquet", [_row(reference="Z")])

    message = failed_download(
        lambda url: download_voicebench(["commoneval", "mmsu"], tmp_path / "cache", endpoint=url),
        REPO, remote)

    assert f"cannot convert VoiceBench mmsu of {REPO}" in message
    assert "mmsu/law-00000-of-00001.parquet: row 1 (id 'law-0000'): reference 'Z' is not a " \
           "letter A to D" in message
    root = tmp_path / "cache" / "hlt-lab--voicebench"
    assert (root / "commoneval" / facts.CONVERTED).is_file() and not (root / "mmsu").exists()


def test_offline_with_nothing_cached_fails_at_once_naming_the_repo(
    hub: FakeHfHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")

    with pytest.raises(DownloadError, match="HF_HUB_OFFLINE is set") as raised:
        download_voicebench(["wildvoice"], tmp_path / "cache", endpoint=hub.url)

    assert_one_line_naming(raised.value, REPO, hub.url)
    assert hub.requests == []
    with pytest.raises(ValueError, match="no VoiceBench subset chosen"):
        download_voicebench([], tmp_path / "cache", endpoint=hub.url)
