"""The toy speech-recognition benchmark: its records read, each utterance a sample whose task
is its split and whose category its speaker; the transcription base does the rest (the
prompt, the word errors under both pipelines, the rates per split, the gate's lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.metafile import read_json_array, validated
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.settings import Settings

from . import LAYOUT, NAME, SPLITS

META = Path("toy_speech.json")


class ToySpeechUtterance(BaseModel):
    id: str
    split: str
    speaker: str
    audio: str
    text: str


class ToySpeechGrade(TranscriptGrade):
    kind: Literal["toy_speech"] = "toy_speech"


class ToySpeech(TranscriptionBenchmark):
    name = NAME
    grade_type = ToySpeechGrade

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.of(NAME, TranscriptionSettings))

    def load(self, root: Path) -> Release:
        raw = read_json_array(root, META, LAYOUT, "one record per utterance")
        utterances = [validated(ToySpeechUtterance, item, f"{root / META}: record {index}",
                                "id, split, speaker, audio and text")
                      for index, item in enumerate(raw, 1)]
        samples = [Sample(benchmark=NAME, id=u.id, task=u.split, category=f"speaker {u.speaker}",
                          audio=root / u.audio, question="", reference=u.text)
                   for u in utterances]
        for sample in samples:
            require_words(sample)
        return Release(samples, tuple(f"{NAME}.{split}.wer" for split in SPLITS))

    def notes(self, release: Release) -> list[str]:
        return [f"toy speech: {self.scored_with()}; {self.asking.asked_with}", *release.notes]
