"""AISHELL-2: each utterance of the selected devices' test sets transcribed and scored by
character error rate (``wer/benchmark.py``, Chinese), a device at a time and never pooled; a
sample's category is its speaker, whose utterances' errors the paired gate counts together."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.aishell2.data import Utterance, read_device
from pytest_audiobench.benchmarks.aishell2.facts import DEVICES, LANGUAGE, NAME, RELEASE
from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.normalising import endings
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.declarations import selected
from pytest_audiobench.config.settings import Settings


class Aishell2Grade(TranscriptGrade):
    kind: Literal["aishell2"] = "aishell2"


class Aishell2(TranscriptionBenchmark):
    """The test utterances of the selected devices; tasks are the devices."""

    name = NAME
    grade_type = Aishell2Grade

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.of(NAME, TranscriptionSettings))

    def devices(self) -> list[str]:
        """The devices the run selected (--audiobench-tasks), else all three."""
        return selected(DEVICES, self.settings.tasks)

    def language(self, task: str) -> str:
        return LANGUAGE

    def languages(self) -> list[str]:
        return [LANGUAGE]

    def load(self, root: Path) -> Release:
        samples: list[Sample] = []
        notes: list[str] = []
        for device in self.devices():
            utterances, said = read_device(root, device)
            samples += [_sample(device, u) for u in utterances]
            notes += said
        for sample in samples:
            require_words(sample, LANGUAGE)
        ending = next(iter(endings(LANGUAGE)))
        return Release(samples, tuple(f"{NAME}.{d}.{ending}" for d in self.devices()),
                       tuple(notes))

    def notes(self, release: Release) -> list[str]:
        shown = ", ".join(DEVICES[d] for d in self.devices())
        return [f"{RELEASE}, {shown}: {self.scored_with()}; {self.asking.asked_with}",
                *release.notes]


def _sample(device: str, utterance: Utterance) -> Sample:
    return Sample(benchmark=NAME, id=utterance.id, task=device,
                  category=f"speaker {utterance.speaker}", audio=utterance.audio, question="",
                  reference=utterance.transcript)
