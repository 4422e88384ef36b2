"""The Hugging Face repos of the hub-backed releases, made from the layouts a run reads, and a
local snapshot of one as ``huggingface-cli download --repo-type dataset REPO --local-dir DIR``
leaves it.

A repo folder is what ``FakeHfHub`` serves; ``local_snapshot`` copies its files under DIR and
adds what the tool keeps beside them (``.cache/huggingface/``: a ``.gitignore`` and one
``download/<path>.metadata`` per file), so a test passes DIR to ``--audiobench-data`` exactly
as a user who fetched the repo with the hub's own tool would. The repos' shapes are the ones
each benchmark's ``download.py`` documents (and its tests serve); ``FAKE_REPOS`` names, for
each benchmark downloaded from Hugging Face, its repo and the maker that builds it from the
benchmark's own layout (its bundled mini release, say).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.aishell1 import facts as aishell1
from pytest_audiobench.benchmarks.big_bench_audio import facts as big_bench_audio
from pytest_audiobench.benchmarks.common_voice import facts as common_voice
from pytest_audiobench.benchmarks.fleurs import facts as fleurs
from pytest_audiobench.benchmarks.librispeech import facts as librispeech
from pytest_audiobench.benchmarks.mmar.download import MMAR_ARCHIVE, MMAR_META, MMAR_REPO
from pytest_audiobench.benchmarks.mmau import facts as mmau
from pytest_audiobench.benchmarks.mmsu import facts as mmsu
from pytest_audiobench.benchmarks.voicebench import facts as voicebench
from pytest_audiobench.benchmarks.wenetspeech import facts as wenetspeech
from tests.fakes.pedant import served_classifier

__all__ = ["FAKE_REPOS", "FakeRepo", "aishell1_repo", "big_bench_audio_repo",
           "common_voice_repo", "fleurs_repo", "librispeech_repo", "local_snapshot", "mmar_repo",
           "mmau_repo", "mmsu_repo", "voicebench_repo", "wenetspeech_repo", "write_parquet"]

LIBRISPEECH_CONFIGS = {"test-clean": "clean", "test-other": "other"}


def write_parquet(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """`rows` as the parquet file `path` (pyarrow imported here: only a test that writes one
    needs it)."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([dict(row) for row in rows]), path)
    return path


def _train_files(repo: Path, rows: Sequence[Mapping[str, Any]], prefix: str = "train") -> Path:
    """The rows over two files named as the hub's parquet conversion names a split's, so that
    a reader takes them in order from both."""
    half = (len(rows) + 1) // 2
    for index, part in enumerate((rows[:half], rows[half:])):
        write_parquet(repo / "data" / f"{prefix}-{index:05d}-of-00002.parquet", part)
    (repo / "README.md").write_text("---\nlicense: mit\n---\n", encoding="utf-8")
    return repo


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _clip(path: Path) -> dict[str, Any]:
    """An Audio feature's value: the file's bytes and its original name."""
    return {"bytes": path.read_bytes(), "path": path.name}


def mmsu_repo(release: Path, repo: Path,
              changes: Mapping[str, Mapping[str, Any]] | None = None) -> Path:
    """``ddwang2000/MMSU`` from a folder of the converted layout (``mmsu.jsonl``, ``audio/``):
    ``data/train-*.parquet`` with each clip inside; ``changes`` maps an id to the columns its
    row has otherwise (e.g. an option null)."""
    rows = [line | {"audio": _clip(release / line["audio"])} | dict((changes or {}).get(
        line["id"], {})) for line in _lines(release / "mmsu.jsonl")]
    return _train_files(repo, rows)


def big_bench_audio_repo(release: Path, repo: Path) -> Path:
    """``fixie-ai/big_bench_audio`` from a folder of ``metadata.jsonl`` with transcripts:
    ``data/train-*.parquet`` with each clip inside."""
    rows = [{key: value for key, value in line.items() if key != "file_name"}
            | {"audio": _clip(release / line["file_name"])}
            for line in _lines(release / "metadata.jsonl")]
    return _train_files(repo, rows)


