"""The history as an HTML page: the gate's intervals, a chart per headline metric, and each
flipped sample's question, answer, grading and audio from the latest run that has it."""


from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.commands.history.flips import Flipped, gate_row, good, value_of
from pytest_audiobench.commands.history.runs import ORDER, History, Run, changes, metric_names, read
from pytest_audiobench.commands.history.text import (
    LEGEND,
    LETTERS,
    STRIP,
    bench_gate,
    cell,
    short_names,
    started,
    status,
)
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.evaluation import GateRow
from pytest_audiobench.outcome.numbers import fixed, signed
from pytest_audiobench.outcome.records import Outcome
from pytest_audiobench.report import charts, html
from pytest_audiobench.report.html import Written, escape
from pytest_audiobench.report.model import BenchmarkSummary

CHARTS = ("Each headline metric per run, oldest left: the bar is the gate's interval where it "
          "paired the metric (the change's interval, set on the value), the dashed line a run "
          "held against another baseline than the run before; red: the gate failed on it.")


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
    report = read(run.path)
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
    rows = [(str(i), run.id, str(run.path), started(run), run.model, run.revision or "-",
             run.gate) for i, run in enumerate(history.runs, 1)]
    return (f"<header><h1>{escape(models)}: history of {len(history.runs)} runs</h1>"
            f'<p class="badge {state}" id="verdict">latest run: {escape(latest.gate)}</p>'
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
    body = [[(str(i), ""), (escape(status(run, name, mark)), "changed" if mark else ""),
             (escape(bench_gate(run.benchmarks.get(name))), "")]
            + [_page_cell(run.benchmarks.get(name), metric) for metric in names]
            for i, (run, mark) in enumerate(zip(runs, marks, strict=True), 1)]
    charts_html = "".join(html.figure(charts.history(
        _points(runs, name, metric, marks), f"{name}: {label} per run"), label)
        for label, metric in zip(short, names, strict=True))
    return (f'<section class="benchmark history" id="bench-{escape(name)}">'
            f"<h2>{escape(name)}</h2>"
            + '<div class="wide">'
            + _table(("#", "baseline", "gate", *short), body, 'class="gate history"') + "</div>"
            + f'<p class="note">statuses: {escape(LEGEND)}</p>'
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
