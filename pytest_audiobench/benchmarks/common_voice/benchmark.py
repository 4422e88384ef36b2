"""Common Voice 15: each utterance of the selected locales' test splits transcribed and scored
against its ``sentence`` (``wer/benchmark.py``), a locale at a time and never pooled: by word
error rate for English and French, by character error rate for Chinese (``zh-CN``) and
Cantonese (``yue``). A sample's category is its speaker (``client_id``), whose utterances'
errors the paired gate counts together; an utterance whose copy names no speaker is its own."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.common_voice.data import Utterance, read_locale
from pytest_audiobench.benchmarks.common_voice.facts import (
    HUB_LOCALES,
    LANGUAGES,
    LOCALES,
    NAME,
    RELEASE,
)
from pytest_audiobench.benchmarks.common_voice.parquet import release_folder
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.benchmark import (
    TranscriptGrade,
    TranscriptionBenchmark,
    require_words,
)
from pytest_audiobench.benchmarks.wer.normalising import endings
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.settings import Settings

HUB = "huggingface"


class CommonVoiceGrade(TranscriptGrade):
    kind: Literal["common_voice"] = "common_voice"


class CommonVoice(TranscriptionBenchmark):
    """The test utterances of the selected locales; a task is a locale."""

    name = NAME
    grade_type = CommonVoiceGrade

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, TranscriptionSettings)
        super().__init__(settings, own)
        self.chosen = chosen_locales(own.languages, settings.tasks,
                                     settings.data.get(NAME) == HUB)

    def language(self, task: str) -> str:
        return LANGUAGES.get(task, task)

    def languages(self) -> list[str]:
        return [LANGUAGES[locale] for locale in self.chosen]

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.common_voice.download import (
            download_common_voice,
            require_on_hub,
        )

        require_on_hub(self.chosen)  # before any locale is fetched
        roots = {download_common_voice(self.settings.cache_dir, locale)
                 for locale in self.chosen}
        (root,) = roots  # every locale is converted into the one root
        return root

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.chosen, self.settings.cache_dir)
        read = {locale: read_locale(folder, locale) for locale in self.chosen}
        samples = [_sample(locale, u) for locale, found in read.items() for u in found]
        for sample in samples:
            require_words(sample, self.language(sample.task))
        headline = tuple(f"{NAME}.{locale}.{next(iter(endings(LANGUAGES[locale])))}"
                         for locale in self.chosen)
        return Release(samples, headline, tuple(_notes(read)), folder=folder)

    def notes(self, release: Release) -> list[str]:
        left = [locale for locale in LOCALES if locale not in self.chosen]
        return [f"{RELEASE} {', '.join(self.chosen)} test, scored against the sentence "
                f"column: {self.scored_with()}; {self.asking.asked_with}"
                + (f"; not run: {', '.join(left)}" if left else ""), *release.notes]


def chosen_locales(flagged: tuple[str, ...], tasks: tuple[str, ...], hub: bool) -> list[str]:
    """The locales a run scores: those of ``--audiobench-common-voice-locale``, else all four
    (the hub copy's three when the data is downloaded: it has no Cantonese), narrowed by
    ``--audiobench-tasks`` as it narrows any tasks. Tasks naming locales outside an unset
    flag's default still choose them, so that asking the hub for yue says it has none."""
    named = [locale for locale in LOCALES if locale in tasks]
    if not flagged:
        return named or list(HUB_LOCALES if hub else LOCALES)
    return [locale for locale in flagged if locale in tasks] or list(flagged)


def _sample(locale: str, utterance: Utterance) -> Sample:
    # Without a client_id, nothing ties an utterance to another: it is its own cluster.
    speaker = f"speaker {utterance.client_id}" if utterance.client_id else \
        f"utterance {utterance.id}"
    return Sample(benchmark=NAME, id=utterance.id, task=locale, category=speaker,
                  subcategory=utterance.gender, audio=utterance.audio, question="",
                  reference=utterance.sentence, record=None)


def _notes(read: dict[str, list[Utterance]]) -> list[str]:
    """The split sizes, which are not checked (no source gives them), and the locales whose
    utterances name no speaker."""
    counts = ", ".join(f"{locale} {len(found):,}" for locale, found in read.items())
    notes = [f"{NAME}: test utterances read: {counts} (the published splits' sizes are not "
             "known here, so whether each is whole is not checked)"]
    for locale, found in read.items():
        nameless = Counter(not u.client_id for u in found)[True]
        if nameless:
            notes.append(f"{NAME} {locale}: {nameless:,} of {len(found):,} utterances name no "
                         "speaker (no client_id, as a hub copy without it): each is its own "
                         "cluster for the gate, which then takes them as independent")
    return notes
