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
from pytest_audiobench.gate.evaluation import UNRESOLVED, Gate, Measured, RowStatus, evaluate
from pytest_audiobench.gate.evidence import Evidence
from pytest_audiobench.gate.paired import judge_noise
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import SampleLine

BaselineStatus = Literal["applied", "missing", "written", "refused", "unwritten", "shard",
                         "unselected", "unscored", "partial"]
"""``unselected``: the run's selection held none of the benchmark's samples: nothing to gate.
``unscored``: the release withholds its answers (a test split): nothing to measure.
``partial``: a rerun of earlier failures or a run stopped early (``scope.py``): no metric is
gated, only its items."""


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
    replaced: Gate | None = None
    """With ``written`` or ``refused`` over an existing baseline: the run held against the
    baseline it replaces (what the new file records, and the verdict says)."""
    why: str | None = None
    """With ``refused``: why nothing was written, when its gate does not say it (a partial
    run, --audiobench-update-if-held)."""
    short: tuple[str, ...] = ()
    """With ``written`` or ``refused`` over an existing baseline: how this run falls short of
    the baseline it replaces (its metrics that failed, its items that regressed); empty when
    it does not. A baseline written over one the run fell short of fails the run (exit 1):
    the file is written as asked, and a job that writes it can fail on it."""


def decide(settings: Settings, evidence: Evidence, partial: bool = False) -> Decision:
    """Hold the benchmark's numbers against its baseline (paired where its metrics were
    assessed); with --audiobench-update-baseline decide to write a new one, with this run's
    sample lines (and the old lines of samples this run did not score), when they would hold
    against it (a shard never gates: its merge does), holding the run against the baseline it
    replaces first, its items that regressed included. What the run's selection left out is
    not measured, and never fails the gate; a release without answers to score is neither
    gated nor written. ``partial``: a rerun of earlier failures or a run stopped early
    (``scope.py``): no metric is gated, and no baseline written."""
    folded, loaded = evidence.folded, evidence.baseline
    path, current = loaded.path, loaded.file
    # First: a shard holds one slice, so neither its gate nor a baseline from it means anything;
    # its merge decides.
    if settings.shard is not None:
        return Decision("shard", path)
    if not folded.selected and folded.left_out:
        return Decision("unselected", path)
    if folded.withheld:
        return Decision("unscored", path)
    if partial and settings.update_baseline:
        return Decision("refused", path, why=PARTIAL_WRITES_NONE)
    if partial:
        return Decision("partial" if current is not None else "missing", path)
    held = None if current is None else _held(settings, current, evidence)
    if settings.update_baseline:
        return _update(settings, evidence, held)
    return Decision("missing", path) if held is None else Decision("applied", path, held)


PARTIAL_WRITES_NONE = ("a rerun of earlier failures or a run stopped early is not a sample of "
                       "the benchmark: it writes no baseline (run the whole selection)")


def _held(settings: Settings, current: baselines.Baseline, evidence: Evidence) -> Gate:
    """The run held against the baseline file ``current``."""
    loaded = evidence.baseline
    # Judged again today: the thresholds the old judge set say nothing, its model id neither
    # (head to head, today's judge set them, on the live model's answers).
    stale = loaded.judged.metrics if loaded.rejudged and loaded.baseline_endpoint is None else None
    return evaluate(current, _measured(settings, evidence), allowed=settings.max_errors,
                    stale=stale,
                    lower=baselines.lower_better(current.metrics, evidence.pairing.linear))


def _measured(settings: Settings, evidence: Evidence) -> Measured:
    """What the run measured of the benchmark, as a baseline is held against it."""
    return Measured(evidence.metrics, evidence.folded.missing,
                    settings.judge.endpoint.model if settings.judge else None, evidence.judge,
                    evidence.model, evidence.assessed, narrowed=evidence.folded.left_out > 0)


