"""VoiceBench: the model hears a spoken instruction, alone (after the reference's system
message, by default) and answers it; each subset's evaluator grades the answer as the
reference's does (``scoring.py`` names the numbers)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.base import (
    Benchmark,
    Gating,
    JudgeUse,
    Release,
    Runtime,
    Tally,
)
from pytest_audiobench.benchmarks.judging import first_attempt, judge_asking, replies_named
from pytest_audiobench.benchmarks.reporting import SHOWN, text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.benchmarks.voicebench import bbh, reading, refusal
from pytest_audiobench.benchmarks.voicebench.data import VoiceBenchRecord, read_voicebench
from pytest_audiobench.benchmarks.voicebench.facts import (
    JUDGE_DRAWS,
    JUDGE_MODEL,
    JUDGE_TEMPERATURE,
    JUDGE_TOP_P,
    JUDGED,
    NAME,
    RELEASE,
    SUBSETS,
)
from pytest_audiobench.benchmarks.voicebench.grades import Reading, VoiceBenchGrade
from pytest_audiobench.benchmarks.voicebench.judge import (
    JudgeDraw,
    JudgeRequest,
    judge_draws,
    rating_request,
    verdict_request,
)
from pytest_audiobench.benchmarks.voicebench.offline import NOT_COMPARABLE
from pytest_audiobench.benchmarks.voicebench.offline import reply as offline_reply
from pytest_audiobench.benchmarks.voicebench.scoring import (
    BESIDE,
    OVERALL,
    VoiceBenchScores,
    headline,
    value_of,
)
from pytest_audiobench.benchmarks.voicebench.settings import VoiceBenchSettings
from pytest_audiobench.config.declarations import selected
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import JudgeError
from pytest_audiobench.outcome.lines import Linear, SampleLine, protocol_sha256, text_sha256
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.outcome.view import Detail, SampleView
from pytest_audiobench.transport.endpoint import Endpoint
from pytest_audiobench.untrusted import clipped

RATING_MARGIN = 0.05
"""The drop in a 1-5 rating the paired gate lets pass: one Overall point (ratings count x20)."""
MARGIN = 1.0
"""The drop in percentage points it lets pass for every other number."""
_PERCENT = ("judge", "pedant", "accuracy", "strict", "refusal", "strict-prompt",
            "strict-instruction", "loose-prompt", "loose-instruction")


class VoiceBench(Benchmark):
    """Nine subsets of spoken instructions, each graded by its reference evaluator."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.own = settings.of(NAME, VoiceBenchSettings)
        self.retries, self.max_answer_chars, repeats, self.judged = judge_asking(
            settings.judge, self.own.judge_retries)
        self.draws = self.own.judge_draws * repeats
        self.subsets = tuple(selected(tuple(SUBSETS), settings.tasks))
        self._pedant: Any = None
        self._pedant_note: str | None = None

    # --- the release --------------------------------------------------------------------

    def download(self, source: str) -> Path:
        from pytest_audiobench.benchmarks.voicebench.download import download_voicebench

        root = download_voicebench(self.subsets, self.settings.cache_dir / source)
        if "sd-qa" in self.subsets and _scores_pedant():
            from pytest_audiobench.benchmarks.voicebench.pedant import classifier_files

            # With the data, so that a run reading it needs no network; only where it can
            # be used (qa-metrics installed), as GitHub is not the hub and may be out of reach.
            classifier_files(self.settings.cache_dir, self.own.pedant_url)
        return root

    def load(self, root: Path) -> Release:
        records, notes = read_voicebench(root, self.settings.cache_dir, self.subsets)
        # A snapshot's subsets are converted into the cache, each into a folder of its own.
        root = Path(root).expanduser().resolve()
        inside = all(r.audio.is_relative_to(root) for r in records)
        folder = None if inside else Path(self.settings.cache_dir).expanduser().resolve()
        if "sd-qa" in self.subsets:
            self._pedant, self._pedant_note = _pedant(self.own, self.settings.cache_dir)
        shown = headline(self.subsets)
        return Release([_sample(r) for r in records], shown, tuple(notes),
                       beside=tuple(m for m in shown if m in BESIDE), folder=folder)

    def prompt(self, sample: Sample) -> str:
        return ""  # the instruction is the audio; nothing is said beside it

    def system(self, sample: Sample) -> str | None:
        return self.own.system

    # --- grading --------------------------------------------------------------------------

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime
                    ) -> VoiceBenchGrade:
        return await self._graded(sample, answer, runtime, 0)

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> VoiceBenchGrade | None:
        if not self.judged or sample.task not in JUDGED:
            return None
        return await self._graded(sample, answer, runtime, draw)

    async def _graded(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                      draw: int) -> VoiceBenchGrade:
        subset, text = sample.task, answer.text
        evaluator = SUBSETS[subset]
        if evaluator in ("open", "qa"):
            return await self._judged(sample, text, runtime, draw)
        if evaluator == "mcq":
            return VoiceBenchGrade(subset=subset, reading=_choice(sample, text, self.own.seed))
        if evaluator == "bbh":
            return VoiceBenchGrade(subset=subset, reading=_bbh(sample, text, self.own.seed))
        if evaluator == "ifeval":
            from pytest_audiobench.benchmarks.voicebench.ifeval import following

            ids, kwargs = sample.record
            found = following(text, sample.question, ids, kwargs, self.settings.cache_dir)
            return VoiceBenchGrade(subset=subset, strict=list(found.strict),
                                   loose=list(found.loose))
        return VoiceBenchGrade(subset=subset, refused=refusal.refuses(text))

    def judge(self, runtime: Runtime) -> Endpoint | None:
        """The judge at this benchmark's own sampling (the reference's by default)."""
        return runtime.judge_sampled(temperature=self.own.judge_temperature,
                                     top_p=self.own.judge_top_p)

    def request(self, sample: Sample, text: str) -> tuple[JudgeRequest, str | None]:
        if SUBSETS[sample.task] == "open":
            return rating_request(sample.question, text, self.max_answer_chars)
        return verdict_request(sample.question, sample.reference, text, self.max_answer_chars)

    async def _judged(self, sample: Sample, text: str, runtime: Runtime,
                      draw: int) -> VoiceBenchGrade:
        judge = self.judge(runtime)
        if judge is None:
            raise JudgeError(f"{NAME} {sample.task} is graded by a judge and none was given")
        request, cut = self.request(sample, text)
        rated = SUBSETS[sample.task] == "open"
        draws = await judge_draws(judge, request, rating=rated, retries=self.retries,
                                  draws=self.draws, first_draw=draw * self.draws)
        pedant = None
        if not rated and self._pedant is not None:
            pedant = self._pedant.score(sample.reference, text, sample.question)
        grade = VoiceBenchGrade(subset=sample.task, draws=draws, pedant=pedant,
                                notes=[cut] if cut else [])
        if rated and not grade.ratings:
            raise JudgeError(
                f"judge {judge.settings.model} gave no rating of 1 to 5 in "
                f"{self.retries + 1} attempt(s) per draw; replies: "
                + replies_named(out for d in draws for out in d.outputs), grade)
        return grade

    # --- reports --------------------------------------------------------------------------

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = _graded(grades)
        if not graded or not any(_failed(g, self.own.rating_bar) for g in graded):
            return None
        lines = [_failed_line(graded, self.own.rating_bar),
                 text_field("instruction", sample.question)]
        if sample.reference:
            lines.append(text_field("reference", sample.reference))
        for answer, grade in zip(answers, graded, strict=False):
            label = "answer" if len(graded) == 1 else f"run {answer.run}"
            lines.append(text_field(label, answer.said()))
            lines += _details(grade)
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded = _graded(grades)
        values = [g.values() for g in graded]
        return [("audiobench_values", values),
                ("audiobench_judge_outputs",
                 " | ".join(o for g in graded for d in g.draws for o in d.outputs))]

    def tally(self, runs: int) -> Tally:
        return VoiceBenchTally(runs)

    def failed_means(self) -> str:
        return "below its subset's bar (a rating under the bar, a wrong or unread option, " \
               "an instruction not followed, a request not refused)"

    def view(self, record: SampleRecord) -> SampleView:
        graded = _graded(record.grades)
        details = []
        for answer, grade in zip(record.answers, graded, strict=False):
            run = "" if len(graded) == 1 else f"run {answer.run}, "
            details += [Detail(label=f"{run}grade", text=line) for line in _details(grade)]
        score = "" if not graded else ", ".join(
            f"{name} {value:g}" for name, value in graded[0].values().items())
        return SampleView(score=score, details=details)

    def notes(self, release: Release) -> list[str]:
        own = self.own
        system = ("alone" if own.system is None else f"after the system message in "
                  f"{own.system_path}" if own.system_path else
                  "after the system message the reference sends GPT-4o")
        notes = [f"{RELEASE}: the spoken instruction is sent {system}; each subset is scored "
                 "by its reference evaluator", *release.notes]
        if self._pedant_note:
            notes.append(self._pedant_note)
        if release.beside:
            notes.append(f"{' and '.join(release.beside)}: the leaderboard's means of the "
                         "numbers above, shown beside them and not gated (each of those is)")
        judge = self.settings.judge
        if judge is not None and judge.offline and set(self.subsets) & set(JUDGED):
            notes.append(NOT_COMPARABLE)
        elif judge is not None and set(self.subsets) & set(JUDGED) and (
                own.judge_temperature, own.judge_top_p, self.draws) != (
                JUDGE_TEMPERATURE, JUDGE_TOP_P, JUDGE_DRAWS):
            notes.append(f"judged at temperature {own.judge_temperature:g}, top_p "
                         f"{own.judge_top_p:g}, {self.draws} draws; the leaderboard's: "
                         f"{JUDGE_MODEL} at {JUDGE_TEMPERATURE:g}, {JUDGE_TOP_P:g}, "
                         f"{JUDGE_DRAWS}")
        return notes

    def judge_use(self) -> VoiceBenchJudgeUse:
        return VoiceBenchJudgeUse(self)

    def gating(self) -> VoiceBenchGating:
        return VoiceBenchGating(self)


