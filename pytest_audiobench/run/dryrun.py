"""``--audiobench-dry-run``: how many model and judge calls a run would make, the cached
ones subtracted, without sending any."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel

from pytest_audiobench.benchmarks.asking import baseline_answer, cached_answer
from pytest_audiobench.benchmarks.base import Benchmark, Runtime
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudioError, EmptyAudio
from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.cost import Planned, estimate_lines
from pytest_audiobench.outcome.records import ModelAnswer
from pytest_audiobench.run.worker import Worker


class DryRun(BaseModel):
    """What a run would send. Judge counts are first attempts: retries after unparseable
    replies cannot be known in advance."""

    samples: int
    runs: int
    model_calls: int = 0
    model_cached: int = 0
    judge_calls: int = 0
    judge_cached: int = 0
    baseline_graded: int = 0
    """Baseline answers today's judge would grade again (``gate/drift.py``); their judge
    calls are in ``judge_calls``, none of them cached (a run asks them with fresh replies)."""
    judged_again_if_drifted: int = 0
    """Baseline answers today's judge would grade again besides, when the calibration shows
    that it drifted (--audiobench-rejudge-baseline auto): a dry run sends nothing to tell."""
    baseline_model_calls: int = 0
    """Of ``model_calls``, those to the live baseline model (head to head); their answers'
    judge calls are in ``judge_calls``."""
    baseline_model_cached: int = 0
    costs: list[str] = []
    """What the calls to send would cost at --audiobench-price (``outcome/cost.py``)."""
    confirm_draws: int = 0
    """--audiobench-confirm-draws when items are held against a per-sample baseline."""
    judge_upper_bound: bool = False
    """True when some answers are not cached yet, so their judge calls are a maximum (MMAR
    rubrics are asked only for correct answers)."""
    skipped: list[str] = []
    """Samples without usable audio, which would be skipped."""

    def lines(self) -> list[str]:
        bound = "up to " if self.judge_upper_bound else ""
        send = self.model_calls - self.model_cached + self.judge_calls - self.judge_cached
        lines = [
            f"dry run: {self.samples} samples x {self.runs} run(s); nothing was sent",
            f"model calls: {self.model_calls} ({self.model_cached} in the cache, "
            f"{self.model_calls - self.model_cached} to send)",
            f"judge calls: {bound}{self.judge_calls} ({self.judge_cached} in the cache, "
            f"{bound}{self.judge_calls - self.judge_cached} to send), retries not counted",
            f"to send in all: {bound}{send}",
        ]
        if self.baseline_model_calls:
            lines.insert(2, f"model calls include {self.baseline_model_calls} to the baseline "
                            "model (head to head), each answer judged like the model's")
        if self.baseline_graded:
            lines.insert(3, f"judge calls include {self.baseline_graded} baseline answers graded "
                            "again by today's judge (gate/drift)")
        if self.judged_again_if_drifted:
            lines.insert(4, f"and {self.judged_again_if_drifted} more baseline answers are "
                            "graded again if the judge drifted beyond its noise (not counted)")
        if self.confirm_draws:
            lines.append(f"not counted either: up to {self.confirm_draws} round(s) of fresh "
                         "judge draws for each sample whose first draws suggest a drop")
        lines += self.costs
        if self.skipped:
            lines.append(f"{len(self.skipped)} samples would be skipped (no usable audio): "
                         + ", ".join(self.skipped[:5]) + (" ..." if len(self.skipped) > 5 else ""))
        return lines


def forecast(settings: Settings, benchmarks: Mapping[str, Benchmark],
             baselines: Mapping[str, LoadedBaseline], samples: Sequence[Sample],
             worker: Worker) -> DryRun:
    """What the run of ``samples`` would send, with this process's endpoints and cache, the
    baseline answers its judge would grade again (decided, or if the calibration found a
    drift) and the fresh draws a per-sample gate may ask."""

    def again(sample: Sample) -> ModelAnswer | None:
        found = worker.rejudging.to_judge_again(sample)
        return None if found is None else baseline_answer(
            sample, benchmarks[sample.benchmark].prompt(sample), found.line, settings)

    def if_drifted(sample: Sample) -> bool:
        """Whether a drift found by the calibration would have today's judge grade this
        sample's baseline answer again too (auto, not yet decided)."""
        baseline, judge = baselines.get(sample.benchmark), settings.judge
        if baseline is None or baseline.comparison is not None or not baseline.lines \
                or settings.rejudge_baseline != "auto" or judge is None or judge.offline:
            return False
        every = baseline.decided(JudgeComparison(rejudged=True, why="drifted"))
        return every.to_judge_again(sample.nodeid) is not None

    planned = dry_run(samples, benchmarks, worker.gear.runtime(), again, if_drifted,
                      worker.gear.baseline_runtime())
    held = any(baseline.holds_items for baseline in baselines.values())
    return planned.model_copy(update={"confirm_draws": settings.confirm_draws if held else 0})


