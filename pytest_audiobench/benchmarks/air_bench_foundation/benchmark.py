"""AIR-Bench Foundation: each answer is read by both matchers, the configured one deciding.

The official matcher is the official two steps: an align judge (the run's judge) is told the
question, the options and the model's reply and names the chosen option by its letter, then
the official scorer's rules read that letter from the judge's reply; a reply they read no
letter from is the scorer's failure, left out of the official count (``fail_num``). The strict
matcher needs no judge: the model's reply must name exactly one option (its letter, or its
text whole); anything else is unanswered and counted wrong. Without a judge the strict
matcher decides, and the summary says the official numbers need one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_audiobench import (
    Benchmark,
    Choice,
    DataError,
    Detail,
    DownloadError,
    Linear,
    Metric,
    ModelAnswer,
    OwnSettings,
    Release,
    Runtime,
    Sample,
    SampleLine,
    SampleRecord,
    SampleView,
    Settings,
    Tally,
    Verdict,
    choice_line,
    choice_linear,
    fetch_dataset,
    percent,
    shown,
)
from pytest_audiobench.benchmarks.air_bench_foundation.data import (
    META,
    FoundationRecord,
    audio_path,
    read_records,
)
from pytest_audiobench.benchmarks.air_bench_foundation.facts import (
    CATEGORIES,
    FOLDERS,
    LETTERS,
    NAME,
    OLDER_REPO,
    REPO,
    TASK_CATEGORY,
    TASKS,
    Matcher,
)
from pytest_audiobench.benchmarks.air_bench_foundation.metrics import FoundationScores
from pytest_audiobench.benchmarks.air_bench_foundation.prompts import align_prompt, model_prompt
from pytest_audiobench.benchmarks.air_bench_foundation.reading import (
    official_letter,
    strict_choice,
)
from pytest_audiobench.benchmarks.air_bench_foundation.verdict import (
    Alignment,
    FoundationVerdict,
    foundation_verdicts,
)

ALIGN_TEMPERATURES = (1.0, 2.0)
"""The official script sends about half of the align requests at 2.0, the rest at 1.0; here
an item's temperature is fixed by a hash of its id, so every run asks it alike."""
ALIGN_MAX_TOKENS = 1024
_GROUPINGS = (("category", "category."), ("task", "task."), ("folder", "folder."))
_ENDINGS = {"avg": "correct", "official.avg": "official", "strict.avg": "strict"}


class FoundationSettings(OwnSettings):
    """How AIR-Bench Foundation is matched."""

    matcher: Matcher = "official"


