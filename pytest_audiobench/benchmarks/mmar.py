"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics.

Each answer is matched by both matchers (the configured one decides correctness, the other is
reported beside it); with a judge, a correct answer's reasoning is rated against the item's
rubric, and a wrong one scores 0 without a judge call, as the official scripts do.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from pytest_audiobench.benchmarks import Runtime, Sample
from pytest_audiobench.bundled import MINI, mini_root
from pytest_audiobench.catalog import Matcher
from pytest_audiobench.errors import DataError
from pytest_audiobench.inference import ask_model
from pytest_audiobench.matching import (
    MatchDecision,
    default_prompt,
    match_official,
    match_strict,
    reasoning_prompt,
    split_reasoning,
)
from pytest_audiobench.mmar_data import CATEGORIES, MODALITIES, MmarRecord, audio_path, read_mmar
from pytest_audiobench.report import text_field
from pytest_audiobench.results import MmarVerdict, ModelAnswer, SampleRecord, Verdict
from pytest_audiobench.rubrics import (
    RubricVerdict,
    rate_sample,
    rubric_messages,
    rubric_metrics,
)
from pytest_audiobench.scoring import Metric
from pytest_audiobench.settings import BENCHMARK_TASKS, Settings

NAME = "mmar"
THINKING_LIMIT = 10_000
"""The challenge's limit on thinking_prediction, in characters."""