def dry_run(samples: Sequence[Sample], benchmarks: Mapping[str, Benchmark],
            runtime: Runtime,
            to_judge_again: Callable[[Sample], ModelAnswer | None] = lambda sample: None,
            if_drifted: Callable[[Sample], bool] = lambda sample: False,
            baseline: Runtime | None = None) -> DryRun:
    """What a run of ``samples`` would send (``baseline``: head to head, the live baseline
    model's endpoints, asked as the model is)."""
    runs = runtime.settings.runs
    plan = DryRun(samples=len(samples), runs=runs)
    for sample in samples:
        bench = benchmarks[sample.benchmark]
        prompt = bench.prompt(sample)
        scoped = runtime.for_sample(sample)
        again = to_judge_again(sample)
        plan.judged_again_if_drifted += again is None and if_drifted(sample)
        if again is not None:
            calls, _, bound = bench.judge_use().calls(sample, again, scoped)
            plan.baseline_graded += 1
            plan.judge_calls += calls
            plan.judge_upper_bound |= bound
        asked = [(scoped, run, False) for run in range(runs)]
        if baseline is not None:
            asked += [(baseline.for_sample(sample), run, True) for run in range(runs)]
        for endpoints, run, theirs in asked:
            try:
                answer = cached_answer(sample, prompt, endpoints, run, bench.system(sample))
            except (EmptyAudio, AudioError):
                plan.skipped.append(sample.nodeid)
                break
            plan.model_calls += 1
            plan.model_cached += answer is not None
            plan.baseline_model_calls += theirs
            plan.baseline_model_cached += theirs and answer is not None
            calls, cached, bound = bench.judge_use().calls(sample, answer, scoped)
            plan.judge_calls += calls
            plan.judge_cached += cached
            plan.judge_upper_bound |= bound
    plan.costs = estimate_lines(_planned(plan, runtime, baseline), runtime.settings.price)
    return plan


def _planned(plan: DryRun, runtime: Runtime,
             baseline: Runtime | None) -> dict[str, Planned]:
    """Per model id, the calls the plan would send and the cached replies it looked at."""
    sides = [(runtime.model, plan.model_calls - plan.baseline_model_calls
              - (plan.model_cached - plan.baseline_model_cached), False)]
    if baseline is not None:
        sides.append((baseline.model, plan.baseline_model_calls - plan.baseline_model_cached,
                      False))
    if runtime.judge is not None:
        sides.append((runtime.judge, plan.judge_calls - plan.judge_cached,
                      plan.judge_upper_bound))
    asked = runtime.settings.asked_models()
    planned: dict[str, Planned] = {}
    for endpoint, to_send, bound in sides:
        name = endpoint.settings.model
        was = planned.get(name, Planned(role=asked.get(name, name), to_send=0))
        planned[name] = Planned(role=was.role, to_send=was.to_send + to_send,
                                bound=was.bound or bound,
                                cached_replies=endpoint.peeked.replies,
                                cached=endpoint.peeked.usage,
                                free=name in runtime.settings.free_models())
    return planned