class Foundation(Benchmark):
    """The AIR-Bench Foundation items; tasks are the 25 source folders."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.own = settings.of(NAME, FoundationSettings)
        judge = settings.judge
        self.aligns = judge is not None
        """A judge is given, so the official align step runs."""
        self.matcher: Matcher = self.own.matcher if self.aligns else "strict"
        self.sampled = judge is not None and not judge.offline
        """An LLM judge aligns, whose replies vary and may change (an offline one does not)."""
        self._align_decides = self.sampled and self.matcher == "official"
        """Correctness is an LLM judge's reading: its draws vary."""

    def download(self, source: str) -> Path:
        """Only the meta file and the selected folders: the whole release is tens of GB."""
        folders = [f for f in self.settings.tasks if f in FOLDERS] or list(FOLDERS)
        paths = [META.as_posix(), *(f"Foundation/{folder}/" for folder in folders)]
        try:
            return fetch_dataset(REPO, paths, self.settings.cache_dir / source,
                                 "AIR-Bench Foundation", layout="Foundation/Foundation_meta.json "
                                 "and Foundation/<task>_<dataset>/ folders", also=OLDER_REPO)
        except DownloadError as exc:
            raise DataError(f"--audiobench-data {source}: {exc}") from exc

    def load(self, root: Path) -> Release:
        samples = [_sample(root, record) for record in read_records(root)]
        headline = (f"{NAME}.avg", *(f"{NAME}.category.{c}.avg" for c in CATEGORIES),
                    *(f"{NAME}.task.{t}.avg" for t in TASKS))
        return Release(samples, headline)

    def prompt(self, sample: Sample) -> str:
        return model_prompt(sample.question, sample.choices)

    def _align_request(self, sample: Sample, reply: str) -> tuple[list[dict[str, Any]],
                                                                    dict[str, Any]]:
        """The align request's messages and its fingerprint: the messages, and the choices
        and reply they were made of (which an offline judge reads)."""
        limit = self.settings.judge.max_answer_chars if self.settings.judge else len(reply)
        text, _ = shown(reply, limit)  # cut when too long (--audiobench-judge-max-answer-chars)
        messages = [{"role": "user", "content": align_prompt(sample.question, sample.choices,
                                                             text)}]
        return messages, {"messages": messages, "choices": list(sample.choices),
                          "reply": reply}

    def _align_judge(self, sample: Sample, runtime: Runtime) -> Any:
        digest = hashlib.sha256(f"align:{sample.nodeid}".encode()).digest()
        temperature = ALIGN_TEMPERATURES[digest[0] % len(ALIGN_TEMPERATURES)]
        return runtime.judge_sampled(temperature=temperature, max_tokens=ALIGN_MAX_TOKENS)

    async def grade(self, sample: Sample, answer: ModelAnswer,
                    runtime: Runtime) -> FoundationVerdict:
        return await self._aligned(sample, answer, runtime, 0)

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> FoundationVerdict | None:
        return await self._aligned(sample, answer, runtime, draw) if self._align_decides \
            else None

    async def _aligned(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                       draw: int) -> FoundationVerdict:
        """Both matchers' reading of ``answer``, the align judge's reply being draw ``draw``
        (0: the one ``grade`` asks; each other its own request)."""
        letter, reason = strict_choice(answer.text, sample.choices)
        align = None
        judge = self._align_judge(sample, runtime) if self.aligns else None
        if judge is not None:
            messages, fingerprint = self._align_request(sample, answer.text)
            reply = await judge.complete(messages, draw, fingerprint=fingerprint)
            align = Alignment(reply=reply, letter=_within(official_letter(reply.answer),
                                                          sample.choices))
        return FoundationVerdict(matcher=self.matcher, answer=sample.record, strict=letter,
                                 strict_reason=reason, align=align)

    def judge_calls(self, sample: Sample, answer: ModelAnswer | None,
                    runtime: Runtime) -> tuple[int, int, bool]:
        judge = self._align_judge(sample, runtime) if self.aligns else None
        if judge is None:
            return 0, 0, False
        if answer is None:
            return 1, 0, False
        messages, fingerprint = self._align_request(sample, answer.text)
        hit = judge.cached(messages, fingerprint=fingerprint) is not None
        return 1, int(hit), False

    def judge_prompt(self) -> str | None:
        if not self.sampled:
            return None
        protocol = {"align": align_prompt("{question}", ["{a}", "{b}", "{c}", "{d}"],
                                          "{reply}"),
                    "temperatures": ALIGN_TEMPERATURES, "max_tokens": ALIGN_MAX_TOKENS}
        text = json.dumps(protocol, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def judged_metrics(self, release: Release) -> tuple[str, ...]:
        # An LLM align judge decides the official numbers; the strict ones need none.
        return release.headline if self._align_decides else ()

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                verdicts: Sequence[Verdict]) -> str | None:
        graded = foundation_verdicts(verdicts)
        wrong = [v for v in graded if not v.correct]
        if not wrong:
            return None
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        first = graded[0]
        lines = [f"wrong answer{runs} ({self.matcher} matcher)",
                 f"question: {sample.question}",
                 *(f"  {letter}. {option}" for letter, option in zip(LETTERS, sample.choices,
                                                                     strict=False)),
                 f"correct: {first.answer}. {sample.reference}"]
        for answer, verdict in zip(answers, graded, strict=True):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines += [f"{prefix}answer: {answer.said()}", *_readings(verdict)]
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def tally(self, runs: int) -> Tally:
        return FoundationTally(runs, self.matcher)

    def sample_line(self, record: SampleRecord) -> SampleLine | None:
        graded = foundation_verdicts(record.verdicts)
        if not graded or not record.answers:
            return None
        return choice_line(record, graded, _values,
                           {"category": record.category, "task": record.subcategory,
                            "folder": record.task}, judged=self._align_decides,
                           replies=[v.align.reply.text for v in graded if v.align is not None])

    def linear(self, metric: str) -> Linear | None:
        return choice_linear(metric, NAME, _GROUPINGS, _ENDINGS)

    def margin(self, metric: str) -> float:
        return 1.0  # percentage points of accuracy

    def failed_means(self) -> str:
        return "wrong"

    def view(self, record: SampleRecord) -> SampleView:
        graded = foundation_verdicts(record.verdicts)
        letters = LETTERS[:len(record.choices)]
        correct = next((v.answer for v in graded), None)
        chosen = None
        if graded:
            first = graded[0]
            chosen = first.official if first.matcher == "official" else first.strict
        choices = [Choice(text=f"{letter}. {option}",
                          correct=letter == correct or (correct is None
                                                        and option == record.reference),
                          chosen=letter == chosen)
                   for letter, option in zip(letters, record.choices, strict=True)]
        if not graded:
            return SampleView(choices=choices)
        right = sum(v.correct for v in graded)
        score = ("right" if right else "wrong") if len(graded) == 1 else \
            f"right in {right} of {len(graded)} runs"
        details = [Detail(label=f"{'' if len(graded) == 1 else f'run {i}, '}{label}", text=text)
                   for i, verdict in enumerate(graded)
                   for label, text in _detail_lines(verdict)]
        return SampleView(score=score, choices=choices, details=details)

    def notes(self, release: Release) -> list[str]:
        notes = [f"{self.matcher} matcher decides correctness ({NAME}.official.avg and "
                 f"{NAME}.strict.avg give both; accuracy in percent, pooled over items)"]
        if not self.aligns:
            notes.append("official numbers unavailable: the align step needs a judge "
                         "(--audiobench-judge-*); the strict matcher decides")
        else:
            notes.append("official: the align judge names the chosen option, at temperature "
                         "1 or 2 (half each, as the official script), and replies it names no "
                         f"option in are left out of the count ({NAME}.official.fail_num)")
        judge = self.settings.judge
        if judge is not None and judge.offline:
            notes.append(f"the offline judge {judge.endpoint.model!r} aligns replies by their "
                         "letter or shared words: official numbers not comparable to published "
                         "GPT-aligned ones")
        return notes


