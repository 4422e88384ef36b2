"""``audiobench-history``: how a model's headline metrics moved over a series of runs (the last
twenty checkpoints, say), and which samples keep flipping between good and bad.

    audiobench-history REPORT_OR_FOLDER ... [--samples N] [--html PATH] [--html-audio-mb MB]

The inputs are JSON reports (``--audiobench-report``) or folders of them (every ``*.json``
directly in a folder, by name). The runs are ordered by their start time (UTC); a report
without one (a merge of shards) is placed by its file's modification time instead. Per
benchmark it prints a row per run: each headline metric with the gate's verdict, the
baseline's status, marked where the baseline changed, then the samples whose outcome flipped
most often with their outcome in each run. The page (``--html``, by default
``audiobench-history.html``) adds the gate's intervals, a chart per headline metric and each
flipped sample's question, answer, grading and audio, from the latest run that has it.

A report's records are read one report at a time: first each report's summaries and its
samples' outcomes, then again only the reports that hold the records the page shows.

Exit status: 0 when the page is written, 4 when a report cannot be read or none was given or
found, 3 when the page cannot be written, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.config import convert
from pytest_audiobench.errors import AudiobenchError, ReportError
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.evaluation import GateRow
from pytest_audiobench.outcome.numbers import fixed, signed
from pytest_audiobench.outcome.records import Outcome, SampleRecord
from pytest_audiobench.report import charts, html
from pytest_audiobench.report.html import Written, escape
from pytest_audiobench.report.model import BenchmarkSummary, RunReport
from pytest_audiobench.report.reading import read_report
from pytest_audiobench.untrusted import one_line

PROG = "audiobench-history"
ORDER = ("oldest first, by the run's start time (UTC); a report without one (a merge of "
         "shards) is placed by its file's modification time")
GOOD: frozenset[Outcome] = frozenset({"passed", "xpassed"})
BAD: frozenset[Outcome] = frozenset({"failed", "xfailed"})
"""A sample's outcome as a flip counts it; error, skipped and not run are no outcome."""
LETTERS: dict[Outcome | None, str] = {
    "passed": ".", "failed": "F", "xfailed": "x", "xpassed": "X", "error": "E",
    "skipped": "s", "not_run": "n", None: "-"}
"""A run's outcome in a sample's strip, in pytest's letters; ``-``: no record in that run."""
STRIP = ("outcome per run, oldest first: . passed, F failed, x xfailed, X xpassed (good: "
         "passed or xpassed, bad: failed or xfailed), E error, s skipped, n not run, - no record")
VERDICTS = {"worse within margin": "worse", "too small": "small", "not measured": "unmeasured",
            "not selected": "unselected", "can't tell": "unclear", "judge changed": "judge"}
"""The gate's verdicts as a cell says them, short (the others as they are)."""
LEGEND = ("ok, worse (within its margin), unclear (can't tell: a drop past the margin not "
          "ruled out), small (too small to gate), unselected, judge (the judge changed) and "
          "above (its threshold, not paired) hold; below, regressed and unmeasured fail; *: "
          "another baseline than the run before")
CHARTS = ("Each headline metric per run, oldest left: the bar is the gate's interval where it "
          "paired the metric (the change's interval, set on the value), the dashed line a run "
          "held against another baseline than the run before; red: the gate failed on it.")
WIDTH = 100
_CANONICAL: dict[str, Outcome] = {o: o for o in get_args(Outcome)}
"""One string object per outcome: twenty reports of 22,000 samples keep 440,000 outcomes, not
440,000 strings."""


@dataclass(frozen=True)
class Run:
    """One report as the history keeps it: where and when it ran, and its benchmarks'
    summaries (no sample records)."""

    path: Path
    place: int
    """Its place in the order the reports were read."""
    id: str
    started: str | None
    modified: float
    """Its file's modification time (seconds since the epoch)."""
    model: str
    revision: str | None
    gate_held: bool
    benchmarks: dict[str, BenchmarkSummary]

    @property
    def when(self) -> datetime:
        """Where it goes in the history (``placed``)."""
        return placed(self.started, self.modified)

    @property
    def gate(self) -> str:
        """held, FAILED, or no gate (no benchmark had one)."""
        if not any(s.gate is not None for s in self.benchmarks.values()):
            return "no gate"
        return "held" if self.gate_held else "FAILED"


