"""AIR-Bench Chat: the model is asked the question with the audio; the judge compares the
answer with the reference in both orders (the official two-pass protocol)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.air_bench_chat.data import samples
from pytest_audiobench.benchmarks.air_bench_chat.facts import NAME, TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.judge import (
    ChatGrade,
    PassGrade,
    builtin_template,
    judge_prompts,
    judge_sample,
)
from pytest_audiobench.benchmarks.air_bench_chat.offline import NOT_COMPARABLE
from pytest_audiobench.benchmarks.air_bench_chat.offline import reply as offline_reply
from pytest_audiobench.benchmarks.air_bench_chat.scoring import CATEGORIES, ChatScores
from pytest_audiobench.benchmarks.air_bench_chat.settings import ChatSettings
from pytest_audiobench.benchmarks.base import (
    Benchmark,
    Gating,
    JudgeUse,
    Release,
    Runtime,
    Tally,
)
from pytest_audiobench.benchmarks.judging import judge_asking, replies_named
from pytest_audiobench.benchmarks.reporting import SHOWN, text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import JudgeError
from pytest_audiobench.outcome.lines import Linear, SampleLine, protocol_sha256, text_sha256
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.outcome.view import Detail, SampleView
from pytest_audiobench.untrusted import clipped


class AirBenchChat(Benchmark):
    """The generative half of AIR-Bench: open questions graded by an LLM judge."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.own = settings.of(NAME, ChatSettings)
        self.template = self.own.judge_template or builtin_template()
        self.retries, self.max_answer_chars, self.repeats, self.judged = judge_asking(
            settings.judge, self.own.judge_retries)

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.air_bench_chat.download import (
            download_air_bench_chat,
        )

        tasks = [t for t in self.settings.tasks if t in TASK_CATEGORY] or list(TASK_CATEGORY)
        return download_air_bench_chat(tasks, self.settings.cache_dir / source)

    def load(self, root: Path) -> Release:
        groups = (*CATEGORIES, "mixed", "average")
        return Release(samples(root), tuple(f"{NAME}.{group}.score" for group in groups))

    def prompt(self, sample: Sample) -> str:
        return sample.question  # zero-shot, the question alone

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> ChatGrade:
        return await self._judged(sample, answer, runtime, 0)

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> ChatGrade | None:
        return await self._judged(sample, answer, runtime, draw) if self.judged else None

    async def _judged(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                      draw: int) -> ChatGrade:
        """Both passes of round ``draw`` (0: the planned ones), ``repeats`` draws each."""
        if runtime.judge is None:
            raise JudgeError(f"{NAME} is graded by a judge and none was given")
        grade = await judge_sample(
            runtime.judge, self.template, audio_description=sample.context,
            question=sample.question, reference=sample.reference, answer=answer.text,
            swap=self.own.swap, retries=self.retries,
            max_answer_chars=self.max_answer_chars, repeats=self.repeats,
            first_draw=draw * self.repeats,
        )
        if grade.model_score is None:
            raise JudgeError(
                f"judge {runtime.judge.settings.model} gave no reply of the form "
                f"'<score> <score>' (integers 0-10) in {self.retries + 1} attempt(s) per pass; "
                "replies: " + replies_named(out for p in grade.passes for out in p.outputs),
                grade,
            )
        return grade

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = _chat(grades)
        score, reference = _mean_scores(graded)
        if score is None or score >= self.own.sample_bar:
            return None
        runs = "" if len(graded) == 1 else f" over {len(graded)} runs"
        lines = [
            f"model score {score:g} is below the bar "
            f"{self.own.sample_bar:g} (reference scored {reference:g}){runs}",
            text_field("question", sample.question),
            text_field("reference", sample.reference),
        ]
        for answer, grade in zip(answers, graded, strict=True):
            label = "answer" if len(graded) == 1 else f"run {answer.run}"
            lines.append(text_field(label, answer.said()))
            lines += [_pass_line(p) for p in grade.passes]
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded = _chat(grades)
        score, reference = _mean_scores(graded)
        return [
            ("audiobench_model_score", score),
            ("audiobench_reference_score", reference),
            ("audiobench_judge_outputs",
             " | ".join(o for v in graded for p in v.passes for o in p.outputs)),
        ]

    def tally(self, runs: int) -> Tally:
        return ChatTally(runs)

    def failed_means(self) -> str:
        return f"below the bar {self.own.sample_bar:g}"

    def view(self, record: SampleRecord) -> SampleView:
        graded = _chat(record.grades)
        score, reference = _mean_scores(graded)
        details = []
        for answer, grade in zip(record.answers, graded, strict=False):
            run = "" if len(graded) == 1 else f"run {answer.run}, "
            details += [Detail(label=f"{run}judge", text=_pass_line(p)) for p in grade.passes]
            details += [Detail(label=f"{run}note", text=note) for note in grade.notes]
        shown = "" if score is None else f"{score:g} (reference {reference:g})"
        return SampleView(score=shown, details=details)

    def notes(self, release: Release) -> list[str]:
        # The judge and its protocol are named in the summary's first line; an offline
        # judge's numbers must not be read next to a leaderboard.
        judge = self.settings.judge
        return [*release.notes, *([NOT_COMPARABLE] if judge is not None and judge.offline
                                  else [])]

    def judge_use(self) -> ChatJudgeUse:
        return ChatJudgeUse(self)

    def gating(self) -> ChatGating:
        return ChatGating(self)


