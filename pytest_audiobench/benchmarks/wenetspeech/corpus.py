"""WenetSpeech's ``WenetSpeech.json``: the test sets' recordings and segments in it, read once
and validated, and kept as a small index (``write_index``, ``read_index``).

The file lists every recording of the corpus (``audios``), each with the segments cut from it;
a segment's ``subsets`` say which sets it belongs to. Only the segments of the two test sets
are read: each is validated field by field, with its recording's ``aid``, ``path`` and
``duration``; a recording without one (a training or development recording) is read past
after its ``segments`` and their ``subsets``, which say so. The file is read as a stream
(``streaming.py``): it holds the whole corpus.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from pytest_audiobench.benchmarks.wenetspeech.facts import METADATA, SPLITS, SUBSETS
from pytest_audiobench.benchmarks.wenetspeech.streaming import BadJson, array_items
from pytest_audiobench.hub.converting import BadData

_FILE_NAME = re.compile(r"[^/\\\x00]+")
_RECORDING = "an object with aid, path, duration and segments"
_SEGMENT = ("an object with sid, begin_time, end_time (seconds), text, confidence and "
            "subsets")
_SLACK = 0.05
"""Seconds a segment may end past its recording's duration (the durations are rounded)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A test segment: its id (the release's ``sid``), split, times in seconds, reference
    text as written, and the confidence the release gives its label."""

    sid: str
    split: str
    begin: float
    end: float
    text: str
    confidence: float


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording that holds test segments: its ``aid``, its path relative to the metadata
    file, its duration in seconds, and its test segments in the file's order."""

    aid: str
    path: str
    duration: float
    segments: tuple[Segment, ...]


def read_recordings(metadata: Path) -> list[Recording]:
    """Every recording of `metadata` that holds test segments, in the file's order. BadData,
    one line naming the file, the line and the recording or segment, for a field missing or
    not as expected, a segment id twice, or text that is not JSON."""
    seen: dict[str, str] = {}
    recordings = []
    try:
        for line, item in array_items(metadata, "audios"):
            recording = _recording(f"{metadata}: {line}", item)
            if recording is not None:
                _once(f"{metadata}: {line}", line, recording, seen)
                recordings.append(recording)
    except BadJson as exc:
        raise BadData(f"{metadata}: {exc}; expected {METADATA}'s object with the array "
                      "audios") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise BadData(f"{metadata}: not readable as UTF-8 JSON ({exc})") from exc
    return recordings


def _once(where: str, line: str, recording: Recording, seen: dict[str, str]) -> None:
    """BadData when a segment of `recording` has a sid read before (`seen`: sid -> line)."""
    for segment in recording.segments:
        if segment.sid in seen:
            raise BadData(f"{where}: recording {recording.aid!r}, segment {segment.sid!r}: its "
                          f"sid is also a segment's at {seen[segment.sid]}; expected every sid "
                          "once")
        seen[segment.sid] = line


def _recording(where: str, item: Any) -> Recording | None:
    """The recording `item`, or None when it has no test segment."""
    if not isinstance(item, dict):
        raise BadData(f"{where}: an item of audios is a {type(item).__name__}; expected "
                      f"{_RECORDING}")
    segments = item.get("segments")
    if not isinstance(segments, list):
        said = "no segments" if segments is None else f"segments is a {type(segments).__name__}"
        raise BadData(f"{where}: recording {item.get('aid')!r}: {said}; expected {_RECORDING} "
                      "(segments a list)")
    tests = [(s, split) for s in segments
             if (split := _test_split(where, item.get("aid"), s)) is not None]
    if not tests:
        return None
    aid = _text(where, item, "aid", f"expected {_RECORDING}")
    at = f"{where}: recording {aid!r}"
    path = _path(at, item)
    duration = _seconds(at, item, "duration", f"expected {_RECORDING}")
    return Recording(aid, path, duration,
                     tuple(_segment(at, s, split, duration) for s, split in tests))