def run_of(path: Path, place: int, report: RunReport, modified: float) -> Run:
    """What the history keeps of ``report``, read from ``path``."""
    info = report.run
    identity = info.identity if info else None
    return Run(path=path, place=place, id=info.id if info else path.name,
               started=info.started if info else None, modified=modified,
               model=report.settings.model,
               revision=identity.revision if identity else None, gate_held=report.gate_held,
               benchmarks={s.benchmark: s for s in report.benchmarks})


def placed(started: str | None, modified: float) -> datetime:
    """Where a run goes in the history: its start time (ISO 8601, UTC when it names no zone)
    when known (and readable as such), else its file's modification time."""
    if started:
        try:
            when = datetime.fromisoformat(started)
        except ValueError:
            pass
        else:
            return when if when.tzinfo else when.replace(tzinfo=UTC)
    return datetime.fromtimestamp(modified, UTC)


def in_order(runs: Iterable[Run]) -> list[Run]:
    """The runs oldest first (``placed``); ties by file time, then by path."""
    return sorted(runs, key=lambda run: (run.when, run.modified, str(run.path)))


@dataclass
class Outcomes:
    """Per sample node id, its benchmark and its outcome in each run that has a record of it
    (by the run's ``place``); nothing else of a record is kept."""

    benchmark: dict[str, str] = field(default_factory=dict)
    by_run: dict[str, dict[int, Outcome]] = field(default_factory=dict)

    def add(self, place: int, records: Iterable[SampleRecord]) -> None:
        """Note each record's outcome in the run read at ``place``."""
        for record in records:
            self.benchmark.setdefault(record.nodeid, record.benchmark)
            self.by_run.setdefault(record.nodeid, {})[place] = _CANONICAL[record.outcome]

    def strips(self, benchmark: str, runs: Sequence[Run]) -> dict[str, list[Outcome | None]]:
        """The benchmark's samples, each with its outcome in ``runs`` (None: no record)."""
        return {nodeid: [seen.get(run.place) for run in runs]
                for nodeid, seen in self.by_run.items() if self.benchmark[nodeid] == benchmark}


@dataclass(frozen=True)
class History:
    """The runs, oldest first, their samples' outcomes, and per benchmark the samples that
    flipped, ranked once for the table and the page (``flipped``)."""

    runs: list[Run]
    outcomes: Outcomes
    ranked: dict[str, list[Flipped]]

    def benchmarks(self) -> list[str]:
        """Every benchmark of any run, in the order they first appear."""
        return list(self.ranked)


def reports_in(paths: Sequence[Path]) -> list[Path]:
    """The reports named: files as they are, a folder's ``*.json`` files by name; a path
    named twice is read once."""
    if not paths:
        raise ReportError("no reports given: pass JSON reports (--audiobench-report) or "
                          "folders of them")
    found: list[Path] = []
    for path in paths:
        found += _folder(path) if path.is_dir() else [path]
    return list({p.resolve(): p for p in found}.values())


def _folder(path: Path) -> list[Path]:
    found = sorted(p for p in path.glob("*.json") if p.is_file())
    if not found:
        raise ReportError(f"{path}: a folder without a JSON report (*.json) in it")
    return found


def read_history(paths: Sequence[Path]) -> History:
    """Every report's summaries and its samples' outcomes, one report in memory at a time."""
    outcomes = Outcomes()
    runs = in_order(_read_one(path, place, outcomes) for place, path in enumerate(paths))
    names = dict.fromkeys(name for run in runs for name in run.benchmarks)
    return History(runs, outcomes, {name: flipped(outcomes.strips(name, runs)) for name in names})


def _read_one(path: Path, place: int, outcomes: Outcomes) -> Run:
    report = read_report(path, PROG)
    outcomes.add(place, report.samples)
    return run_of(path, place, report, path.stat().st_mtime)


def good(outcome: Outcome | None) -> bool | None:
    """True for a good outcome, False for a bad one, None for no outcome (``GOOD``, ``BAD``)."""
    return True if outcome in GOOD else False if outcome in BAD else None


def flip_runs(strip: Sequence[Outcome | None]) -> list[int]:
    """The runs (places in ``strip``) at which the sample turned from good to bad or back
    since the last run in which it had an outcome; runs without one flip nothing."""
    flips, last = [], None
    for index, now in enumerate(map(good, strip)):
        if now is None:
            continue
        if last is not None and now != last:
            flips.append(index)
        last = now
    return flips


@dataclass(frozen=True)
class Flipped:
    """A sample that flipped: its outcome per run and the runs at which it flipped."""

    nodeid: str
    strip: list[Outcome | None]
    flips: list[int]


