"""FLEURS: each utterance of the selected languages' test splits transcribed and scored
against the normalised ``transcription`` column (``wer/benchmark.py``), a language at a time
and never pooled: by word error rate, by character error rate for Chinese and Cantonese. A
sample's category is the sentence it reads, which several speakers read: the paired gate
counts their errors together."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.fleurs.archive import release_folder
from pytest_audiobench.benchmarks.fleurs.data import Utterance, read_language
from pytest_audiobench.benchmarks.fleurs.facts import DEFAULT_LANGUAGES, NAME, RELEASE, code
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


class FleursGrade(TranscriptGrade):
    kind: Literal["fleurs"] = "fleurs"


class Fleurs(TranscriptionBenchmark):
    """The test utterances of the selected languages; a task is a language (its hub config)."""

    name = NAME
    grade_type = FleursGrade
    cluster_by = "sentence"

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, TranscriptionSettings)
        super().__init__(settings, own)
        chosen = own.languages or DEFAULT_LANGUAGES
        # --audiobench-tasks narrows the languages the flag chose, as it narrows any tasks.
        self.chosen = selected(chosen, settings.tasks)

    def language(self, task: str) -> str:
        return code(task)

    def languages(self) -> list[str]:
        return [code(lang) for lang in self.chosen]

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.fleurs.download import download_fleurs

        return download_fleurs(self.settings.cache_dir, self.chosen)

    def load(self, root: Path) -> Release:
        samples: list[Sample] = []
        notes: list[str] = []
        folder = release_folder(root, self.chosen, self.settings.cache_dir)
        for lang in self.chosen:
            utterances, note = read_language(folder, lang)
            samples += [_sample(lang, u) for u in utterances]
            notes += [note] if note else []
        for sample in samples:
            require_words(sample, code(sample.task))
        headline = tuple(f"{NAME}.{lang}.{next(iter(endings(code(lang))))}"
                         for lang in self.chosen)
        return Release(samples, headline, tuple(notes), folder=folder)

    def notes(self, release: Release) -> list[str]:
        return [f"{RELEASE} {', '.join(self.chosen)} test, scored against its transcription "
                f"column: {self.scored_with()}; {self.asking.asked_with}", *release.notes]


def _sample(language: str, utterance: Utterance) -> Sample:
    return Sample(benchmark=NAME, id=utterance.id, task=language,
                  category=f"sentence {utterance.sentence}", subcategory=utterance.gender,
                  audio=utterance.audio, question="", reference=utterance.transcription)
