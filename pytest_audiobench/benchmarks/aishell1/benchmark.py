"""AISHELL-1: each utterance of the test split transcribed and scored by character error rate
(``wer/benchmark.py``, Chinese); a sample's category is its speaker, whose utterances' errors
the paired gate counts together."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.aishell1.data import Utterance, read_test
from pytest_audiobench.benchmarks.aishell1.facts import LANGUAGE, NAME, RELEASE, SPLIT
from pytest_audiobench.benchmarks.aishell1.snapshots import release_folder
from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.normalising import endings
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.settings import Settings


class Aishell1Grade(TranscriptGrade):
    kind: Literal["aishell1"] = "aishell1"


class Aishell1(TranscriptionBenchmark):
    """The utterances of the test split, its one task."""

    name = NAME
    grade_type = Aishell1Grade

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.of(NAME, TranscriptionSettings))

    def language(self, task: str) -> str:
        return LANGUAGE

    def languages(self) -> list[str]:
        return [LANGUAGE]

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.aishell1.download import download_aishell1

        return download_aishell1(self.settings.cache_dir)

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.settings.cache_dir)
        utterances, notes = read_test(folder)
        samples = [_sample(u) for u in utterances]
        for sample in samples:
            require_words(sample, LANGUAGE)
        headline = f"{NAME}.{SPLIT}.{next(iter(endings(LANGUAGE)))}"
        return Release(samples, (headline,), notes, folder=folder)

    def notes(self, release: Release) -> list[str]:
        return [f"{RELEASE} {SPLIT}: {self.scored_with()}; {self.asking.asked_with}",
                *release.notes]


def _sample(utterance: Utterance) -> Sample:
    return Sample(benchmark=NAME, id=utterance.id, task=SPLIT,
                  category=f"speaker {utterance.speaker}", audio=utterance.audio, question="",
                  reference=utterance.transcript)