def flipped(strips: Mapping[str, Sequence[Outcome | None]]) -> list[Flipped]:
    """The samples that flipped at least once, the most flips first; ties: the most recent
    flip first, then by node id."""
    every = (Flipped(nodeid, list(strip), flip_runs(strip)) for nodeid, strip in strips.items())
    return sorted((f for f in every if f.flips),
                  key=lambda f: (-len(f.flips), -f.flips[-1], f.nodeid))


def baseline_changed(before: BenchmarkSummary, after: BenchmarkSummary) -> bool:
    """Whether ``after``'s run was held against another baseline than ``before``'s (the run
    before it): by the files' digests when both are known, else when the path changed or
    ``before`` wrote a new baseline."""
    if before.baseline_digest is not None and after.baseline_digest is not None:
        return before.baseline_digest != after.baseline_digest
    return before.against != after.against or before.baseline_status == "written"


def changes(runs: Sequence[Run], benchmark: str) -> list[bool]:
    """Per run, whether its baseline for ``benchmark`` changed since the last run that ran
    the benchmark (False for the first, and for a run without it)."""
    out, before = [], None
    for run in runs:
        summary = run.benchmarks.get(benchmark)
        out.append(summary is not None and before is not None
                   and baseline_changed(before, summary))
        before = summary or before
    return out


def metric_names(runs: Sequence[Run], benchmark: str) -> list[str]:
    """The benchmark's headline metrics in any run, in the order they first appear."""
    return list(dict.fromkeys(name for run in runs if benchmark in run.benchmarks
                              for name in run.benchmarks[benchmark].headline))


def gate_row(summary: BenchmarkSummary | None, metric: str) -> GateRow | None:
    """The gate's row for ``metric`` in a run, if it gated it."""
    rows = summary.gate.rows if summary is not None and summary.gate is not None else []
    return next((row for row in rows if row.metric == metric), None)


def value_of(summary: BenchmarkSummary | None, metric: str) -> float | None:
    """The metric's value in a run; None when the run did not measure it."""
    found = summary.metrics.get(metric) if summary is not None else None
    return found.value if found is not None else None


def cell(summary: BenchmarkSummary | None, metric: str) -> str:
    """A metric in one run as the terminal table says it: its value and the gate's verdict."""
    value, row = value_of(summary, metric), gate_row(summary, metric)
    shown = "-" if value is None else fixed(value)
    return f"{shown} {VERDICTS.get(row.verdict, row.verdict)}" if row else shown


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
    rows += [(str(i), run.id, _started(run), run.model, run.revision or "-", run.gate)
             for i, run in enumerate(runs, 1)]
    return columns(rows, right={0})


def _started(run: Run) -> str:
    if run.started:
        return run.started
    return f"{run.when.isoformat(timespec='seconds')} (file time)"


def _benchmark_lines(history: History, name: str, shown: int) -> list[str]:
    runs = history.runs
    names = metric_names(runs, name)
    short, suffix = short_names(names, name)
    marks = changes(runs, name)
    fixed_cols = [("#", *map(str, range(1, len(runs) + 1))),
                  ("baseline", *(_status(run, name, mark) for run, mark in zip(runs, marks,
                                                                               strict=True))),
                  ("gate", *(_bench_gate(run.benchmarks.get(name)) for run in runs))]
    metric_cols = [(label, *(cell(run.benchmarks.get(name), metric) for run in runs))
                   for label, metric in zip(short, names, strict=True)]
    metrics = f"headline metrics ({suffix})" if suffix else "headline metrics"
    lines = prose(f"{name}: {metrics} per run, with the gate's verdict (the intervals are on "
                  "the page)")
    for part in _split(fixed_cols, metric_cols):
        lines += columns(list(zip(*part, strict=True)), right={0})
    lines += prose(f"verdicts: {LEGEND}")
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


def _status(run: Run, benchmark: str, changed: bool) -> str:
    summary = run.benchmarks.get(benchmark)
    if summary is None:
        return "-"
    return summary.baseline_status + (" *" if changed else "")


def _bench_gate(summary: BenchmarkSummary | None) -> str:
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


