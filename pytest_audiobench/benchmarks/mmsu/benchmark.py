"""MMSU: each answer read by the official rule of ``mmsu_evaluation.py`` and by a strict one
(``grade.py``); the numbers are accuracies over the counted replies, overall, per category
(perception, reasoning) and per category and sub-category, as the official script gives them,
with the replies it left out counted beside them."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench import (
    ChoiceBenchmark,
    Grade,
    ModelAnswer,
    Release,
    Runtime,
    Sample,
    SampleRecord,
    Settings,
)
from pytest_audiobench.benchmarks.choice.gating import slug
from pytest_audiobench.benchmarks.choice.letters import LETTERS
from pytest_audiobench.benchmarks.choice.settings import ChoiceSettings
from pytest_audiobench.benchmarks.mmsu.data import MmsuRecord, read_mmsu, release_folder
from pytest_audiobench.benchmarks.mmsu.facts import CATEGORIES, NAME, RELEASE
from pytest_audiobench.benchmarks.mmsu.grade import MmsuGrade
from pytest_audiobench.benchmarks.mmsu.prompts import mmsu_prompt


class Mmsu(ChoiceBenchmark):
    """The MMSU questions; tasks are the release's task names."""

    name = NAME
    grade_type = MmsuGrade
    groupings = (("category", "category."), ("subcategory", "subcategory."))
    fallible = frozenset({"official"})
    lettered = True

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, ChoiceSettings)
        super().__init__(settings, own.matcher)
        self.own = own

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.mmsu.download import download_mmsu

        return download_mmsu(self.settings.cache_dir)

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.settings.cache_dir)
        records, note = read_mmsu(folder, self.settings.cache_dir)
        headline = (f"{NAME}.avg", *(f"{NAME}.category.{c}.avg" for c in CATEGORIES))
        return Release([_sample(r) for r in records], headline, (note,) if note else (),
                       folder=folder)

    def prompt(self, sample: Sample) -> str:
        return mmsu_prompt(sample.question, _options(sample), self.own.prompt,
                           self.own.template)

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        return MmsuGrade.read(answer.text, _options(sample), sample.reference,
                                self.own.matcher)

    def groups(self, record: SampleRecord) -> dict[str, str]:
        return {"category": slug(record.category),
                "subcategory": slug(f"{record.category} {record.subcategory}")}

    def notes(self, release: Release) -> list[str]:
        notes = [f"{RELEASE}: {self.own.matcher} rule decides ({NAME}.official.avg and "
                 f"{NAME}.strict.avg give both); the official rule reads a reply's first or "
                 "second-to-last character and leaves any other reply out of its count "
                 f"({NAME}.official.fail_num: left out, which raises its accuracy; "
                 f"{NAME}.official.differs_num: counted but read otherwise than by the strict "
                 f"rule); {self.own.asked_with}", *release.notes]
        if self.settings.runs > 1:
            notes.append(f"{self.settings.runs} inference runs; numbers are the mean of the "
                         "middle runs; each run is in the JSON report")
        return notes


def _options(sample: Sample) -> dict[str, str]:
    """The sample's options by letter, the empty ones after the last kept as the release has
    them (the official rule reads every letter)."""
    options = dict.fromkeys(LETTERS, "")
    options.update(zip(LETTERS, sample.choices, strict=False))
    return options


def _sample(record: MmsuRecord) -> Sample:
    """The sample of ``record``: its options up to the last one with a text (so that their
    positions are their letters), the correct option's text as its reference."""
    options = list(record.letters.values())
    while options and not options[-1]:
        options.pop()
    return Sample(benchmark=NAME, id=record.id, task=record.task_name,
                  category=record.category, subcategory=record.sub_category,
                  audio=record.audio, question=record.question, reference=record.answer_gt,
                  choices=tuple(options), lettered=True)
