"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics.

Each answer is matched by both matchers (the configured one decides correctness, the other is
reported beside it); with a judge, a correct answer's reasoning is rated against the item's
rubric, and a wrong one scores 0 without a judge call, as the official scripts do.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.base import Benchmark, Release, Runtime, Tally
from pytest_audiobench.benchmarks.choice import choice_line, choice_linear, percent
from pytest_audiobench.benchmarks.matching import (
    MatchDecision,
    match_official,
    match_strict,
    split_reasoning,
)
from pytest_audiobench.benchmarks.mmar.choices import Matcher
from pytest_audiobench.benchmarks.mmar.data import CATEGORIES, MmarRecord, audio_path, read_mmar
from pytest_audiobench.benchmarks.mmar.export import export_submission
from pytest_audiobench.benchmarks.mmar.facts import MODALITIES, NAME
from pytest_audiobench.benchmarks.mmar.metrics import MmarScores, slug
from pytest_audiobench.benchmarks.mmar.prompts import prompt_for
from pytest_audiobench.benchmarks.mmar.rubrics import (
    SYSTEM_PROMPT,
    RubricVerdict,
    rate_sample,
    rubric_messages,
    wrong_answer_verdict,
)
from pytest_audiobench.benchmarks.mmar.settings import MmarSettings
from pytest_audiobench.benchmarks.mmar.verdict import MmarVerdict, mmar_verdicts
from pytest_audiobench.benchmarks.reporting import text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import DataError, EndpointError, NotRun
from pytest_audiobench.outcome.lines import Linear, SampleLine, protocol_sha256
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Verdict
from pytest_audiobench.outcome.view import Choice, Detail, SampleView
from pytest_audiobench.transport.endpoint import Endpoint

NO_RUBRICS = "Rubrics and CRS unavailable: this release (MMAR-meta.json) has no rubrics"
_GROUPINGS = (("task", "modality."), ("category", "category."), ("subcategory", "subcategory."))
_ENDINGS = {"avg": "correct", "official.avg": "official", "strict.avg": "strict",
            "rubrics": "rubric"}