def write_page(history: History, path: Path, shown: int, audio_limit: int) -> Written:
    """The history as one self-contained page at ``path``: the runs, per benchmark a table
    and a chart per headline metric, and its most flipped samples, opening as on the run
    page (the records read again from the latest run that has each)."""
    chosen = {name: ranked[:shown] for name, ranked in history.ranked.items()}
    audio, written = html.audio_budget(path, audio_limit)
    rows = _sample_rows(history, [f.nodeid for fs in chosen.values() for f in fs], audio)
    models = ", ".join(dict.fromkeys(run.model for run in history.runs))
    head, tail = html.document(f"{models}: history of {len(history.runs)} runs")
    body = _page_header(history, models) + "".join(
        _page_benchmark(history, name, chosen[name], rows) for name in chosen)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as out:
        out.write(head + body + tail)
    return written


def _sample_rows(history: History, nodeids: Sequence[str], audio: html.Audio
                 ) -> dict[str, str]:
    """Each sample's row from the latest run with a record of it, reading again only the
    reports that hold one, one at a time."""
    latest: dict[int, set[str]] = {}
    for nodeid in nodeids:
        seen = history.outcomes.by_run[nodeid]
        run = next(r for r in reversed(history.runs) if r.place in seen)
        latest.setdefault(run.place, set()).add(nodeid)
    rows: dict[str, str] = {}
    for run in history.runs:
        if run.place in latest:
            rows |= _rows_of(run, latest[run.place], audio)
    return rows


def _rows_of(run: Run, wanted: set[str], audio: html.Audio) -> dict[str, str]:
    report = read_report(run.path, PROG)
    benches: dict[str, Benchmark] = {}
    rows = {}
    for record in report.samples:
        if record.nodeid not in wanted:
            continue
        bench = benches.setdefault(record.benchmark,
                                   registry.create(record.benchmark, report.settings))
        rows[record.nodeid] = html.sample_row(record, bench.view(record), audio)
    return rows


def _page_header(history: History, models: str) -> str:
    latest = history.runs[-1]
    state = {"held": "held", "FAILED": "failed"}.get(latest.gate, "none")
    head = ("#", "run", "report", "started", "model", "revision", "gate")
    rows = [(str(i), run.id, str(run.path), _started(run), run.model, run.revision or "-",
             run.gate) for i, run in enumerate(history.runs, 1)]
    return (f"<header><h1>{escape(models)}: history of {len(history.runs)} runs</h1>"
            f'<p class="verdict {state}" id="verdict">latest run: {escape(latest.gate)}</p>'
            f'<p class="note">{escape(ORDER)}</p>'
            + _table(head, [[(escape(c), "") for c in r] for r in rows],
                     'class="gate runs" id="runs"')
            + "</header>")


def _table(head: Sequence[str], rows: Sequence[Sequence[tuple[str, str]]], attrs: str) -> str:
    """A table; each cell is its HTML (escaped) and its class."""
    return (f"<table {attrs}><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(
                "<tr>" + "".join(f'<td class="{k}">{c}</td>' if k else f"<td>{c}</td>"
                                 for c, k in row) + "</tr>"
                for row in rows) + "</tbody></table>")


def _page_benchmark(history: History, name: str, chosen: Sequence[Flipped],
                    rows: Mapping[str, str]) -> str:
    runs = history.runs
    names = metric_names(runs, name)
    short, _ = short_names(names, name)
    marks = changes(runs, name)
    body = [[(str(i), ""), (escape(_status(run, name, mark)), "changed" if mark else ""),
             (escape(_bench_gate(run.benchmarks.get(name))), "")]
            + [_page_cell(run.benchmarks.get(name), metric) for metric in names]
            for i, (run, mark) in enumerate(zip(runs, marks, strict=True), 1)]
    charts_html = "".join(html.figure(charts.history(
        _points(runs, name, metric, marks), f"{name}: {label} per run"), label)
        for label, metric in zip(short, names, strict=True))
    return (f'<section class="benchmark history" id="bench-{escape(name)}">'
            f"<h2>{escape(name)}</h2>"
            + '<div class="wide">'
            + _table(("#", "baseline", "gate", *short), body, 'class="gate history"') + "</div>"
            + f'<p class="note">verdicts: {escape(LEGEND)}</p>'
            + f'<p class="note">{escape(CHARTS)}</p><div class="charts">{charts_html}</div>'
            + _page_samples(runs, chosen, rows) + "</section>")


def _page_cell(summary: BenchmarkSummary | None, metric: str) -> tuple[str, str]:
    """A metric in one run on the page: its cell, with the gate's interval, and its class."""
    row = gate_row(summary, metric)
    if row is None:
        return escape(cell(summary, metric)), ""
    return (f'{escape(cell(summary, metric))}<span class="interval">{escape(interval(row))}'
            "</span>", html.row_state(row))


