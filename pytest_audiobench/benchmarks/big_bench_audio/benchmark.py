"""Big Bench Audio: the model hears a spoken question with a short instruction; an LLM judge
reads the question's text, the official answer and the model's answer and says CORRECT or
INCORRECT. Accuracy is the share of CORRECT, overall and per category."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.base import Benchmark, Gating, JudgeUse, Release, Runtime, Tally
from pytest_audiobench.benchmarks.big_bench_audio.data import (
    BigBenchAudioRecord,
    read_big_bench_audio,
    release_folder,
)
from pytest_audiobench.benchmarks.big_bench_audio.facts import (
    CATEGORIES,
    JUDGE_TEMPERATURE,
    NAME,
    PUBLISHED_JUDGE,
    RELEASE,
)
from pytest_audiobench.benchmarks.big_bench_audio.judge import (
    BigBenchAudioGrade,
    JudgeDraw,
    JudgeRequest,
    builtin_template,
    judge_answer,
    judge_request,
)
from pytest_audiobench.benchmarks.big_bench_audio.offline import NOT_COMPARABLE
from pytest_audiobench.benchmarks.big_bench_audio.offline import reply as offline_reply
from pytest_audiobench.benchmarks.big_bench_audio.scoring import (
    OVERALL,
    AccuracyScores,
    group_of,
    metric_name,
)
from pytest_audiobench.benchmarks.big_bench_audio.settings import BigBenchAudioSettings
from pytest_audiobench.benchmarks.judging import first_attempt, judge_asking, replies_named
from pytest_audiobench.benchmarks.reporting import SHOWN, text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import JudgeError
from pytest_audiobench.outcome.lines import Linear, SampleLine, protocol_sha256, text_sha256
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.outcome.view import Detail, SampleView
from pytest_audiobench.transport.endpoint import Endpoint
from pytest_audiobench.untrusted import clipped

INSTRUCTION = ("The audio asks a question. Listen to it and answer the question; end with "
               "your final answer.")
"""What is sent with each clip (ours): the question itself is only in the audio."""
MARGIN = 1.0
"""The drop in accuracy points the paired gate lets pass when the baseline names none."""


class BigBenchAudio(Benchmark):
    """Spoken BIG-Bench Hard questions, judged CORRECT or INCORRECT."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.own = settings.of(NAME, BigBenchAudioSettings)
        self.template = self.own.judge_template or builtin_template()
        self.instruction = self.own.prompt or INSTRUCTION
        self.retries, self.max_answer_chars, self.repeats, self.judged = judge_asking(
            settings.judge, self.own.judge_retries)

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.big_bench_audio.download import (
            download_big_bench_audio,
        )

        return download_big_bench_audio(self.settings.cache_dir)

    def load(self, root: Path) -> Release:
        folder = release_folder(root, self.settings.cache_dir)
        records, note = read_big_bench_audio(folder, self.settings.cache_dir)
        headline = tuple(metric_name(group) for group in (OVERALL, *CATEGORIES))
        return Release([_sample(r) for r in records], headline, (note,) if note else (),
                       folder=folder)

    def prompt(self, sample: Sample) -> str:
        return self.instruction

    async def grade(self, sample: Sample, answer: ModelAnswer,
                    runtime: Runtime) -> BigBenchAudioGrade:
        return await self._judged(sample, answer, runtime, 0)

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> BigBenchAudioGrade | None:
        return await self._judged(sample, answer, runtime, draw) if self.judged else None

    def _judge(self, runtime: Runtime) -> Endpoint | None:
        """The judge at this benchmark's own temperature (AU-Harness's by default), not the
        run's: the published numbers were judged at it."""
        return runtime.judge_sampled(temperature=self.own.judge_temperature)

    def _request(self, sample: Sample, answer: ModelAnswer) -> tuple[JudgeRequest, str | None]:
        return judge_request(self.template, sample.question, sample.reference, answer.text,
                             self.max_answer_chars)

    async def _judged(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                      draw: int) -> BigBenchAudioGrade:
        """The ``repeats`` draws of round ``draw`` (0: the planned ones)."""
        judge = self._judge(runtime)
        if judge is None:
            raise JudgeError(f"{NAME} is graded by a judge and none was given")
        request, cut = self._request(sample, answer)
        grade = await judge_answer(judge, request, retries=self.retries,
                                     repeats=self.repeats, reading=self.own.judge_reading,
                                     first_draw=draw * self.repeats, notes=[cut] if cut else [])
        if grade.share is None:
            raise JudgeError(
                f"judge {judge.settings.model} replied neither CORRECT nor INCORRECT "
                f"in {self.retries + 1} attempt(s) per draw; replies: "
                + replies_named(out for d in grade.draws for out in d.outputs),
                grade,
            )
        return grade

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = _graded(grades)
        share = _mean_share(graded)
        if share is None or not _failed(share):
            return None
        runs = "" if len(graded) == 1 else f" over {len(graded)} runs"
        lines = [f"judged INCORRECT{_of_draws(graded)}{runs}",
                 text_field("question", sample.question),
                 text_field("official", sample.reference)]
        for answer, grade in zip(answers, graded, strict=True):
            label = "answer" if len(graded) == 1 else f"run {answer.run}"
            lines.append(text_field(label, answer.said()))
            lines += [_draw_line(d) for d in grade.draws]
            lines += grade.notes
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded = _graded(grades)
        return [("audiobench_correct_share", _mean_share(graded)),
                ("audiobench_judge_outputs",
                 " | ".join(o for v in graded for d in v.draws for o in d.outputs))]

    def tally(self, runs: int) -> Tally:
        return BigBenchAudioTally(runs)

    def failed_means(self) -> str:
        return "judged INCORRECT"

    def view(self, record: SampleRecord) -> SampleView:
        graded = _graded(record.grades)
        share = _mean_share(graded)
        details = []
        for answer, grade in zip(record.answers, graded, strict=False):
            run = "" if len(graded) == 1 else f"run {answer.run}, "
            details += [Detail(label=f"{run}judge", text=_draw_line(d)) for d in grade.draws]
            details += [Detail(label=f"{run}note", text=note) for note in grade.notes]
        shown = "" if share is None else ("CORRECT" if share == 1 else "INCORRECT"
                                          if share == 0 else f"{100 * share:g}% CORRECT")
        return SampleView(score=shown, details=details)

    def notes(self, release: Release) -> list[str]:
        asked = (f"instruction {self.own.prompt_path}" if self.own.prompt_path
                 else "the built-in instruction")
        notes = [f"{RELEASE}: the question is only in the audio, sent with {asked}; the judge "
                 "reads its text, the official answer and the answer, and a sample counts "
                 "by its share of CORRECT replies", *release.notes]
        judge = self.settings.judge
        if judge is not None and judge.offline:
            notes.append(NOT_COMPARABLE)
        elif judge is not None:
            notes.append(f"judged at temperature {self.own.judge_temperature:g} (not the run's "
                         f"judge temperature), its reply read "
                         f"{_reading(self.own.judge_reading)}; the published "
                         f"figures: {PUBLISHED_JUDGE} at temperature {JUDGE_TEMPERATURE:g}, "
                         "read in any letter case (AU-Harness)")
        return notes

    def judge_use(self) -> BigBenchAudioJudgeUse:
        return BigBenchAudioJudgeUse(self)

    def gating(self) -> BigBenchAudioGating:
        return BigBenchAudioGating(self)


