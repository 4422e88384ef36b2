"""AISHELL-2: a device's test set as the release's evaluation zip extracts, validated at load.

``AISHELL-DEV-TEST-SET/<iOS|Android|Mic>/test/`` holds ``wav.scp`` (``<UTTID>\\t<path>`` a
line, the path relative to ``test/``: ``wav/T0011/IT0011W0001.wav``), ``trans.txt``
(``<UTTID>\\t<text>`` a line) and the audio. The utterances are those of ``trans.txt``, in its
order, each found through ``wav.scp`` (as Kimi-Audio-Evalkit reads them).

The speaker is the folder the audio lies in (``T0011``), and the id must hold it
(``IT0011W0001``: the device's letter, the speaker, the utterance's number): a line whose id
does not is refused rather than clustered under a speaker it may not be.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pytest_audiobench.benchmarks.aishell2.facts import (
    DEVICES,
    NAME,
    PACKED,
    SET_FOLDER,
    TEST_FOLDER,
    TEST_SIZE,
    TRANSCRIPTS,
    WAV_SCP,
)
from pytest_audiobench.errors import DataError

_SCP_LINE = '"UTTID<tab>wav/<speaker>/<UTTID>.wav"'
_TRANS_LINE = '"UTTID<tab>text"'


@dataclass(frozen=True, slots=True)
class Utterance:
    """One test utterance: its id, its speaker (its audio's folder), its transcript and its
    audio."""

    id: str
    speaker: str
    transcript: str
    audio: Path


def set_folder(root: Path) -> Path:
    """The ``AISHELL-DEV-TEST-SET`` folder: ``root/AISHELL-DEV-TEST-SET`` when there is one,
    else `root` itself."""
    inside = root / SET_FOLDER
    return inside if inside.is_dir() else root


def test_folder(root: Path, task: str) -> Path:
    """The ``test/`` folder of the device `task` (``ios``, ``android``, ``mic``). DataError
    naming the device when its folder is missing, or saying how to extract its test set when
    it is still packed."""
    device = set_folder(root) / DEVICES[task]
    if not device.is_dir():
        raise DataError(f"--audiobench-data {root}: no AISHELL-2 {DEVICES[task]} test set there "
                        f"({device}); expected the {SET_FOLDER} folder of the release's "
                        "evaluation zip (iOS/, Android/ and Mic/ in it) or the folder holding "
                        "it, or select the devices it has with --audiobench-tasks")
    test = device / TEST_FOLDER
    if test.is_dir():
        return test
    packed = device / PACKED
    if packed.is_file():
        # Extracted where it lies rather than into the cache: the licensed audio stays in one
        # copy, the user's, and it is one command, the one Kimi-Audio-Evalkit runs.
        raise DataError(f"{packed}: the {DEVICES[task]} test set is still packed; extract it "
                        f"where it is (tar -xzf {packed} -C {device}), which makes {test}/ "
                        f"with {WAV_SCP}, {TRANSCRIPTS} and wav/")
    raise DataError(f"{device}: no {TEST_FOLDER}/ folder; expected {TEST_FOLDER}/{WAV_SCP}, "
                    f"{TEST_FOLDER}/{TRANSCRIPTS} and the audio they list (or the release's "
                    f"{PACKED}, extracted)")


def read_device(root: Path, task: str) -> tuple[list[Utterance], tuple[str, ...]]:
    """The test utterances of the device `task` under `root` (``AISHELL-DEV-TEST-SET/`` or its
    parent), in ``trans.txt``'s order, and the notes a report must carry (audio listed without
    a transcript, a count not the release's). DataError, one line naming the file, the line
    and what was expected, for a line without its second field, a path outside ``test/``, an
    id without its folder's speaker, an id twice, a transcript of an id ``wav.scp`` lacks,
    missing audio, or a transcript file without lines."""
    test = test_folder(root, task)
    listed = _wav_scp(test / WAV_SCP)
    transcripts = test / TRANSCRIPTS
    utterances: list[Utterance] = []
    seen: dict[str, int] = {}
    for number, uttid, text in _pairs(transcripts, _TRANS_LINE):
        where = f"{transcripts}: line {number}"
        _once(where, uttid, seen, number)
        if uttid not in listed:
            raise DataError(f"{where}: {uttid!r} has no line in {test / WAV_SCP}; expected "
                            f"every transcribed utterance's audio listed there")
        utterances.append(_utterance(test, uttid, text, listed[uttid]))
    if not utterances:
        raise DataError(f"{transcripts}: holds no lines; expected a line {_TRANS_LINE} per "
                        "utterance")
    return utterances, _notes(task, len(listed) - len(utterances), len(utterances))


def _pairs(path: Path, expected: str) -> list[tuple[int, str, str]]:
    """Each non-blank line of `path` as its number, its first field and the rest;
    DataError naming the line that has no second field."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: not readable as UTF-8 text ({exc}); expected a line "
                        f"{expected} per utterance") from exc
    pairs = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        first, *rest = line.split(None, 1)
        if not rest or not rest[0].strip():
            raise DataError(f"{path}: line {number}: {first!r} has nothing after it; expected "
                            f"{expected}")
        pairs.append((number, first, rest[0].strip()))
    return pairs