class Mmar:
    """The 1,000 MMAR items; tasks are the seven modalities."""

    name = NAME

    def __init__(self) -> None:
        self.has_rubrics = True
        self.template: str | None = None
        self.style = "default"

    def locate(self, settings: Settings) -> Path:
        self._read_template(settings)  # a bad template stops the run before any request
        spec = settings.data[NAME]
        if spec == "modelscope":
            raise DataError("--audiobench-data modelscope: MMAR is published on Hugging Face; "
                            "use 'huggingface' or a local release root")
        if spec == MINI:
            return mini_root(NAME)
        if spec != "huggingface":
            return Path(spec)
        from pytest_audiobench.download import DownloadError, download_mmar

        try:
            return download_mmar(settings.cache_dir)
        except DownloadError as exc:
            raise DataError(f"--audiobench-data huggingface: {exc}") from exc

    def load(self, root: Path, settings: Settings) -> list[Sample]:
        self._read_template(settings)
        self.style = settings.mmar.prompt
        records, self.has_rubrics = read_mmar(root)
        wanted = set(settings.tasks) & set(BENCHMARK_TASKS[NAME]) or set(BENCHMARK_TASKS[NAME])
        chosen = [r for r in records if r.modality in wanted]
        if settings.limit is not None:
            taken: Counter[str] = Counter()
            kept = []
            for record in chosen:  # the release's order: the same N on every run
                taken[record.modality] += 1
                if taken[record.modality] <= settings.limit:
                    kept.append(record)
            chosen = kept
        return [Sample(benchmark=NAME, id=r.id, task=r.modality, category=r.category,
                       subcategory=r.sub_category, audio=audio_path(root, r),
                       question=r.question, reference=r.answer, context=r.thinking or "",
                       record=r, choices=tuple(r.choices)) for r in chosen]

    def _read_template(self, settings: Settings) -> None:
        path = settings.mmar.template_path
        if path is not None and self.template is None:
            self.template = load_prompt_template(path)

    def prompt(self, sample: Sample) -> str:
        return prompt_for(sample.record, self.style, self.template)

    def judge_calls(self, sample: Sample, answer: str | None,
                    runtime: Runtime) -> tuple[int, int, bool]:
        record: MmarRecord = sample.record
        judge = runtime.rubric_judge
        raters = runtime.settings.mmar.rubric.raters
        if judge is None or record.rubric is None:
            return 0, 0, False
        if answer is None:
            return raters, 0, True  # only a correct answer is rated
        verdict = match_answer(record, answer, runtime.settings.mmar.matcher)
        if not verdict.correct:
            return 0, 0, False  # a wrong answer scores 0 without a judge call
        messages = rubric_messages(record.question, record.answer, record.thinking or "",
                                   record.rubric, verdict.reasoning, verdict.prediction)
        hits = sum(judge.cached(messages, cache_tag=f"rater {r} attempt 0") is not None
                   for r in range(raters))
        return raters, hits, False

    async def answer(self, sample: Sample, runtime: Runtime, run: int) -> ModelAnswer:
        return await ask_model(sample, self.prompt(sample), runtime, run)

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> MmarVerdict:
        record: MmarRecord = sample.record
        verdict = match_answer(record, answer.text, runtime.settings.mmar.matcher)
        if runtime.rubric_judge is None or record.rubric is None:
            return verdict
        if not verdict.correct:
            rubric = RubricVerdict(correct=False, score=0.0,
                                   notes=["wrong answer: 0 without a judge call"])
        else:
            rubric_settings = runtime.settings.mmar.rubric
            rubric = await rate_sample(
                runtime.rubric_judge, question=record.question, answer=record.answer,
                thinking=record.thinking or "", criteria=record.rubric,
                model_reasoning=verdict.reasoning, model_answer=verdict.prediction,
                raters=rubric_settings.raters, max_attempts=rubric_settings.attempts)
        return verdict.model_copy(update={"rubric": rubric})

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                verdicts: Sequence[Verdict], settings: Settings) -> str | None:
        graded = _mmar(verdicts)
        wrong = [v for v in graded if not v.correct]
        if not wrong:
            return None
        record: MmarRecord = sample.record
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        lines = [
            f"{NAME} {sample.task} {sample.id}: wrong answer{runs} ({settings.mmar.matcher} "
            "matcher)",
            text_field("question", record.question),
            text_field("choices", " | ".join(record.choices)),
            text_field("correct", record.answer),
        ]
        for answer, verdict in zip(answers, graded, strict=True):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines += [
                text_field(prefix + "answer", answer.text),
                text_field("extracted", verdict.prediction),
                f"official:  {_decision(verdict.official)}",
                f"strict:    {_decision(verdict.strict)}",
            ]
            if verdict.rubric is not None and verdict.rubric.raters:
                lines += _rubric_lines(verdict.rubric)
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, verdicts: Sequence[Verdict]) -> list[tuple[str, object]]:
        graded = _mmar(verdicts)
        props: list[tuple[str, object]] = [
            ("audiobench_correct", " ".join(str(v.correct).lower() for v in graded)),
            ("audiobench_prediction", " | ".join(v.prediction for v in graded)),
        ]
        rubric = [v.rubric.score for v in graded if v.rubric is not None]
        if rubric:
            props.append(("audiobench_rubric", " ".join(
                "n/a" if s is None else f"{s:.3f}" for s in rubric)))
        return props

    def metrics(self, records: Sequence[SampleRecord], run: int) -> dict[str, Metric]:
        graded = [(r.sample_id, _mmar(r.verdicts)[run]) for r in records if len(r.verdicts) > run]
        return mmar_metrics(graded, {r.sample_id: r for r in records})

    def headline(self) -> tuple[str, ...]:
        names = [f"{NAME}.avg", *(f"{NAME}.modality.{m}.avg" for m in MODALITIES),
                 *(f"{NAME}.category.{slug(c)}.avg" for c in CATEGORIES)]
        if self.has_rubrics:
            names += [f"{NAME}.rubrics", f"{NAME}.crs"]
        return tuple(names)


    def failed_means(self, settings: Settings) -> str:
        return "wrong"

    def notes(self, settings: Settings) -> list[str]:
        mmar = settings.mmar
        prompt = (f"prompt {mmar.template_path}" if mmar.template_path
                  else f"{mmar.prompt} prompt")
        notes = [f"{mmar.matcher} matcher decides correctness (mmar.official.avg and "
                 f"mmar.strict.avg give both); {prompt}"]
        if not self.has_rubrics:
            notes.append("Rubrics and CRS unavailable: this release (MMAR-meta.json) has no "
                         "rubrics")
        elif settings.judge is None:
            notes.append("Rubrics and CRS unavailable: no judge given (--audiobench-judge-*)")
        elif settings.judge.offline:
            notes.append(f"Rubrics and CRS unavailable: the offline judge "
                         f"{settings.judge.endpoint.model!r} cannot rate reasoning; they need an "
                         "LLM judge (--audiobench-judge-model and --audiobench-judge-api-url)")
        else:
            rubric = mmar.rubric
            notes.append(f"rubrics judged by {settings.judge.endpoint.model} (temperature "
                         f"{rubric.temperature:g}, seed {rubric.seed}, {rubric.raters} raters "
                         "per correct answer, the lowest and highest dropped)")
        if settings.runs > 1:
            notes.append(f"{settings.runs} inference runs; numbers are the mean of the middle "
                         "runs (paper protocol); each run is in the JSON report")
        return notes

    def finish(self, records: Sequence[SampleRecord], settings: Settings) -> list[str]:
        path = settings.mmar.export_path
        if path is None:
            return []
        written, empty = export_submission([r for r in records if r.benchmark == NAME], path)
        return [f"MMAR submission: {written} lines written to {path}"
                + (f" ({empty} without a prediction)" if empty else "")]


