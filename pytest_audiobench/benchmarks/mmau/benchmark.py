"""MMAU: each answer matched by the official token-set rule and the strict one, as MMAR's.

The official ``evaluation.py`` decides (``--audiobench-mmau-matcher``); the numbers are its
accuracies, overall and by task, difficulty and sub-category. A record's ``category`` here is
its difficulty, the grouping the official script reports (MMAU's own category, Reasoning or
Information Extraction, is kept in the record). The test split withholds the answers: it is
asked and written to a submission for the maintainers' evaluator, with no numbers and no gate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.choice.base import ChoiceBenchmark, MatchedGrade
from pytest_audiobench.benchmarks.choice.gating import slug
from pytest_audiobench.benchmarks.choice.names import Matcher
from pytest_audiobench.benchmarks.choice.templates import choice_prompt
from pytest_audiobench.benchmarks.mmau.data import MmauRecord, audio_path, read_mmau
from pytest_audiobench.benchmarks.mmau.facts import DIFFICULTIES, NAME, RELEASE, TASKS
from pytest_audiobench.benchmarks.mmau.parquet import release_folder
from pytest_audiobench.benchmarks.mmau.settings import MmauSettings
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.outcome.records import SampleRecord

WITHHELD = ("MMAU test split: the answers are withheld, so there are no numbers and no gate; "
            "--audiobench-export-mmau writes the submission the maintainers' evaluator scores")


class MmauGrade(MatchedGrade):
    """One answer's grading by both matchers (none on the test split)."""

    kind: Literal["mmau"] = "mmau"
    matcher: Matcher


class Mmau(ChoiceBenchmark):
    """The MMAU items of one split; tasks are sound, music and speech."""

    name = NAME
    grade_type = MmauGrade
    groupings = (("task", "task."), ("difficulty", "difficulty."),
                 ("subcategory", "subcategory."))
    export_flag, export_title, export_array = "--audiobench-export-mmau", "MMAU", True

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, MmauSettings)
        super().__init__(settings, own.matcher)
        self.own = own

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.mmau.download import download_mmau

        return download_mmau(self.settings.cache_dir, self.own.split)

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.own.split, self.settings.cache_dir)
        samples = [_sample(folder, r) for r in read_mmau(folder, self.own.split)]
        if self.own.split == "test":
            return Release(samples, (), (WITHHELD,), withheld=True, folder=folder)
        headline = (f"{NAME}.avg", *(f"{NAME}.task.{t}.avg" for t in TASKS),
                    *(f"{NAME}.difficulty.{d}.avg" for d in DIFFICULTIES))
        return Release(samples, headline, folder=folder)

    def prompt(self, sample: Sample) -> str:
        return choice_prompt(sample.question, sample.choices, self.own.prompt,
                             self.own.template)

    def groups(self, record: SampleRecord) -> dict[str, str]:
        return {"task": record.task, "difficulty": record.category,
                "subcategory": slug(record.subcategory)}

    def notes(self, release: Release) -> list[str]:
        own = self.own
        notes = [f"{RELEASE} {own.split}; {self._scored(release)}; {own.asked_with}",
                 *release.notes]
        if self.settings.runs > 1:
            notes.append(f"{self.settings.runs} inference runs; numbers are the mean of the "
                         "middle runs; each run is in the JSON report")
        return notes

    def _scored(self, release: Release) -> str:
        """How the answers are scored: not at all on a split whose answers are withheld."""
        if release.withheld:
            return "nothing is scored (the split withholds its answers)"
        return (f"{self.own.matcher} matcher decides correctness ({NAME}.official.avg and "
                f"{NAME}.strict.avg give both; an empty reply is wrong)")

    def export_path(self) -> Path | None:
        return self.own.export_path

    def submission(self, record: SampleRecord, grade: MmauGrade | None) -> dict[str, Any]:
        # The split's record as published, the answer under both names the maintainers use;
        # without one, neither key: their evaluator skips the record, out of every denominator.
        entry = _published(record, self.own.split)
        if grade is not None:
            entry["model_output"] = entry["model_prediction"] = grade.prediction
        return entry


def _sample(root: Path, record: MmauRecord) -> Sample:
    """The sample of ``record``, its difficulty as its category; the record itself is not
    kept (the fields here are all the benchmark reads: 9,000 records held whole would cost
    about 10 MB a run)."""
    return Sample(benchmark=NAME, id=record.id, task=record.task, category=record.difficulty,
                  subcategory=record.sub_category, audio=audio_path(root, record),
                  question=record.question, reference=record.answer or "",
                  choices=tuple(record.choices))


def _published(record: SampleRecord, split: str) -> dict[str, Any]:
    """The published record as the run's report keeps it (a resumed or merged run has only
    that): every field the official evaluator reads; ``audio_id`` as the published layout
    names it (the audio's folder and file); not ``dataset`` nor MMAU's own ``category``."""
    audio = Path(record.audio_path)
    return {"id": record.sample_id, "audio_id": f"./{audio.parent.name}/{audio.name}",
            "question": record.question, "choices": record.choices,
            "answer": record.reference, "task": record.task, "split": split,
            "sub-category": record.subcategory, "difficulty": record.category}