def mmau_repo(release: Path, repo: Path, split: str = "test-mini") -> Path:
    """``gamma-lab-umd/MMAU-<split>`` from a published release root: its records as the hub's
    rows (``instruction``, choices and answer with their ``(A) `` prefixes, the clip's bytes in
    ``context``, the rest in the ``other_attributes`` JSON)."""
    records = json.loads((release / f"mmau-{split}.json").read_text(encoding="utf-8"))
    rows = []
    for record in records:
        prefixed = [f"({chr(ord('A') + i)}) {c}" for i, c in enumerate(record["choices"])]
        answer = record.get("answer")
        kept = ("question", "choices", "answer", "audio_id")
        rows.append({"instruction": record["question"], "choices": prefixed,
                     "answer": prefixed[record["choices"].index(answer)] if answer else "",
                     "context": {"bytes": (release / record["audio_id"]).read_bytes(),
                                 "path": None},
                     "other_attributes": json.dumps({k: v for k, v in record.items()
                                                     if k not in kept})})
    return _train_files(repo, rows, prefix=split.replace("-", "_"))


VOICEBENCH_COLUMNS = {"prompt": "prompt", "reference": "reference", "bbh_id": "id",
                      "key": "key", "instruction_ids": "instruction_id_list", "kwargs": "kwargs"}
"""A converted line's fields and the release's columns they come from."""


def voicebench_repo(release: Path, repo: Path) -> Path:
    """``hlt-lab/voicebench`` from a root of converted subsets (``<subset>/voicebench.jsonl``,
    ``<subset>/audio/``): each split of each subset as ``<subset>/<split>-00000-of-00001.parquet``
    in the order its lines give, a row per record with the release's columns (``audio`` a
    struct of the clip's bytes and file name; ifeval's ``kwargs`` a list of structs) and no id
    but bbh's own."""
    for lines in sorted(release.glob(f"*/{voicebench.CONVERTED}")):
        by_split: dict[str, list[dict[str, Any]]] = {}
        for line in _lines(lines):
            by_split.setdefault(line["split"], []).append(
                {column: line[name] for name, column in VOICEBENCH_COLUMNS.items() if name in line}
                | {"audio": _clip(lines.parent / line["audio"])})
        for split, rows in by_split.items():
            write_parquet(repo / lines.parent.name / f"{split}-00000-of-00001.parquet", rows)
    (repo / "README.md").write_text("---\nlicense: apache-2.0\n---\n", encoding="utf-8")
    return repo


def librispeech_repo(release: Path, repo: Path) -> Path:
    """``openslr/librispeech_asr`` from openslr's layout under `release`: each split it holds
    as ``<config>/test/0000.parquet``, one row per utterance."""
    for split, config in LIBRISPEECH_CONFIGS.items():
        folder = release / "LibriSpeech" / split
        if folder.is_dir():
            rows = [_utterance_row(clip) for clip in sorted(folder.rglob("*.flac"))]
            write_parquet(repo / config / "test" / "0000.parquet", rows)
    return repo


def _utterance_row(clip: Path) -> dict[str, Any]:
    speaker, chapter = clip.parent.parent.name, clip.parent.name
    lines = (clip.parent / f"{speaker}-{chapter}.trans.txt").read_text(encoding="utf-8")
    text = next(line.split(" ", 1)[1] for line in lines.splitlines()
                if line.startswith(f"{clip.stem} "))
    return {"file": f"/extracted/{clip.name}", "audio": _clip(clip), "text": text,
            "speaker_id": int(speaker), "chapter_id": int(chapter), "id": clip.stem}


def fleurs_repo(release: Path, repo: Path) -> Path:
    """``google/fleurs`` from folders of ``<language>/test.tsv`` and ``audio/test/``: each
    language as ``data/<language>/test.tsv`` and its audio packed in
    ``data/<language>/audio/test.tar.gz`` (members ``test/<file_name>``)."""
    for tsv in sorted(release.glob("*/test.tsv")):
        language = repo / "data" / tsv.parent.name
        (language / "audio").mkdir(parents=True)
        shutil.copyfile(tsv, language / "test.tsv")
        with tarfile.open(language / "audio" / "test.tar.gz", "w:gz") as archive:
            archive.add(tsv.parent / "audio" / "test", arcname="test")
    return repo


