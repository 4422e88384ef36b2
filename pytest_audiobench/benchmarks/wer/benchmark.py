"""The base of every speech-recognition benchmark (LibriSpeech, FLEURS, AISHELL, a third
party's): items that are an utterance and its reference transcript, scored by word error rate,
or by character error rate where the reference counts characters (Chinese, Cantonese).

A benchmark on it declares its records (``load``), where its releases come from, its grade
type (a ``TranscriptGrade`` with its own ``kind``) and the language of each task (``language``:
the reference's code, ``en`` unless it says otherwise); it gets from the base the
prompt, the grading under both pipelines (``normalising.py``), the numbers per split, the
sample lines and metrics of the paired gate (lower is better, a ratio clustered by what the
sample's ``category`` holds: its speaker, or the sentence several speakers read), the failure
report with the words aligned, the page's view.

Metric names are ``<benchmark>.<split>.<ending>``: ``wer`` or ``cer`` (the reference
pipeline, in percent), beside it ``english.wer`` (Whisper's English normaliser alone) for
English and ``kimi.mer`` (Kimi-Audio-Evalkit's tokens) for Chinese and Cantonese, the reference
pipeline's ``substitutions``, ``deletions``, ``insertions``, and ``preamble_num`` and
``empty_num``, the answers that open with a preamble and those that are empty. Splits are never
pooled.
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
from pytest_audiobench.benchmarks.wer.normalising import (
    Pipeline,
    endings,
    pipelines,
    unit,
    words,
)
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
"""The rise of a split's error rate, in points, the paired gate lets pass when the baseline
names none: a tenth of a test-clean WER near 2 %, a sixth of an AISHELL-1 CER near 1.2 %."""
VALUES: dict[Pipeline, tuple[str, str]] = {"reference": ("wer", "words"),
                                           "english": ("english_wer", "english_words"),
                                           "kimi": ("kimi_mer", "kimi_tokens")}
"""Per pipeline, a sample line's value (its error rate in percent) and weight (its
reference's tokens). The reference pipeline's keep their first names, ``wer`` and ``words``,
for a character error rate too: stored lines are read by them."""
ENDINGS: dict[str, Pipeline] = {e: p for language in ("en", "zh")
                                for e, p in endings(language).items()}
"""Every metric ending a split can have, with its pipeline."""


class TranscriptGrade(Grade):
    """One answer's word errors under each pipeline, and whether it opens with a preamble.
    A benchmark subclasses it with its ``kind``."""

    transcript: str
    """The answer as scored: its text, the reasoning already set apart."""
    errors: dict[str, WordErrors]
    """Per pipeline of its language (``normalising.pipelines``), the answer's errors against
    the reference."""
    preamble: bool = False
    language: str = "en"
    """The reference's code of the utterance's language, which chose the pipelines and what
    they count (words or characters)."""

    @classmethod
    def read(cls, answer: ModelAnswer, reference: str, language: str = "en",
             **more: Any) -> Any:
        """``answer`` counted against ``reference`` by every pipeline of ``language``; an
        empty answer is all deletions."""
        text = answer.text
        return cls(transcript=text, preamble=opens_with_preamble(text), language=language,
                   errors={p: count(words(reference, p, language), words(text, p, language))
                           for p in pipelines(language)}, **more)

    @property
    def counted(self) -> WordErrors:
        """The reference pipeline's count, which decides."""
        return self.errors["reference"]