class BigBenchAudioGating(Gating):
    """Big Bench Audio's samples as the paired gate reads them: each a share of CORRECT draws."""

    bench: BigBenchAudio

    def line(self, record: SampleRecord) -> SampleLine | None:
        graded = [v for v in _graded(record.grades) if v.share is not None]
        if not graded or not record.answers:
            return None
        first = record.answers[0]
        draws = [100.0 * d.correct for v in graded for d in v.draws if d.correct is not None]
        share = _mean_share(graded) or 0.0
        return SampleLine(
            id=record.nodeid, cluster=first.request.audio_sha256,
            groups={OVERALL: OVERALL, "task": record.task},
            values={"correct": 100.0 * share},
            runs=[{"correct": 100.0 * (v.share or 0.0)} for v in graded]
            if len(graded) > 1 else [],
            draws=draws, judged=self.bench.judged, failed=_failed(share),
            answer_sha256=text_sha256(first.text), answer=first.text,
            reasoning=first.reasoning,
            replies=[o for v in graded for d in v.draws for o in d.outputs])

    def linear(self, metric: str) -> Linear | None:
        group = group_of(metric)
        if group is None or (group != OVERALL and group not in CATEGORIES):
            return None
        # One judge draw is CORRECT (100) or INCORRECT (0); several draws average to a share.
        return Linear(value="correct", by=OVERALL if group == OVERALL else "task",
                      weights={group: 1.0}, low=0.0, high=100.0, binary=True, drawn=True)

    def margin(self, metric: str) -> float:
        return MARGIN