def common_voice_repo(release: Path, repo: Path, drop: Sequence[str] = ()) -> Path:
    """``lmms-lab/common_voice_15`` from Mozilla's layout under `release` (``<locale>/test.tsv``
    and ``clips/``): each locale the hub copy holds as ``<locale>/test-0000<n>-of-00002.parquet``
    (two files, in order), a row per utterance with its clip inside, its ``path`` under the
    folder of the shard it came from as the hub's loading script leaves it; ``drop`` names
    columns the rows leave out (``client_id``, whose presence could not be seen)."""
    for locale in common_voice.HUB_LOCALES:
        tsv = release / locale / common_voice.TRANSCRIPTS
        if not tsv.is_file():
            continue
        lines = tsv.read_text(encoding="utf-8").splitlines()
        header = lines[0].split("\t")
        rows = [_voice_row(dict(zip(header, line.split("\t"), strict=False)), tsv.parent,
                           locale, drop) for line in lines[1:] if line.strip()]
        half = (len(rows) + 1) // 2
        for index, part in enumerate((rows[:half], rows[half:])):
            write_parquet(repo / locale / f"test-{index:05d}-of-00002.parquet", part)
    (repo / "README.md").write_text("---\nlicense: cc0-1.0\n---\n", encoding="utf-8")
    return repo


def _voice_row(cells: Mapping[str, str], folder: Path, locale: str,
               drop: Sequence[str]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "client_id": cells["client_id"], "path": f"{locale}_test_0/{cells['path']}",
        "audio": _clip(folder / "clips" / cells["path"]), "sentence": cells["sentence"],
        "up_votes": 2, "down_votes": 0, "gender": cells.get("gender", ""), "locale": locale}
    return {key: value for key, value in row.items() if key not in drop}


def aishell1_repo(release: Path, repo: Path, *, others: bool = False) -> Path:
    """``carlot/AIShell`` from openslr's layout under `release` (``data_aishell/`` with the
    test speakers unpacked): ``data/test-00000-of-00001.parquet``, a row per test utterance
    (``audio``: its WAV's bytes and file name; ``transcription``: its transcript line's words
    after four spaces, as the hub's are); with `others`, a training and a validation file
    beside it, which a download must leave alone."""
    corpus = release / "data_aishell"
    lines = dict(line.split(" ", 1) for line in (corpus / aishell1.TRANSCRIPT).read_text(
        encoding="utf-8").splitlines() if line.strip())
    rows = [{"audio": {"bytes": clip.read_bytes(), "path": clip.name},
             "transcription": "    " + lines[clip.stem]}
            for clip in sorted((corpus / "wav" / "test").rglob("*.wav"))]
    write_parquet(repo / "data" / "test-00000-of-00001.parquet", rows)
    if others:
        for split in ("train", "validation"):
            write_parquet(repo / "data" / f"{split}-00000-of-00001.parquet", rows[:1])
    (repo / "README.md").write_text("---\nlicense: apache-2.0\n---\n", encoding="utf-8")
    return repo


