"""The run's report: computed once as data, printed as the terminal summary, written as JSON."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from pytest_audiobench import __version__
from pytest_audiobench.baseline import Gate
from pytest_audiobench.client import Usage
from pytest_audiobench.results import SampleRecord
from pytest_audiobench.scoring import Metric
from pytest_audiobench.settings import Settings

BaselineStatus = Literal["applied", "missing", "written", "refused", "shard"]


class Counts(BaseModel):
    """Where every selected sample ended up; nothing is left uncounted."""

    selected: int
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    not_run: int = 0
    judge_failures: int = 0
    """Judge passes whose every reply the parser rejected (excluded from the means)."""

    @property
    def gate_errors(self) -> int:
        return self.errors + self.not_run


class BenchmarkSummary(BaseModel):
    benchmark: str
    metrics: dict[str, Metric]
    """The gated numbers; over several inference runs, the mean of the middle runs."""
    runs: list[dict[str, Metric]] = []
    """Each inference run's numbers, when --audiobench-runs is above 1."""
    headline: list[str]
    failed_means: str = "failed"
    """What a failed item means here ("below the bar 5", "wrong")."""
    notes: list[str] = []
    """How the numbers were made (matcher, judge protocol, what is unavailable)."""
    counts: Counts
    baseline_path: str
    baseline: BaselineStatus
    gate: Gate | None = None


class TokenUsage(BaseModel):
    """Tokens and requests of the model and of the judge; cached replies count their tokens
    (what the run would have cost) and are also counted apart."""

    model: Usage = Usage()
    judge: Usage = Usage()
    model_requests: int = 0
    model_cached: int = 0
    judge_requests: int = 0
    judge_cached: int = 0


class RunReport(BaseModel):
    """Everything about one run; ``samples`` holds every sample's request, answer and verdict."""

    tool: str = "pytest-audiobench"
    version: str = __version__
    settings: Settings
    benchmarks: list[BenchmarkSummary]
    usage: TokenUsage
    gate_held: bool
    selected: list[str] = []
    """Node ids of every selected sample; those without a record did not run."""
    samples: list[SampleRecord]

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.model_dump_json(indent=1) + "\n", encoding="utf-8")


def count(records: Sequence[SampleRecord], selected: int) -> Counts:
    counts = Counts(selected=selected)
    for record in records:
        setattr(counts, _COUNTER[record.outcome], getattr(counts, _COUNTER[record.outcome]) + 1)
        counts.judge_failures += sum(verdict.judge_failures for verdict in record.verdicts)
    counts.not_run += max(0, selected - len(records))
    return counts


_COUNTER = {"passed": "passed", "failed": "failed", "error": "errors", "skipped": "skipped",
            "not_run": "not_run"}


def usage(records: Sequence[SampleRecord]) -> TokenUsage:
    total = TokenUsage()
    for record in records:
        for answer in record.answers:
            total.model = total.model + answer.completion.usage
            total.model_requests += 1
            total.model_cached += answer.completion.cached
        for verdict in record.verdicts:
            total.judge = total.judge + verdict.judge_usage
            total.judge_requests += verdict.judge_calls
            total.judge_cached += verdict.judge_cached
    return total


def text_field(label: str, text: str) -> str:
    """``label:`` and a text indented under it, long texts cut with the length said."""
    body = text if len(text) <= 2000 else text[:2000] + f" ... [{len(text) - 2000} more chars]"
    return f"{label + ':':<11}" + textwrap.indent(body, " " * 11).lstrip()


def render(report: RunReport, verbose: bool = False) -> list[str]:
    """The terminal summary: per benchmark a table of metric, n, value, baseline, delta and
    verdict, then the counts and the gate's decision."""
    settings = report.settings
    judge = settings.judge
    runs = f", {settings.runs} runs per sample" if settings.runs > 1 else ""
    orders = "both orders" if judge is not None and judge.swap else "reference first only"
    if judge is None:
        described = "no judge"
    elif judge.offline:
        described = (f"offline judge {judge.endpoint.model} ({orders}; not comparable to "
                     "published LLM-judge scores)")
    else:
        described = (f"judge {judge.endpoint.model} (temperature "
                     f"{judge.endpoint.sampling.temperature:g}, {orders}, prompt "
                     f"{judge.template_path or 'built-in'})")
    lines = [f"model {settings.model} at {settings.endpoint.url}{runs}; {described}"]
    for summary in report.benchmarks:
        lines += ["", *_table(summary, verbose), *_footer(summary)]
    u = report.usage
    lines += ["", f"requests: model {u.model_requests} ({u.model_cached} from the cache), "
              f"judge {u.judge_requests} ({u.judge_cached} from the cache)",
              f"tokens: model {u.model.prompt_tokens} prompt ({u.model.audio_tokens} audio) "
              f"+ {u.model.completion_tokens} completion; judge {u.judge.prompt_tokens} prompt "
              f"+ {u.judge.completion_tokens} completion"]
    if settings.report_path is not None:
        lines.append(f"JSON report: {settings.report_path}")
    return lines


def _table(summary: BenchmarkSummary, verbose: bool) -> list[str]:
    gated = {row.metric: row for row in summary.gate.rows} if summary.gate else {}
    names = list(summary.metrics) if verbose else list(summary.headline)
    names += [name for name in gated if name not in names]
    rows = [("metric", "n", "value", "baseline", "delta", "verdict")]
    for name in names:
        metric = summary.metrics.get(name)
        row = gated.get(name)
        rows.append((
            name,
            str(metric.n) if metric else "-",
            f"{metric.value:.2f}" if metric else "n/a",
            f"{row.threshold:.2f} ± {row.tolerance:g}" if row else "-",
            f"{row.delta:+.2f}" if row and row.delta is not None else "",
            row.verdict if row else "",
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) if i < 5 else cell
                      for i, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in rows]


def _footer(summary: BenchmarkSummary) -> list[str]:
    c = summary.counts
    lines = [*summary.notes,
        f"samples: {c.selected} selected, {c.passed} passed, {c.failed} {summary.failed_means}, "
        f"{c.errors} errors, {c.skipped} skipped, {c.not_run} not run",
    ]
    if c.judge_failures:
        lines.append(f"judge: {c.judge_failures} pass(es) without a parseable reply, excluded "
                     "from the means")
    if summary.baseline == "shard":
        lines.append("gate: this is a shard; audiobench-merge gates on the union of all shards")
    elif summary.baseline == "missing":
        lines.append(f"gate: no baseline at {summary.baseline_path}: no gate applied")
    elif summary.baseline == "written":
        lines.append(f"gate: baseline written to {summary.baseline_path}")
    elif summary.baseline == "refused" and summary.gate is not None:
        lines.append(f"gate: FAILED: baseline NOT written to {summary.baseline_path}: "
                     + "; ".join(summary.gate.reasons()))
    elif summary.gate is not None:
        gate = summary.gate
        allowance = f"{c.gate_errors} errors, {gate.max_errors} allowed"
        if gate.held:
            lines.append(f"gate: held ({allowance}) against {summary.baseline_path}")
        else:
            lines.append(f"gate: FAILED against {summary.baseline_path}: "
                         + "; ".join(gate.reasons()))
    return lines
