"""The toy speech-recognition benchmark's mini part: four utterances, two a split, each clip a
tone of its own pitch standing in for speech (a model told by the pitch can transcribe it)."""

from pathlib import Path

from pytest_audiobench.benchmarks.mini_making import tone, write_json, write_wav

README = """{count} toy utterances (`toy_speech.json`, audio in `<split>/`), a tone each."""

UTTERANCES = (("c1", "clean", "s1", "the low tone hums", 330.0),
              ("c2", "clean", "s2", "a middle tone rings out", 440.0),
              ("o1", "other", "s1", "the high tone whistles", 550.0),
              ("o2", "other", "s2", "the last tone ends the test", 660.0))
"""Each utterance's id, split, speaker, transcript and pitch (Hz)."""


def write(out: Path, tts: object) -> int:
    """``toy_speech.json`` and each utterance's clip, ``<split>/<id>.wav``."""
    for ident, split, *_, hz in UTTERANCES:
        write_wav(out / split / f"{ident}.wav", tone(hz, 1.5))
    write_json(out / "toy_speech.json", [
        {"id": ident, "split": split, "speaker": speaker, "audio": f"{split}/{ident}.wav",
         "text": text} for ident, split, speaker, text, _ in UTTERANCES])
    return len(UTTERANCES)
