"""The HTML report's charts as inline SVG (pure): no library, nothing fetched when the page
is viewed. A forest plot shows each gated metric's change against the baseline with its
interval and the margin; a bar chart shows groups of metrics, baseline beside this run; a line
chart shows one metric across runs (``audiobench-history``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Literal

from pytest_audiobench.outcome.numbers import fixed, signed

LABEL_WIDTH = 300
PLOT_WIDTH = 420
ROW = 24
TOP = 28


RowState = Literal["ok", "worse", "small", "failed"]


@dataclass(frozen=True, slots=True)
class Change:
    """One row of the forest plot: a metric's change and what it is held against."""

    label: str
    change: float
    low: float | None
    high: float | None
    limit: float
    """The change allowed at worst: the margin (paired) or the tolerance (threshold), as a
    negative, or a positive for a metric better lower."""
    state: RowState
    """How it is drawn: held, worse within its margin, too small to gate (muted), failed."""
    span: float | None = None
    """The width of the metric's range, when known: its change lies within plus or minus it,
    and so does the axis."""


def _scale(lo: float, hi: float, span: float | None) -> tuple[float, float]:
    """The axis: the points with some room, never past the range of the metrics' change."""
    pad = (hi - lo) * 0.08 or 1.0
    low, high = lo - pad, hi + pad
    if span is not None:
        low, high = max(low, min(lo, -span)), min(high, max(hi, span))
    return low, high


def _x(value: float, lo: float, hi: float) -> float:
    return LABEL_WIDTH + (value - lo) / (hi - lo) * PLOT_WIDTH


def _tick(value: float) -> str:
    return signed(value) if value else "0"


def forest(rows: Sequence[Change], caption: str) -> str:
    """Each metric's change (a dot) with its interval (a bar), the zero line and the allowed
    drop (a dashed mark per row); a failed row is drawn in the alarm colour."""
    if not rows:
        return ""
    points = [v for r in rows for v in (r.change, r.low, r.high, r.limit, 0.0) if v is not None]
    spans = [r.span for r in rows if r.span is not None]
    lo, hi = _scale(min(points), max(points), max(spans) if spans else None)
    height = TOP + ROW * len(rows) + 24
    zero = _x(0.0, lo, hi)
    parts = [f'<svg class="chart forest" role="img" viewBox="0 0 {LABEL_WIDTH + PLOT_WIDTH + 20}'
             f' {height}" width="{LABEL_WIDTH + PLOT_WIDTH + 20}" height="{height}">',
             f"<title>{escape(caption)}</title>",
             f'<line class="axis" x1="{zero:.1f}" y1="{TOP - 8}" x2="{zero:.1f}" '
             f'y2="{height - 20}"/>',
             f'<text class="tick" x="{zero:.1f}" y="{height - 6}">0</text>',
             f'<text class="tick" x="{LABEL_WIDTH}" y="{height - 6}">{_tick(lo)}</text>',
             f'<text class="tick" x="{LABEL_WIDTH + PLOT_WIDTH}" y="{height - 6}">'
             f"{_tick(hi)}</text>"]
    for index, row in enumerate(rows):
        parts.append(_forest_row(row, TOP + ROW * index, lo, hi))
    parts.append("</svg>")
    return "".join(parts)


def _forest_row(row: Change, y: float, lo: float, hi: float) -> str:
    out = [f'<g class="row {row.state}" data-metric="{escape(row.label)}">',
           f'<text class="label" x="{LABEL_WIDTH - 8}" y="{y + 4}">{escape(row.label)}</text>',
           f'<line class="limit" x1="{_x(row.limit, lo, hi):.1f}" y1="{y - 8}" '
           f'x2="{_x(row.limit, lo, hi):.1f}" y2="{y + 8}"/>']
    if row.low is not None and row.high is not None:
        out.append(f'<line class="interval" x1="{_x(row.low, lo, hi):.1f}" y1="{y}" '
                   f'x2="{_x(row.high, lo, hi):.1f}" y2="{y}"/>')
    out.append(f'<circle class="point" cx="{_x(row.change, lo, hi):.1f}" cy="{y}" r="4">'
               f"<title>{escape(row.label)}: {row.change:+.3f}</title></circle></g>")
    return "".join(out)


@dataclass(frozen=True, slots=True)
class Bar:
    """One group of the bar chart: its value in this run and in the baseline, if any."""

    label: str
    value: float
    baseline: float | None


def bars(rows: Sequence[Bar], caption: str, top: float) -> str:
    """Horizontal bars from 0 to ``top``: this run's value, with the baseline's as a thin
    bar under it."""
    if not rows:
        return ""
    height = TOP + ROW * len(rows) + 10
    parts = [f'<svg class="chart bars" role="img" viewBox="0 0 {LABEL_WIDTH + PLOT_WIDTH + 60}'
             f' {height}" width="{LABEL_WIDTH + PLOT_WIDTH + 60}" height="{height}">',
             f"<title>{escape(caption)}</title>"]
    for index, row in enumerate(rows):
        y = TOP + ROW * index
        width = max(0.0, min(row.value, top)) / top * PLOT_WIDTH
        parts.append(f'<g class="row" data-metric="{escape(row.label)}">'
                     f'<text class="label" x="{LABEL_WIDTH - 8}" y="{y + 4}">'
                     f"{escape(row.label)}</text>"
                     f'<rect class="value" x="{LABEL_WIDTH}" y="{y - 8}" width="{width:.1f}" '
                     f'height="10"/>')
        if row.baseline is not None:
            base = max(0.0, min(row.baseline, top)) / top * PLOT_WIDTH
            parts.append(f'<rect class="baseline" x="{LABEL_WIDTH}" y="{y + 3}" '
                         f'width="{base:.1f}" height="4"/>')
        parts.append(f'<text class="tick" x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 2}">'
                     f"{fixed(row.value)}</text></g>")
    parts.append("</svg>")
    return "".join(parts)


