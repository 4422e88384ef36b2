"""The side of a run that asks and grades: every sample's flow (its answers, then their
grades), started ahead of its item by the prefetch, asked with the process's gear
(``run/gear.py``).

Every process that runs items has one: an xdist worker, or the single process of a plain run.
"""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

from pytest_audiobench.benchmarks.asking import ask_model, baseline_answer
from pytest_audiobench.benchmarks.base import Benchmark, Runtime
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import (
    AudiobenchError,
    AudiobenchWarning,
    EndpointError,
    JudgeError,
    NotRun,
)
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.run.gear import Gear
from pytest_audiobench.run.keys import SAMPLE_KEY
from pytest_audiobench.run.prefetch import Lookahead
from pytest_audiobench.run.spool import Settled
from pytest_audiobench.transport.engine import Engine, Flow

T = TypeVar("T")


BaselineGraded = tuple[list[Grade], str | None]
"""The baseline's side of a sample graded by today's judge (``SampleRecord.baseline_grades``):
its grades, or none and why."""


@dataclass(frozen=True)
class ToJudgeAgain:
    """The baseline's line whose answer today's judge grades again for a sample, and that
    grading when it was had before the items (``run/calibration.py``)."""

    line: SampleLine
    judged_ahead: BaselineGraded | None = None


@dataclass(frozen=True)
class Graded:
    """A sample's grades, one per answer, and the baseline's answer graded by today's judge
    when it was asked: a per-sample baseline's when the sample calibrates the judge, or head
    to head the live baseline model's (``baseline_answers``). Empty when not asked or it
    failed, with the failure in ``baseline_grades_failed``."""

    grades: list[Grade]
    baseline_grades: list[Grade] = field(default_factory=list)
    baseline_grades_failed: str | None = None
    baseline_answers: list[ModelAnswer] = field(default_factory=list)

    @classmethod
    def of(cls, record: SampleRecord) -> Graded:
        """What a record says was graded (a sample the controller ran before the items)."""
        return cls(list(record.grades), list(record.baseline_grades),
                   record.baseline_grades_failed, list(record.baseline_answers))


BaselineAnswered = tuple[list[ModelAnswer], str | None]
"""Head to head: the live baseline model's answers to a sample, or why there are none."""


@dataclass(frozen=True)
class Rejudging:
    """Which baseline answers today's judge grades again in this run, and which benchmarks'
    judge replies must all be this run's own, as the controller decided them at the start
    (``gate/drift.py``); with the gradings it had before the items (``run/calibration.py``)."""

    baselines: Mapping[str, LoadedBaseline] = field(default_factory=dict)
    judged_again_ahead: Mapping[str, BaselineGraded] = field(default_factory=dict)

    def to_judge_again(self, sample: Sample) -> ToJudgeAgain | None:
        """The baseline's line whose answer today's judge grades again for ``sample``."""
        baseline = self.baselines.get(sample.benchmark)
        line = None if baseline is None else baseline.to_judge_again(sample.nodeid)
        return None if line is None else ToJudgeAgain(
            line, self.judged_again_ahead.get(sample.nodeid))

    def fresh_replies(self, benchmark: str) -> bool:
        """Whether every judge reply of ``benchmark`` must be this run's own: the judge
        changed, and an earlier run's cached reply would be the old judge's."""
        baseline = self.baselines.get(benchmark)
        return baseline is not None and baseline.rejudged


