"""Spoken releases made for the tests, in the layouts a run reads (LibriSpeech as openslr's
tarballs extract, FLEURS as its hub repo keeps a language, Common Voice as Mozilla's tarballs
extract, AISHELL-1 as openslr's ``data_aishell.tgz`` extracts, its test speakers unpacked or
packed, AISHELL-2's test sets as its evaluation zip extracts, MMSU's converted layout, Big Bench
Audio's ``metadata.jsonl`` with transcripts, WenetSpeech's ``WenetSpeech.json`` and long
recordings, VoiceBench's converted subsets), and a fake model that answers each item by its clip.

Every clip holds one constant sample value, its item's number: lossless, it survives the
plugin's transcoding (FLAC to WAV), so the model reads which item it was sent (Big Bench
Audio's question is only in the audio). Common Voice's clips are WAV files for that reason
(Mozilla's are MP3, which would not keep the value): its reader takes whatever file the
``path`` column names."""

from __future__ import annotations

import base64
import io
import json
import shutil
import tarfile
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


def build_aishell1(root: Path, utterances: Sequence[Utterance], first: int = FIRST_MARK,
                   unheard: Sequence[tuple[str, str]] = ()) -> dict[str, int]:
    """``root/data_aishell/``: each utterance's WAV in ``wav/test/<speaker>/`` (its
    ``speaker`` an id such as ``S0764``) and the transcript file, with `unheard`'s lines (id,
    text) of utterances without audio before theirs; each utterance id
    (``BAC009<speaker>W<number>``) by its clip's mark (from ``first``)."""
    marks: dict[str, int] = {}
    lines = [f"{uttid} {text}\n" for uttid, text in unheard]
    counts: dict[str, int] = {}
    for index, utterance in enumerate(utterances):
        counts[utterance.speaker] = counts.get(utterance.speaker, 0) + 1
        uttid = f"BAC009{utterance.speaker}W{counts[utterance.speaker]:04d}"
        marks[uttid] = first + index % MARKS
        _clip(root / "data_aishell" / "wav" / "test" / utterance.speaker / f"{uttid}.wav",
              marks[uttid], "WAV")
        lines.append(f"{uttid} {utterance.reference}\n")
    transcript = root / "data_aishell" / "transcript" / "aishell_transcript_v0.8.txt"
    transcript.parent.mkdir(parents=True, exist_ok=True)
    transcript.write_text("".join(lines), encoding="utf-8")
    return marks


def pack_aishell1_speakers(root: Path) -> Path:
    """`root`'s ``data_aishell/wav/test/<speaker>/`` packed as openslr ships each speaker,
    ``wav/<speaker>.tar.gz`` with the members ``test/<speaker>/<UTTID>.wav``, and the
    unpacked folders removed. Returns `root`."""
    wav = root / "data_aishell" / "wav"
    for speaker in sorted(p for p in (wav / "test").iterdir() if p.is_dir()):
        with tarfile.open(wav / f"{speaker.name}.tar.gz", "w:gz") as archive:
            archive.add(speaker, arcname=f"test/{speaker.name}")
    shutil.rmtree(wav / "test")
    return root


AISHELL2_LETTERS = {"ios": "I", "android": "A", "mic": "M"}
AISHELL2_FOLDERS = {"ios": "iOS", "android": "Android", "mic": "Mic"}


def build_aishell2(root: Path, utterances: Sequence[Utterance], first: int = FIRST_MARK
                   ) -> dict[str, int]:
    """``root/AISHELL-DEV-TEST-SET/<device>/test/``: each utterance's WAV in
    ``wav/<speaker>/`` (its ``split`` the device, ``ios``, ``android`` or ``mic``; its
    ``speaker`` a folder such as ``T0011``), ``wav.scp`` and ``trans.txt``; each utterance id
    (``<I|A|M><speaker>W<number>``) by its clip's mark (from ``first``)."""
    marks: dict[str, int] = {}
    scp: dict[Path, list[str]] = {}
    trans: dict[Path, list[str]] = {}
    for index, utterance in enumerate(utterances):
        test = root / "AISHELL-DEV-TEST-SET" / AISHELL2_FOLDERS[utterance.split] / "test"
        number = sum(line.split("\t")[1].startswith(f"wav/{utterance.speaker}/")
                     for line in scp.get(test, [])) + 1
        uttid = f"{AISHELL2_LETTERS[utterance.split]}{utterance.speaker}W{number:04d}"
        relative = f"wav/{utterance.speaker}/{uttid}.wav"
        marks[uttid] = first + index % MARKS
        _clip(test / relative, marks[uttid], "WAV")
        scp.setdefault(test, []).append(f"{uttid}\t{relative}\n")
        trans.setdefault(test, []).append(f"{uttid}\t{utterance.reference}\n")
    for test, lines in scp.items():
        (test / "wav.scp").write_text("".join(lines), encoding="utf-8")
        (test / "trans.txt").write_text("".join(trans[test]), encoding="utf-8")
    return marks