class Mmar(Benchmark):
    """The 1,000 MMAR items; tasks are the seven modalities."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.own = settings.of(NAME, MmarSettings)
        judge = settings.judge
        self.max_answer_chars = judge.max_answer_chars if judge is not None else 0
        self.rated = judge is not None and not judge.offline
        """An LLM judge rates the reasoning of right answers (an offline one cannot)."""

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.mmar.download import download_mmar
        from pytest_audiobench.errors import DownloadError

        try:
            return download_mmar(self.settings.cache_dir)
        except DownloadError as exc:
            raise DataError(f"--audiobench-data {source}: {exc}") from exc

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
        return prompt_for(sample.record, self.own.prompt, self.own.template)

    def judge_prompt(self) -> str | None:
        if not self.rated:
            return None
        return protocol_sha256({"system": SYSTEM_PROMPT,
                                "rubric": self.own.rubric.model_dump(mode="json"),
                                "max_answer_chars": self.max_answer_chars})

    def judged_metrics(self, release: Release) -> tuple[str, ...]:
        # Accuracy needs no judge; the rubric ratings do.
        return tuple(m for m in release.headline
                     if m.endswith((".rubrics", ".crs"))) if self.rated else ()

    def rubric_judge(self, runtime: Runtime) -> Endpoint | None:
        """The judge with the rubric protocol's sampling; None when no LLM judge is given
        (an offline judge cannot rate reasoning)."""
        if not self.rated:
            return None
        rubric = self.own.rubric
        return runtime.judge_sampled(temperature=rubric.temperature, seed=rubric.seed)

    def judge_calls(self, sample: Sample, answer: ModelAnswer | None,
                    runtime: Runtime) -> tuple[int, int, bool]:
        record: MmarRecord = sample.record
        judge = self.rubric_judge(runtime)
        raters = self.own.rubric.raters
        if judge is None or record.rubric is None:
            return 0, 0, False
        if answer is None:
            return raters, 0, True  # only a correct answer is rated
        verdict = match_answer(record, answer, self.own.matcher)
        if not verdict.correct:
            return 0, 0, False  # a wrong answer scores 0 without a judge call
        messages, _ = rubric_messages(record.question, record.answer, record.thinking or "",
                                      record.rubric, verdict.reasoning, verdict.prediction,
                                      self.max_answer_chars)
        hits = sum(judge.cached(messages, cache_tag=f"rater {r} attempt 0") is not None
                   for r in range(raters))
        return raters, hits, False

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> MmarVerdict:
        record: MmarRecord = sample.record
        verdict = match_answer(record, answer, self.own.matcher)
        judge = self.rubric_judge(runtime)
        if judge is None or record.rubric is None:
            return verdict
        if not verdict.correct:
            rubric = wrong_answer_verdict()
        else:
            try:
                rubric = await rate_sample(
                    judge, question=record.question, answer=record.answer,
                    thinking=record.thinking or "", criteria=record.rubric,
                    model_reasoning=verdict.reasoning, model_answer=verdict.prediction,
                    raters=self.own.rubric.raters, max_attempts=self.own.rubric.attempts,
                    max_answer_chars=self.max_answer_chars)
            except (EndpointError, NotRun) as exc:
                # The answer's correctness is known: it counts in accuracy; only its rubric
                # score is unavailable (counted and reported, never 0).
                rubric = RubricVerdict(correct=True, score=None,
                                       reason=f"the rubric judge failed: {exc}")
        return verdict.model_copy(update={"rubric": rubric})

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                verdicts: Sequence[Verdict]) -> str | None:
        graded = mmar_verdicts(verdicts)
        wrong = [v for v in graded if not v.correct]
        if not wrong:
            return None
        record: MmarRecord = sample.record
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        lines = [
            f"wrong answer{runs} ({self.own.matcher} matcher)",
            text_field("question", record.question),
            text_field("choices", " | ".join(record.choices)),
            text_field("correct", record.answer),
        ]
        for answer, verdict in zip(answers, graded, strict=True):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines += [
                text_field(prefix + "answer", answer.said()),
                text_field("extracted", verdict.prediction),
                f"official:  {_decision(verdict.official)}",
                f"strict:    {_decision(verdict.strict)}",
            ]
            if verdict.rubric is not None and verdict.rubric.raters:
                lines += _rubric_lines(verdict.rubric)
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, verdicts: Sequence[Verdict]) -> list[tuple[str, object]]:
        graded = mmar_verdicts(verdicts)
        props: list[tuple[str, object]] = [
            ("audiobench_correct", " ".join(str(v.correct).lower() for v in graded)),
            ("audiobench_prediction", " | ".join(v.prediction for v in graded)),
        ]
        rubric = [v.rubric.score for v in graded if v.rubric is not None]
        if rubric:
            props.append(("audiobench_rubric", " ".join(
                "n/a" if s is None else f"{s:.3f}" for s in rubric)))
        return props

    def tally(self, runs: int) -> Tally:
        return MmarTally(runs)

    def view(self, record: SampleRecord) -> SampleView:
        graded = mmar_verdicts(record.verdicts)
        if not graded:
            return SampleView(choices=[Choice(text=c, correct=c == record.reference)
                                       for c in record.choices])
        right = sum(v.correct for v in graded)
        score = ("right" if right else "wrong") if len(graded) == 1 else \
            f"right in {right} of {len(graded)} runs"
        first = graded[0]
        taken = (first.official if first.matcher == "official" else first.strict).extracted
        choices = [Choice(text=c, correct=c == record.reference, chosen=c == taken)
                   for c in record.choices]
        details = []
        for index, verdict in enumerate(graded):
            run = "" if len(graded) == 1 else f"run {index}, "
            details += [Detail(label=f"{run}extracted", text=verdict.prediction),
                        Detail(label=f"{run}official", text=_decision(verdict.official)),
                        Detail(label=f"{run}strict", text=_decision(verdict.strict))]
            if verdict.reasoning:
                details.append(Detail(label=f"{run}reasoning", text=verdict.reasoning,
                                      folded=True))
            if verdict.rubric is not None and verdict.rubric.raters:
                details.append(Detail(label=f"{run}rubric",
                                      text="\n".join(_rubric_lines(verdict.rubric))))
        return SampleView(score=score, choices=choices, details=details)

    def failed_means(self) -> str:
        return "wrong"

    def sample_line(self, record: SampleRecord) -> SampleLine | None:
        graded = mmar_verdicts(record.verdicts)
        if not graded or not record.answers:
            return None
        return choice_line(record, graded, _values, {
            "task": record.task, "category": slug(record.category),
            "subcategory": slug(record.subcategory)})

    def linear(self, metric: str) -> Linear | None:
        # Percent: an item right in every run is 100, wrong in every run 0; the rubric is a
        # judge's rating in between.
        return choice_linear(metric, NAME, _GROUPINGS, _ENDINGS, rated={"rubric"})

    def margin(self, metric: str) -> float:
        return 1.0  # percentage points of accuracy, or of the rubric score

    def notes(self, release: Release) -> list[str]:
        own, judge = self.own, self.settings.judge
        prompt = f"prompt {own.template_path}" if own.template_path else f"{own.prompt} prompt"
        notes = [f"{own.matcher} matcher decides correctness (mmar.official.avg and "
                 f"mmar.strict.avg give both); {prompt}"]
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

    def outputs(self) -> dict[str, Path]:
        path = self.own.export_path
        return {} if path is None else {"--audiobench-export-mmar": path}

    def finish(self, records: Iterable[SampleRecord]) -> list[str]:
        path = self.own.export_path
        if path is None:
            return []
        written, empty = export_submission((r for r in records if r.benchmark == NAME), path)
        return [f"MMAR submission: {written} lines written to {path}"
                + (f" ({empty} without a prediction)" if empty else "")]


class MmarTally(Tally):
    """Each inference run's counts, folded record by record."""

    def __init__(self, runs: int) -> None:
        self._runs = [MmarScores() for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for scores, verdict in zip(self._runs, mmar_verdicts(record.verdicts), strict=False):
            scores.add(record, verdict)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics()


def _values(graded: Sequence[MmarVerdict]) -> dict[str, float]:
    """A sample's per-sample values over the runs ``graded``: percent correct by each
    matcher, and the mean rubric rating of the runs rated."""
    values = {"correct": percent(v.correct for v in graded),
              "official": percent(v.official.correct for v in graded),
              "strict": percent(v.strict.correct for v in graded)}
    rated = [v.rubric.score for v in graded if v.rubric is not None and v.rubric.score
             is not None]
    if rated:
        values["rubric"] = 100 * sum(rated) / len(rated)
    return values


def match_answer(record: MmarRecord, answer: ModelAnswer, matcher: Matcher) -> MmarVerdict:
    """Split the answer from its reasoning and match it with both matchers; ``matcher``
    decides. An empty answer is wrong, as the official script has it."""
    reasoning, prediction = split_reasoning(answer.text, answer.reasoning)
    return MmarVerdict(matcher=matcher, reasoning=reasoning, prediction=prediction,
                       official=match_official(prediction, record.answer, record.choices),
                       strict=match_strict(prediction, record.answer, record.choices))


def _decision(decision: MatchDecision) -> str:
    verdict = "correct" if decision.correct else "wrong"
    took = f", read as {decision.extracted!r}" if decision.extracted else ""
    return f"{verdict}{took}: {decision.reason}"


def _rubric_lines(rubric: RubricVerdict) -> list[str]:
    lines = [f"rubric: {'n/a' if rubric.score is None else f'{rubric.score:.3f}'}"
             + (f" ({rubric.reason})" if rubric.reason else "")]
    for index, rater in enumerate(rubric.raters, 1):
        if rater.scores is None:
            lines.append(f"  rater {index}: no acceptable reply ({rater.problem})")
            continue
        lines.append(f"  rater {index}: {rater.score:.2f}")
        lines += [f"    {s.name}: {s.score} - {s.justification}" for s in rater.scores]
    return lines
