"""Benchmark folders built from the real reference metadata, with generated tone audio."""

from __future__ import annotations

import io
import json
import os
import wave
import zlib
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

__all__ = [
    "MMAR_LEGACY_FIELDS",
    "REFERENCE_DIR",
    "build_air_bench_chat",
    "build_mmar",
    "chat_records",
    "load_chat_reference",
    "load_mmar_reference",
    "mmar_audio_relpath",
    "reference_available",
]

# ../shared/reference beside the repository; a test points it elsewhere to play a clone that
# has none.
REFERENCE_DIR: Path = Path(os.environ.get(
    "AUDIOBENCH_TESTS_REFERENCE_DIR",
    Path(__file__).resolve().parents[2].parent / "shared" / "reference"))
CHAT_REFERENCE = REFERENCE_DIR / "airbench_chat" / "Chat_meta.json"
MMAR_REFERENCE = REFERENCE_DIR / "mmar" / "MMAR-meta.jsonl"
MMAU_REFERENCE = REFERENCE_DIR / "mmau" / "mmau-test-mini.json"

# The fields of the older MMAR-meta.json release, in its order.
MMAR_LEGACY_FIELDS: tuple[str, ...] = (
    "id",
    "audio_path",
    "question",
    "choices",
    "answer",
    "modality",
    "category",
    "sub-category",
    "language",
    "source",
    "url",
    "timestamp",
)


def reference_available() -> bool:
    """True when both reference metadata files are present."""
    return CHAT_REFERENCE.is_file() and MMAR_REFERENCE.is_file()


ABSENT = "the reference metadata (../shared/reference beside the repository) is absent"
"""Why a test that needs the real metadata skips, in a clone without it."""


def _read_text(path: Path) -> str:
    """A reference file's text; in a test where it is absent the test skips, saying why (so no
    test that reads it can fail or pass in a clone without it)."""
    if not path.is_file():
        import pytest

        pytest.skip(f"{ABSENT}: {path}")
    return _read_cached(path)