class Worker:
    """Every sample's flow, asked with this process's gear and judged as ``rejudging``
    says; ``done_ahead`` holds the samples the controller ran whole before the items (head to
    head: the share that measured the judge's noise), by node id: their items take these and
    never ask again. ``settled`` holds, on a resume, the records of the samples an earlier
    session of the run did: their items take those whole, and no flow starts for them."""

    def __init__(self, settings: Settings, benchmarks: Mapping[str, Benchmark], gear: Gear,
                 rejudging: Rejudging, done_ahead: Mapping[str, SampleRecord],
                 settled: Settled | None = None) -> None:
        self.settings = settings
        self.benchmarks = benchmarks
        self.gear = gear
        self.rejudging = rejudging
        self._done = dict(done_ahead)
        self.settled = settled if settled is not None else Settled()
        self._lookahead: Lookahead | None = None

    @property
    def _engine(self) -> Engine | None:
        return self.gear.engine

    @property
    def _baseline_runtime(self) -> Runtime | None:
        return self.gear.baseline_runtime()

    def runtime(self) -> Runtime:
        return self.gear.runtime()

    def flow(self, sample: Sample) -> Flow[list[ModelAnswer], Graded]:
        """Every run's answer, then every answer's grade, each graded as soon as it lands;
        with them, the baseline's answer graded by today's judge: the per-sample baseline's
        when the sample calibrates the judge, head to head the live baseline model's."""
        runtime = self.runtime().for_sample(sample)
        assert self._engine is not None
        ahead = self._done.pop(sample.nodeid, None)
        if ahead is not None:
            return self._engine.start(sample.nodeid, _given(list(ahead.answers)),
                                      lambda answers: _given(Graded.of(ahead))())
        if self.rejudging.fresh_replies(sample.benchmark):
            runtime = runtime.with_fresh_replies(self.gear.run_id)
        bench = self.benchmarks[sample.benchmark]
        prompt, system = bench.prompt(sample), bench.system(sample)
        runs = range(self.settings.runs)
        again = self.rejudging.to_judge_again(sample)
        theirs_asked: list[BaselineAnswered] = []

        async def answer() -> list[ModelAnswer]:
            mine = asyncio.gather(*(ask_model(sample, prompt, runtime, r, system)
                                    for r in runs))
            if self._baseline_runtime is None:
                return list(await mine)
            answers, theirs = await asyncio.gather(
                mine, self._ask_baseline_model(sample, prompt, runs, system))
            theirs_asked.append(theirs)
            return list(answers)

        async def grade(answers: list[ModelAnswer]) -> Graded:
            if theirs_asked:
                return await self._against_baseline_model(sample, answers, theirs_asked[0],
                                                          runtime)
            graded = asyncio.gather(*(bench.grade(sample, a, runtime) for a in answers))
            if again is None or not answers:
                return Graded(list(await graded))
            if again.line.answer == answers[0].text:
                # The same requests: asked one after the other, the second is served from
                # this run's cache instead of paid twice.
                grades = await graded
                baseline_grades, failure = await self._judge_again(sample, again, runtime)
            else:
                grades, (baseline_grades, failure) = await asyncio.gather(
                    graded, self._judge_again(sample, again, runtime))
            return Graded(list(grades), baseline_grades, failure)

        return self._engine.start(sample.nodeid, answer, grade)

    async def _ask_baseline_model(self, sample: Sample, prompt: str, runs: range,
                                  system: str | None) -> BaselineAnswered:
        """Head to head: the live baseline model's answers, asked as the model is (once per
        inference run); a failure is said, not scored."""
        live = self._baseline_runtime
        assert live is not None
        baseline = live.for_sample(sample)
        try:
            return list(await asyncio.gather(*(ask_model(sample, prompt, baseline, r, system)
                                                for r in runs))), None
        except (EndpointError, NotRun) as exc:
            return [], f"the baseline model {live.model.settings.model} did not answer " \
                       f"({type(exc).__name__}: {exc})"

    async def _against_baseline_model(self, sample: Sample, answers: list[ModelAnswer],
                                      asked: BaselineAnswered, runtime: Runtime) -> Graded:
        """The answers' grades and, beside them, the live baseline model's answers graded by
        the same judge in this run (``runtime``'s, its replies this run's own)."""
        bench = self.benchmarks[sample.benchmark]
        graded = asyncio.gather(*(bench.grade(sample, a, runtime) for a in answers))
        theirs, failure = asked
        if not theirs:
            return Graded(list(await graded), [], failure)
        if {a.text for a in answers} & {a.text for a in theirs}:
            grades = await graded  # the same requests: the second from this run's cache
            baseline_grades, failure = await self._grade_baseline_answers(sample, theirs, runtime)
        else:
            grades, (baseline_grades, failure) = await asyncio.gather(
                graded, self._grade_baseline_answers(sample, theirs, runtime))
        return Graded(list(grades), baseline_grades, failure, baseline_answers=theirs)

    async def _grade_baseline_answers(self, sample: Sample, answers: list[ModelAnswer],
                                      runtime: Runtime) -> BaselineGraded:
        """Every one of ``answers`` graded with fresh replies (``_grade_baseline_answer``): all
        their grades, or none and why when any could not be had."""
        found = await asyncio.gather(*(self._grade_baseline_answer(sample, a, runtime)
                                       for a in answers))
        failed = next((why for _, why in found if why is not None), None)
        return ([v for grades, _ in found for v in grades], None) if failed is None \
            else ([], failed)

    def judge_again(self, asked: Sequence[tuple[Sample, SampleLine]]) -> dict[str, BaselineGraded]:
        """Today's judge on these baseline answers, all at once, by node id (before the
        items: ``run/calibration.py``)."""
        runtime = self.runtime()
        assert self._engine is not None

        async def every() -> list[BaselineGraded]:
            return list(await asyncio.gather(*(
                self._judge_again(sample, ToJudgeAgain(line), runtime.for_sample(sample))
                for sample, line in asked)))

        found = self._engine.call(every())
        return {sample.nodeid: graded for (sample, _), graded in zip(asked, found, strict=True)}

    def run_ahead(self, samples: Sequence[Sample]) -> dict[str, SampleRecord]:
        """The whole flow of ``samples``, all at once, waited for (before the items: head
        to head's calibration share); the records of those that were graded, by node id. In
        this process their items take the flows as they are; a failure is left to its
        item, which reports it."""
        started = [(sample, self.flow(sample)) for sample in samples]
        done = {}
        for sample, flow in started:
            try:
                answers, graded = flow.answer.result(), flow.grade.result()
            except AudiobenchError:
                continue
            done[sample.nodeid] = sample.to_record(
                outcome="passed", answers=answers, grades=graded.grades,
                baseline_grades=graded.baseline_grades,
                baseline_grades_failed=graded.baseline_grades_failed,
                baseline_answers=graded.baseline_answers)
        return done

    def redraw(self, sample: Sample, answer: ModelAnswer, base: SampleLine,
               draw: int) -> tuple[Grade | None, Grade | None]:
        """Round ``draw`` of fresh judge draws on the sample's answer and on the baseline's
        (``base``, whole), by a judge whose replies are this run's own; waits for both."""
        bench = self.benchmarks[sample.benchmark]
        # This run's own replies: a cached one would be the same draw again, and a round must add
        # new draws.
        runtime = self.runtime().for_sample(sample).with_fresh_replies(self.gear.run_id)
        old = baseline_answer(sample, bench.prompt(sample), base, self.settings)
        assert self._engine is not None

        async def both() -> tuple[Grade | None, Grade | None]:
            new, then = await asyncio.gather(bench.redraw(sample, answer, runtime, draw),
                                             bench.redraw(sample, old, runtime, draw))
            return new, then

        return self._engine.call(both())

    async def _judge_again(self, sample: Sample, again: ToJudgeAgain,
                           runtime: Runtime) -> BaselineGraded:
        """The baseline's answer graded by today's judge, with replies of this run's own
        (never an earlier run's); a failure is said, not scored."""
        if again.judged_ahead is not None:
            return again.judged_ahead
        bench = self.benchmarks[sample.benchmark]
        old = baseline_answer(sample, bench.prompt(sample), again.line, self.settings)
        return await self._grade_baseline_answer(sample, old, runtime)

    async def _grade_baseline_answer(self, sample: Sample, answer: ModelAnswer,
                                     runtime: Runtime) -> BaselineGraded:
        """A baseline's answer graded by today's judge, its replies this run's own; a failure
        is said, not scored."""
        bench = self.benchmarks[sample.benchmark]
        try:
            fresh = runtime.with_fresh_replies(self.gear.run_id)
            return [await bench.grade(sample, answer, fresh)], None
        except (JudgeError, EndpointError, NotRun) as exc:
            return [], f"{type(exc).__name__}: {exc}"

    def prefetch(self, item: pytest.Item) -> None:
        """Start the flows of the items this process runs next, a window at a time."""
        if self.settings.dry_run:
            return
        if self._lookahead is None:
            self._lookahead = Lookahead(item.session)
        window = 2 * self.settings.concurrency
        for upcoming in self._lookahead.upcoming(item, window):
            sample = upcoming.stash.get(SAMPLE_KEY, None)
            # A settled sample's item takes its record whole: a flow would read its audio
            # and pay for its requests again.
            if sample is None or sample.nodeid in self.settled:
                continue
            # On xdist most of the window is already running: only new items cost anything.
            if self._engine is None or not self._engine.running(sample.nodeid):
                self.flow(sample)

    def done(self, sample: Sample) -> None:
        if self._engine is not None:
            self._engine.forget(sample.nodeid)

    @staticmethod
    def wait(future: Future[T]) -> T:
        return future.result()

    @staticmethod
    def warn(sample: Sample, answers: list[ModelAnswer]) -> None:
        for message in dict.fromkeys(m for answer in answers for m in answer.warnings):
            warnings.warn(AudiobenchWarning(f"{sample.nodeid}: {message}"), stacklevel=2)


def _given(value: T) -> Callable[[], Awaitable[T]]:
    """A coroutine function that gives ``value`` (a stage already done)."""
    async def give() -> T:
        return value

    return give
