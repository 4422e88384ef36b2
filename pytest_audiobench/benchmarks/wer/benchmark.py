"""The base of every speech-recognition benchmark (LibriSpeech, FLEURS, a third party's):
items that are an utterance and its reference transcript, scored by word error rate.

A benchmark on it declares its records (``load``), where its releases come from, and its
grade type (a ``TranscriptGrade`` with its own ``kind``); it gets from the base the
prompt, the grading under both pipelines (``normalising.py``), the numbers per split, the
sample lines and metrics of the paired gate (lower is better, a ratio clustered by what the
sample's ``category`` holds: its speaker, or the sentence several speakers read), the failure
report with the words aligned, the page's view.

Metric names are ``<benchmark>.<split>.<ending>``: ``wer`` (the reference pipeline, in
percent), ``english.wer`` (Whisper's English normaliser alone), the reference pipeline's
``substitutions``, ``deletions``, ``insertions``, and ``preamble_num`` and ``empty_num``,
the answers that open with a preamble and those that are empty. Splits are never pooled.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from pytest_audiobench.benchmarks.base import Benchmark, Gating, Runtime, Tally
from pytest_audiobench.benchmarks.reporting import text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.wer.aligning import aligned
from pytest_audiobench.benchmarks.wer.answers import opens_with_preamble
from pytest_audiobench.benchmarks.wer.counting import NONE, WordErrors, count, error_rate
from pytest_audiobench.benchmarks.wer.normalising import PIPELINES, Pipeline, words
from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import DataError
from pytest_audiobench.outcome.lines import Linear, SampleLine, text_sha256
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.outcome.view import Detail, SampleView

PROMPT = ("Transcribe the speech in this recording exactly as spoken. Reply with the "
          "transcript alone: no introduction, quotation marks or comments.")
"""Our own wording of the request every suite makes: the transcript and nothing else."""
MARGIN = 0.2
"""The rise of a split's word error rate, in points, the paired gate lets pass when the
baseline names none: a tenth of a test-clean WER near 2 %."""
VALUES: dict[Pipeline, tuple[str, str]] = {"reference": ("wer", "words"),
                                           "english": ("english_wer", "english_words")}
"""Per pipeline, a sample line's value (its error rate in percent) and weight (its
reference's words)."""
ENDINGS: dict[str, Pipeline] = {"wer": "reference", "english.wer": "english"}


class TranscriptGrade(Grade):
    """One answer's word errors under each pipeline, and whether it opens with a preamble.
    A benchmark subclasses it with its ``kind``."""

    transcript: str
    """The answer as scored: its text, the reasoning already set apart."""
    errors: dict[str, WordErrors]
    """Per pipeline (``PIPELINES``), the answer's errors against the reference."""
    preamble: bool = False

    @classmethod
    def read(cls, answer: ModelAnswer, reference: str, **more: Any) -> Any:
        """``answer`` counted against ``reference`` by every pipeline; an empty answer is all
        deletions."""
        text = answer.text
        return cls(transcript=text, preamble=opens_with_preamble(text),
                   errors={p: count(words(reference, p), words(text, p)) for p in PIPELINES},
                   **more)

    @property
    def counted(self) -> WordErrors:
        """The reference pipeline's count, which decides."""
        return self.errors["reference"]


def require_words(sample: Sample) -> None:
    """DataError when ``sample``'s reference makes no word under a pipeline: its errors
    could not be a share of its words."""
    for pipeline in PIPELINES:
        if not words(sample.reference, pipeline):
            raise DataError(f"{sample.benchmark} {sample.task} {sample.id}: its reference "
                            f"{sample.reference!r} has no word once normalised ({pipeline} "
                            "pipeline); expected a transcript")


class TranscriptionBenchmark(Benchmark):
    """A benchmark of utterances to transcribe. Required: ``load`` (from ``Benchmark``) and
    ``grade_type``; a sample's ``task`` is its split, its ``category`` what its errors share
    (a speaker, a sentence read by several)."""

    grade_type: ClassVar[type[TranscriptGrade]]
    cluster_by: ClassVar[str] = "speaker"
    """What a sample's ``category`` names, whose utterances' errors the gate counts
    together: said in the notes."""

    def __init__(self, settings: Settings, asking: TranscriptionSettings) -> None:
        super().__init__(settings)
        self.asking = asking

    def prompt(self, sample: Sample) -> str:
        return PROMPT if self.asking.prompt is None else self.asking.prompt

    def system(self, sample: Sample) -> str | None:
        return self.asking.system

    def scored_with(self) -> str:
        """How the numbers are made, for the notes."""
        runs = self.settings.runs
        return ("word error rate per split, never pooled: the errors summed over the "
                "reference words summed, after the reports' reference pipeline (wer) and "
                "Whisper's English normaliser alone (english.wer); an empty answer is all "
                "deletions, a preamble's words are insertions; gated paired, lower is better, "
                f"the utterances clustered by {self.cluster_by}"
                + (f"; {runs} inference runs, numbers the mean of the middle runs"
                   if runs > 1 else ""))

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        grade: Grade = self.grade_type.read(answer, sample.reference)
        return grade

    def graded(self, grades: Sequence[object]) -> list[TranscriptGrade]:
        """This benchmark's grades among a record's."""
        return [v for v in grades if isinstance(v, self.grade_type)]

    def failed_means(self) -> str:
        return "with word errors"

    def tally(self, runs: int) -> Tally:
        return TranscriptTally(self, runs)

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = self.graded(grades)
        wrong = [v for v in graded if v.counted.errors]
        if not wrong:
            return None
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        lines = [f"word errors{runs}: {_errors(wrong[0].counted)} (reference pipeline)",
                 text_field("reference", sample.reference)]
        for answer, grade in zip(answers, graded, strict=False):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines.append(text_field(prefix + "answer", answer.said()))
            lines += _alignment(sample.reference, grade.transcript)
            if grade.preamble:
                lines.append("note:      the answer opens with a preamble, whose words count "
                             "as insertions (as every reference pipeline counts them)")
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def compared(self, sample: Sample, baseline: str, now: str) -> list[str]:
        return [*_alignment(sample.reference, baseline, "base"),
                *_alignment(sample.reference, now, "now")]

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded = self.graded(grades)
        return [("audiobench_word_errors", " ".join(str(v.counted.errors) for v in graded))] \
            if graded else []

    def view(self, record: SampleRecord) -> SampleView:
        graded = self.graded(record.grades)
        if not graded:
            return SampleView()
        details = []
        for index, grade in enumerate(graded):
            run = f"run {index}, " if len(graded) > 1 else ""
            ref, hyp = aligned(words(record.reference), words(grade.transcript))
            details += [Detail(label=f"{run}aligned", text=f"REF: {ref}\nHYP: {hyp}"),
                        Detail(label=f"{run}english pipeline",
                               text=_errors(grade.errors["english"]))]
            if grade.preamble:
                details.append(Detail(label=f"{run}preamble", text="opens with a preamble"))
        return SampleView(score=" | ".join(_errors(v.counted, short=True) for v in graded),
                          details=details)

    def gating(self) -> TranscriptGating:
        return TranscriptGating(self)


