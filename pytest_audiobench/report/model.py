"""The run's report: computed once as data, printed as the terminal summary, written as JSON."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, model_validator

from pytest_audiobench import __version__
from pytest_audiobench.benchmarks.base import Release
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.decision import BaselineStatus, RunVerdict
from pytest_audiobench.gate.drift import Drift, JudgeComparison
from pytest_audiobench.gate.evaluation import Gate
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.cost import Cost, Spent, cost
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord
from pytest_audiobench.transport.types import ModelIdentity, Traffic, Usage
from pytest_audiobench.untrusted import SHOWN_CHARS, clipped, json_safe

FORMAT = 7
"""The JSON report's format; docs/report-format.md says what each one changed."""


class Counts(BaseModel):
    """Where every selected sample ended up; nothing is left uncounted."""

    selected: int
    left_out: int = 0
    """The release's samples the run's selection left out (-k, -m, --deselect, paths,
    --audiobench-tasks and --audiobench-limit; not a shard's split): what they would measure
    is not measured, and not gated."""
    passed: int = 0
    failed: int = 0
    regressed: int = 0
    """Of ``failed``, the items that regressed against their per-sample baseline line (the
    rest are below their bar); from each record's ``change``."""
    errors: int = 0
    skipped: int = 0
    not_run: int = 0
    xfailed: int = 0
    """Under their bar as in the per-sample baseline (expected failures)."""
    xpassed: int = 0
    """Under their bar in the baseline, clearing it now."""
    judge_failures: int = 0
    unfinished: int = 0
    """Samples whose grading could not be done on the way (``SampleRecord.unfinished``): their
    scores stand without it, and a resume grades them again."""
    """Judge passes whose every reply the parser rejected (excluded from the means)."""
    empty_answers: int = 0
    """The model's answers that were empty after it was asked again: counted as given (a
    multiple-choice item wrong, a judge's score), as the official scripts count them."""
    cut_answers: int = 0
    """The model's answers that stopped at the token limit (``finish_reason`` ``length``)."""
    confirmed: int = 0
    """Samples whose first draws suggested a drop, given fresh draws before their item was
    decided (``gate/sample_change.py``); ``confirmed_failed`` of them failed, over
    ``confirmation_rounds`` rounds in all."""
    confirmed_failed: int = 0
    confirmation_rounds: int = 0
    missing_by_task: dict[str, dict[str, int]] = {}
    """Per task, the samples without a score: errors, skips (no usable audio) and not run."""

    @property
    def missing(self) -> int:
        """Selected samples that have no score: each counts against the gate."""
        return self.errors + self.skipped + self.not_run


class BenchmarkSummary(BaseModel):
    benchmark: str
    metrics: dict[str, Metric]
    """The gated numbers; over several inference runs, the mean of the middle runs."""
    runs: list[dict[str, Metric]] = []
    """Each inference run's numbers, when --audiobench-runs is above 1."""
    headline: list[str]
    """The metrics the summary shows (and a new baseline holds), as the data decided them."""
    release_notes: list[str] = []
    """What the release implies for the numbers (kept so that a merge of shards says it too)."""
    withheld: bool = False
    """The release withholds its answers (a test split): no numbers, no gate."""
    failed_means: str = "failed"
    """What an item below its bar means here ("below the bar 5", "wrong")."""
    holds_items: bool = False
    """Its items were held against per-sample baseline lines (or a live model): the summary
    counts their regressions apart."""
    notes: list[str] = []
    """How the numbers were made (matcher, judge protocol, what is unavailable)."""
    counts: Counts
    baseline_file: str | None = None
    """The baseline file the gate held the run against, or wrote, or looked for; None head to
    head."""
    baseline_model: str | None = None
    """Head to head, the live baseline model the gate held the run against ("NAME at URL")."""
    baseline_digest: str | None = None
    """A hash of the baseline file the gate used (``LoadedBaseline.digest``): tells a
    rewritten baseline from the one before; None without one."""
    baseline_status: BaselineStatus
    gate: Gate | None = None
    replaced: Gate | None = None
    """With ``written`` or ``refused`` over an existing baseline: this run held against the
    baseline it replaces (or would have)."""
    refused_why: str | None = None
    """With ``refused``: why no baseline was written, when its gate does not say it (a
    partial run, --audiobench-update-if-held)."""
    fell_short: list[str] = []
    """With ``written`` or ``refused`` over an existing baseline: how this run falls short of
    the baseline it replaces (its failed metrics, its regressed items); a baseline written
    over one the run fell short of fails the run."""
    judge_comparison: JudgeComparison | None = None
    """What the gate paired this run against, and why (``gate/drift.py``); None without a
    judged per-sample baseline."""
    judge_drift: Drift | None = None
    """Today's judge on a share of the per-sample baseline's own answers (``gate/drift.py``);
    None without one, or when no answer was graded again."""
    unwritten: list[str] = []
    """What the benchmark was asked to write at the end and could not (its baseline, its
    export), a line each: the run then exits 3, not the gate's 0 or 1."""

    @property
    def against(self) -> str:
        """The baseline as the summary names it: the live model head to head, else its file."""
        return self.baseline_model or self.baseline_file or ""

    def release(self) -> Release:
        """What the release decided about the numbers, as this summary keeps it, without its
        samples (a merge of shards has no data; ``summary.summarise`` wrote these fields)."""
        return Release([], tuple(self.headline), tuple(self.release_notes), self.withheld)


