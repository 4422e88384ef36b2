"""The gate's ruling on a run: from each benchmark's folded records and its loaded baseline, the
numbers it holds, the decision about its baseline (held against it, written, refused) and the
run's one verdict. The one function that decides; the report renders what it returns, and the
end of a run (``ending.py``) writes the baselines it decided to write.

What the gate needs of the records is decided here too: which sample lines to fold (``wants_lines``:
for a per-sample baseline, a live baseline model, or a baseline to write) and how much of each
to keep (``kept_line``: its texts only when it is written)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate.decision import (
    BaselineUpdate,
    Decided,
    Decision,
    RunVerdict,
    decide,
    run_verdict,
)
from pytest_audiobench.gate.drift import Drift, judge_drift, judge_identity
from pytest_audiobench.gate.evaluation import Pairing, Pairs, assess_all
from pytest_audiobench.gate.evidence import Evidence, Folded
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import SampleLine, without_texts
from pytest_audiobench.outcome.metrics import Metric, combine_runs
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity, Traffic


@dataclass(frozen=True, slots=True)
class BenchmarkRuling:
    """One benchmark as the gate ruled on it."""

    metrics: dict[str, Metric]
    """The gated numbers; over several inference runs, the mean of the middle runs."""
    per_run: list[dict[str, Metric]]
    decision: Decision
    baseline: LoadedBaseline
    """The baseline it was held against (head to head, the one the live model's numbers
    made)."""
    drift: Drift | None


@dataclass(frozen=True, slots=True)
class Ruling:
    """The gate's ruling on a run: each benchmark's, and the run's verdict, decided once."""

    benchmarks: dict[str, BenchmarkRuling]
    verdict: RunVerdict

    @property
    def updates(self) -> dict[str, BaselineUpdate]:
        """The baselines the gate decided to write, by benchmark."""
        return {name: ruled.decision.update for name, ruled in self.benchmarks.items()
                if ruled.decision.update is not None}


def wants_lines(settings: Settings, loaded: LoadedBaseline) -> bool:
    """Whether the gate needs the benchmark's sample lines: to pair against a per-sample
    baseline or a live baseline model, or to write a baseline."""
    return bool(loaded.lines) or settings.update_baseline or loaded.baseline_endpoint is not None


def kept_line(settings: Settings, line: SampleLine) -> SampleLine:
    """A sample line as the gate keeps it: whole for a baseline being written, else its
    numbers only (the gate reads no texts)."""
    return line if settings.update_baseline else without_texts(line)


def rule(settings: Settings, benchmarks: Mapping[str, Pairs], folded: Mapping[str, Folded],
         loaded: Mapping[str, LoadedBaseline], traffic: Traffic,
         model: ModelIdentity | None, scope: Scope) -> Ruling:
    """Every benchmark held against its baseline, or its baseline decided, and the run's
    verdict. With per-sample baseline lines the metrics the benchmarks can pair are gated
    paired, all of them one family for the confidence level. ``benchmarks``: how each pairs
    its metrics; ``model``: what identified the model (the run's, None for a merge);
    ``scope``: what part of the benchmark the run measured (``scope.py``)."""
    judges = {name: judge_identity(settings, mine.judge_prompt, traffic)
              for name, mine in folded.items()}
    held_against = {name: _answered(settings, name, baseline, folded[name],
                                    benchmarks[name], judges[name])
                    for name, baseline in loaded.items()}
    # Against the baseline's answers judged again today, when that was decided (drift.py).
    pairings = {name: Pairing.of(bench, folded[name].baseline_grades
                                 if held_against[name].rejudged else held_against[name].lines,
                                 folded[name].lines or {}, held_against[name].noise)
                for name, bench in benchmarks.items()}
    limits = {name: file.metrics for name, pairing in pairings.items()
              if (file := held_against[name].file) is not None and pairing.base}
    assessed = assess_all(pairings, limits, settings.confidence, settings.gate_small)
    ruled = {}
    for name, bench in benchmarks.items():
        mine, baseline = folded[name], held_against[name]
        evidence = Evidence(name, mine, combine_runs(mine.per_run), baseline, model,
                            judges[name], pairings[name], assessed[name])
        decision = decide(settings, evidence, partial=scope.partial)
        # Head to head, both models' answers are judged by today's judge in this run: no recorded
        # score to drift from.
        drift = None if not mine.baseline_grades_asked or baseline.baseline_endpoint else \
            judge_drift(mine.judged_metrics, bench.linear, baseline.lines, mine.baseline_grades,
                        mine.baseline_grades_asked, settings.confidence)
        ruled[name] = BenchmarkRuling(dict(evidence.metrics), mine.per_run, decision, baseline,
                                      drift)
    verdict = run_verdict([Decided(name, r.decision.status, r.decision.gate,
                                   folded[name].failed, folded[name].regressed,
                                   folded[name].missing,
                                   r.decision.status == "written" and bool(r.decision.short))
                           for name, r in ruled.items()], scope, settings.shard is not None)
    return Ruling(ruled, verdict)


def _answered(settings: Settings, name: str, baseline: LoadedBaseline, folded: Folded,
              bench: Pairs, judge: JudgeIdentity | None) -> LoadedBaseline:
    """Head to head, the baseline the live model's numbers make; a file's stays as it is."""
    if folded.baseline_per_run is None:
        return baseline
    return baseline.answered(settings, name, combine_runs(folded.baseline_per_run),
                             folded.headline, judge, bench.linear)
