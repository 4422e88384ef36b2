"""Spoken releases made for the tests, in the layouts a run reads (LibriSpeech as openslr's
tarballs extract, FLEURS as its hub repo keeps a language, Common Voice as Mozilla's tarballs
extract, MMSU's converted layout, Big Bench Audio's ``metadata.jsonl`` with transcripts), and a
fake model that answers each item by its clip.

Every clip holds one constant sample value, its item's number: lossless, it survives the
plugin's transcoding (FLAC to WAV), so the model reads which item it was sent (Big Bench
Audio's question is only in the audio). Common Voice's clips are WAV files for that reason
(Mozilla's are MP3, which would not keep the value): its reader takes whatever file the
``path`` column names."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from tests.fakes.openai_server import ChatRequest, Reply

SAMPLES = 1_600
"""A tenth of a second at 16 kHz."""
FIRST_MARK = 100
"""The first utterance's sample value (any value the clip keeps whole)."""
MARKS = 30_000
"""Marks wrap after this many utterances (16-bit samples): a release larger than that (a
scale benchmark's) is answered without reading its clips."""


@dataclass(frozen=True)
class Utterance:
    """One utterance of a made release: its split (or language), the speaker (or the FLEURS
    sentence), its reference, and the model's reply to it."""

    split: str
    speaker: str
    reference: str
    reply: str | Reply