def _test_split(where: str, aid: object, segment: Any) -> str | None:
    """The test split of `segment`, None for a segment of no test set."""
    if not isinstance(segment, dict):
        raise BadData(f"{where}: recording {aid!r}: a segment is a {type(segment).__name__}; "
                      f"expected {_SEGMENT}")
    subsets = segment.get("subsets")
    if not isinstance(subsets, list) or not all(isinstance(s, str) for s in subsets):
        raise BadData(f"{where}: recording {aid!r}, segment {segment.get('sid')!r}: subsets is "
                      f"{subsets!r}; expected a list of names such as "
                      f"{json.dumps(list(SUBSETS.values()))} or [\"L\"]")
    splits = [split for split, subset in SUBSETS.items() if subset in subsets]
    if len(splits) > 1:
        raise BadData(f"{where}: recording {aid!r}, segment {segment.get('sid')!r}: in both "
                      f"{' and '.join(SUBSETS[s] for s in splits)}; expected one test set")
    return splits[0] if splits else None


def _segment(at: str, segment: dict[str, Any], split: str, duration: float) -> Segment:
    sid = _text(at, segment, "sid", f"expected {_SEGMENT}")
    where = f"{at}, segment {sid!r}"
    if not _FILE_NAME.fullmatch(sid) or sid in (".", ".."):
        raise BadData(f"{where}: the sid cannot name a file; expected an id without '/', "
                      "'\\' or NUL, such as Y0000000009_26OUqTzrzv0_S00624")
    expected = f"expected {_SEGMENT}"
    begin = _seconds(where, segment, "begin_time", expected)
    end = _seconds(where, segment, "end_time", expected)
    if not begin < end <= duration + _SLACK:
        raise BadData(f"{where}: begin_time {begin} and end_time {end} are not a span of its "
                      f"recording ({duration} s); expected 0 <= begin_time < end_time <= "
                      "duration")
    text = _text(where, segment, "text", f"expected {_SEGMENT}, text its transcript")
    confidence = _number(where, segment, "confidence", expected)
    if not 0 <= confidence <= 1:
        raise BadData(f"{where}: confidence {confidence}; expected a number from 0 to 1")
    return Segment(sid, split, begin, end, text, confidence)


def _text(where: str, record: Mapping[str, Any], key: str, expected: str) -> str:
    value = record.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    said = f"no {key}" if value is None else f"{key} is empty" if isinstance(value, str) else \
        f"{key} is a {type(value).__name__}"
    raise BadData(f"{where}: {said}; {expected}")


def _number(where: str, record: Mapping[str, Any], key: str, expected: str) -> float:
    value = record.get(key)
    # A bool is an int to Python; NaN and infinity are no times.
    if isinstance(value, bool) or not isinstance(value, int | float) or \
            not math.isfinite(value):
        raise BadData(f"{where}: {key} is {value!r}; {expected} ({key} a number)")
    return float(value)


def _seconds(where: str, record: Mapping[str, Any], key: str, expected: str) -> float:
    value = _number(where, record, key, expected)
    if value < 0:
        raise BadData(f"{where}: {key} is {value}; {expected} ({key} seconds, not negative)")
    return value


def _path(at: str, item: Mapping[str, Any]) -> str:
    """The recording's path, relative to the metadata file and inside its folder."""
    path = _text(at, item, "path", f"expected {_RECORDING}")
    parts = PurePosixPath(path).parts
    if "\\" in path or PurePosixPath(path).is_absolute() or ".." in parts:
        raise BadData(f"{at}: path {path!r} leaves the release's folder; expected a path "
                      f"relative to {METADATA}, such as audio/test_net/<file>.opus")
    return path


# --- the index: the test recordings alone, written once and read at every start -----------


def write_index(recordings: Sequence[Recording], path: Path) -> None:
    """`recordings` as JSON in `path`, for ``read_index``."""
    path.write_text(json.dumps([asdict(r) for r in recordings], ensure_ascii=False),
                    encoding="utf-8")


def read_index(path: Path) -> list[Recording]:
    """The recordings ``write_index`` wrote (already validated, from the metadata file)."""
    return [Recording(r["aid"], r["path"], r["duration"],
                      tuple(Segment(**s) for s in r["segments"]))
            for r in json.loads(path.read_text(encoding="utf-8"))]


def segments_of(recordings: Sequence[Recording], split: str) -> Iterator[tuple[Recording,
                                                                                Segment]]:
    """`split`'s segments with their recordings, in the file's order."""
    if split not in SPLITS:
        raise ValueError(f"unknown WenetSpeech split {split!r}; expected one of "
                         f"{', '.join(SPLITS)}")
    for recording in recordings:
        for segment in recording.segments:
            if segment.split == split:
                yield recording, segment
