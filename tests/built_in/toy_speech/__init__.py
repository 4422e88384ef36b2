"""A toy speech-recognition benchmark as a built-in one, on the transcription base: its
utterances in ``toy_speech.json``, word error rate per split. This module is its spec."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, BenchmarkSpec, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

NAME = "toy_speech"
SPLITS = ("clean", "other")
LAYOUT = "the folder holding toy_speech.json and <split>/<id>.wav"


class ToySpeechOptions(BenchmarkOptions):
    toy_speech_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each toy_speech utterance in place of ours",
        convert.path, "FILE", unset="the built-in instruction")] = None
    toy_speech_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each toy_speech utterance",
        convert.path, "FILE", unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read("toy-speech", self.toy_speech_prompt,
                                          self.toy_speech_system)


SPEC = BenchmarkSpec(name=NAME, tasks=SPLITS, options=ToySpeechOptions,
                     benchmark="pytest_audiobench.benchmarks.toy_speech.benchmark:ToySpeech",
                     layout=LAYOUT)

__all__ = ["NAME", "SPEC", "SPLITS"]
