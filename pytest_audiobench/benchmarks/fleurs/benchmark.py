"""FLEURS: each utterance of one language's test split transcribed and scored by word error
rate against the normalised ``transcription`` column (``wer/benchmark.py``); a sample's
category is the sentence it reads, which several speakers read: the paired gate counts their
errors together."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.fleurs.archive import release_folder
from pytest_audiobench.benchmarks.fleurs.data import Utterance, read_language
from pytest_audiobench.benchmarks.fleurs.facts import NAME, RELEASE
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.settings import Settings


class FleursGrade(TranscriptGrade):
    kind: Literal["fleurs"] = "fleurs"


class Fleurs(TranscriptionBenchmark):
    """The test utterances of one language; its task is the language."""

    name = NAME
    grade_type = FleursGrade
    cluster_by = "sentence"

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, TranscriptionSettings)
        super().__init__(settings, own)
        self.language = own.language or ""

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.fleurs.download import download_fleurs

        return download_fleurs(self.settings.cache_dir, self.language)

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.language, self.settings.cache_dir)
        utterances, note = read_language(folder, self.language)
        samples = [_sample(self.language, u) for u in utterances]
        for sample in samples:
            require_words(sample)
        return Release(samples, (f"{NAME}.{self.language}.wer",), (note,) if note else (),
                       folder=folder)

    def notes(self, release: Release) -> list[str]:
        return [f"{RELEASE} {self.language} test, scored against its transcription column: "
                f"{self.scored_with()}; {self.asking.asked_with}", *release.notes]


def _sample(language: str, utterance: Utterance) -> Sample:
    return Sample(benchmark=NAME, id=utterance.id, task=language,
                  category=f"sentence {utterance.sentence}", subcategory=utterance.gender,
                  audio=utterance.audio, question="", reference=utterance.transcription)