class TokenUsage(BaseModel):
    """Tokens and requests of the model, of the live baseline model (head to head) and of the
    judge, each field of one side only; cached replies count their tokens (what the run would
    have cost) and are also counted apart."""

    model: Usage = Usage()
    """The model's answers' tokens, cached ones included (never the baseline model's)."""
    judge: Usage = Usage()
    """Every judge reply's tokens, cached ones included: the grading, the calibration's and
    the fresh draws' too."""
    baseline_model: Usage = Usage()
    """Head to head, the live baseline model's answers' tokens, cached ones included."""
    model_sent: Usage = Usage()
    """Of ``model``, the answers sent rather than served from the cache: what was paid for."""
    baseline_model_sent: Usage = Usage()
    """Of ``baseline_model``, the answers sent rather than served from the cache."""
    judge_sent: Usage = Usage()
    """Of ``judge``, the replies sent rather than served from the cache."""
    cost: Cost | None = None
    """What the tokens cost at --audiobench-price; None without a price."""
    model_requests: int = 0
    """The model's answers, as ``model`` counts them."""
    model_cached: int = 0
    """Of ``model_requests``, those served from the cache."""
    model_reused: int = 0
    """Of the cached ones, the answers another run got (--audiobench-reuse)."""
    baseline_model_requests: int = 0
    """Head to head, the live baseline model's answers, as ``baseline_model`` counts them."""
    baseline_model_cached: int = 0
    """Of ``baseline_model_requests``, those served from the cache."""
    judge_requests: int = 0
    """Judge calls, as ``judge`` counts them."""
    judge_cached: int = 0
    """Of ``judge_requests``, those served from the cache."""

    def spent(self, settings: Settings) -> dict[str, Spent]:
        """Per model id the run asked (``Settings.asked_models``, with its role), its tokens."""
        asked = settings.asked_models()
        sides = [(settings.model, self.model_sent, self.model),
                 (settings.baseline_endpoint.model if settings.baseline_endpoint else None,
                  self.baseline_model_sent, self.baseline_model),
                 (settings.judge.endpoint.model if settings.judge else None, self.judge_sent,
                  self.judge)]
        spent: dict[str, Spent] = {}
        for model, sent, counted in sides:
            if model is None:
                continue
            was = spent.get(model, Spent(role=asked[model]))
            spent[model] = Spent(role=was.role, sent=was.sent + sent,
                                 cached=was.cached + (counted - sent))
        return spent

    def priced(self, settings: Settings) -> TokenUsage:
        """These tokens with their cost at the run's prices."""
        return self.model_copy(update={"cost": cost(self.spent(settings), settings.price)})


class RunInfo(BaseModel):
    """Which run this is, and what it took from earlier ones."""

    id: str
    resumed: bool = False
    """It continued an interrupted run (the same id)."""
    reused: str | None = None
    """The earlier run whose answers could serve this one (--audiobench-reuse)."""
    notes: list[str] = []
    finished: bool = False
    """Every selected sample got an outcome other than not run (nothing left to resume)."""
    identity: ModelIdentity | None = None
    """What identifies the model: URL, id, revision, and what its server says of it."""
    started: str | None = None
    """When the run started, in UTC (ISO 8601)."""
    workers: int = 0
    """The xdist workers that ran its items (0: the run's one process)."""
    settled: int = 0
    """A resume: the samples an earlier session of the run did, whose records it took whole
    from the run's records, neither asking nor grading them again."""


class RunReport(BaseModel):
    """Everything about one run; ``samples`` holds every sample's request, answers and grades."""

    tool: str = "pytest-audiobench"
    version: str = __version__
    format: int = FORMAT
    settings: Settings
    run: RunInfo | None = None
    """None in a merge of shards, each of which was its own run."""
    benchmarks: list[BenchmarkSummary]
    judge_protocol: list[str] = []
    """How the benchmarks ask the judge (e.g. "both orders"), for the summary's first line."""
    usage: TokenUsage
    traffic: Traffic = Traffic()
    """Per endpoint: attempts, retries, 429 replies, time waited, and a stop if any; the cache
    entries that could not be read."""
    verdict: RunVerdict
    """The run's verdict as the gate decided it (``gate.decision.run_verdict``): what it is,
    whether it lets the run pass, the benchmarks that fail it, the metrics told."""
    gate_held: bool = False
    """The verdict's ``held``, written beside it for the scripts that read a report for one
    boolean; always the verdict's (``_held_as_decided``)."""
    scope: Scope = Scope()
    """Whether the run measured the benchmark whole: a rerun of earlier failures and a run
    stopped early are no release verdict (``gate/scope.py``)."""
    selected: list[str] = []
    """Node ids of every selected sample; those without a record did not run."""
    seconds: float | None = None
    """Wall-clock seconds from the start of the run to its report (a merge: the longest
    shard's)."""
    samples: list[SampleRecord]

    @model_validator(mode="after")
    def _held_as_decided(self) -> RunReport:
        """``gate_held`` is the verdict's, whatever was given: one fact, one value."""
        self.gate_held = self.verdict.held
        return self

    def write(self, path: Path, samples: Iterable[SampleRecord] | None = None) -> None:
        """Write the report as JSON with ``samples`` (by default its own), one record at a time:
        the bytes of ``model_dump_json(indent=1)`` of the report holding them, and a run's
        records never all in memory. The file appears only once it is whole."""
        head = json_safe(self.model_copy(update={"samples": []}).model_dump_json(indent=1))
        empty = '"samples": []\n}'
        assert head.endswith(empty), "samples must be the report's last field"
        with replacing(path) as out:
            out.write(head[:-len("[]\n}")])
            opened = False
            for record in self.samples if samples is None else samples:
                out.write(",\n" if opened else "[\n")
                out.write(textwrap.indent(bounded_json(record), "  "))
                opened = True
            out.write("\n ]\n}\n" if opened else "[]\n}\n")


