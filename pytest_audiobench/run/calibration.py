"""Before the items, on the controller: what each benchmark's gate pairs this run against.

``gate/drift.py`` decides it from --audiobench-rejudge-baseline, the baseline's judge and
today's, and the drift; for the drift, today's judge grades the calibration share of the
baseline's answers here, first, so that every item and the gate hold against the same scores.
Those gradings then serve the items, which ask nothing twice. A shard does not measure ahead
(each would pay for the whole share): it decides by the judge's identity alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_audiobench.benchmarks.asking import baseline_answer
from pytest_audiobench.benchmarks.base import Benchmark, Release
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.drift import JudgeComparison, compare, judge_drift, judge_identity
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.lines import SampleLine, without_texts
from pytest_audiobench.run.worker import Regraded
from pytest_audiobench.transport.types import Traffic

GradeAgain = Callable[[Sequence[tuple[Sample, SampleLine]]], dict[str, Regraded]]
"""Today's judge on baseline answers, by node id (``Worker.grade_again``)."""
Sent = Callable[[], Traffic]
"""What this process's endpoints took so far (``Worker.traffic``): the ids the judge named."""


@dataclass(frozen=True)
class Calibrated:
    """A benchmark's comparison, and the baseline answers graded again to decide it."""

    comparison: JudgeComparison
    graded: dict[str, Regraded] = field(default_factory=dict)


def calibrate(settings: Settings, bench: Benchmark, release: Release, baseline: LoadedBaseline,
              grade_again: GradeAgain | None, sent: Sent) -> Calibrated | None:
    """What ``bench``'s gate pairs against; None when it has no judged per-sample lines, or
    when only requests could tell and ``grade_again`` is None (a dry run sends nothing)."""
    today = judge_identity(settings, bench.judge_prompt())
    if today is None or not baseline.graded_by_a_judge:
        return None
    then = baseline.file.judge if baseline.file is not None else None
    mode = settings.rejudge_baseline
    if mode != "auto" or settings.shard is not None or (
            then is not None and today.differs_from(then)):
        return Calibrated(compare(mode, then, today))
    if grade_again is None:
        return None
    asked = [(sample, line) for sample in release.samples
             if (line := baseline.to_judge_again(sample.nodeid)) is not None]
    graded = grade_again(asked)
    lines = {sample.nodeid: made for sample, line in asked
             if (made := _today(bench, sample, line, graded[sample.nodeid])) is not None}
    drift = judge_drift(bench.judged_metrics(release), bench.linear, baseline.lines, lines,
                        len(asked), settings.confidence)
    seen = judge_identity(settings, bench.judge_prompt(), sent())
    return Calibrated(compare(mode, then, seen, drift), graded)


def _today(bench: Benchmark, sample: Sample, line: SampleLine,
           graded: Regraded) -> SampleLine | None:
    """The baseline's answer as today's judge graded it, as a line (its numbers only)."""
    verdicts, _ = graded
    if not verdicts:
        return None
    answer = baseline_answer(sample, bench.prompt(sample), line, bench.settings)
    made = bench.sample_line(sample.to_record(outcome="passed", answers=[answer],
                                              verdicts=verdicts))
    return None if made is None else without_texts(made)