class ChatGating(Gating):
    """AIR-Bench Chat's samples as the paired gate reads them: the judge's scores and wins."""

    bench: AirBenchChat

    def line(self, record: SampleRecord) -> SampleLine | None:
        graded = _chat(record.grades)
        passes = [p for v in graded for p in v.passes if p.parsed]
        if not passes or not record.answers:
            return None
        values = _values(passes)
        runs = [_values(run) for v in graded if (run := [p for p in v.passes if p.parsed])]
        return SampleLine(
            id=record.nodeid, cluster=record.answers[0].request.audio_sha256,
            groups={"task": record.task, "category": record.category}, values=values,
            runs=runs if len(graded) > 1 and len(runs) == len(graded) else [],
            draws=[float(p.model_score or 0) for p in passes], judged=self.bench.judged,
            failed=values["score"] < self.bench.own.sample_bar,
            answer_sha256=text_sha256(record.answers[0].text), answer=record.answers[0].text,
            reasoning=record.answers[0].reasoning,
            replies=[o for v in graded for p in v.passes for o in p.outputs])

    def linear(self, metric: str) -> Linear | None:
        name, _, stat = metric.removeprefix(f"{NAME}.").rpartition(".")
        value = {"score": "score", "reference": "reference", "win_rate": "win"}.get(stat)
        if value is None or (name in ("mixed", "average") and stat == "win_rate"):
            return None
        by, weights = ("task", {name: 1.0}) if name in TASK_CATEGORY else (
            "category", _CATEGORY_WEIGHTS.get(name, {name: 1.0} if name in CATEGORIES else None))
        if weights is None:
            return None
        # A judge's scores run from 0 to 10; a win is 0 or 1 per pass. The score is the mean
        # of the sample's draws, so the judge's noise is part of its spread.
        return Linear(value=value, by=by, weights=weights, low=0.0,
                      high=1.0 if value == "win" else 10.0, drawn=value == "score")

    def margin(self, metric: str) -> float:
        # Scores are on the judge's 0-10 scale, win rates are shares.
        return 0.01 if metric.endswith(".win_rate") else 0.1


class ChatJudgeUse(JudgeUse):
    """How AIR-Bench Chat uses its judge: two passes, the reference first and then second,
    each drawn ``repeats`` times; offline, the overlap judge's two-score line."""

    bench: AirBenchChat
    offline = staticmethod(offline_reply)

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        if answer is None or runtime.judge is None:
            return (2 if self.bench.own.swap else 1) * self.bench.repeats, 0, False
        requests, _ = judge_prompts(self.bench.template, sample.context, sample.question,
                                    sample.reference, answer.text, self.bench.max_answer_chars)
        asked = list(requests.items()) if self.bench.own.swap else [
            ("reference_first", requests["reference_first"])]
        tags = [(order, draw, order if draw == 0 else f"{order} draw {draw}")
                for order, _ in asked for draw in range(self.bench.repeats)]
        requests_of = dict(asked)
        hits = sum(runtime.judge.cached(requests_of[order][0], draw * (self.bench.retries + 1),
                                        fingerprint=requests_of[order][1],
                                        cache_tag=tag) is not None
                   for order, draw, tag in tags)
        return len(tags), hits, False

    def protocol(self) -> list[str]:
        orders = "both orders" if self.bench.own.swap else "reference first only"
        judge = self.bench.settings.judge
        if judge is None or judge.offline:
            return [orders]
        return [orders, f"prompt {self.bench.own.judge_template_path or 'built-in'}"]

    def prompt_sha256(self) -> str | None:
        if not self.bench.judged:
            return None
        bench = self.bench
        protocol = {"template": bench.template, "swap": bench.own.swap, "repeats": bench.repeats,
                    "max_answer_chars": bench.max_answer_chars}
        return protocol_sha256(protocol)

    def decides(self, release: Release) -> tuple[str, ...]:
        return release.headline if self.bench.judged else ()


def _chat(grades: Sequence[Grade]) -> list[ChatGrade]:
    return [v for v in grades if isinstance(v, ChatGrade)]


_CATEGORY_WEIGHTS = {
    "mixed": {"speech_and_sound": 0.5, "speech_and_music": 0.5},
    "average": {"speech": 0.25, "sound": 0.25, "music": 0.25, "speech_and_sound": 0.125,
                "speech_and_music": 0.125},
}
"""The leaderboard's Mixed and Average as weights of the category means."""


def _values(passes: Sequence[PassGrade]) -> dict[str, float]:
    """A sample's per-sample values over the judge's parsed ``passes``: the model's and the
    reference's mean score, and the share of passes the model won."""
    model = [float(p.model_score or 0) for p in passes]
    reference = [float(p.reference_score or 0) for p in passes]
    wins = [float(m > r) for m, r in zip(model, reference, strict=True)]
    return {"score": _mean(model), "reference": _mean(reference), "win": _mean(wins)}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)




def _mean_scores(grades: Sequence[ChatGrade]) -> tuple[float | None, float | None]:
    scored = [v for v in grades if v.model_score is not None]
    if not scored:
        return None, None
    return (sum(v.model_score or 0 for v in scored) / len(scored),
            sum(v.reference_score or 0 for v in scored) / len(scored))


def _pass_line(judged: PassGrade) -> str:
    who = ("reference is Assistant 1" if judged.order == "reference_first"
           else "model is Assistant 1")
    # repr keeps a reply on its line with every control character shown; a long one is cut.
    replies = " | ".join(repr(clipped(out, SHOWN)) for out in judged.outputs)
    if not judged.parsed:
        return f"judge ({who}): no parseable reply: {replies}"
    return (f"judge ({who}): {replies} -> model {judged.model_score}, "
            f"reference {judged.reference_score}")


class ChatTally(Tally):
    """Each inference run's scores, folded record by record."""

    def __init__(self, runs: int) -> None:
        self._runs = [ChatScores() for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for scores, grade in zip(self._runs, _chat(record.grades), strict=False):
            scores.add(record.task, grade)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics(NAME)