class BigBenchAudioJudgeUse(JudgeUse):
    """How Big Bench Audio uses its judge: one CORRECT/INCORRECT reply a draw, at its own
    temperature; offline, whether the answer ends on the official answer."""

    bench: BigBenchAudio
    offline = staticmethod(offline_reply)

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        judge = self.bench._judge(runtime)
        if answer is None or judge is None:
            return self.bench.repeats, 0, False
        (messages, fingerprint), _ = self.bench._request(sample, answer)
        hits = sum(judge.cached(messages, first_attempt(draw, self.bench.retries),
                                fingerprint=fingerprint) is not None
                   for draw in range(self.bench.repeats))
        return self.bench.repeats, hits, False

    def protocol(self) -> list[str]:
        judge = self.bench.settings.judge
        if judge is None or judge.offline:
            return ["CORRECT/INCORRECT"]
        # Its own temperature, beside the run's judge temperature that the line names first.
        own = self.bench.own
        return [f"CORRECT/INCORRECT at temperature {own.judge_temperature:g} read "
                f"{_reading(own.judge_reading)}", f"prompt {own.judge_template_path or 'built-in'}"]

    def prompt_sha256(self) -> str | None:
        if not self.bench.judged:
            return None
        # Its own temperature and reading are part of how it asks: a baseline judged otherwise
        # was judged by another judge, although the run's judge sampling is the same.
        return protocol_sha256({"template": self.bench.template, "repeats": self.bench.repeats,
                                "max_answer_chars": self.bench.max_answer_chars,
                                "temperature": self.bench.own.judge_temperature,
                                "reading": self.bench.own.judge_reading})

    def decides(self, release: Release) -> tuple[str, ...]:
        return release.headline if self.bench.judged else ()


def _sample(record: BigBenchAudioRecord) -> Sample:
    """The sample of ``record``: its category is its task; the judge reads its transcript as
    the question and its official answer as the reference."""
    return Sample(benchmark=NAME, id=record.id, task=record.category,
                  category=record.category, audio=record.audio, question=record.transcript,
                  reference=record.official_answer)


def _graded(grades: Sequence[Grade]) -> list[BigBenchAudioGrade]:
    return [v for v in grades if isinstance(v, BigBenchAudioGrade)]


def _mean_share(grades: Sequence[BigBenchAudioGrade]) -> float | None:
    """The mean over the inference runs of each run's share of CORRECT draws."""
    shares = [v.share for v in grades if v.share is not None]
    return sum(shares) / len(shares) if shares else None


def _failed(share: float) -> bool:
    """An item fails unless most of its readable draws say CORRECT."""
    return share <= 0.5


def _of_draws(grades: Sequence[BigBenchAudioGrade]) -> str:
    draws = [d for v in grades for d in v.draws if d.parsed]
    if len(draws) == 1:
        return ""
    wrong = sum(1 for d in draws if d.correct is False)
    return f" in {wrong} of {len(draws)} draws"


def _draw_line(draw: JudgeDraw) -> str:
    # repr keeps a reply on its line with every control character shown; a long one is cut.
    replies = " | ".join(repr(clipped(out, SHOWN)) for out in draw.outputs)
    if not draw.parsed:
        return f"judge: no reply of CORRECT or INCORRECT: {replies}"
    return f"judge: {replies} -> {'CORRECT' if draw.correct else 'INCORRECT'}"


class BigBenchAudioTally(Tally):
    """Each inference run's accuracy, folded record by record."""

    def __init__(self, runs: int) -> None:
        self._runs = [AccuracyScores() for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for scores, grade in zip(self._runs, _graded(record.grades), strict=False):
            scores.add(record.category, grade)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics()


def _reading(reading: str) -> str:
    """How the judge's word is read, as the summary and the notes say it."""
    return "in any letter case" if reading == "case-insensitive" else "in upper case only"