HISTORY_LEFT = 56
HISTORY_WIDTH = 400
HISTORY_TOP = 12
HISTORY_HEIGHT = 120
"""The line chart's plot area: from x 56 to 456, from y 12 (the top) to 132."""

PointState = RowState | Literal["none"]
"""The metric's row status in one run, as drawn; ``none``: the run had no gate."""


@dataclass(frozen=True, slots=True)
class Point:
    """One run of a metric's history."""

    label: str
    """The run as the x axis names it."""
    value: float | None
    """None: the run did not measure the metric."""
    low: float | None = None
    high: float | None = None
    """The gate's interval where it paired the metric, in the metric's own units."""
    state: PointState = "none"
    baseline_changed: bool = False
    """The run was held against another baseline than the run before it."""


def history(points: Sequence[Point], caption: str) -> str:
    """The metric across the runs, oldest left, evenly spaced (one run: in the middle): a dot
    per run that measured it, joined by a line broken where a run did not, the gate's
    interval as a vertical bar, a dashed vertical mark where the baseline changed, and a
    failed status in the alarm colour. Empty when no run measured it."""
    scale = _history_scale(points)
    if scale is None:
        return ""
    lo, hi = scale
    width, height = HISTORY_LEFT + HISTORY_WIDTH + 24, HISTORY_TOP + HISTORY_HEIGHT + 32
    values = [p.value for p in points if p.value is not None]
    parts = [f'<svg class="chart history" role="img" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}">', f"<title>{escape(caption)}</title>",
             *(_history_tick(v, lo, hi) for v in sorted({min(values), max(values)})),
             _history_line(points, lo, hi)]
    parts += [_history_point(p, _run_x(i, len(points)), lo, hi) for i, p in enumerate(points)]
    parts.append("</svg>")
    return "".join(parts)


def _history_scale(points: Sequence[Point]) -> tuple[float, float] | None:
    """The value axis: every value and interval end with a tenth of their range above and
    below (1 when they are all equal)."""
    ends = [v for p in points for v in (p.value, p.low, p.high) if v is not None]
    if not ends:
        return None
    pad = (max(ends) - min(ends)) * 0.1 or 1.0
    return min(ends) - pad, max(ends) + pad


def _run_x(index: int, count: int) -> float:
    if count == 1:
        return HISTORY_LEFT + HISTORY_WIDTH / 2
    return HISTORY_LEFT + index * HISTORY_WIDTH / (count - 1)


def _value_y(value: float, lo: float, hi: float) -> float:
    return HISTORY_TOP + (hi - value) / (hi - lo) * HISTORY_HEIGHT


def _history_tick(value: float, lo: float, hi: float) -> str:
    return (f'<text class="ytick" x="{HISTORY_LEFT - 8}" y="{_value_y(value, lo, hi) + 4:.1f}">'
            f"{fixed(value)}</text>")


def _history_line(points: Sequence[Point], lo: float, hi: float) -> str:
    """The line through the dots, lifted where a run did not measure the metric."""
    steps, drawn, pen = [], 0, "M"
    for index, point in enumerate(points):
        if point.value is None:
            pen = "M"
            continue
        steps.append(f"{pen}{_run_x(index, len(points)):.1f} {_value_y(point.value, lo, hi):.1f}")
        drawn += pen == "L"
        pen = "L"
    return f'<path class="line" d="{" ".join(steps)}"/>' if drawn else ""


def _history_point(point: Point, x: float, lo: float, hi: float) -> str:
    bottom = HISTORY_TOP + HISTORY_HEIGHT
    out = [f'<g class="run {point.state}" data-run="{escape(point.label)}">']
    if point.baseline_changed:
        out.append(f'<line class="change" x1="{x:.1f}" y1="{HISTORY_TOP}" x2="{x:.1f}" '
                   f'y2="{bottom}"><title>{escape(point.label)}: another baseline</title></line>')
    if point.low is not None and point.high is not None:
        out.append(f'<line class="interval" x1="{x:.1f}" y1="{_value_y(point.high, lo, hi):.1f}" '
                   f'x2="{x:.1f}" y2="{_value_y(point.low, lo, hi):.1f}"/>')
    if point.value is None:
        out.append(f'<text class="missing" x="{x:.1f}" y="{bottom - 4}">-</text>')
    else:
        out.append(f'<circle class="point" cx="{x:.1f}" cy="{_value_y(point.value, lo, hi):.1f}" '
                   f'r="4"><title>{escape(point.label)}: {fixed(point.value)}</title></circle>')
    out.append(f'<text class="tick" x="{x:.1f}" y="{bottom + 18}">{escape(point.label)}</text></g>')
    return "".join(out)
