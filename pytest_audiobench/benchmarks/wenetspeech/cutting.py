"""The release's layout (``WenetSpeech.json`` beside ``audio/``) cut once into the cut layout
``data.read_split`` reads, in the plugin's cache.

Two steps, each built once behind a marker (``hub/converting.Conversion``): the metadata
file's test segments kept as a small index (the file holds the whole corpus, gigabytes: it is
read once, not at every start), then each selected split's segments cut out of their
recordings into 16 kHz mono PCM clips. The index's folder is named by the metadata file's
path, size and modification time; a split's marker names the recordings' too, so a changed
recording is cut again. numpy and soundfile (libsndfile reads OGG/Opus) are imported only
when clips are cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_audiobench.benchmarks.wenetspeech.corpus import (
    Recording,
    Segment,
    read_index,
    read_recordings,
    segments_of,
    write_index,
)
from pytest_audiobench.benchmarks.wenetspeech.data import AUDIO, Utterance, write_split
from pytest_audiobench.benchmarks.wenetspeech.facts import METADATA, NAME, RATE, SUBSETS
from pytest_audiobench.errors import DataError
from pytest_audiobench.hub.converting import (
    BadData,
    Conversion,
    convert_local,
    snapshot_home,
    snapshot_stamp,
)

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    import soundfile

VERSION = 1
"""Changes when the cutting writes something else, so that earlier cuts are redone."""
INDEX = "index"
INDEX_FILE = "recordings.json"
INDEX_MARKER = ".wenetspeech-indexed.json"
CUT_MARKER = ".wenetspeech-cut.json"
SHORT = 0.05
"""Seconds a segment may reach past the audio its recording decodes to (the times and the
durations are rounded): its clip ends with the recording."""
_TAPS = 32
"""Half the taps of the low-pass filter a recording not at 16 kHz is resampled through."""


def metadata_file(root: Path) -> Path | None:
    """The release's ``WenetSpeech.json`` in `root`, or in its ``WenetSpeech/`` folder."""
    return next((place for place in (root / METADATA, root / "WenetSpeech" / METADATA)
                 if place.is_file()), None)


def cut_release(root: Path, metadata: Path, splits: Sequence[str], cache_dir: Path) -> Path:
    """The folder of the cut layout of `splits`, cut once from the release whose metadata
    file is `metadata` (found under `root`, the ``--audiobench-data`` the errors name):
    ``cache_dir/wenetspeech/<hash>/``, with the index in ``index/`` and each split in
    ``<split>/``. DataError, one line: the metadata file is not as expected, holds no
    segment of a selected split, names a recording that is missing or unreadable, or a
    segment reaches past its recording."""
    cache = Path(cache_dir).expanduser().resolve()
    stamp = snapshot_stamp([metadata])
    home = snapshot_home(cache, NAME, VERSION, stamp)
    index = Conversion(home / INDEX, INDEX_MARKER, {"conversion": VERSION, "metadata": stamp},
                       lambda folder: write_index(read_recordings(metadata), folder / INDEX_FILE),
                       lambda folder: (folder / INDEX_FILE).is_file())
    convert_local(root, index, cache, f"{METADATA} (its test segments)")
    recordings = read_index(home / INDEX / INDEX_FILE)
    for split in splits:
        chosen = _holding(root, metadata, recordings, split)
        files = {r.aid: _recording_file(root, metadata, r) for r in chosen}
        convert_local(root, _cutting(home / split, split, chosen, files), cache,
                      f"WenetSpeech {split} recordings")
    return home


def _cutting(target: Path, split: str, recordings: Sequence[Recording],
             files: dict[str, Path]) -> Conversion:
    """`split`'s folder cut into `target` from `recordings` (`files`: aid -> its audio), its
    marker naming the audio files' sizes and times."""
    return Conversion(target, CUT_MARKER, {"conversion": VERSION, "split": split,
                                           "recordings": snapshot_stamp(files.values())},
                      lambda folder: _cut_split(folder, recordings, files, split), Path.is_dir)


def _holding(root: Path, metadata: Path, recordings: Sequence[Recording],
             split: str) -> list[Recording]:
    """The recordings with segments of `split`; DataError when there is none."""
    chosen = list(dict.fromkeys(r.aid for r, _ in segments_of(recordings, split)))
    if not chosen:
        raise DataError(f"--audiobench-data {root}: {metadata} has no segment of "
                        f"{SUBSETS[split]} (no segment whose subsets name it); expected the "
                        f"whole corpus's {METADATA}, or select the splits it has with "
                        "--audiobench-tasks")
    return [r for r in recordings if r.aid in chosen]


