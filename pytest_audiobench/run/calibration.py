"""Before the items, on the controller: what each benchmark's gate pairs this run against.

``gate/drift.py`` decides it from --audiobench-rejudge-baseline, the baseline's judge and
today's, and the drift; for the drift, today's judge grades the calibration share of the
baseline's answers here, first, so that every item and the gate hold against the same scores.
Those gradings then serve the items, which ask nothing twice. A shard does not measure ahead
(each would pay for the whole share): it decides by the judge's identity alone.

Head to head (--audiobench-baseline-model) there is no file to measure the judge's noise by,
which the items need to tell a sample's drop from chance: the calibration share of the samples
runs here whole first (both models asked, both answers judged), the noise is measured on
those draws, and their records serve the items.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_audiobench.benchmarks.asking import baseline_answer
from pytest_audiobench.benchmarks.base import Benchmark, Release, line_baseline_grades
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.drift import (
    JudgeComparison,
    calibrating,
    judge_comparison,
    judge_drift,
    judge_identity,
    other_judge,
)
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.paired import judge_noise
from pytest_audiobench.outcome.lines import SampleLine, without_texts
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.run.plan import RunPlan
from pytest_audiobench.run.shards import slice_of
from pytest_audiobench.run.worker import BaselineGraded, Worker
from pytest_audiobench.transport.types import Traffic

JudgeAgain = Callable[[Sequence[tuple[Sample, SampleLine]]], dict[str, BaselineGraded]]
"""Today's judge on baseline answers, by node id (``Worker.judge_again``)."""
Sent = Callable[[], Traffic]
"""What this process's endpoints took so far (``Gear.traffic``): the ids the judge named."""


RunAhead = Callable[[Sequence[Sample]], dict[str, SampleRecord]]
"""Samples run whole, the records of those graded (``Worker.run_ahead``)."""


@dataclass(frozen=True)
class Calibrated:
    """A benchmark's comparison, and the baseline answers graded again to decide it (head to
    head: the samples run whole to measure the judge's noise)."""

    comparison: JudgeComparison
    judged_again: dict[str, BaselineGraded] = field(default_factory=dict)
    done: dict[str, SampleRecord] = field(default_factory=dict)


def head_to_head(settings: Settings, bench: Benchmark, release: Release,
                 baseline: LoadedBaseline, run_ahead: RunAhead | None) -> Calibrated | None:
    """What a head-to-head run's items hold against: the live model's answers, with the
    judge's noise measured on the calibration share of the samples, run whole first (a
    shard's share of its own slice); None in a dry run (``run_ahead`` None), which sends
    nothing."""
    assert baseline.baseline_endpoint is not None
    if run_ahead is None:
        return None
    nodeids = [sample.nodeid for sample in release.samples]
    if settings.shard is not None:
        nodeids = slice_of(nodeids, *settings.shard)
    share = calibrating(nodeids, settings.calibration_share)
    done = run_ahead([sample for sample in release.samples if sample.nodeid in share])
    lines = [line for record in done.values()
             for line in (bench.gating().line(record), line_baseline_grades(bench, record))
             if line is not None]
    # No judged line (a rule graded them all): no noise, any drop is a change; no line at all:
    # unknown, and the items fall back to their bar.
    noise = judge_noise(lines) if any(line.judged for line in lines) else \
        (0.0 if lines else None)
    said = "unknown" if noise is None else fixed(noise)
    why = (f"head to head: both models answered every sample in this run; the judge's noise "
           f"{said}, measured on {len(done)} samples graded before the items")
    return Calibrated(JudgeComparison(rejudged=True, why=why, baseline_model=baseline.against,
                                      noise=noise), done=done)


def calibrate(settings: Settings, bench: Benchmark, release: Release, baseline: LoadedBaseline,
              judge_again: JudgeAgain | None, sent: Sent) -> Calibrated | None:
    """What ``bench``'s gate pairs against; None when it has no judged per-sample lines, or
    when only requests could tell and ``judge_again`` is None (a dry run sends nothing)."""
    today = judge_identity(settings, bench.judge_use().prompt_sha256())
    if today is None or not baseline.graded_by_a_judge:
        return None
    then = baseline.file.judge if baseline.file is not None else None
    mode = settings.rejudge_baseline
    # Decided without a request: the mode says it, a shard must not pay for the whole share, or
    # a known field of the judge's identity already differs.
    if mode != "auto" or settings.shard is not None or (
            then is not None and other_judge(then.model, then, today.model, today)):
        return Calibrated(judge_comparison(mode, then, today))
    if judge_again is None:
        return None
    asked = [(sample, line) for sample in release.samples
             if (line := baseline.to_judge_again(sample.nodeid)) is not None]
    graded = judge_again(asked)
    lines = {sample.nodeid: made for sample, line in asked
             if (made := _today(bench, sample, line, graded[sample.nodeid])) is not None}
    drift = judge_drift(bench.judge_use().decides(release), bench.gating().linear,
                        baseline.lines, lines, len(asked), settings.confidence)
    # Again, now that the calibration's replies named the model ids behind the judge's alias: a
    # new snapshot is seen only in them.
    seen = judge_identity(settings, bench.judge_use().prompt_sha256(), sent())
    return Calibrated(judge_comparison(mode, then, seen, drift), graded)


def _today(bench: Benchmark, sample: Sample, line: SampleLine,
           graded: BaselineGraded) -> SampleLine | None:
    """The baseline's answer as today's judge graded it, as a line (its numbers only)."""
    grades, _ = graded
    if not grades:
        return None
    answer = baseline_answer(sample, bench.prompt(sample), line, bench.settings)
    made = bench.gating().line(sample.to_record(outcome="passed", answers=[answer],
                                              grades=grades))
    return None if made is None else without_texts(made)


def decide_judge_comparisons(settings: Settings, benchmarks: Mapping[str, Benchmark],
                       releases: Mapping[str, Release],
                       baselines: Mapping[str, LoadedBaseline],
                       kept: Mapping[str, JudgeComparison], deciding: Worker,
                       send: bool) -> RunPlan:
    """Decide, per benchmark, what its gate pairs against, before any item (``kept``: what
    the run being resumed decided, which it holds to); the answers graded to decide it serve
    the items: the plan of ``deciding``'s gear with them. ``send`` False (a dry run): what
    needs no request."""
    decided: dict[str, JudgeComparison] = {}
    judged_again: dict[str, BaselineGraded] = {}
    done: dict[str, SampleRecord] = {}
    for name, baseline in baselines.items():
        bench, release = benchmarks[name], releases[name]
        # A resume holds to what the run decided: decided anew, its second half could pair against
        # other scores than its first.
        if name in kept:
            made: Calibrated | None = Calibrated(kept[name])
        elif baseline.baseline_endpoint is not None:
            made = head_to_head(settings, bench, release, baseline,
                                deciding.run_ahead if send else None)
        else:
            made = calibrate(settings, bench, release, baseline,
                             deciding.judge_again if send else None, deciding.gear.traffic)
        if made is not None:
            decided[name] = made.comparison
            judged_again.update(made.judged_again)
            done.update(made.done)
    return deciding.gear.plan.model_copy(update={
        "comparisons": decided, "judged_again_ahead": judged_again, "done_ahead": done})