def _update(settings: Settings, evidence: Evidence, replaced: Gate | None) -> Decision:
    """Write a baseline from this run when the run holds against it; over an existing one
    (``replaced``: the run held against it), record what it replaces and how the run fell
    short of it (its items that regressed too), and with --audiobench-update-if-held refuse
    unless the run held against it: no metric failed, no item regressed, and some metric was
    told (a benchmark too small to gate held nothing)."""
    loaded, pairing = evidence.baseline, evidence.pairing
    path, current = loaded.path, loaded.file
    # The old lines without their texts: the judge's noise needs their draws only.
    lines = {**pairing.base, **pairing.new}
    short = () if replaced is None else fell_short(replaced, evidence.folded.regressed)
    replaces = None if current is None or replaced is None else baselines.Replaced.of(
        current, not short, list(short))
    measured = _measured(settings, evidence)
    made = baselines.Provenance(evidence.name, settings.model, measured.judge_model,
                                evidence.judge, evidence.model, judge_noise(lines.values()),
                                replaces)
    fresh = baselines.from_run(made, evidence.metrics, evidence.folded.headline, pairing.linear,
                               current, settings.tolerance, settings.max_errors)
    lower = baselines.lower_better(fresh.metrics, pairing.linear)
    # The new file held against the run that writes it: one that run would fail already (a
    # metric the old file held that this run did not measure, more samples missing than it
    # allows) is refused rather than written to fail the next run.
    gate = evaluate(fresh, Measured(evidence.metrics, measured.missing, measured.judge_model),
                    lower=lower)
    if not gate.held:
        return Decision("refused", path, gate, replaced=replaced, short=short)
    unproven = None if replaced is None else not_held(replaced, short)
    if unproven is not None and settings.update_if_held:
        return Decision("refused", path, replaced, replaced=replaced, short=short,
                        why=f"{unproven} (--audiobench-update-if-held)")
    return Decision("written", path, gate, BaselineUpdate(path, fresh, pairing.new, pairing.base),
                    replaced=replaced, short=short)


def fell_short(replaced: Gate, regressed: int) -> tuple[str, ...]:
    """How a run falls short of the baseline it replaces: its reasons for failing against it,
    and its items that regressed against their lines (which the metrics may not show: a
    benchmark too small to gate regresses item by item)."""
    items = (f"{regressed} item(s) regressed against their baseline lines",) if regressed else ()
    return (*replaced.reasons(), *items)


def not_held(replaced: Gate, short: Sequence[str]) -> str | None:
    """Why a run did not hold against the baseline it would replace, or None when it did:
    it fell short of it (``short``), or it told none of its metrics (too small to gate, or
    can't tell: nothing shows that it holds)."""
    if short:
        more = f" (and {len(short) - 1} more)" if len(short) > 1 else ""
        return f"it falls short of the baseline it would replace: {short[0]}{more}"
    if not any(row.status not in UNRESOLVED for row in replaced.rows):
        return (f"it held nothing against the baseline it would replace: none of its "
                f"{len(replaced.rows)} metric(s) could be told from chance (too small to gate, "
                "or can't tell), so nothing shows that it holds")
    return None


VerdictKind = Literal["held", "failed", "blind", "partial", "shard", "ungated"]
"""What the run's verdict is (``run_verdict``): ``held`` and ``failed``, the gate's decision;
``blind``, no metric was tested (each too small to gate, not selected, or held against
another judge's threshold; a selection narrowed by -k, -m, --deselect or paths: none was told,
past can't tell), so the gate overrules no item and pytest's own status stands;
``partial``, a rerun of earlier failures or a run stopped early (``scope.py``); ``shard``, one
slice of a run, gated by its merge; ``ungated``, some benchmark had no gate (no baseline, no
sample selected, no answers published)."""

UNTESTED: frozenset[RowStatus] = frozenset({"too small", "not selected", "judge changed"})
"""The row statuses of a metric the gate did not test at all."""


@dataclass(frozen=True, slots=True)
class Decided:
    """One benchmark as the run's verdict reads it: what became of its baseline, its gate,
    and its items."""

    name: str
    status: BaselineStatus
    gate: Gate | None
    failed: int
    """Items that failed: regressed against their baseline line, or below their bar."""
    regressed: int
    """Of ``failed``, those that regressed against their baseline line."""
    missing: int
    """Selected samples without a score (errors, skips, not run)."""
    short: bool = False
    """A baseline written over one the run fell short of (``Decision.short``)."""

    @property
    def fails(self) -> bool:
        """Whether it fails the run: its baseline refused, written over one the run fell
        short of, or its gate not held."""
        return self.status == "refused" or self.short or (
            self.gate is not None and not self.gate.held)


