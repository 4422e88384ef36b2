"""AISHELL-1's mini part: six short Mandarin sentences of ours, three by each of two speakers (the
espeak-ng Mandarin voice at two pitches), in the layout openslr's release extracts to with the
test speakers unpacked. The transcript file is word-segmented as the release's is, and holds
one line of a training utterance whose audio is not here, as the release's covers every
split: the reader passes it over."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.aishell1.facts import CORPUS_FOLDER, TRANSCRIPT
from pytest_audiobench.benchmarks.mini_making import Espeak, Voice, write_text, write_wav

README = """{count} AISHELL-1 test utterances (`data_aishell/wav/test/<speaker>/` and
  `data_aishell/transcript/aishell_transcript_v0.8.txt`), Mandarin sentences of ours read by
  two speakers (espeak-ng's Mandarin voice at two pitches), three each. The cascade's Whisper
  tiny.en hears English only: it writes English here, each letter a character, and its
  character error rate is far over 100 %."""

SPEAKERS: dict[str, Voice] = {"S0764": Voice("cmn", 35, "male", 190),
                              "S0901": Voice("cmn", 80, "female", 190)}
"""Two of the release's test speakers' ids, each a voice of ours."""
SENTENCES: dict[str, tuple[str, ...]] = {
    "S0764": ("今天 天气 很 好", "我们 去 公园", "老师 在 上课"),
    "S0901": ("城市 交通 方便", "他 喜欢 喝 茶", "图书馆 很 安静"),
}
"""Each speaker's sentences, segmented into words as the release's transcript is."""
UNHEARD = ("BAC009S0002W0001", "火车 站 离 这里 不 远")
"""A training utterance's line, without audio: the transcript covers every split."""


def write(out: Path, tts: Espeak) -> int:
    """Write ``data_aishell/`` under ``out``; the number of utterances."""
    folder = out / CORPUS_FOLDER
    lines = [UNHEARD]
    for speaker, voice in SPEAKERS.items():
        for number, text in enumerate(SENTENCES[speaker], 1):
            uttid = f"BAC009{speaker}W{number:04d}"
            # Spoken without the spaces, which segment the transcript and are not said.
            write_wav(folder / "wav" / "test" / speaker / f"{uttid}.wav",
                      tts.say(text.replace(" ", ""), voice))
            lines.append((uttid, text))
    write_text(folder / TRANSCRIPT, "".join(f"{uttid} {text}\n" for uttid, text in lines))
    return len(lines) - 1