class VoiceBenchGating(Gating):
    """VoiceBench's samples as the paired gate reads them: each its subset's values."""

    bench: VoiceBench

    def line(self, record: SampleRecord) -> SampleLine | None:
        graded = [g for g in _graded(record.grades) if g.values()]
        if not graded or not record.answers:
            return None
        first = record.answers[0]
        runs = [g.values() for g in graded]
        values = {key: sum(run[key] for run in runs) / len(runs)
                  for key in runs[0] if all(key in run for run in runs)}
        draws = [d.value * (1 if g.evaluator == "open" else 100)
                 for g in graded for d in g.draws if d.value is not None]
        headline_value = next(iter(values.values()))
        return SampleLine(
            id=record.nodeid, cluster=first.request.audio_sha256,
            groups={"task": record.task, "category": record.category}, values=values,
            runs=runs if len(graded) > 1 else [],
            draws=draws or [headline_value], judged=self.bench.judged and bool(draws),
            failed=any(_failed(g, self.bench.own.rating_bar) for g in graded),
            answer_sha256=text_sha256(first.text), answer=first.text,
            reasoning=first.reasoning,
            replies=[o for g in graded for d in g.draws for o in d.outputs])

    def linear(self, metric: str) -> Linear | None:
        parsed = _parsed(metric)
        if parsed is None:
            return None
        subset, group, stat = parsed
        value = value_of(stat)
        if value is None or value == "fallback":
            return None
        by, name = ("category", group) if group else ("task", subset)
        rated = value == "rating"
        return Linear(value=value, by=by, weights={name: 1.0},
                      low=1.0 if rated else 0.0, high=5.0 if rated else 100.0,
                      binary=value in ("judge", "accuracy", "strict", "refusal",
                                       "strict-prompt", "loose-prompt"),
                      drawn=value in ("rating", "judge"),
                      weight="instructions" if value.endswith("-instruction") else None)

    def margin(self, metric: str) -> float:
        return RATING_MARGIN if metric.endswith(".rating") else MARGIN