def _once(where: str, uttid: str, seen: dict[str, int], number: int) -> None:
    if uttid in seen:
        raise DataError(f"{where}: the id {uttid!r} already appears on line {seen[uttid]}; "
                        "expected every id once")
    seen[uttid] = number


def _wav_scp(path: Path) -> dict[str, tuple[str, str]]:
    """Each listed id's audio path (relative to ``test/``) and where it is listed."""
    listed: dict[str, tuple[str, str]] = {}
    seen: dict[str, int] = {}
    for number, uttid, relative in _pairs(path, _SCP_LINE):
        where = f"{path}: line {number}"
        _once(where, uttid, seen, number)
        parts = PurePosixPath(relative.replace("\\", "/")).parts
        # The path is joined to test/: an absolute one or a '..' would read outside the release.
        if relative.startswith(("/", "\\")) or ".." in parts or len(parts) < 2:
            raise DataError(f"{where}: the path {relative!r} of {uttid!r} is not a file in a "
                            f"speaker's folder below {path.parent}; expected {_SCP_LINE}")
        speaker = parts[-2]
        if speaker not in uttid:
            raise DataError(f"{where}: the id {uttid!r} does not hold the speaker {speaker!r} "
                            f"its audio's folder names; expected ids such as I{speaker}W0001 "
                            f"in {speaker}/")
        listed[uttid] = ("/".join(parts), where)
    return listed


def _utterance(test: Path, uttid: str, text: str, listed: tuple[str, str]) -> Utterance:
    relative, where = listed
    audio = test.joinpath(*PurePosixPath(relative).parts)
    if not audio.is_file():
        raise DataError(f"{where}: no audio for {uttid!r}; expected {audio}")
    return Utterance(uttid, PurePosixPath(relative).parent.name, text, audio)


def _notes(task: str, unlined: int, found: int) -> tuple[str, ...]:
    """What a report must say of a device's utterances."""
    notes = []
    if unlined:
        notes.append(f"{NAME} {task}: {unlined:,} utterance(s) of {WAV_SCP} without a line in "
                     f"{TRANSCRIPTS} left out (no reference to score them against)")
    if found < TEST_SIZE:
        notes.append(f"{NAME} {task}: {found:,} of {TEST_SIZE:,} utterances (not the whole test "
                     "set: its numbers are not comparable with published ones)")
    elif found > TEST_SIZE:
        notes.append(f"{NAME} {task}: {found:,} utterances where the release has "
                     f"{TEST_SIZE:,} (not the published test set: its numbers are not "
                     "comparable with published ones)")
    return tuple(notes)