def build_wenetspeech(root: Path, utterances: Sequence[Utterance], first: int = FIRST_MARK,
                      per_recording: int = 0) -> dict[str, int]:
    """``root/WenetSpeech.json`` and its recordings, ``audio/<split>/<aid>.flac``: each
    utterance's ``speaker`` is its recording's aid (a recording is of one split), cut into
    ``per_recording`` segments a recording at most (0: no limit; more make a recording
    ``<aid>-<n>``); each segment a tenth of a second of its mark (from ``first``, wrapping
    after ``MARKS``) between tenths of silence. FLAC, not the release's opus: lossless, so
    that a clip cut out of it keeps its mark. Each segment id by its clip's mark."""
    grouped: dict[tuple[str, str], list[tuple[int, Utterance]]] = {}
    counted: dict[str, int] = {}
    for index, utterance in enumerate(utterances):
        aid = utterance.speaker
        counted[aid] = counted.get(aid, 0) + 1
        if per_recording:
            aid = f"{aid}-{(counted[aid] - 1) // per_recording}"
        grouped.setdefault((aid, utterance.split), []).append((index, utterance))
    placed: dict[int, tuple[str, int]] = {}
    audios = [_recording(root, aid, split, members, first, placed)
              for (aid, split), members in grouped.items()]
    text = json.dumps({"dataset": "WenetSpeech", "audios": audios}, ensure_ascii=False)
    (root / "WenetSpeech.json").write_text(text, encoding="utf-8")
    # In the utterances' order, as the other builders return theirs.
    return dict(placed[index] for index in sorted(placed))


def _recording(root: Path, aid: str, split: str, members: Sequence[tuple[int, Utterance]],
               first: int, placed: dict[int, tuple[str, int]]) -> dict[str, Any]:
    """One recording's FLAC file and its entry in ``audios``; each member's segment id and
    mark into `placed`, by its index."""
    path = f"audio/{split}/{aid}.flac"
    samples = np.zeros(SAMPLES * (2 * len(members) + 1), dtype=np.int16)
    segments = []
    for number, (index, utterance) in enumerate(members):
        mark = first + index % MARKS
        start = SAMPLES * (2 * number + 1)
        samples[start:start + SAMPLES] = mark
        sid = f"{aid}_S{number:05d}"
        placed[index] = (sid, mark)
        segments.append({"sid": sid, "begin_time": start / 16_000,
                         "end_time": (start + SAMPLES) / 16_000, "text": utterance.reference,
                         "confidence": 1.0, "subsets": [split.upper()]})
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    sf.write(root / path, samples, 16_000, format="FLAC", subtype="PCM_16")
    return {"aid": aid, "path": path, "duration": len(samples) / 16_000, "segments": segments}


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


def build_voicebench(root: Path, records: Sequence[Mapping[str, Any]], first: int = FIRST_MARK
                     ) -> dict[str, int]:
    """VoiceBench's converted layout: ``root/<subset>/voicebench.jsonl`` (each record as given,
    with its ``id``, ``<split>-<nnnn>`` numbered within its split, and its clip's path) and
    the clips; each ``<subset>/<id>`` by its clip's mark (from ``first``, in the records'
    order), which is all the model hears of its instruction."""
    marks: dict[str, int] = {}
    lines: dict[str, list[dict[str, Any]]] = {}
    numbered: dict[tuple[str, str], int] = {}
    for index, record in enumerate(records):
        subset, split = str(record["subset"]), str(record["split"])
        number = numbered[subset, split] = numbered.get((subset, split), -1) + 1
        ident = f"{split}-{number:04d}"
        marks[f"{subset}/{ident}"] = first + index
        _clip(root / subset / "audio" / f"{ident}.wav", first + index, "WAV")
        lines.setdefault(subset, []).append(
            {**record, "id": ident, "audio": f"audio/{ident}.wav"})
    for subset, subset_lines in lines.items():
        _jsonl(root / subset / "voicebench.jsonl", subset_lines)
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