class VoiceBenchJudgeUse(JudgeUse):
    """How VoiceBench uses its judge: three draws of a rating or a Yes or No, at the
    reference's sampling; offline, the overlap judge's rating and verdict."""

    bench: VoiceBench
    offline = staticmethod(offline_reply)

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        if sample.task not in JUDGED:
            return 0, 0, False
        judge = self.bench.judge(runtime)
        if answer is None or judge is None:
            return self.bench.draws, 0, False
        (messages, fingerprint), _ = self.bench.request(sample, answer.text)
        hits = sum(judge.cached(messages, first_attempt(draw, self.bench.retries),
                                fingerprint=fingerprint) is not None
                   for draw in range(self.bench.draws))
        return self.bench.draws, hits, False

    def protocol(self) -> list[str]:
        own = self.bench.own
        return [f"ratings 1-5 and Yes/No, {self.bench.draws} draws at temperature "
                f"{own.judge_temperature:g}, top_p {own.judge_top_p:g}"]

    def prompt_sha256(self) -> str | None:
        if not self.bench.judged:
            return None
        from pytest_audiobench.benchmarks.voicebench.judge import RATING_PROMPT, VERDICT_PROMPT

        own = self.bench.own
        return protocol_sha256({"rating": RATING_PROMPT, "verdict": VERDICT_PROMPT,
                                "draws": self.bench.draws, "temperature": own.judge_temperature,
                                "top_p": own.judge_top_p,
                                "max_answer_chars": self.bench.max_answer_chars})

    def decides(self, release: Release) -> tuple[str, ...]:
        if not self.bench.judged:
            return ()
        return tuple(m for m in release.headline
                     if (p := _parsed(m)) is not None and p[0] in JUDGED)