def _clip(path: Path, mark: int, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    sf.write(buffer, np.full(SAMPLES, mark, dtype=np.int16), 16_000, format=fmt,
             subtype="PCM_16")
    path.write_bytes(buffer.getvalue())


def build_librispeech(root: Path, utterances: Sequence[Utterance]) -> dict[str, int]:
    """``root/LibriSpeech/<split>/<speaker>/<chapter>/``, one chapter per speaker (its number
    the speaker's plus 1000), each utterance's FLAC and the chapter's transcript file; each
    utterance id by its clip's mark."""
    marks: dict[str, int] = {}
    lines: dict[Path, list[str]] = {}
    for index, utterance in enumerate(utterances):
        chapter = str(int(utterance.speaker) + 1000)
        folder = root / "LibriSpeech" / utterance.split / utterance.speaker / chapter
        ident = f"{utterance.speaker}-{chapter}-{len(lines.get(folder, [])):04d}"
        mark = FIRST_MARK + index % MARKS
        _clip(folder / f"{ident}.flac", mark, "FLAC")
        lines.setdefault(folder, []).append(f"{ident} {utterance.reference}\n")
        marks[ident] = mark
    for folder, written in lines.items():
        speaker, chapter = folder.parent.name, folder.name
        (folder / f"{speaker}-{chapter}.trans.txt").write_text("".join(written),
                                                               encoding="utf-8")
    return marks


def build_fleurs(root: Path, utterances: Sequence[Utterance],
                 raw: Mapping[int, str] | None = None, first: int = FIRST_MARK
                 ) -> dict[str, int]:
    """``root/<language>/test.tsv`` and ``audio/test/``: each utterance's sentence id is its
    ``speaker``, its ``transcription`` the reference, its ``raw_transcription`` ``raw``'s (by
    index) or the reference; each utterance id by its clip's mark (from ``first``)."""
    marks: dict[str, int] = {}
    rows: dict[str, list[str]] = {}
    for index, utterance in enumerate(utterances):
        name = f"{7000 + index}.wav"
        folder = root / utterance.split
        _clip(folder / "audio" / "test" / name, first + index, "WAV")
        written = (raw or {}).get(index, utterance.reference)
        rows.setdefault(utterance.split, []).append("\t".join(
            (utterance.speaker, name, written, utterance.reference, "x | y", str(SAMPLES),
             "FEMALE")) + "\n")
        marks[name.removesuffix(".wav")] = first + index
    for language, written in rows.items():
        (root / language / "test.tsv").write_text("".join(written), encoding="utf-8")
    return marks


CV_HEADER = ("client_id", "path", "sentence", "up_votes", "down_votes", "age", "gender",
             "accents", "variant", "locale", "segment")
"""Common Voice 15's test.tsv columns, in Mozilla's order."""


def build_common_voice(root: Path, utterances: Sequence[Utterance], first: int = FIRST_MARK,
                       header: Sequence[str] = CV_HEADER) -> dict[str, int]:
    """``root/<locale>/test.tsv`` (a ``header`` row, then a row per utterance: its ``speaker``
    the ``client_id``, its reference the ``sentence``) and ``root/<locale>/clips/``, the
    utterance's ``split`` its locale; each utterance id by its clip's mark (from ``first``)."""
    marks: dict[str, int] = {}
    rows: dict[str, list[str]] = {}
    for index, utterance in enumerate(utterances):
        locale = utterance.split
        ident = f"common_voice_{locale}_{8000 + index}"
        _clip(root / locale / "clips" / f"{ident}.wav", first + index, "WAV")
        cells = {"client_id": utterance.speaker, "path": f"{ident}.wav",
                 "sentence": utterance.reference, "up_votes": "2", "down_votes": "0",
                 "locale": locale}
        rows.setdefault(locale, ["\t".join(header)]).append(
            "\t".join(cells.get(name, "") for name in header))
        marks[ident] = first + index
    for locale, lines in rows.items():
        (root / locale / "test.tsv").write_text("".join(f"{line}\n" for line in lines),
                                                encoding="utf-8")
    return marks


def build_mmsu(root: Path, records: Sequence[Mapping[str, Any]], first: int = FIRST_MARK
               ) -> dict[str, int]:
    """``root/mmsu.jsonl`` (the converted layout: one record a line, as given) and each
    record's clip at its ``audio`` path under ``root``; each id by its clip's mark (from
    ``first``, wrapping after ``MARKS``: the model reads MMSU's question in its text)."""
    marks = {}
    for index, record in enumerate(records):
        marks[str(record["id"])] = mark = first + index % MARKS
        _clip(root / str(record["audio"]), mark, "WAV")
    _jsonl(root / "mmsu.jsonl", records)
    return marks


def build_big_bench_audio(root: Path, questions: Sequence[Mapping[str, Any]],
                          first: int = FIRST_MARK) -> dict[str, int]:
    """``root/metadata.jsonl`` (``id``, ``category``, ``official_answer``, ``transcript`` as
    given, and ``file_name`` its clip's path, ``audio/<id>.wav``) and the clips; each id by
    its clip's mark (from ``first``), which is all the model hears of its question."""
    marks, lines = {}, []
    for index, question in enumerate(questions):
        ident = str(question["id"])
        marks[ident] = first + index
        _clip(root / "audio" / f"{ident}.wav", marks[ident], "WAV")
        lines.append({**question, "file_name": f"audio/{ident}.wav"})
    _jsonl(root / "metadata.jsonl", lines)
    return marks


def _jsonl(path: Path, lines: Sequence[Mapping[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(dict(line), ensure_ascii=False) + "\n"
                            for line in lines), encoding="utf-8")


def heard(request: ChatRequest) -> int:
    """The mark of the clip ``request`` sent."""
    part = request.audio_parts[0]
    data = part["input_audio"]["data"] if "input_audio" in part else \
        part["audio_url"]["url"].partition(",")[2]
    samples, _ = sf.read(io.BytesIO(base64.b64decode(data)), dtype="int16")
    return int(samples[0])


def by_clip(utterances: Sequence[Utterance],
            change: Callable[[int, str | Reply], str | Reply] | None = None,
            first: int = FIRST_MARK) -> Callable[[ChatRequest], str | Reply]:
    """A model script that answers each clip with its utterance's reply, or ``change``'s
    (given the utterance's index and reply); the clips marked from ``first``."""
    def answer(request: ChatRequest) -> str | Reply:
        index = heard(request) - first
        reply = utterances[index].reply
        return reply if change is None else change(index, reply)

    return answer