def bounded_json(record: SampleRecord) -> str:
    """The record as the report writes it: ``model_dump_json(indent=1)``, each of its texts
    (an answer, a reasoning, a judge's reply) cut at ``untrusted.SHOWN_CHARS`` with its whole
    length and hash said, so that what a model chose to send does not set the report's size.
    A record with no text that long (a record shorter than the limit has none) is written as
    it is; in either, every character JSON lets through raw that could steer a terminal is
    written as its escape (``untrusted.json_safe``)."""
    text = record.model_dump_json(indent=1)
    if len(text) > SHOWN_CHARS:
        text = json.dumps(_bounded(record.model_dump(mode="json")), indent=1, ensure_ascii=False)
    return json_safe(text)


def _bounded(value: Any) -> Any:
    if isinstance(value, str):
        return clipped(value)
    if isinstance(value, list):
        return [_bounded(item) for item in value]
    if isinstance(value, dict):
        return {key: _bounded(item) for key, item in value.items()}
    return value


class Counting:
    """Where the ``selected`` samples (node ids) ended up, counted record by record; those
    without a record did not run (an interrupted run)."""

    def __init__(self, selected: Sequence[str]) -> None:
        self.counts = Counts(selected=len(selected))
        self._selected = selected
        self._recorded: set[str] = set()

    def add(self, record: SampleRecord) -> None:
        counts = self.counts
        setattr(counts, _COUNTER[record.outcome], getattr(counts, _COUNTER[record.outcome]) + 1)
        counts.regressed += record.change == "regressed"
        counts.judge_failures += sum(grade.judge_failures for grade in record.grades)
        counts.unfinished += record.unfinished is not None
        counts.empty_answers += sum(answer.empty for answer in record.answers)
        counts.cut_answers += sum(answer.completion.cut for answer in record.answers)
        if record.confirmation:
            counts.confirmed += 1
            counts.confirmed_failed += record.outcome == "failed"
            counts.confirmation_rounds += len(record.confirmation)
        if record.outcome in _MISSING:
            _note_missing(counts, record.task, record.outcome)
        self._recorded.add(record.nodeid)

    def done(self) -> Counts:
        for nodeid in self._selected:
            if nodeid not in self._recorded:
                self.counts.not_run += 1
                _note_missing(self.counts, NodeId.parse(nodeid).task, "not_run")
        return self.counts


_MISSING = ("error", "skipped", "not_run")


def _note_missing(counts: Counts, task: str, outcome: str) -> None:
    per_task = counts.missing_by_task.setdefault(task, {})
    per_task[outcome] = per_task.get(outcome, 0) + 1


_COUNTER = {"passed": "passed", "failed": "failed", "error": "errors", "skipped": "skipped",
            "not_run": "not_run", "xfailed": "xfailed", "xpassed": "xpassed"}


def add_usage(total: TokenUsage, record: SampleRecord) -> None:
    """Add one record's tokens and requests to ``total``, each side to its own fields."""
    for answer in record.answers:
        total.model = total.model + answer.completion.usage
        total.model_requests += 1
        total.model_cached += answer.completion.cached
        total.model_reused += answer.completion.reused_from is not None
    for answer in record.baseline_answers:
        total.baseline_model = total.baseline_model + answer.completion.usage
        total.baseline_model_requests += 1
        total.baseline_model_cached += answer.completion.cached
    total.model_sent = total.model_sent + _sent(record.answers)
    total.baseline_model_sent = total.baseline_model_sent + _sent(record.baseline_answers)
    # The calibration and the confirmation cost too.
    for grade in [*record.grades, *record.baseline_grades, *record.confirmation,
                  *record.confirmation_of_baseline]:
        total.judge = total.judge + grade.judge_usage
        total.judge_sent = total.judge_sent + grade.judge_sent_usage
        total.judge_requests += grade.judge_calls
        total.judge_cached += grade.judge_cached


def _sent(answers: Iterable[ModelAnswer]) -> Usage:
    return sum((a.completion.usage for a in answers if not a.completion.cached), Usage())