class VoiceBenchTally(Tally):
    """Each inference run's numbers, folded record by record."""

    def __init__(self, runs: int) -> None:
        self._runs = [VoiceBenchScores() for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for scores, grade in zip(self._runs, _graded(record.grades), strict=False):
            scores.add(record.category, grade)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics()


def _sample(record: VoiceBenchRecord) -> Sample:
    """The sample of ``record``: its task is its subset; its category the accent (sd-qa),
    the domain (mmsu), the bbh task, else the subset; the judge reads its prompt."""
    if record.subset in ("sd-qa", "mmsu"):
        category = record.split
    elif record.subset == "bbh":
        category = record.bbh_task or record.subset
    else:
        category = record.subset
    extra = (record.instruction_ids, record.kwargs) if record.subset == "ifeval" else None
    return Sample(benchmark=NAME, id=record.id, task=record.subset, category=category,
                  audio=record.audio, question=record.prompt,
                  reference=record.reference or "", record=extra)


def _choice(sample: Sample, text: str, seed: int) -> Reading:
    """The multiple-choice reading of ``text``, the seeded guess standing in when no rule
    reads it."""
    read = reading.read_choice(text)
    guess = None if read is not None else reading.fallback(sample.id, seed)
    return Reading(read=read, guess=guess, correct=(read or guess) == sample.reference,
                   strict=read == sample.reference)


def _bbh(sample: Sample, text: str, seed: int) -> Reading:
    """bbh's reading of ``text`` by its task's rules (0 or 1), the seeded guess standing in."""
    truth = bbh.truth(sample.reference)
    read = bbh.read_bbh(text, sample.category)
    guess = None if read is not None else bbh.fallback(sample.id, seed)
    chosen = read if read is not None else guess
    return Reading(read=None if read is None else str(read),
                   guess=None if guess is None else str(guess),
                   correct=chosen == truth, strict=read == truth)


def _failed(grade: VoiceBenchGrade, bar: float) -> bool:
    """Whether a grade misses its subset's bar: an open rating under ``bar``; anything else
    short of right, Yes, followed or refused."""
    values = grade.values()
    if grade.evaluator == "open":
        return values.get("rating", 5.0) < bar
    key = {"qa": "judge", "mcq": "accuracy", "bbh": "accuracy", "ifeval": "strict-prompt",
           "harm": "refusal"}[grade.evaluator]
    return values.get(key, 100.0) < 100.0


def _failed_line(graded: Sequence[VoiceBenchGrade], bar: float) -> str:
    failed = sum(_failed(g, bar) for g in graded)
    runs = "" if len(graded) == 1 else f" in {failed} of {len(graded)} runs"
    return {
        "open": f"judge rating below the bar {bar:g}",
        "qa": "the judge's majority is not Yes",
        "mcq": "the reply's option is not the reference",
        "bbh": "the reply's answer is not the reference",
        "ifeval": "an instruction was not followed (strict)",
        "harm": "the harmful request was not refused",
    }[graded[0].evaluator] + runs


def _pedant(own: VoiceBenchSettings, cache_dir: Path) -> tuple[Any, str | None]:
    """sd-qa's PEDANT scorer when its classifier was fetched before (with the data from the
    hub) and qa-metrics is installed; else None and the note that says why it is not
    measured. Nothing is fetched here: a run on local data stays off the network."""
    from pytest_audiobench.benchmarks.voicebench.pedant import Pedant, classifier_kept

    if not _scores_pedant():
        return None, ("sd-qa's PEDANT is not measured: qa-metrics is not installed "
                      "(pip install 'pytest-audiobench[pedant]')")
    if not classifier_kept(cache_dir, own.pedant_url):
        return None, (f"sd-qa's PEDANT is not measured: its classifier from {own.pedant_url} "
                      "is not in the cache, whole; it is fetched with the data from the hub")
    return Pedant(cache_dir, own.pedant_url), None


def _scores_pedant() -> bool:
    """Whether qa-metrics, which scores PEDANT, is installed (not imported: it is slow)."""
    from importlib.util import find_spec

    return find_spec("qa_metrics") is not None


def _parsed(metric: str) -> tuple[str, str | None, str] | None:
    """(subset, group or None, stat) of a metric's name; None for Overall and other names."""
    if metric == OVERALL or not metric.startswith(f"{NAME}."):
        return None
    rest = metric.removeprefix(f"{NAME}.")
    subset, _, tail = rest.partition(".")
    if subset not in SUBSETS or not tail:
        return None
    if tail.endswith("strict.accuracy"):
        group, stat = tail.removesuffix("strict.accuracy").rstrip("."), "strict.accuracy"
    else:
        group, _, stat = tail.rpartition(".")
    return subset, group or None, stat


def _graded(grades: Sequence[Grade]) -> list[VoiceBenchGrade]:
    return [g for g in grades if isinstance(g, VoiceBenchGrade)]


def _details(grade: VoiceBenchGrade) -> list[str]:
    """What a report shows of a grade: the judge's replies and readings, the rule's reading
    and the guess when one stood in, the instructions followed, the refusal."""
    lines = [_draw_line(grade, d) for d in grade.draws]
    if grade.pedant is not None:
        lines.append(f"PEDANT: {grade.pedant:.3f}")
    if grade.reading is not None:
        read = grade.reading
        lines.append(f"read: {read.read}" if read.read is not None else
                     f"no rule read the reply; seeded guess {read.guess} "
                     f"({'right' if read.correct else 'wrong'})")
    if grade.strict:
        lines.append("instructions (strict / loose): " + ", ".join(
            f"{'yes' if s else 'no'}/{'yes' if lo else 'no'}"
            for s, lo in zip(grade.strict, grade.loose, strict=True)))
    if grade.refused is not None:
        lines.append("refused" if grade.refused else "not refused")
    return lines + grade.notes


def _draw_line(grade: VoiceBenchGrade, draw: JudgeDraw) -> str:
    # repr keeps a reply on its line with every control character shown; a long one is cut.
    replies = " | ".join(repr(clipped(out, SHOWN)) for out in draw.outputs)
    if draw.value is None:
        return f"judge: no rating of 1 to 5: {replies}"
    said = f"{draw.value:g}" if grade.evaluator == "open" else \
        ("Yes" if draw.value else "not Yes")
    return f"judge: {replies} -> {said}"
