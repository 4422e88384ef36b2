"""LibriSpeech: each utterance of the selected test splits transcribed and scored by word
error rate, per split (``wer/benchmark.py``); a sample's category is its speaker, whose
utterances' errors the paired gate counts together."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.librispeech.data import Utterance, read_split
from pytest_audiobench.benchmarks.librispeech.facts import NAME, RELEASE, SPLITS
from pytest_audiobench.benchmarks.librispeech.parquet import release_folder
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.declarations import selected
from pytest_audiobench.config.settings import Settings


class LibrispeechGrade(TranscriptGrade):
    kind: Literal["librispeech"] = "librispeech"


class Librispeech(TranscriptionBenchmark):
    """The utterances of test-clean and test-other (those selected); tasks are the splits."""

    name = NAME
    grade_type = LibrispeechGrade

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.of(NAME, TranscriptionSettings))

    def splits(self) -> list[str]:
        """The splits the run selected (--audiobench-tasks), else both."""
        return selected(SPLITS, self.settings.tasks)

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.librispeech.download import download_librispeech

        roots = {download_librispeech(self.settings.cache_dir, s) for s in self.splits()}
        (root,) = roots  # every split is converted into the one root
        return root

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.splits(), self.settings.cache_dir)
        samples: list[Sample] = []
        notes: list[str] = []
        for split in self.splits():
            utterances, note = read_split(folder, split)
            samples += [_sample(split, u) for u in utterances]
            notes += [note] if note else []
        for sample in samples:
            require_words(sample)
        return Release(samples, tuple(f"{NAME}.{s}.wer" for s in self.splits()), tuple(notes),
                       folder=folder)

    def notes(self, release: Release) -> list[str]:
        return [f"{RELEASE}, {', '.join(self.splits())}: {self.scored_with()}; "
                f"{self.asking.asked_with}", *release.notes]


def _sample(split: str, utterance: Utterance) -> Sample:
    return Sample(benchmark=NAME, id=utterance.id, task=split,
                  category=f"speaker {utterance.speaker}",
                  subcategory=f"chapter {utterance.chapter}", audio=utterance.audio,
                  question="", reference=utterance.transcript)
