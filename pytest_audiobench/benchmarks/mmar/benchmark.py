"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics.

Each answer is matched by both matchers (the configured one decides correctness, the other is
reported beside it); with a judge, a correct answer's reasoning is rated against the item's
rubric, and a wrong one scores 0 without a judge call, as the official scripts do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from pytest_audiobench.benchmarks.base import JudgeUse, Release, Runtime
from pytest_audiobench.benchmarks.choice.base import ChoiceBenchmark, ChoiceScores
from pytest_audiobench.benchmarks.choice.gating import slug
from pytest_audiobench.benchmarks.choice.templates import choice_prompt
from pytest_audiobench.benchmarks.mmar.data import CATEGORIES, MmarRecord, audio_path, read_mmar
from pytest_audiobench.benchmarks.mmar.facts import MODALITIES, NAME, REASONING_LIMIT
from pytest_audiobench.benchmarks.mmar.grade import MmarGrade
from pytest_audiobench.benchmarks.mmar.metrics import MmarScores
from pytest_audiobench.benchmarks.mmar.rubrics import (
    SYSTEM_PROMPT,
    RubricGrade,
    rate_sample,
    rubric_messages,
    wrong_answer_grade,
)
from pytest_audiobench.benchmarks.mmar.settings import MmarSettings
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import EndpointError, NotRun
from pytest_audiobench.outcome.lines import protocol_sha256
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.transport.endpoint import Endpoint

NO_RUBRICS = "Rubrics and CRS unavailable: this release (MMAR-meta.json) has no rubrics"


