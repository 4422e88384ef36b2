"""WenetSpeech: each segment of the selected test sets transcribed and scored by character
error rate, per set (``wer/benchmark.py``, the reference pipeline of Mandarin, with
Kimi-Audio-Evalkit's tokens beside it). The release names no speaker: a sample's category is
the recording it was cut from, whose segments' errors the paired gate counts together (a
video or a meeting shares its speakers, topic and sound)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wenetspeech.data import Utterance, read_split
from pytest_audiobench.benchmarks.wenetspeech.facts import LANGUAGE, NAME, RELEASE, SPLITS
from pytest_audiobench.benchmarks.wenetspeech.locating import release_folder
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.normalising import endings
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.declarations import selected
from pytest_audiobench.config.settings import Settings


class WenetspeechGrade(TranscriptGrade):
    kind: Literal["wenetspeech"] = "wenetspeech"


class Wenetspeech(TranscriptionBenchmark):
    """The segments of test_net and test_meeting (those selected); tasks are the sets."""

    name = NAME
    grade_type = WenetspeechGrade
    cluster_by = "recording"

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings, settings.of(NAME, TranscriptionSettings))

    def language(self, task: str) -> str:
        return LANGUAGE

    def languages(self) -> list[str]:
        return [LANGUAGE]

    def splits(self) -> list[str]:
        """The sets the run selected (--audiobench-tasks), else both."""
        return selected(SPLITS, self.settings.tasks)

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.wenetspeech.download import download_wenetspeech

        roots = {download_wenetspeech(self.settings.cache_dir, s) for s in self.splits()}
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
            notes += [_unclustered(split)] if any(u.recording is None for u in utterances) \
                else []
        for sample in samples:
            require_words(sample, LANGUAGE)
        ending = next(iter(endings(LANGUAGE)))
        return Release(samples, tuple(f"{NAME}.{s}.{ending}" for s in self.splits()),
                       tuple(notes), folder=folder)

    def notes(self, release: Release) -> list[str]:
        return [f"{RELEASE}, {', '.join(self.splits())}: {self.scored_with()} (WenetSpeech "
                "names no speaker: a recording's segments share its speakers); "
                f"{self.asking.asked_with}", *release.notes]


def _sample(split: str, utterance: Utterance) -> Sample:
    cluster = f"recording {utterance.recording}" if utterance.recording is not None \
        else f"segment {utterance.id}"
    return Sample(benchmark=NAME, id=utterance.id, task=split, category=cluster,
                  audio=utterance.audio, question="", reference=utterance.text)


def _unclustered(split: str) -> str:
    return (f"{NAME} {split}: segments whose id names no recording (a copy without the "
            "release's segment ids) are each a cluster of their own: the paired gate's "
            "interval is then narrower than the release's, whose recordings share errors")