class FoundationTally(Tally):
    """Each inference run's counts, folded record by record."""

    def __init__(self, runs: int, matcher: str) -> None:
        self._runs = [FoundationScores(matcher) for _ in range(runs)]

    def add(self, record: SampleRecord) -> None:
        for scores, verdict in zip(self._runs, foundation_verdicts(record.verdicts),
                                   strict=False):
            scores.add(record, verdict)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics()


def _sample(root: Path, record: FoundationRecord) -> Sample:
    """The sample of ``record``; what it keeps of the record beyond the common fields is the
    correct option's letter (checked at load): 19,000 records held whole would cost about
    20 MB a run."""
    assert record.answer_letter is not None
    return Sample(benchmark=NAME, id=str(record.uniq_id), task=record.folder,
                  category=TASK_CATEGORY[record.task_name], audio=audio_path(root, record),
                  question=record.question, reference=record.answer_gt,
                  record=record.answer_letter, choices=record.options,
                  subcategory=record.task_name)


def _within(letter: str | None, options: Sequence[str]) -> str | None:
    """A letter the official rules read, kept only when the item has that option."""
    return letter if letter is not None and letter in LETTERS[:len(options)] else None


def _values(graded: Sequence[FoundationVerdict]) -> dict[str, float]:
    """Percent right over the runs ``graded``: by the deciding matcher, by strict, and by
    official over the runs the official scorer counted (none: no official value)."""
    values = {"correct": percent(v.correct for v in graded),
              "strict": percent(v.strict == v.answer for v in graded)}
    counted = [v for v in graded if v.official_counted]
    if counted:
        values["official"] = percent(v.official == v.answer for v in counted)
    if graded[0].matcher == "official":
        if counted:
            values["correct"] = values["official"]
        else:
            del values["correct"]
    return values


def _readings(verdict: FoundationVerdict) -> list[str]:
    return [f"{label}: {text}" for label, text in _detail_lines(verdict)]


def _detail_lines(verdict: FoundationVerdict) -> list[tuple[str, str]]:
    strict = verdict.strict or "none"
    lines = [("strict", f"{strict} ({verdict.strict_reason})")]
    if verdict.align is None:
        lines.append(("official", "not aligned (no judge)"))
    else:
        read = verdict.official or "none: the scorer's failure, left out of the count"
        lines.append(("official", f"{read} (align judge replied {verdict.align.reply.text!r})"))
    return lines