@dataclass(frozen=True, slots=True)
class RunVerdict:
    """The run's verdict, decided once (``run_verdict``), with what those who show it read:
    the exit status, the report, the summary's last line, the page and compare read it, and
    none works it out again."""

    kind: VerdictKind
    held: bool
    """Whether the gate lets the run pass (pytest's own failures aside)."""
    failed: tuple[str, ...] = ()
    """The benchmarks that fail the run, in the run's order (its verdict names the first)."""
    told: int = 0
    """Of the metrics the applied gates held (``tested``), those told from chance: held or
    failed, not can't tell, too small, not selected or judged by another judge. None told:
    the gate held nothing, and says so."""
    tested: int = 0
    """The metrics the applied gates held."""


def run_verdict(decided: Sequence[Decided], scope: Scope, sharded: bool) -> RunVerdict:
    """The one place that decides whether the run held: a shard never decides; a gate that
    failed, a baseline refused, or one written over a baseline the run fell short of, fails
    the run; a partial run passes only when none of its items failed and nothing is missing
    (and, for a rerun, the last whole run held: a subset drawn again cannot overturn it); a
    gate that tested no metric while samples regressed does not overrule pytest's items
    (``blind``: they decide); else the gate held."""
    applied = [d.gate for d in decided if d.status == "applied" and d.gate is not None]
    rows = [row for gate in applied for row in gate.rows]
    failed = tuple(d.name for d in decided if d.fails)
    told = sum(row.status not in UNRESOLVED for row in rows)

    def verdict(kind: VerdictKind, held: bool) -> RunVerdict:
        return RunVerdict(kind, held, failed, told, len(rows))

    if sharded:
        return RunVerdict("shard", True)
    if failed:
        return verdict("failed", False)
    # With no baseline a partial run's benchmark is "missing": a run stopped early is as
    # partial with a baseline as without one, and passes on the same terms.
    if scope.partial and any(d.status in ("partial", "missing") for d in decided):
        clean = scope.stopped is None and not any(d.failed or d.missing for d in decided)
        last = scope.last_whole
        return verdict("partial", clean and (last is None or last.held))
    if applied and not vouches(applied, scope):
        return verdict("blind", not any(d.failed for d in decided))
    if any(d.gate is None for d in decided):
        return verdict("ungated", True)
    return verdict("held", True)


def vouches(gates: Sequence[Gate], scope: Scope) -> bool:
    """Whether the gate said anything of the model: it tested a metric (a selection narrowed
    by -k, -m, --deselect or paths: it told one, past can't tell); else it is blind, and the
    items decide."""
    silent = UNRESOLVED if scope.narrowed else UNTESTED
    return any(row.status not in silent for gate in gates for row in gate.rows)


def exit_status(settings: Settings, verdict: RunVerdict, status: int | pytest.ExitCode,
                foreign_failures: int = 0, unwritten: int = 0) -> int | pytest.ExitCode:
    """The exit status of a run, or of a merge of its shards, from the run's ``verdict`` and
    the status pytest (or the merge, from its samples) would give. The one place that
    decides it:

    - pytest's own status stands for interruptions, usage errors and internal errors;
    - 3 (internal error) when an output it was asked for could not be written (``unwritten``:
      its report, page, baseline or export), whatever the gate said: a resume writes it;
    - a shard never gates: 0, or 1 when tests that are not samples failed;
    - 1 when the verdict does not hold, or other tests failed (``foreign_failures``);
    - else 0 when the gate held, even if samples failed (unless --audiobench-fail-on-samples);
      pytest's status when some benchmark was not gated, or the run was a partial one."""
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return status
    if unwritten:
        return pytest.ExitCode.INTERNAL_ERROR
    if verdict.kind == "shard":
        return pytest.ExitCode.TESTS_FAILED if foreign_failures else pytest.ExitCode.OK
    if not verdict.held or foreign_failures:
        return pytest.ExitCode.TESTS_FAILED
    if settings.fail_on_samples or verdict.kind in ("ungated", "partial", "blind"):
        return status
    return pytest.ExitCode.OK
