"""The collection tree ``audiobench::<benchmark>::<task>::<sample id>`` and its items.

Each sample is a ``pytest.Function`` whose fixtures do the work: ``audiobench_answers`` asks
the model (once per ``--audiobench-runs``), ``audiobench_grades`` grades each answer, and
the test body holds the grades against the benchmark's per-sample bar. So an endpoint that
fails is an error in setup, a poor answer is a failure, and an empty audio file is a skip.

On a resume, the item of a sample an earlier session of the run did takes that session's
record whole at setup (``run/spool.py``) and replays its outcome: no audio is read, nothing is
asked or graded, and only the outcome travels back to the controller, which keeps the record.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.reporting import SHOWN, text_field
from pytest_audiobench.benchmarks.sample import ROOT_NODE, Sample
from pytest_audiobench.errors import AudiobenchError, EmptyAudio, JudgeError, NotRun
from pytest_audiobench.gate.sample_change import Change, ItemDecision, item_decision, unpaired
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.records import Grade, ModelAnswer, Outcome, SampleRecord
from pytest_audiobench.report.html import baseline_side, item_extra
from pytest_audiobench.run.internals import fixture_info
from pytest_audiobench.run.keeping import (
    compact_stash,
    let_go_of_locals,
    one_string_a_failure,
)
from pytest_audiobench.run.keys import SAMPLE_KEY
from pytest_audiobench.run.stash import session_of
from pytest_audiobench.untrusted import clipped, visible

STATE_KEY = pytest.StashKey["ItemState"]()
SCORED_KEY = pytest.StashKey["ItemState"]()
"""A failed item's state, kept for the next attempt when pytest-rerunfailures runs it again
(``--reruns``): a sample scored once is not asked again. Its replies are the model's answer
and the judge's grading; asking again until an attempt passes would keep the best of several
draws, which flatters the model (the same bias as drawing again only where the first draws
looked low). Only an attempt that scored nothing (an error) is asked again."""


@dataclass
class ItemState:
    """What an item learned so far; turned into its SampleRecord at teardown."""

    outcome: Outcome = "passed"
    message: str | None = None
    answers: list[ModelAnswer] = field(default_factory=list)
    grades: list[Grade] = field(default_factory=list)
    phases: list[str] = field(default_factory=list)
    shortfall: str | None = None
    """How the benchmark says the sample falls short of its bar (its failure message), asked
    once when it is graded; None when it clears it."""
    change: Change | None = None
    """Against the per-sample baseline: regressed, xfailed or xpassed, with both lines."""
    decided: ItemDecision = field(default_factory=lambda: ItemDecision(None))
    """What becomes of the item (``gate/sample_change.item_decision``), kept in its record."""
    baseline_grades: list[Grade] = field(default_factory=list)
    baseline_grades_failed: str | None = None
    """The baseline's answer graded again by today's judge, or why it could not be."""
    baseline_answers: list[ModelAnswer] = field(default_factory=list)
    """Head to head: the live baseline model's answers, which ``again`` grades."""
    confirmation: tuple[list[Grade], list[Grade], str | None] = ([], [], None)
    """Fresh draws on the answer and the baseline's, and why a round failed (gate/sample_change)."""
    settled: SampleRecord | None = None
    """A resume: the record an earlier session of the run made of the sample, which the item
    takes whole (``run/spool.py``) and replays to the same outcome."""
    raised: list[BaseException] = field(default_factory=list)
    """What the setup and the call raised, whose frames' locals are let go at teardown
    (``run/keeping.let_go_of_locals``)."""

    @classmethod
    def of_settled(cls, record: SampleRecord) -> ItemState:
        """The state of an item that takes ``record`` whole: its answers, grades and what
        became of it, as when it was made."""
        return cls(answers=list(record.answers), grades=list(record.grades),
                   decided=ItemDecision(record.change, record.message), settled=record)

    def replayed(self) -> ItemState:
        """This attempt's scoring, for the next attempt of the same item: the same answers,
        grades and decision, its phases still to run."""
        return ItemState(answers=self.answers, grades=self.grades, shortfall=self.shortfall,
                         change=self.change, decided=self.decided,
                         baseline_grades=self.baseline_grades,
                         baseline_grades_failed=self.baseline_grades_failed,
                         baseline_answers=self.baseline_answers, confirmation=self.confirmation,
                         settled=self.settled)

    def record(self, sample: Sample) -> SampleRecord:
        if self.settled is not None:
            # Replayed to another end than it had (a plugin's error): that end, said.
            return self.settled.model_copy(update={"outcome": self.outcome,
                                                   "message": self.message})
        return sample.to_record(
            outcome=self.outcome, answers=self.answers, grades=self.grades,
            message=self.message, change=self.decided.kind, baseline_answers=self.baseline_answers,
            unfinished=next((why for v in self.grades if (why := v.unfinished)), None),
            baseline_grades=self.baseline_grades,
            baseline_grades_failed=self.baseline_grades_failed,
            confirmation=self.confirmation[0], confirmation_of_baseline=self.confirmation[1],
            confirmation_failed=self.confirmation[2])