class Mmar(ChoiceBenchmark):
    """The 1,000 MMAR items; tasks are the seven modalities."""

    name = NAME
    grade_type = MmarGrade
    groupings = (("task", "modality."), ("category", "category."),
                 ("subcategory", "subcategory."))
    endings: ClassVar[Mapping[str, str]] = {**ChoiceBenchmark.endings, "rubrics": "rubric"}
    ratings = frozenset({"rubric"})
    export_flag, export_title = "--audiobench-export-mmar", "MMAR"

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, MmarSettings)
        super().__init__(settings, own.matcher)
        self.own = own
        judge = settings.judge
        self.max_answer_chars = judge.max_answer_chars if judge is not None else 0
        self.rated = judge is not None and not judge.offline
        """An LLM judge rates the reasoning of right answers (an offline one cannot)."""

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.mmar.download import download_mmar

        return download_mmar(self.settings.cache_dir)

    def load(self, root: Path) -> Release:
        records, has_rubrics = read_mmar(root)
        samples = [Sample(benchmark=NAME, id=r.id, task=r.modality, category=r.category,
                          subcategory=r.sub_category, audio=audio_path(root, r),
                          question=r.question, reference=r.answer, context=r.thinking or "",
                          record=r, choices=tuple(r.choices)) for r in records]
        headline = [f"{NAME}.avg", *(f"{NAME}.modality.{m}.avg" for m in MODALITIES),
                    *(f"{NAME}.category.{slug(c)}.avg" for c in CATEGORIES)]
        if has_rubrics:
            return Release(samples, (*headline, f"{NAME}.rubrics", f"{NAME}.crs"))
        return Release(samples, tuple(headline), (NO_RUBRICS,))

    def prompt(self, sample: Sample) -> str:
        return choice_prompt(sample.question, sample.choices, self.own.prompt,
                             self.own.template)

    def rubric_judge(self, runtime: Runtime) -> Endpoint | None:
        """The judge with the rubric protocol's sampling; None when no LLM judge is given
        (an offline judge cannot rate reasoning)."""
        if not self.rated:
            return None
        rubric = self.own.rubric
        return runtime.judge_sampled(temperature=rubric.temperature, seed=rubric.seed)

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> MmarGrade:
        record: MmarRecord = sample.record
        grade: MmarGrade = self.grade_type.read(answer, record.answer, record.choices,
                                                 self.matcher)
        judge = self.rubric_judge(runtime)
        if judge is None or record.rubric is None:
            return grade
        if not grade.correct:
            rubric = wrong_answer_grade()
        else:
            try:
                rubric = await rate_sample(
                    judge, question=record.question, answer=record.answer,
                    thinking=record.thinking or "", criteria=record.rubric,
                    model_reasoning=grade.reasoning, model_answer=grade.prediction,
                    raters=self.own.rubric.raters, max_attempts=self.own.rubric.attempts,
                    max_answer_chars=self.max_answer_chars)
            except (EndpointError, NotRun) as exc:
                # The answer's correctness is known: it counts in accuracy; only its rubric
                # score is unavailable (counted and reported, never 0).
                rubric = RubricGrade(correct=True, score=None, not_graded=True,
                                       reason=f"the rubric judge failed: {exc}")
        return grade.model_copy(update={"rubric": rubric})

    def groups(self, record: SampleRecord) -> dict[str, str]:
        return {"task": record.task, "category": slug(record.category),
                "subcategory": slug(record.subcategory)}

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded: list[MmarGrade] = self.graded(grades)
        props = [*super().properties(grades),
                 ("audiobench_prediction", " | ".join(v.prediction for v in graded))]
        rubric = [v.rubric.score for v in graded if v.rubric is not None]
        if rubric:
            props.append(("audiobench_rubric", " ".join(
                "n/a" if s is None else f"{s:.3f}" for s in rubric)))
        return props

    def scores(self) -> ChoiceScores:
        return MmarScores(self)

    def values(self, graded: Sequence[MmarGrade]) -> dict[str, float]:
        # The base's percent right by matcher, and the mean rubric rating of the runs rated.
        values = super().values(graded)
        rated = [v.rubric.score for v in graded if v.rubric is not None and v.rubric.score
                 is not None]
        if rated:
            values["rubric"] = 100 * sum(rated) / len(rated)
        return values

    def notes(self, release: Release) -> list[str]:
        own, judge = self.own, self.settings.judge
        notes = [f"{own.matcher} matcher decides correctness (mmar.official.avg and "
                 f"mmar.strict.avg give both); {own.asked_with}"]
        if release.notes:
            notes += release.notes
        elif judge is None:
            notes.append("Rubrics and CRS unavailable: no judge given (--audiobench-judge-*)")
        elif judge.offline:
            notes.append(f"Rubrics and CRS unavailable: the offline judge "
                         f"{judge.endpoint.model!r} cannot rate reasoning; they need an "
                         "LLM judge (--audiobench-judge-model and --audiobench-judge-api-url)")
        else:
            rubric = own.rubric
            notes.append(f"rubrics judged by {judge.endpoint.model} (temperature "
                         f"{rubric.temperature:g}, seed {rubric.seed}, {rubric.raters} raters "
                         "per correct answer, the lowest and highest dropped)")
        if self.settings.runs > 1:
            notes.append(f"{self.settings.runs} inference runs; numbers are the mean of the "
                         "middle runs (paper protocol); each run is in the JSON report")
        return notes

    def export_path(self) -> Path | None:
        return self.own.export_path

    def submission(self, record: SampleRecord, grade: MmarGrade | None) -> dict[str, str]:
        # The challenge's line: thinking_prediction cut below its 10,000 characters.
        thinking, answer = (grade.reasoning, grade.prediction) if grade else ("", "")
        return {"id": record.sample_id, "thinking_prediction": thinking[:REASONING_LIMIT - 1],
                "answer_prediction": answer}

    def judge_use(self) -> MmarJudgeUse:
        return MmarJudgeUse(self)


class MmarJudgeUse(JudgeUse):
    """How MMAR uses its judge: raters of a correct answer's reasoning, by the rubric."""

    bench: Mmar

    def prompt_sha256(self) -> str | None:
        if not self.bench.rated:
            return None
        return protocol_sha256({"system": SYSTEM_PROMPT,
                                "rubric": self.bench.own.rubric.model_dump(mode="json"),
                                "max_answer_chars": self.bench.max_answer_chars})

    def decides(self, release: Release) -> tuple[str, ...]:
        # Accuracy needs no judge; the rubric ratings do.
        return tuple(m for m in release.headline
                     if m.endswith((".rubrics", ".crs"))) if self.bench.rated else ()

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        record: MmarRecord = sample.record
        judge = self.bench.rubric_judge(runtime)
        raters = self.bench.own.rubric.raters
        if judge is None or record.rubric is None:
            return 0, 0, False
        if answer is None:
            return raters, 0, True  # only a correct answer is rated
        grade = self.bench.grade_type.read(answer, record.answer, record.choices,
                                           self.bench.matcher)
        if not grade.correct:
            return 0, 0, False  # a wrong answer scores 0 without a judge call
        messages, _ = rubric_messages(record.question, record.answer, record.thinking or "",
                                      record.rubric, grade.reasoning, grade.prediction,
                                      self.bench.max_answer_chars)
        hits = sum(judge.cached(messages, cache_tag=f"rater {r} attempt 0") is not None
                   for r in range(raters))
        return raters, hits, False