def wenetspeech_repo(release: Path, repo: Path, ids: bool = False) -> Path:
    """``lmms-lab-audio/WenetSpeech`` from a release folder (``WenetSpeech.json`` and its
    recordings): each test set it holds as ``data/<split>-00000-of-00001.parquet``, a row per
    segment with ``text`` and ``audio`` (the clip the plugin cuts, named ``<sid>.wav``), and
    with ``ids`` a ``sid`` column too."""
    import tempfile

    from pytest_audiobench.benchmarks.wenetspeech.corpus import read_recordings
    from pytest_audiobench.benchmarks.wenetspeech.cutting import cut_release
    from pytest_audiobench.benchmarks.wenetspeech.data import read_split

    metadata = release / wenetspeech.METADATA
    held = {segment.split for r in read_recordings(metadata) for segment in r.segments}
    with tempfile.TemporaryDirectory() as cache:
        splits = [split for split in wenetspeech.SPLITS if split in held]
        cut = cut_release(release, metadata, splits, Path(cache))
        for split in splits:
            rows = [{"audio": _clip(u.audio), "text": u.text} | ({"sid": u.id} if ids else {})
                    for u in read_split(cut, split)[0]]
            write_parquet(repo / "data" / f"{split}-00000-of-00001.parquet", rows)
    (repo / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n", encoding="utf-8")
    return repo


def mmar_repo(release: Path, repo: Path) -> Path:
    """``BoJack/MMAR`` from a release root (``MMAR-meta.jsonl``, ``audio/``): the meta file as
    it is and the audio packed in ``mmar-audio.tar.gz`` (members ``audio/<file>``)."""
    repo.mkdir(parents=True)
    shutil.copyfile(release / MMAR_META, repo / MMAR_META)
    with tarfile.open(repo / MMAR_ARCHIVE, "w:gz") as archive:
        archive.add(release / "audio", arcname="audio")
    return repo


@dataclass(frozen=True)
class FakeRepo:
    """A benchmark's Hugging Face dataset repo: its id and the maker that builds its files
    (``make(release, repo)``) from a folder of the layout the benchmark reads."""

    repo_id: str
    make: Callable[[Path, Path], Path]
    selects: Mapping[str, Any] = field(default_factory=dict)
    """The benchmark's options (by attribute name) that select every part of its mini
    release, where its default selects fewer (FLEURS's languages): the tests download and
    read all of it."""
    beside: Callable[[], Mapping[str, bytes]] = dict
    """What the download fetches from another host than the hub (VoiceBench's PEDANT
    classifier, from GitHub), by path: the tests serve it on 127.0.0.1 ..."""
    beside_option: str | None = None
    """... and give that host's URL to this option (by attribute name)."""


FAKE_REPOS: dict[str, FakeRepo] = {
    "mmar": FakeRepo(MMAR_REPO, mmar_repo),
    "mmau": FakeRepo(mmau.HUB_REPOS["test-mini"], mmau_repo),
    "mmsu": FakeRepo(mmsu.HUB_REPO, mmsu_repo),
    "big_bench_audio": FakeRepo(big_bench_audio.HUB_REPO, big_bench_audio_repo),
    "librispeech": FakeRepo(librispeech.HUB_REPO, librispeech_repo),
    "fleurs": FakeRepo(fleurs.HUB_REPO, fleurs_repo,
                       {"fleurs_language": ("en_us", "cmn_hans_cn", "yue_hant_hk")}),
    "common_voice": FakeRepo(common_voice.HUB_REPO, common_voice_repo),
    "aishell1": FakeRepo(aishell1.HUB_REPO, aishell1_repo),
    "wenetspeech": FakeRepo(wenetspeech.HUB_REPO, wenetspeech_repo),
    "voicebench": FakeRepo(voicebench.HUB_REPO, voicebench_repo, beside=served_classifier,
                           beside_option="voicebench_pedant_url"),
}
"""By benchmark name: the repo each built-in benchmark downloaded from Hugging Face fetches
(at the parts its mini release has), and how to make it (``tests/test_hub_downloads.py``
fails for a hub-backed benchmark missing here)."""


def local_snapshot(repo: Path, local_dir: Path) -> Path:
    """`repo`'s files under `local_dir`, with the hub tool's own records beside them in the
    hidden ``.cache/huggingface/`` (a reader must leave them out). Returns `local_dir`."""
    records = local_dir / ".cache" / "huggingface"
    for path in sorted(p for p in repo.rglob("*") if p.is_file()):
        name = path.relative_to(repo)
        (local_dir / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, local_dir / name)
        metadata = records / "download" / f"{name}.metadata"
        metadata.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        metadata.write_text(f"{'0' * 40}\n{digest}\n1767225600.0\n", encoding="utf-8")
    (records / ".gitignore").write_text("*\n", encoding="utf-8")
    return local_dir