def interval(row: GateRow) -> str:
    """What a gate's row held the metric against: the change's interval and the margin
    (paired), or the threshold and its tolerance."""
    if row.test != "paired":
        return f"threshold {fixed(row.threshold)} - {row.tolerance:g}"
    if row.difference is None:
        return "not paired"
    bounds = ("(no interval)" if row.low is None or row.high is None
              else f"[{signed(row.low)}, {signed(row.high)}]")
    return f"change {signed(row.difference)} {bounds}, margin {row.margin or 0:g}"


def _points(runs: Sequence[Run], benchmark: str, metric: str,
            marks: Sequence[bool]) -> list[charts.Point]:
    return [_point(str(i), run.benchmarks.get(benchmark), metric, mark)
            for i, (run, mark) in enumerate(zip(runs, marks, strict=True), 1)]


def _point(label: str, summary: BenchmarkSummary | None, metric: str,
           changed: bool) -> charts.Point:
    """A run of the chart: its value, and where the gate paired it, the change's interval
    moved onto the value (the value plus the interval's distance from the change)."""
    value, row = value_of(summary, metric), gate_row(summary, metric)
    state: charts.PointState = html.row_state(row) if row else "none"
    low = high = None
    if (value is not None and row is not None and row.difference is not None
            and row.low is not None and row.high is not None):
        low, high = value + row.low - row.difference, value + row.high - row.difference
    return charts.Point(label, value, low, high, state, changed)


def _page_samples(runs: Sequence[Run], chosen: Sequence[Flipped],
                  rows: Mapping[str, str]) -> str:
    if not chosen:
        return '<p class="note">No sample flipped between good and bad.</p>'
    items = "".join(f'<div class="flipped" data-flips="{len(f.flips)}">'
                    f"{_page_strip(runs, f)}{rows.get(f.nodeid, '')}</div>" for f in chosen)
    return (f'<section class="samples"><h3>Samples that flipped most often</h3>'
            f'<p class="note">{escape(STRIP)}</p><div class="rows">{items}</div></section>')


def _page_strip(runs: Sequence[Run], sample: Flipped) -> str:
    marks = "".join(
        f'<span class="{_tone(o)}" title="{i} {escape(run.id)}: '
        f'{escape((o or "no record").replace("_", " "))}">{escape(LETTERS[o])}</span>'
        for i, (run, o) in enumerate(zip(runs, sample.strip, strict=True), 1))
    return (f'<p class="strip"><span class="flips">{len(sample.flips)} flips</span> '
            f'<span class="runs">{marks}</span></p>')


def _tone(outcome: Outcome | None) -> str:
    return {True: "good", False: "bad", None: "none"}[good(outcome)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="How a model's headline metrics moved over a series of runs, and which "
                    f"samples keep flipping. The runs are ordered {ORDER}.",
        epilog="Exit status: 0 when the page is written, 4 when a report cannot be read or "
               "none was given or found, 3 when the page cannot be written, 2 for a bad "
               "option.")
    parser.add_argument("reports", nargs="*", type=Path, metavar="REPORT",
                        help="a JSON report (--audiobench-report) or a folder of them (every "
                             "*.json directly in it)")
    parser.add_argument("--samples", type=convert.non_negative_int, default=20, metavar="N",
                        help="flipped samples listed per benchmark (default 20)")
    parser.add_argument("--html", type=Path, default=Path("audiobench-history.html"),
                        metavar="PATH", help="write the history as one self-contained HTML "
                                             "page here (default audiobench-history.html)")
    parser.add_argument("--html-audio-mb", type=convert.non_negative_float, default=20.0,
                        metavar="MB", help="megabytes of audio the page embeds, each flipped "
                                           "sample's clip while they last; a clip beyond them "
                                           "is linked relative to the page (default 20)")
    args = parser.parse_args(argv)
    try:
        history = read_history(reports_in(args.reports))
        lines = render(history, args.samples)
        written = _written(history, args)
    except AudiobenchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 4
    if written is None:
        return 3
    print("\n".join(one_line(line) for line in [*lines, written.line()]))
    return 0


def _written(history: History, args: argparse.Namespace) -> Written | None:
    """The page written as asked; None, said, when it could not be."""
    try:
        return write_page(history, args.html, args.samples, int(args.html_audio_mb * 2**20))
    except OSError as exc:
        print(f"{PROG}: error: cannot write the page {args.html}: {exc}", file=sys.stderr)
        return None


if __name__ == "__main__":
    raise SystemExit(main())
