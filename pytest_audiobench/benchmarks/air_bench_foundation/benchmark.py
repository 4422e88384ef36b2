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
    ChoiceBenchmark,
    ChoiceGrade,
    JudgeUse,
    ModelAnswer,
    OwnSettings,
    Release,
    Runtime,
    Sample,
    SampleRecord,
    Settings,
    fetch_dataset,
    official_letter,
    shown,
    strict_choice,
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
from pytest_audiobench.benchmarks.air_bench_foundation.grade import Alignment, FoundationGrade
from pytest_audiobench.benchmarks.air_bench_foundation.offline import reply as offline_reply
from pytest_audiobench.benchmarks.air_bench_foundation.prompts import align_prompt, model_prompt

ALIGN_TEMPERATURES = (1.0, 2.0)
"""The official script sends about half of the align requests at 2.0, the rest at 1.0; here
an item's temperature is fixed by a hash of its id, so every run asks it alike."""
ALIGN_MAX_TOKENS = 1024


class FoundationSettings(OwnSettings):
    """How AIR-Bench Foundation is matched."""

    matcher: Matcher = "official"


class Foundation(ChoiceBenchmark):
    """The AIR-Bench Foundation items; tasks are the 25 source folders. Numbers in percent,
    pooled over items: per folder, per task (its folders pooled), per category and over every
    item; with them the official scorer's failures (left out of its count) and the strict
    matcher's unanswered replies (counted wrong)."""

    name = NAME
    grade_type = FoundationGrade
    groupings = (("category", "category."), ("task", "task."), ("folder", "folder."))
    fallible = frozenset({"official"})
    lettered = True
    matcher: Matcher

    def __init__(self, settings: Settings) -> None:
        own = settings.of(NAME, FoundationSettings)
        judge = settings.judge
        matcher: Matcher = own.matcher if judge is not None else "strict"
        super().__init__(settings, matcher)
        self.own = own
        self.aligns = judge is not None
        """A judge is given, so the official align step runs."""
        self.sampled = judge is not None and not judge.offline
        """An LLM judge aligns, whose replies vary and may change (an offline one does not)."""
        self._align_decides = self.sampled and self.matcher == "official"
        """Correctness is an LLM judge's reading: its draws vary."""

    def download(self, source: str) -> Path:
        """Only the meta file and the selected folders: the whole release is tens of GB."""
        folders = [f for f in self.settings.tasks if f in FOLDERS] or list(FOLDERS)
        paths = [META.as_posix(), *(f"Foundation/{folder}/" for folder in folders)]
        return fetch_dataset(REPO, paths, self.settings.cache_dir / source,
                             "AIR-Bench Foundation", layout="Foundation/Foundation_meta.json "
                             "and Foundation/<task>_<dataset>/ folders", also=OLDER_REPO)

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
                    runtime: Runtime) -> FoundationGrade:
        return await self._aligned(sample, answer, runtime, 0)

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> FoundationGrade | None:
        return await self._aligned(sample, answer, runtime, draw) if self._align_decides \
            else None

    async def _aligned(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                       draw: int) -> FoundationGrade:
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
        return FoundationGrade(matcher=self.matcher, answer=sample.record, strict=letter,
                                 strict_reason=reason, align=align)

    def groups(self, record: SampleRecord) -> dict[str, str]:
        # The record's task is its folder; its AIR-Bench task is the sub-category.
        return {"category": record.category, "task": record.subcategory, "folder": record.task}

    def decided_by_judge(self) -> bool:
        return self._align_decides

    def question_lines(self, sample: Sample, first: ChoiceGrade) -> list[str]:
        assert isinstance(first, FoundationGrade)
        return [f"question: {sample.question}",
                *(f"  {letter}. {option}" for letter, option in zip(LETTERS, sample.choices,
                                                                    strict=False)),
                f"correct: {first.answer}. {sample.reference}"]

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

    def judge_use(self) -> FoundationJudgeUse:
        return FoundationJudgeUse(self)


class FoundationJudgeUse(JudgeUse):
    """How AIR-Bench Foundation uses its align judge: which option a reply chose."""

    bench: Foundation
    offline = staticmethod(offline_reply)

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        judge = self.bench._align_judge(sample, runtime) if self.bench.aligns else None
        if judge is None:
            return 0, 0, False
        if answer is None:
            return 1, 0, False
        messages, fingerprint = self.bench._align_request(sample, answer.text)
        hit = judge.cached(messages, fingerprint=fingerprint) is not None
        return 1, int(hit), False

    def prompt_sha256(self) -> str | None:
        if not self.bench.sampled:
            return None
        protocol = {"align": align_prompt("{question}", ["{a}", "{b}", "{c}", "{d}"],
                                          "{reply}"),
                    "temperatures": ALIGN_TEMPERATURES, "max_tokens": ALIGN_MAX_TOKENS}
        text = json.dumps(protocol, sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def decides(self, release: Release) -> tuple[str, ...]:
        # An LLM align judge decides the official numbers; the strict ones need none.
        return release.headline if self.bench._align_decides else ()


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