class TranscriptGating(Gating):
    """A transcription benchmark's utterances as the paired gate reads them: word errors, the
    fewer the better."""

    bench: TranscriptionBenchmark
    lower_is_better = True

    def line(self, record: SampleRecord) -> SampleLine | None:
        graded = self.bench.graded(record.grades)
        if not graded or not record.answers:
            return None
        first = record.answers[0]
        return SampleLine(
            id=record.nodeid, cluster=record.category, groups={"task": record.task},
            values=_values(graded), runs=[_values([v]) for v in graded] if len(graded) > 1
            else [], draws=[float(v.counted.errors) for v in graded],
            failed=any(v.counted.errors for v in graded), lower_is_better=self.lower_is_better,
            answer_sha256=text_sha256(first.text), answer=first.text,
            reasoning=first.reasoning)

    def linear(self, metric: str) -> Linear | None:
        rest = metric.removeprefix(f"{self.bench.name}.")
        for ending, pipeline in ENDINGS.items():
            split = rest.removesuffix("." + ending)
            if split != rest and "." not in split:
                value, weight = VALUES[pipeline]
                return Linear(value=value, by="task", weights={split: 1.0}, low=0.0,
                              high=math.inf, weight=weight, swing=100.0,
                              lower_is_better=self.lower_is_better)
        return None

    def margin(self, metric: str) -> float:
        return MARGIN


def _values(graded: Sequence[TranscriptGrade]) -> dict[str, float]:
    """Per pipeline, the error rate in percent over ``graded``'s runs (the reference's words
    the same in every run, the mean of the runs' rates) and the reference's words."""
    out: dict[str, float] = {}
    for pipeline, (value, weight) in VALUES.items():
        counted = [v.errors[pipeline] for v in graded]
        out[value] = error_rate(counted) or 0.0
        out[weight] = float(counted[0].reference_words)
    return out


def _errors(counted: WordErrors, short: bool = False) -> str:
    rate = counted.rate or 0.0
    if short:
        return f"{counted.errors} of {counted.reference_words} words ({rate:.1f} %)"
    return (f"{counted.errors} of {counted.reference_words} reference words ({rate:.1f} %): "
            f"{counted.substitutions} substituted, {counted.deletions} deleted, "
            f"{counted.insertions} inserted")


def _alignment(reference: str, transcript: str, label: str = "") -> list[str]:
    """The normalised reference over the normalised answer, word under word."""
    ref, hyp = aligned(words(reference), words(transcript))
    head = f"{label} " if label else ""
    return [text_field(f"{head}REF", ref), text_field(f"{head}HYP", hyp)]


@dataclass
class _Split:
    n: int = 0
    summed: dict[str, WordErrors] = field(default_factory=dict)
    """Per pipeline, the utterances' errors and reference words summed."""
    kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(
        ("substitutions", "deletions", "insertions", "preamble_num", "empty_num"), 0))

    def add(self, grade: TranscriptGrade) -> None:
        self.n += 1
        for pipeline, counted in grade.errors.items():
            self.summed[pipeline] = self.summed.get(pipeline, NONE) + counted
        decided = grade.counted
        self.kinds["substitutions"] += decided.substitutions
        self.kinds["deletions"] += decided.deletions
        self.kinds["insertions"] += decided.insertions
        self.kinds["preamble_num"] += grade.preamble
        self.kinds["empty_num"] += not grade.transcript.strip()


class TranscriptTally(Tally):
    """Each inference run's errors and words summed per split, record by record."""

    def __init__(self, bench: TranscriptionBenchmark, runs: int) -> None:
        self._bench = bench
        self._runs: list[dict[str, _Split]] = [{} for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for splits, grade in zip(self._runs, self._bench.graded(record.grades),
                                   strict=False):
            splits.setdefault(record.task, _Split()).add(grade)

    def metrics(self, run: int) -> dict[str, Metric]:
        out: dict[str, Metric] = {}
        for split, summed in self._runs[run].items():
            base = f"{self._bench.name}.{split}."
            for ending, pipeline in ENDINGS.items():
                # A reference of no word is refused at load: a split's sum has words.
                out[base + ending] = Metric(value=summed.summed[pipeline].rate or 0.0,
                                            n=summed.n)
            out.update({base + kind: Metric(value=float(found), n=summed.n)
                        for kind, found in summed.kinds.items()})
        return out