def _recording_file(root: Path, metadata: Path, recording: Recording) -> Path:
    path = metadata.parent / recording.path
    if not path.is_file():
        raise DataError(f"--audiobench-data {root}: no audio for recording {recording.aid!r} "
                        f"of {metadata.name}; expected {path} (the test sets' recordings, as "
                        "the release's audio/ folder holds them)")
    return path


def _cut_split(folder: Path, recordings: Sequence[Recording], files: dict[str, Path],
               split: str) -> None:
    """Every segment of `split` cut into ``folder/audio/<sid>.wav``, and its lines."""
    (folder / AUDIO).mkdir()
    utterances = []
    for recording in recordings:
        source = files[recording.aid]
        with _opened(source, recording) as sound:
            for segment in recording.segments:
                if segment.split == split:
                    clip = folder / AUDIO / f"{segment.sid}.wav"
                    clip.write_bytes(_wav(_cut(sound, source, recording, segment)))
                    utterances.append(Utterance(segment.sid, recording.aid, segment.text, clip))
    write_split(folder, utterances)


def _wav(pcm: npt.NDArray[np.int16]) -> bytes:
    """`pcm` as a 16 kHz WAV file's bytes. Made in memory: libsndfile syncs every file it
    closes to the disk, 4 ms a clip here, over an hour for ten times test_net."""
    import io

    import soundfile

    buffer = io.BytesIO()
    soundfile.write(buffer, pcm, RATE, format="WAV", subtype="PCM_16")
    return buffer.getvalue()


def _opened(source: Path, recording: Recording) -> soundfile.SoundFile:
    import soundfile

    try:
        return soundfile.SoundFile(source)
    except (RuntimeError, OSError) as exc:  # libsndfile's errors are RuntimeErrors
        raise BadData(f"{source}: recording {recording.aid!r} is not readable as audio "
                      f"({exc}); expected the recording {METADATA} names (opus, or any file "
                      "libsndfile reads)") from exc


def _cut(sound: soundfile.SoundFile, source: Path, recording: Recording,
         segment: Segment) -> npt.NDArray[np.int16]:
    """The segment's samples, mono, at 16 kHz, as 16-bit PCM."""
    import numpy as np

    rate = sound.samplerate
    start, stop = round(segment.begin * rate), round(segment.end * rate)
    sound.seek(min(start, sound.frames))
    exact = rate == RATE and sound.channels == 1
    # Read as 16-bit where nothing is computed: a lossless recording's samples pass unchanged.
    data = sound.read(stop - start, dtype="int16" if exact else "float64", always_2d=True)
    if len(data) == 0 or stop - start - len(data) > SHORT * rate:
        raise BadData(f"{source}: recording {recording.aid!r}, segment {segment.sid!r}: "
                      f"{segment.begin}-{segment.end} s reaches past the recording's "
                      f"{sound.frames / rate:.2f} s; expected a span of its audio")
    if exact:
        samples: npt.NDArray[np.int16] = np.ascontiguousarray(data[:, 0])
        return samples
    mono = _to_rate(data.mean(axis=1), rate)
    pcm: npt.NDArray[np.int16] = np.round(np.clip(mono, -1.0, 1.0) * 32767).astype(np.int16)
    return pcm


def _to_rate(signal: npt.NDArray[Any], rate: int) -> npt.NDArray[Any]:
    """`signal` at 16 kHz: low-passed below 8 kHz when it is faster, then interpolated."""
    import numpy as np

    if rate == RATE:
        return signal
    if rate > RATE:
        cutoff = 0.5 * RATE / rate  # cycles per source sample
        taps = np.arange(-_TAPS, _TAPS + 1)
        kernel = 2 * cutoff * np.sinc(2 * cutoff * taps) * np.blackman(len(taps))
        signal = np.convolve(signal, kernel / kernel.sum(), mode="same")
    count = max(1, round(len(signal) * RATE / rate))
    resampled: npt.NDArray[Any] = np.interp(np.arange(count) * (rate / RATE),
                                            np.arange(len(signal)), signal)
    return resampled
