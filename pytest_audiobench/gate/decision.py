"""What the gate decides for a run: per benchmark, hold the numbers against its baseline or
decide to write a new one (``writing.py`` writes it), and from those decisions the run's exit
status and the words that explain it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate import baseline as baselines
from pytest_audiobench.gate.evaluation import Gate, Pairing, evaluate
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.paired import Assessed, judge_noise
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity

BaselineStatus = Literal["applied", "missing", "written", "refused", "unwritten", "shard",
                         "unselected", "unscored"]
"""``unselected``: the run's selection held none of the benchmark's samples: nothing to gate.
``unscored``: the release withholds its answers (a test split): nothing to measure."""


@dataclass(frozen=True, slots=True)
class BaselineUpdate:
    """A baseline the gate decided to write (``writing.apply`` writes it): the new file and,
    beside it, this run's sample lines, with the old lines of samples this run did not score."""

    path: Path
    baseline: baselines.Baseline
    new: Mapping[str, SampleLine]
    old: Mapping[str, SampleLine]

    def lines(self) -> Iterator[SampleLine]:
        """Every line to write, in node id order; the old ones read back whole, one by one."""
        for nodeid in sorted({*self.old, *self.new}):
            line = self.new.get(nodeid) or baselines.whole(self.old, nodeid)
            if line is not None:
                yield line


@dataclass(frozen=True, slots=True)
class Decision:
    """One benchmark's baseline: what happened to it, and the gate it gave."""

    status: BaselineStatus
    path: Path
    gate: Gate | None = None
    update: BaselineUpdate | None = None
    """With ``written``: what to write, when the session ends."""


def decide(settings: Settings, benchmark: str, headline: Sequence[str],
           metrics: Mapping[str, Metric], missing: int, loaded: LoadedBaseline,
           identities: tuple[ModelIdentity | None, JudgeIdentity | None],
           pairing: Pairing | None = None,
           assessed: Mapping[str, Assessed] | None = None, *, selected: int = 1,
           left_out: int = 0, withheld: bool = False) -> Decision:
    """Hold ``metrics`` against the baseline (paired where ``assessed`` has them); with
    --audiobench-update-baseline decide to write a new one, with this run's sample lines (and
    the old lines of samples this run did not score), when they would hold against it (a
    shard never gates: its merge does). ``identities``: the model's and the judge's.
    ``selected`` and ``left_out``: the benchmark's samples the run's selection took and left
    out; what was not selected is not measured, and never fails the gate. ``withheld``: the
    release has no answers to score (it is neither gated nor written as a baseline)."""
    path, current = loaded.path, loaded.file
    identity, judge = identities
    judge_model = settings.judge.endpoint.model if settings.judge else None
    if settings.shard is not None:
        return Decision("shard", path)
    if not selected and left_out:
        return Decision("unselected", path)
    if withheld:
        return Decision("unscored", path)
    if settings.update_baseline:
        base, new = (pairing.base, pairing.new) if pairing else ({}, {})
        lines = {**base, **new}  # the old lines without their texts: the noise needs draws
        spans = baselines.spans_of(headline, pairing.linear) if pairing else {}
        fresh = baselines.from_run(benchmark, settings.model, judge_model, metrics,
                                   tuple(headline), settings.tolerance, current,
                                   settings.max_errors, identity, judge_noise(lines.values()),
                                   judge, spans=spans)
        gate = evaluate(fresh, metrics, missing, judge_model)
        if not gate.held:
            return Decision("refused", path, gate)
        return Decision("written", path, gate, BaselineUpdate(path, fresh, new, base))
    if current is None:
        return Decision("missing", path)
    # Judged again today: the thresholds the old judge set say nothing, its model id neither
    # (head to head, today's judge set them, on the live model's answers).
    stale = loaded.judged.metrics if loaded.rejudged and loaded.baseline_endpoint is None else None
    return Decision("applied", path,
                    evaluate(current, metrics, missing, judge_model, settings.max_errors,
                             identity, assessed, stale, narrowed=left_out > 0, judge=judge))


def exit_status(settings: Settings, gates: Sequence[Gate | None], status: int | pytest.ExitCode,
                foreign_failures: int = 0, unwritten: int = 0) -> int | pytest.ExitCode:
    """The exit status of a run, or of a merge of its shards, from what the gate decided per
    benchmark (``gates``: None for a benchmark it did not gate) and the status pytest (or the
    merge, from its samples) would give. The one place that decides it:

    - pytest's own status stands for interruptions, usage errors and internal errors;
    - 3 (internal error) when an output it was asked for could not be written (``unwritten``:
      its report, page, baseline or export), whatever the gate said: a resume writes it;
    - a shard never gates: 0, or 1 when tests that are not samples failed;
    - 1 when a gate failed, or other tests failed (``foreign_failures``);
    - else 0 when every benchmark was gated and held, even if samples failed (unless
      --audiobench-fail-on-samples); pytest's status when some benchmark was not gated."""
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return status
    if unwritten:
        return pytest.ExitCode.INTERNAL_ERROR
    if settings.shard is not None:
        return pytest.ExitCode.TESTS_FAILED if foreign_failures else pytest.ExitCode.OK
    gated = [gate for gate in gates if gate is not None]
    if not all(gate.held for gate in gated) or foreign_failures:
        return pytest.ExitCode.TESTS_FAILED
    if settings.fail_on_samples or len(gated) < len(gates):
        return status
    return pytest.ExitCode.OK