class SampleItem(pytest.Function):
    """One benchmark sample as a test item."""

    def reportinfo(self) -> tuple[Path, int, str]:
        sample = self.stash[SAMPLE_KEY]
        return sample.audio, 0, f"{sample.benchmark} {sample.task} {sample.id}"

    @functools.cached_property
    def location(self) -> tuple[str, int | None, str]:
        """pytest's location of the item, its audio clip's path relative to the rootdir. pytest
        keeps every distinct path it makes one of to the end of the session (a path object and
        its string, about 400 bytes), and each sample's clip is a path of its own."""
        path, line, domain = self.reportinfo()
        try:
            return os.path.relpath(os.path.abspath(path), self.config.rootpath), line, domain
        except ValueError:  # on another drive than the rootdir: pytest's absolute path
            return str(Path(os.path.abspath(path))), line, domain


class Group(pytest.Collector):
    """One level of the tree: the root groups samples by benchmark, a benchmark by task, and
    a task holds the items."""

    _LEVELS = ("benchmark", "task")

    def __init__(self, *, samples: list[Sample], depth: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.samples = samples
        self.depth = depth

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        if self.depth == len(self._LEVELS):
            # Every item of a task runs the same function at the same place in the tree, so
            # the first one's fixture closure serves the rest, as pytest shares one among a
            # parametrized test's items: a closure per item cost about 1 KB and 0.1 ms.
            shared = None
            for sample in self.samples:
                item = SampleItem.from_parent(self, name=sample.id, callobj=check_sample,
                                              fixtureinfo=shared)
                shared = fixture_info(item)
                item.stash[SAMPLE_KEY] = sample
                yield item
            return
        groups: dict[str, list[Sample]] = {}
        for sample in self.samples:
            groups.setdefault(getattr(sample, self._LEVELS[self.depth]), []).append(sample)
        for name, members in groups.items():
            yield Group.from_parent(self, name=name, samples=members, depth=self.depth + 1)


def root(session: pytest.Session, samples: list[Sample]) -> Group:
    """The tree's root, marked ``audiobench`` so that ``-m audiobench`` runs the samples
    alone in a repository that has other tests."""
    group = Group.from_parent(session, name=ROOT_NODE, nodeid=ROOT_NODE, samples=samples)
    group.add_marker(ROOT_NODE)
    return group


def check_sample(audiobench_sample: Sample, audiobench_answers: list[ModelAnswer],
                 audiobench_grades: list[Grade], request: pytest.FixtureRequest) -> None:
    """Fail when the sample regressed against its per-sample baseline, or when the benchmark
    says it falls short (below the bar, a wrong choice): with a per-sample baseline, a sample
    that fell short before too is an expected failure (marked so in its setup)."""
    state = request.node.stash[STATE_KEY]
    if state.settled is not None:
        if state.settled.outcome in ("failed", "xfailed"):
            pytest.fail(state.settled.message or "failed", pytrace=False)
        return
    if state.decided.kind == "regressed" and state.change is not None:
        session = session_of(request.config)
        today = session.baselines[audiobench_sample.benchmark].rejudged
        shown = session.worker.benchmarks[audiobench_sample.benchmark].compared(
            audiobench_sample, state.change.base.answer, state.change.new.answer)
        pytest.fail(regression_report(audiobench_sample, state.change, today, shown),
                    pytrace=False)
    if state.shortfall is not None:
        pytest.fail(state.shortfall, pytrace=False)


def regression_report(sample: Sample, change: Change, today: bool = False,
                      shown: Sequence[str] = ()) -> str:
    """The baseline's answer and the new one side by side, with both judges' replies (the
    baseline's graded ``today`` in this run, or when it was written: "then"), and what the
    benchmark shows of the two beside them (``Benchmark.compared``)."""
    base, new = change.base, change.new
    return "\n".join([
        f"regressed: {change.reason}",
        *([text_field("question", sample.question)] if sample.question else []),
        text_field("reference", sample.reference),
        text_field("baseline", base.answer),
        text_field("now", new.answer), *shown,
        *_graded("base" if today else "then", base), *_graded("now", new),
        f"audio: {sample.audio}"])


def _graded(when: str, line: SampleLine) -> list[str]:
    """The judge's replies and the scores read from them; the scores alone when a rule, not
    a judge, graded the sample."""
    scores = ", ".join(f"{d:g}" for d in line.draws)
    label = f"{when}:".ljust(5)
    if not line.replies:
        return [f"score {label} {scores}"]
    # repr shows every control character and keeps a reply on its line; a long one is cut.
    replies = " | ".join(repr(clipped(r, SHOWN)) for r in line.replies)
    return [f"judge {label} {replies} -> {scores}"]


def sample_of(request: pytest.FixtureRequest) -> Sample:
    sample: Sample | None = request.node.stash.get(SAMPLE_KEY, None)
    if sample is None:
        raise pytest.UsageError(
            f"{request.node.nodeid}: the audiobench_* fixtures serve only the plugin's own "
            "sample items")
    return sample


def answers_of(request: pytest.FixtureRequest, sample: Sample) -> list[ModelAnswer]:
    worker = session_of(request.config).worker
    scored: ItemState | None = request.node.stash.get(SCORED_KEY, None)
    if scored is not None:
        request.node.stash[STATE_KEY] = scored.replayed()
        return scored.answers
    settled = worker.settled.take(sample.nodeid)
    if settled is not None:
        return _settled(request, settled)
    state = request.node.stash.setdefault(STATE_KEY, ItemState())
    if worker.settings.dry_run:
        pytest.skip("dry run: nothing is sent")
    try:
        answers = worker.wait(worker.flow(sample).answer)
    except EmptyAudio as exc:
        worker.done(sample)
        pytest.skip(str(exc))
    except NotRun as exc:
        worker.done(sample)
        state.outcome, state.message = "not_run", str(exc)
        pytest.skip(f"not run: {exc}")
    state.answers = answers
    worker.warn(sample, answers)
    return answers


def _settled(request: pytest.FixtureRequest, record: SampleRecord) -> list[ModelAnswer]:
    """The answers of a sample an earlier session of the run did, from its record; skipped
    again when it was (its audio was empty)."""
    state = request.node.stash[STATE_KEY] = ItemState.of_settled(record)
    if record.outcome == "skipped":
        pytest.skip(record.message or "skipped")
    return state.answers


def grades_of(request: pytest.FixtureRequest, sample: Sample) -> list[Grade]:
    worker = session_of(request.config).worker
    state = request.node.stash.setdefault(STATE_KEY, ItemState())
    if request.node.stash.get(SCORED_KEY, None) is not None or state.settled is not None:
        return _replayed(request, sample, state)
    try:
        graded = worker.wait(worker.flow(sample).grade)
    except JudgeError as exc:
        if exc.grade is not None:
            state.grades = [exc.grade]
        raise
    except NotRun as exc:
        state.outcome, state.message = "not_run", str(exc)
        pytest.skip(f"not run: {exc}")
    finally:
        worker.done(sample)
    state.baseline_grades = graded.baseline_grades
    state.baseline_grades_failed = graded.baseline_grades_failed
    state.baseline_answers = graded.baseline_answers
    baseline = session_of(request.config).baselines[sample.benchmark]
    why = baseline.unpaired(graded.baseline_grades_failed)
    if why is not None:
        # Not scored: the gate could not pair it; its replies stay in the cache for a resume.
        state.decided = unpaired(why)
        raise JudgeError(why)
    grades = state.grades = graded.grades
    bench = worker.benchmarks[sample.benchmark]
    request.node.user_properties += junit_properties(bench.properties(grades))
    state.shortfall = bench.failure(sample, state.answers, grades)
    state.change, held = session_of(request.config).change_of(sample, state.record(sample),
                                                              state.shortfall is not None)
    state.confirmation = (held.confirmation, held.confirmation_of_baseline,
                          held.confirmation_failed)
    state.decided = item_decision(state.change, state.shortfall,
                                  worker.settings.update_baseline)
    if state.decided.kind is not None:
        request.node.user_properties.append(("audiobench_change", state.decided.kind))
    if state.decided.expected:
        # Set before the call, where pytest reads xfail marks: the bar's failure is then
        # reported as xfailed, and a sample that clears it as XPASS.
        request.node.add_marker(pytest.mark.xfail(reason=state.decided.reason, strict=False))
    return grades


def _replayed(request: pytest.FixtureRequest, sample: Sample, state: ItemState
              ) -> list[Grade]:
    """The grades of an attempt that scored the sample already, as that attempt had them."""
    bench = session_of(request.config).worker.benchmarks[sample.benchmark]
    request.node.user_properties += junit_properties(bench.properties(state.grades))
    if state.decided.kind is not None:
        request.node.user_properties.append(("audiobench_change", state.decided.kind))
    if state.decided.expected:
        request.node.add_marker(pytest.mark.xfail(reason=state.decided.reason or "",
                                                  strict=False))
    return state.grades


def junit_properties(properties: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """A sample's --junitxml properties with each text made visible and cut at
    ``untrusted.SHOWN_CHARS``: a model's answer sets neither the file's size nor what a CI
    page shows."""
    return [(name, clipped(visible(value)) if isinstance(value, str) else value)
            for name, value in properties]


def note_phase(item: pytest.Item, report: pytest.TestReport, excinfo: Any) -> None:
    """Fold one phase's report into the item's record; attach it to the teardown report."""
    sample = item.stash.get(SAMPLE_KEY, None)
    if sample is None:
        return
    state = item.stash.setdefault(STATE_KEY, ItemState())
    if hasattr(report, "wasxfail") and report.when == "call":
        state.outcome = "xfailed" if report.skipped else "xpassed"
        state.message = str(report.wasxfail)
    elif report.skipped and state.outcome == "passed":
        state.outcome = "skipped"
        state.message = _skip_reason(report)
    elif report.failed and state.outcome in ("passed", "skipped"):
        state.outcome = "failed" if report.when == "call" else "error"
        state.message = _message(excinfo)
        if excinfo is not None and isinstance(excinfo.value, AudiobenchError):
            # Our errors say all there is to say; the engine's traceback would bury it. What a
            # server said in one (an error body) is shown, never sent to the terminal raw.
            state.message = visible(state.message)
            report.longrepr = state.message
    if excinfo is not None and report.when != "teardown":
        state.raised.append(excinfo.value)
    if report.failed:
        one_string_a_failure(report, excinfo.value if excinfo is not None else None)
    if report.when == "teardown":
        _finish(item, report, state, sample)


def _finish(item: pytest.Item, report: pytest.TestReport, state: ItemState,
            sample: Sample) -> None:
    """Attach the item's record to its teardown report, and let go of what the item no longer
    needs."""
    record = state.record(sample)
    if state.settled is not None and record.outcome == state.settled.outcome:
        # The controller keeps this record already: only its outcome travels.
        report.audiobench_settled = record.outcome  # type: ignore[attr-defined]
    else:
        # As JSON text: cheap to send from an xdist worker, and kept as it is on disk.
        report.audiobench_record = record.model_dump_json()  # type: ignore[attr-defined]
    _html_extra(item, report, record)
    # A plugin may keep what the setup or the call raised (pytest-rerunfailures does, to the
    # end of the run): its frames would keep this sample's answers, grades, state and
    # fixtures. The phases' reports are made and --pdb has had them, so their locals go.
    for error in state.raised:
        let_go_of_locals(error)
    state.raised.clear()
    # pytest keeps every item to the end of the run; its answers and grades now travel
    # in the record, so the item need not hold them as well (unless pytest-rerunfailures,
    # which counts an item's attempts, may run a failed one again).
    if state.outcome == "failed" and may_run_again(item):
        item.stash[SCORED_KEY] = state
    elif SCORED_KEY in item.stash:
        del item.stash[SCORED_KEY]
    del item.stash[STATE_KEY]
    compact_stash(item)


def may_run_again(item: pytest.Item) -> bool:
    """Whether pytest-rerunfailures runs this item again when it fails: --reruns (or its ini
    key), --force-reruns, or a ``flaky`` mark."""
    config = item.config
    if not config.pluginmanager.hasplugin("rerunfailures"):
        return False
    if item.get_closest_marker("flaky") is not None:
        return True
    given = config.getoption("force_reruns", None) or config.getoption("reruns", None)
    if given is None:
        with contextlib.suppress(TypeError, ValueError):
            given = int(config.getini("reruns"))
    return bool(given)


def _html_extra(item: pytest.Item, report: pytest.TestReport, record: SampleRecord) -> None:
    """With pytest-html writing a report (``--html``), the sample's row carries its details
    and its audio player."""
    target = getattr(item.config.option, "htmlpath", None)
    if not target or not item.config.pluginmanager.hasplugin("html"):
        return
    from pytest_html import extras

    session = session_of(item.config)
    bench = session.benchmarks[record.benchmark]
    base = baseline_side(bench, record, session.baselines[record.benchmark].lines)
    pair = (base, bench.gating().line(record) if base else None)
    content = item_extra(record, bench.view(record), pair,
                         Path(item.config.invocation_params.dir, target).parent)
    report.extras = [*getattr(report, "extras", []),  # type: ignore[attr-defined]
                     extras.html(content)]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _message(excinfo: Any) -> str:
    if excinfo is None:
        return "failed"
    value = excinfo.value
    text = getattr(value, "msg", None) or str(value)
    return f"{type(value).__name__}: {text}" if not isinstance(value, pytest.fail.Exception) \
        else str(text)