def require_words(sample: Sample, language: str = "en") -> None:
    """DataError when ``sample``'s reference makes no token under a pipeline of
    ``language``: its errors could not be a share of its words or characters."""
    for pipeline in pipelines(language):
        if not words(sample.reference, pipeline, language):
            raise DataError(f"{sample.benchmark} {sample.task} {sample.id}: its reference "
                            f"{sample.reference!r} has no {unit(language)[:-1]} once "
                            f"normalised ({pipeline} pipeline); expected a transcript")


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

    def language(self, task: str) -> str:
        """The reference's code of ``task``'s language (``en``, ``zh``, ``yue``, ``fr``, ...),
        which chooses its pipelines and whether its errors count words or characters."""
        return "en"

    def languages(self) -> list[str]:
        """The languages of the tasks this run scores, for the notes; English unless the
        benchmark says otherwise."""
        return ["en"]

    def prompt(self, sample: Sample) -> str:
        return PROMPT if self.asking.prompt is None else self.asking.prompt

    def system(self, sample: Sample) -> str | None:
        return self.asking.system

    def scored_with(self) -> str:
        """How the numbers are made, for the notes."""
        runs = self.settings.runs
        return (f"{_rates(self.languages())} per split, never pooled: the errors summed over "
                f"the reference {_units(self.languages())} summed, after the reports' "
                f"reference pipeline {_besides(self.languages())}; an empty answer is all "
                "deletions, a preamble's words are insertions; gated paired, lower is better, "
                f"the utterances clustered by {self.cluster_by}"
                + (f"; {runs} inference runs, numbers the mean of the middle runs"
                   if runs > 1 else ""))

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        grade: Grade = self.grade_type.read(answer, sample.reference,
                                            self.language(sample.task))
        return grade

    def graded(self, grades: Sequence[object]) -> list[TranscriptGrade]:
        """This benchmark's grades among a record's."""
        return [v for v in grades if isinstance(v, self.grade_type)]

    def failed_means(self) -> str:
        return f"with {_noun(self.languages())} errors"

    def tally(self, runs: int) -> Tally:
        return TranscriptTally(self, runs)

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = self.graded(grades)
        wrong = [v for v in graded if v.counted.errors]
        if not wrong:
            return None
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        first = wrong[0]
        lines = [f"{_noun([first.language])} errors{runs}: {_errors(first)} (reference "
                 "pipeline)", text_field("reference", sample.reference)]
        for answer, grade in zip(answers, graded, strict=False):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines.append(text_field(prefix + "answer", answer.said()))
            lines += _alignment(sample.reference, grade.transcript, grade.language)
            if grade.preamble:
                lines.append("note:      the answer opens with a preamble, whose words count "
                             "as insertions (as every reference pipeline counts them)")
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def compared(self, sample: Sample, baseline: str, now: str) -> list[str]:
        language = self.language(sample.task)
        return [*_alignment(sample.reference, baseline, language, "base"),
                *_alignment(sample.reference, now, language, "now")]

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
            language = grade.language
            ref, hyp = aligned(words(record.reference, language=language),
                               words(grade.transcript, language=language))
            details.append(Detail(label=f"{run}aligned", text=f"REF: {ref}\nHYP: {hyp}"))
            details += [Detail(label=f"{run}{pipeline} pipeline",
                               text=_errors(grade, pipeline))
                        for pipeline in pipelines(language)[1:] if pipeline in grade.errors]
            if grade.preamble:
                details.append(Detail(label=f"{run}preamble", text="opens with a preamble"))
        return SampleView(score=" | ".join(_errors(v, short=True) for v in graded),
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
            if split != rest and "." not in split and \
                    ending in endings(self.bench.language(split)):
                value, weight = VALUES[pipeline]
                return Linear(value=value, by="task", weights={split: 1.0}, low=0.0,
                              high=math.inf, weight=weight, swing=100.0,
                              lower_is_better=self.lower_is_better)
        return None

    def margin(self, metric: str) -> float:
        return MARGIN


def _values(graded: Sequence[TranscriptGrade]) -> dict[str, float]:
    """Per pipeline of the utterance's language, the error rate in percent over ``graded``'s
    runs (the reference's tokens the same in every run, the mean of the runs' rates) and the
    reference's tokens."""
    out: dict[str, float] = {}
    for pipeline in graded[0].errors:
        value, weight = VALUES[pipeline]  # type: ignore[index]
        counted = [v.errors[pipeline] for v in graded]
        out[value] = error_rate(counted) or 0.0
        out[weight] = float(counted[0].reference_words)
    return out


def _errors(grade: TranscriptGrade, pipeline: str = "reference", short: bool = False) -> str:
    counted = grade.errors[pipeline]
    rate = counted.rate or 0.0
    # The kimi pipeline keeps Latin words whole among the characters: "tokens", not either.
    tokens = unit(grade.language) if pipeline != "kimi" else "tokens"
    if short:
        return f"{counted.errors} of {counted.reference_words} {tokens} ({rate:.1f} %)"
    return (f"{counted.errors} of {counted.reference_words} reference {tokens} ({rate:.1f} "
            f"%): {counted.substitutions} substituted, {counted.deletions} deleted, "
            f"{counted.insertions} inserted")


def _alignment(reference: str, transcript: str, language: str = "en",
               label: str = "") -> list[str]:
    """The normalised reference over the normalised answer, word under word (character
    under character where the language's tokens are characters)."""
    ref, hyp = aligned(words(reference, language=language),
                       words(transcript, language=language))
    head = f"{label} " if label else ""
    return [text_field(f"{head}REF", ref), text_field(f"{head}HYP", hyp)]


def _rates(languages: Sequence[str]) -> str:
    """What a run of ``languages`` measures, for the notes."""
    names = sorted({"character error rate" if unit(lang) == "characters"
                    else "word error rate" for lang in languages})
    return " and ".join(names)


def _units(languages: Sequence[str]) -> str:
    return " or ".join(sorted({unit(lang) for lang in languages}))


def _noun(languages: Sequence[str]) -> str:
    """The errors a failed item of ``languages`` has: ``word``, ``character``, or
    ``transcription`` for a run of both kinds."""
    kinds = {unit(lang) for lang in languages}
    return kinds.pop()[:-1] if len(kinds) == 1 else "transcription"


def _besides(languages: Sequence[str]) -> str:
    """The metrics of ``languages``' splits, the reference's in brackets, then the others
    each with what makes it."""
    said = {"english.wer": "Whisper's English normaliser alone (english.wer)",
            "kimi.mer": "Kimi-Audio-Evalkit's tokens, Latin words kept whole (kimi.mer)"}
    found = list(dict.fromkeys(e for lang in languages for e in endings(lang)))
    first = ", ".join(e for e in found if e not in said)
    others = ", ".join(said[e] for e in found if e in said)
    return f"({first})" + (f" and {others}" if others else "")


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
            for ending, pipeline in endings(self._bench.language(split)).items():
                # A reference of no token is refused at load: a split's sum has tokens.
                out[base + ending] = Metric(value=summed.summed[pipeline].rate or 0.0,
                                            n=summed.n)
            out.update({base + kind: Metric(value=float(found), n=summed.n)
                        for kind, found in summed.kinds.items()})
        return out