@lru_cache(maxsize=3)
def _read_cached(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def load_chat_reference() -> list[dict[str, Any]]:
    """The 2,200 AIR-Bench Chat records (a fresh copy on every call)."""
    records: list[dict[str, Any]] = json.loads(_read_text(CHAT_REFERENCE))
    return records


def load_mmar_reference() -> list[dict[str, Any]]:
    """The 1,000 MMAR records (a fresh copy on every call)."""
    return [json.loads(line) for line in _read_text(MMAR_REFERENCE).splitlines() if line.strip()]


def load_mmau_reference() -> list[dict[str, Any]]:
    """The 1,000 MMAU test-mini records (a fresh copy on every call)."""
    records: list[dict[str, Any]] = json.loads(_read_text(MMAU_REFERENCE))
    return records


def chat_records(n_per_task: int | None = None) -> list[dict[str, Any]]:
    """Chat reference records, optionally only the first n of each task, in file order."""
    records = load_chat_reference()
    if n_per_task is None:
        return records
    seen: dict[str, int] = {}
    picked: list[dict[str, Any]] = []
    for record in records:
        task = str(record["task_name"])
        if seen.get(task, 0) < n_per_task:
            seen[task] = seen.get(task, 0) + 1
            picked.append(record)
    return picked


def _tone(key: str, seconds: float, sample_rate: int) -> npt.NDArray[np.float32]:
    # crc32 is stable across runs (unlike hash()), so each path keeps its own pitch.
    frequency = 220.0 + zlib.crc32(key.encode()) % 1800
    n = max(1, round(seconds * sample_rate))
    t = np.arange(n, dtype=np.float64) / sample_rate
    return (0.3 * np.sin(2.0 * np.pi * frequency * t)).astype(np.float32)


@lru_cache(maxsize=1)
def _writable_formats() -> frozenset[str]:
    return frozenset(sf.available_formats())


def _write_audio(path: Path, key: str, seconds: float, sample_rate: int) -> None:
    data = _tone(key, seconds, sample_rate)
    fmt = path.suffix.lower().lstrip(".").upper()
    if fmt not in _writable_formats():
        raise ValueError(f"cannot write audio with extension {path.suffix!r}: {path}")
    subtype = "PCM_16" if fmt == "WAV" else None
    # Encoding in memory skips libsndfile's fsync on close, which doubles the build time.
    buffer = io.BytesIO()
    sf.write(buffer, data, sample_rate, format=fmt, subtype=subtype)
    path.write_bytes(buffer.getvalue())


def build_air_bench_chat(
    root: Path,
    records: Sequence[Mapping[str, Any]],
    *,
    seconds: float = 0.05,
    sample_rate: int = 16000,
    empty: Collection[int] = (),
    missing: Collection[int] = (),
) -> Path:
    """Write root/Chat/Chat_meta.json and one tone per distinct audio file; returns root.

    A shared file is skipped if any of its records is in ``missing``, else left zero bytes
    if any is in ``empty``.
    """
    chat = root / "Chat"
    chat.mkdir(parents=True, exist_ok=True)
    # Same layout as the official file (indent 1, UTF-8 text unescaped).
    text = json.dumps([dict(r) for r in records], indent=1, ensure_ascii=False)
    (chat / "Chat_meta.json").write_text(text, encoding="utf-8")

    files: dict[Path, str] = {}
    for record in records:
        rel = f"{record['task_name']}_{record['dataset_name']}/{record['path']}"
        target = chat / rel
        uid = record["uniq_id"]
        state = "missing" if uid in missing else "empty" if uid in empty else "tone"
        previous = files.get(target)
        if previous is None or _rank(state) > _rank(previous):
            files[target] = state
    made_dirs: set[Path] = set()
    for target, state in files.items():
        if state == "missing":
            continue
        if target.parent not in made_dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            made_dirs.add(target.parent)
        if state == "empty":
            target.write_bytes(b"")
        else:
            _write_audio(target, target.relative_to(chat).as_posix(), seconds, sample_rate)
    return root


def _rank(state: str) -> int:
    return {"tone": 0, "empty": 1, "missing": 2}[state]


def build_mmar(
    root: Path,
    records: Sequence[Mapping[str, Any]],
    *,
    seconds: float = 0.05,
    sample_rate: int = 16000,
    legacy_json: bool = False,
    missing: Collection[str] = (),
) -> Path:
    """Write MMAR-meta.jsonl (or legacy MMAR-meta.json) and a wav per record; returns root.

    The wav goes to the record's ``audio_path`` (``./audio/{id}.wav`` when absent): in 46
    real records that name differs from the id. ``missing`` holds ids.
    """
    root.mkdir(parents=True, exist_ok=True)
    if legacy_json:
        legacy = [{k: r[k] for k in MMAR_LEGACY_FIELDS if k in r} for r in records]
        text = json.dumps(legacy, indent=4, ensure_ascii=False)
        (root / "MMAR-meta.json").write_text(text, encoding="utf-8")
    else:
        # Like the official file: no newline after the last line.
        lines = (json.dumps(dict(r), ensure_ascii=False) for r in records)
        (root / "MMAR-meta.jsonl").write_text("\n".join(lines), encoding="utf-8")
    (root / "audio").mkdir(exist_ok=True)
    for record in records:
        uid = str(record["id"])
        if uid in missing:
            continue
        target = root / mmar_audio_relpath(record)
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_audio(target, uid, seconds, sample_rate)
    return root


def mmar_audio_relpath(record: Mapping[str, Any]) -> str:
    """Where a record's audio lives relative to the MMAR root, e.g. "audio/<name>.wav"."""
    raw = record.get("audio_path") or f"./audio/{record['id']}.wav"
    rel = str(raw).replace("\\", "/").removeprefix("./")
    if rel.startswith("/") or ".." in rel.split("/"):
        raise ValueError(f"audio_path escapes the dataset root: {raw!r}")
    return rel


def build_air_bench_foundation(root: Path, records: Sequence[Mapping[str, Any]], *,
                               seconds: float = 0.05, sample_rate: int = 16000,
                               missing: Collection[Any] = ()) -> Path:
    """Write root/Foundation/Foundation_meta.json and a tone per record, in the official
    layout: an Audio_Grounding record names a ``.wav`` that is stored as ``.flac``, as in the
    release. ``missing`` uniq_ids get no audio file. Returns root."""
    foundation = root / "Foundation"
    foundation.mkdir(parents=True, exist_ok=True)
    text = json.dumps([dict(r) for r in records], indent=1, ensure_ascii=False)
    (foundation / "Foundation_meta.json").write_text(text, encoding="utf-8")
    for record in records:
        if record.get("uniq_id") in missing or ".." in str(record.get("path", "..")):
            continue  # no audio (or a path out of the release, which the loader refuses)
        path = str(record["path"])
        if record.get("task_name") == "Audio_Grounding" and path.endswith(".wav"):
            path = path[:-3] + "flac"
        target = foundation / f"{record['task_name']}_{record['dataset_name']}" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            _write_audio(target, target.relative_to(foundation).as_posix(), seconds,
                         sample_rate)
    return root


def build_mmau(root: Path, records: Sequence[Mapping[str, Any]], *, split: str = "test-mini",
               seconds: float = 0.05, sample_rate: int = 16000) -> Path:
    """Write the MMAU release root as published: ``mmau-<split>.json`` and each record's
    audio at its ``audio_id`` (a tone). Returns root."""
    root.mkdir(parents=True, exist_ok=True)
    text = json.dumps([dict(r) for r in records], indent=4, ensure_ascii=False)
    (root / f"mmau-{split}.json").write_text(text, encoding="utf-8")
    for record in records:
        relative = str(record["audio_id"]).removeprefix("./")
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_audio(target, str(record["id"]), seconds, sample_rate)
    return root


def tiny_wav(seed: int) -> bytes:
    """A tiny, valid 16 kHz mono WAV file whose samples depend on ``seed``."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16000)
        out.writeframes(bytes([seed % 256, 0]) * 160)
    return buffer.getvalue()
