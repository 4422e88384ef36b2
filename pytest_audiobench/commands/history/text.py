"""The history as text: a table per benchmark, a row per run, and the samples that flipped
most with their strip of outcomes."""


from __future__ import annotations

import textwrap
from collections.abc import Sequence

from pytest_audiobench.commands.history.flips import Flipped, gate_row, value_of
from pytest_audiobench.commands.history.runs import ORDER, History, Run, changes, metric_names
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.outcome.records import Outcome
from pytest_audiobench.report.model import BenchmarkSummary

LETTERS: dict[Outcome | None, str] = {
    "passed": ".", "failed": "F", "xfailed": "x", "xpassed": "X", "error": "E",
    "skipped": "s", "not_run": "n", None: "-"}
"""A run's outcome in a sample's strip, in pytest's letters; ``-``: no record in that run."""


STRIP = ("outcome per run, oldest first: . passed, F failed, x xfailed, X xpassed (good: "
         "passed or xpassed, bad: failed or xfailed), E error, s skipped, n not run, - no record")


STATUSES = {"worse within margin": "worse", "too small": "small", "not measured": "unmeasured",
            "not selected": "unselected", "can't tell": "unclear", "judge changed": "judge"}
"""The gate rows' statuses as a cell says them, short (the others as they are)."""


LEGEND = ("ok, worse (within its margin), unclear (can't tell: a drop past the margin not "
          "ruled out), small (too small to gate), unselected, judge (the judge changed) and "
          "above (its threshold, not paired) hold; below, regressed and unmeasured fail; *: "
          "another baseline than the run before")


WIDTH = 100


def cell(summary: BenchmarkSummary | None, metric: str) -> str:
    """A metric in one run as the terminal table says it: its value and its row's status."""
    value, row = value_of(summary, metric), gate_row(summary, metric)
    shown = "-" if value is None else fixed(value)
    return f"{shown} {STATUSES.get(row.status, row.status)}" if row else shown


def render(history: History, shown: int) -> list[str]:
    """The runs, then per benchmark its metrics per run and its samples that flipped most."""
    runs = history.runs
    lines = [*prose(f"{len(runs)} run{'s' if len(runs) != 1 else ''}, {ORDER}"), "",
             *_run_table(runs)]
    for name in history.benchmarks():
        lines += ["", *_benchmark_lines(history, name, shown)]
    return lines


def _run_table(runs: Sequence[Run]) -> list[str]:
    rows = [("#", "run", "started", "model", "revision", "gate")]
    rows += [(str(i), run.id, started(run), run.model, run.revision or "-", run.gate)
             for i, run in enumerate(runs, 1)]
    return columns(rows, right={0})


def started(run: Run) -> str:
    if run.started:
        return run.started
    return f"{run.when.isoformat(timespec='seconds')} (file time)"


def _benchmark_lines(history: History, name: str, shown: int) -> list[str]:
    runs = history.runs
    names = metric_names(runs, name)
    short, suffix = short_names(names, name)
    marks = changes(runs, name)
    fixed_cols = [("#", *map(str, range(1, len(runs) + 1))),
                  ("baseline", *(status(run, name, mark) for run, mark in zip(runs, marks,
                                                                               strict=True))),
                  ("gate", *(bench_gate(run.benchmarks.get(name)) for run in runs))]
    metric_cols = [(label, *(cell(run.benchmarks.get(name), metric) for run in runs))
                   for label, metric in zip(short, names, strict=True)]
    metrics = f"headline metrics ({suffix})" if suffix else "headline metrics"
    lines = prose(f"{name}: {metrics} per run, with each row's status (the intervals are on "
                  "the page)")
    for part in _split(fixed_cols, metric_cols):
        lines += columns(list(zip(*part, strict=True)), right={0})
    lines += prose(f"statuses: {LEGEND}")
    return lines + _flipped_lines(history.ranked[name], shown)


def short_names(names: Sequence[str], benchmark: str) -> tuple[list[str], str]:
    """The metrics' names without the benchmark's prefix and, when they all end alike (as
    ``.score``), without that ending, which is returned."""
    bare = [n.removeprefix(f"{benchmark}.") for n in names]
    ends = {n.rpartition(".")[2] for n in bare}
    if len(ends) == 1 and all("." in n for n in bare):
        (end,) = ends
        return [n.removesuffix(f".{end}") for n in bare], end
    return bare, ""


def status(run: Run, benchmark: str, changed: bool) -> str:
    summary = run.benchmarks.get(benchmark)
    if summary is None:
        return "-"
    return summary.baseline_status + (" *" if changed else "")


def bench_gate(summary: BenchmarkSummary | None) -> str:
    if summary is None or summary.gate is None:
        return "-"
    return "held" if summary.gate.held else "FAILED"


Column = tuple[str, ...]


def _split(first: Sequence[Column], rest: Sequence[Column]) -> list[list[Column]]:
    """The table's columns in parts of at most ``WIDTH`` characters: the first part with
    ``first``, each further one with the first of them (the run's number)."""
    parts, part = [], list(first)
    for col in rest:
        if len(part) > 1 and _width([*part, col]) > WIDTH:
            parts.append(part)
            part = [first[0]]
        part.append(col)
    return [*parts, part]


def _width(cols: Sequence[Column]) -> int:
    return sum(max(map(len, col)) for col in cols) + 2 * (len(cols) - 1)


def columns(rows: Sequence[Sequence[str]], right: frozenset[int] | set[int] = frozenset()
            ) -> list[str]:
    """``rows`` as aligned columns two spaces apart, those in ``right`` aligned right."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i in right else c.ljust(w)
                      for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in rows]


def prose(text: str, indent: str = "") -> list[str]:
    """A sentence in lines of at most ``WIDTH`` characters."""
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False)


def strip_text(strip: Sequence[Outcome | None]) -> str:
    """A sample's outcome per run as one letter each (``LETTERS``)."""
    return "".join(LETTERS[o] for o in strip)


def _flipped_lines(ranked: Sequence[Flipped], shown: int) -> list[str]:
    if not ranked:
        return ["samples that flipped between good and bad: none"]
    if not shown:
        return [f"samples that flipped between good and bad: {len(ranked)}"]
    more = f", the {shown} that flipped most" if len(ranked) > shown else ""
    lines = [f"samples that flipped between good and bad: {len(ranked)}{more}",
             *prose(f"  {STRIP}", indent="  ")]
    rows = [(str(len(f.flips)), strip_text(f.strip), f.nodeid) for f in ranked[:shown]]
    return lines + [f"  {line}" for line in columns([("flips", "runs", "sample"), *rows],
                                                     right={0})]