def export_submission(records: Sequence[SampleRecord], path: Path) -> tuple[int, int]:
    """The challenge format, one JSON line per item: id, thinking_prediction (cut below the
    challenge's 10,000 characters) and answer_prediction, from the first inference run."""
    lines = []
    empty = 0
    for record in records:
        verdicts = _mmar(record.verdicts)
        if verdicts:
            thinking, answer = verdicts[0].reasoning, verdicts[0].prediction
        else:
            thinking, answer = "", ""
            empty += 1
        lines.append(json.dumps({"id": record.sample_id,
                                 "thinking_prediction": thinking[:THINKING_LIMIT - 1],
                                 "answer_prediction": answer}, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return len(lines), empty


def match_answer(record: MmarRecord, reply: str, matcher: Matcher) -> MmarVerdict:
    """Split the reply and match its answer with both matchers; ``matcher`` decides."""
    reasoning, prediction = split_reasoning(reply)
    return MmarVerdict(matcher=matcher, reasoning=reasoning, prediction=prediction,
                       official=match_official(prediction, record.answer, record.choices),
                       strict=match_strict(prediction, record.answer, record.choices))


def prompt_for(record: MmarRecord, style: str, template: str | None) -> str:
    """A user's template when given (filled in one pass, literally), else the built-in
    layout of ``style``."""
    if template is not None:
        values = {"{question}": record.question, "{choices}": "\n".join(record.choices)}
        return re.sub(r"\{question\}|\{choices\}", lambda m: values[m.group(0)], template)
    build: Callable[[str, Sequence[str]], str] = (
        reasoning_prompt if style == "reasoning" else default_prompt)
    return build(record.question, record.choices)


def load_prompt_template(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"--audiobench-mmar-template {path}: cannot read it as UTF-8 text "
                        f"({exc})") from exc
    missing = [p for p in ("{question}", "{choices}") if p not in text]
    if missing:
        raise DataError(f"--audiobench-mmar-template {path}: missing placeholder(s) "
                        f"{', '.join(missing)}; it must contain {{question}} and {{choices}}")
    return text


def slug(name: str) -> str:
    """'Semantic Layer' -> 'semantic_layer', for metric names."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def mmar_metrics(graded: Iterable[tuple[str, MmarVerdict]],
                 records: dict[str, SampleRecord]) -> dict[str, Metric]:
    """Accuracy (percent, micro) overall and by modality, category and sub-category, for the
    configured matcher and for each matcher by name; Rubrics and CRS where rubrics were judged.
    """
    groups: dict[str, list[MmarVerdict]] = defaultdict(list)
    for sample_id, verdict in graded:
        record = records[sample_id]
        groups[""].append(verdict)
        groups[f"modality.{record.task}."].append(verdict)
        groups[f"category.{slug(record.category)}."].append(verdict)
        if record.subcategory:
            groups[f"subcategory.{slug(record.subcategory)}."].append(verdict)
    metrics: dict[str, Metric] = {}
    for group, verdicts in groups.items():
        n = len(verdicts)
        base = f"{NAME}.{group}"
        metrics[base + "avg"] = Metric(value=100 * sum(v.correct for v in verdicts) / n, n=n)
        for matcher in ("official", "strict"):
            correct = sum(getattr(v, matcher).correct for v in verdicts)
            metrics[f"{base}{matcher}.avg"] = Metric(value=100 * correct / n, n=n)
        judged = [(v.correct, v.rubric.score) for v in verdicts if v.rubric is not None]
        if judged:
            summary = rubric_metrics(judged)
            if summary.rubrics is not None:
                metrics[base + "rubrics"] = Metric(value=summary.rubrics, n=summary.evaluated)
            if summary.crs is not None:
                metrics[base + "crs"] = Metric(value=summary.crs, n=summary.evaluated)
    return metrics


def _mmar(verdicts: Sequence[Verdict]) -> list[MmarVerdict]:
    return [v for v in verdicts if isinstance(v, MmarVerdict)]


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
