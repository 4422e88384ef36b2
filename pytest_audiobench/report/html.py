"""The run as one self-contained HTML page (``--audiobench-html``, and the same page from
``audiobench-merge`` and ``audiobench-compare``): the run and its cost, per benchmark the
gate with its charts and table, and every sample, filterable, opening to its question,
answers side by side, the judge's replies and a player for its audio. ``audiobench-history``
builds its page from the same parts (``document``, ``sample_row``, ``audio_budget``).

Nothing on the page is fetched when it is viewed: styles, script and charts are inline, and
every clip is embedded while the page's audio limit lasts (``--audiobench-html-audio-mb``),
first those of the samples that need attention, then the rest in the page's order, passing
runs too: the page is a CI artifact, opened away from the runner. A clip beyond the limit is
linked by a path relative to the page, and its row says it plays only beside the data; no
path on the page is the runner's own.
"""

from __future__ import annotations

import base64
import difflib
import heapq
import json
import os
import tempfile
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from html import escape as html_escape
from importlib import resources
from pathlib import Path
from typing import TextIO

from pytest_audiobench.benchmarks.base import Benchmark, line_baseline_grades
from pytest_audiobench.config.names import located
from pytest_audiobench.config.settings import Sampling, Settings
from pytest_audiobench.files import replacing
from pytest_audiobench.gate.baseline import whole
from pytest_audiobench.gate.evaluation import GateRow, paired_notes
from pytest_audiobench.gate.sample_change import loss
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.outcome.view import Choice, SampleView
from pytest_audiobench.report import charts
from pytest_audiobench.report.model import BenchmarkSummary, RunReport
from pytest_audiobench.report.terminal import answer_lines, drift_lines, short_verdict
from pytest_audiobench.untrusted import clipped, visible


def escape(text: str, quote: bool = True) -> str:
    """``text`` for the page: HTML-escaped, and every character that could hide, reorder or
    garble what follows shown as an escape (``untrusted.visible``), so that a NUL, a vertical
    tab or a bidirectional override in an answer is seen, not obeyed."""
    return html_escape(visible(text), quote)


KINDS = ("regressed", "failed", "error", "skipped", "not run", "xpassed", "xfailed", "passed")
"""A sample's outcome as the page names it, in the order its rows come."""
ATTENTION = frozenset({"regressed", "failed", "error", "xpassed"})
"""The outcomes whose audio the page embeds first."""
_MEDIA = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".flac": "audio/flac",
          ".ogg": "audio/ogg", ".m4a": "audio/mp4"}


@dataclass(frozen=True)
class Page:
    """Everything the page shows: the report, the benchmarks that read its records, and the
    baseline's sample lines (by benchmark, by node id) that the answers are set beside."""

    report: RunReport
    samples: Iterable[SampleRecord]
    """The records, in the report's order (read once, so they may stream from disk)."""
    benchmarks: Mapping[str, Benchmark]
    lines: Mapping[str, Mapping[str, SampleLine]]
    audio_limit: int
    """Bytes of audio the page may embed."""
    labels: tuple[str, str] = ("baseline", "this run")
    title: str = "pytest-audiobench"


@dataclass
class Written:
    """What writing the page did, for the one line the run prints about it."""

    path: Path
    embedded: int = 0
    linked: int = 0
    missing: int = 0
    embedded_bytes: int = 0

    def line(self) -> str:
        return (f"HTML report: {self.path} ({self.embedded} clips embedded, "
                f"{self.embedded_bytes / 2**20:.1f} MB; {self.linked} linked"
                + (f"; {self.missing} not found" if self.missing else "") + ")")


def run_page(report: RunReport, samples: Iterable[SampleRecord],
             benchmarks: Mapping[str, Benchmark],
             lines: Mapping[str, Mapping[str, SampleLine]]) -> Page:
    """The page of a run (or a merge of shards) gated against ``lines``."""
    model = report.settings.model
    return Page(report=report, samples=samples, benchmarks=benchmarks, lines=lines,
                audio_limit=int(report.settings.html_audio_mb * 2**20),
                title=f"{model}: {', '.join(report.settings.benchmarks)}")


def write(page: Page, path: Path) -> Written:
    """Write the page to ``path``; audio links are relative to its folder. The samples' rows
    go to one temporary file per kind as the records come, each with a marker where its player
    goes, and are copied into the page in the kinds' order, each marker then replaced by its
    player: no run's rows are all in memory at once, and the clips of the samples that need
    attention take the budget before any other (``_left_after_attention``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    written = Written(path=path)
    folder = path.parent.resolve()
    with ExitStack() as stack:
        rows = {kind: stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))
                for kind in KINDS}
        counts, tasks, moved = _rows(page, rows)
        first = Audio(folder, page.audio_limit, written)
        rest = Audio(folder, _left_after_attention(rows, page.audio_limit), written)
        head, tail = document(page.title)
        with replacing(path) as out:
            out.write(head + _header(page) + "".join(
                _benchmark(s, page.labels, page.report.settings.endpoint.sampling.max_tokens)
                + _moved(moved.get(s.benchmark, []), page.labels)
                for s in page.report.benchmarks))
            out.write('<section class="samples"><h2>Samples</h2>' + _filters(counts, tasks)
                      + '<div id="rows">')
            for kind in KINDS:
                _copy(rows[kind], out, first if kind in ATTENTION else rest)
            out.write("</div></section>" + tail)
    return written


def _asset(name: str) -> str:
    return resources.files("pytest_audiobench.report").joinpath("assets", name).read_text(
        encoding="utf-8")


_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
           "img-src data:; media-src data: file: 'self'")
"""The page may load nothing from anywhere but itself and the audio files beside it."""


def document(title: str) -> tuple[str, str]:
    """What comes before a page's body, and what after it: the head with the content policy,
    the style and the title, and the script (the run page's, and ``audiobench-history``'s)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{_asset('page.css')}</style></head><body>",
            f"<script>{_asset('page.js')}</script></body></html>\n")


def _pairs(items: Sequence[tuple[str, str]]) -> str:
    return "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items if v)


def _header(page: Page) -> str:
    report = page.report
    held = "held" if report.verdict.held else "failed"  # as the gate decided it
    return (f'<header><h1>{escape(page.title)}</h1><p class="badge {held}" '
            f'id="verdict">{escape(short_verdict(report))}</p>'
            f"<dl>{_pairs(_what_ran(report) + _what_it_took(report))}</dl></header>")


def _what_ran(report: RunReport) -> list[tuple[str, str]]:
    """The model and what identifies it, the judge, the data and the settings."""
    settings = report.settings
    identity = report.run.identity if report.run else None
    served = ", ".join(f"{k} {v}" for k, v in (identity.served or {}).items()) \
        if identity else ""
    workers = report.run.workers if report.run else None
    judge = (f"{settings.judge.endpoint.model} {located(settings.judge.endpoint.url, workers)}"
             if settings.judge else "none")
    sampling = _sampling("model", settings.endpoint.sampling) + (
        _sampling("; judge", settings.judge.endpoint.sampling) if settings.judge else "")
    return [
        ("model", f"{settings.endpoint.model} {located(settings.endpoint.url, workers)}"),
        ("revision", (identity.revision or "") if identity else ""),
        ("serves", served),
        ("judge", judge),
        ("judge protocol", ", ".join(report.judge_protocol)),
        ("data", ", ".join(f"{k}: {v}" for k, v in settings.data.items())),
        ("selection", _selection(report)),
        ("sampling", sampling),
        ("request", _request_extras(settings)),
        ("confidence", f"{settings.confidence:g}"),
    ]


def _what_it_took(report: RunReport) -> list[tuple[str, str]]:
    """The run's cost (requests, tokens, retries), when and how long."""
    usage, endpoints = report.usage, report.traffic.endpoints.values()
    retries = sum(t.retries for t in endpoints)
    throttled = sum(t.throttled for t in endpoints)
    run = report.run
    return [
        ("requests", f"model {usage.model_requests} ({usage.model_cached} cached), "
                     + (f"baseline model {usage.baseline_model_requests} "
                        f"({usage.baseline_model_cached} cached), "
                        if usage.baseline_model_requests else "")
                     + f"judge {usage.judge_requests} ({usage.judge_cached} cached); "
                     f"{retries} retries, {throttled} HTTP 429"),
        ("tokens", f"model {usage.model.prompt_tokens} prompt + "
                   f"{usage.model.completion_tokens} completion; "
                   + (f"baseline model {usage.baseline_model.prompt_tokens} prompt + "
                      f"{usage.baseline_model.completion_tokens} completion; "
                      if usage.baseline_model_requests else "")
                   + "judge "
                   f"{usage.judge.prompt_tokens} prompt + {usage.judge.completion_tokens} "
                   "completion"),
        ("cost", usage.cost.line().removeprefix("cost: ") if usage.cost else ""),
        ("run", f"{run.id}, started {run.started or 'unknown'}" if run else "a merge of shards"),
        ("duration", f"{report.seconds:.1f} s" if report.seconds is not None else ""),
        ("tool", f"{report.tool} {report.version}"),
    ]


def _request_extras(settings: Settings) -> str:
    """What the requests carried beyond the sampling: each endpoint's extra body, and the
    names of its extra headers (never their values)."""
    sides = [("model", settings.endpoint), ("baseline model", settings.baseline_endpoint),
             ("judge", settings.judge.endpoint if settings.judge else None)]
    said = []
    for who, endpoint in sides:
        if endpoint is None:
            continue
        if endpoint.extra_body:
            said.append(f"{who} body {json.dumps(endpoint.extra_body, sort_keys=True)}")
        if endpoint.headers is not None and endpoint.headers.names:
            said.append(f"{who} headers {', '.join(endpoint.headers.names)}")
    return "; ".join(said)


def _sampling(who: str, sampling: Sampling) -> str:
    seed = "" if sampling.seed is None else f", seed {sampling.seed}"
    return (f"{who} temperature {sampling.temperature:g}, at most {sampling.max_tokens} "
            f"tokens{seed}")


def _selection(report: RunReport) -> str:
    settings = report.settings
    parts = [f"{len(report.selected)} samples"]
    if settings.tasks:
        parts.append("tasks " + ", ".join(settings.tasks))
    if settings.limit is not None:
        parts.append(f"limit {settings.limit} per task")
    if settings.runs > 1:
        parts.append(f"{settings.runs} runs")
    return "; ".join(parts)


def _benchmark(summary: BenchmarkSummary, labels: tuple[str, str],
               max_tokens: int | None) -> str:
    gate = summary.gate
    if gate is None:
        state, said, reasons = "none", f"no gate ({summary.baseline_status})", []
    else:
        state = "held" if gate.held else "failed"
        said, reasons = f"gate {'held' if gate.held else 'FAILED'}", gate.reasons()
    rows = gate.rows if gate else []
    prefix = f"{summary.benchmark}."
    changes = [_change(r, prefix) for r in rows if r.value is not None]
    return (f'<section class="benchmark" id="bench-{escape(summary.benchmark)}">'
            f"<h2>{escape(summary.benchmark)} <span class=\"badge {state}\">"
            f"{escape(said)}</span></h2>"
            + "".join(f"<p class=\"reason\">{escape(r)}</p>" for r in reasons)
            + figure(charts.forest(changes, f"{summary.benchmark}: change against the "
                                   f"{labels[0]}"),
                     f"Change against the {labels[0]}: the dot is the change, the bar its "
                     "interval, the dashed mark the drop allowed (the margin, or the "
                     "tolerance of a threshold); red: the gate failed on it")
            + _gate_table(rows, labels)
            + "".join(f"<p class=\"note\">{escape(n)}</p>" for n in paired_notes(rows))
            + "".join(f"<p class=\"note drift\">{escape(n)}</p>" for n in drift_lines(summary))
            + figure(charts.bars(_bars(summary, prefix), f"{summary.benchmark}: headline "
                                 "metrics", _top(summary)),
                     f"Headline metrics: {labels[1]} (blue) over the {labels[0]} (grey)")
            + "".join(f"<p class=\"note\">{escape(n)}</p>" for n in [
                *summary.notes, *answer_lines(summary.counts, max_tokens)])
            + "</section>")


def figure(svg: str, caption: str) -> str:
    """A chart with its caption under it; nothing without a chart."""
    if not svg:
        return ""
    return f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"


def _change(row: GateRow, prefix: str) -> charts.Change:
    label = row.metric.removeprefix(prefix)
    if row.test == "paired" and row.difference is not None:
        return charts.Change(label, row.difference, row.low, row.high, row.limit,
                             row_state(row), row.span)
    delta = row.delta or 0.0
    return charts.Change(label, delta, None, None, row.limit, row_state(row))


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return fixed(value, signed=signed)


def _gate_table(rows: Sequence[GateRow], labels: tuple[str, str]) -> str:
    if not rows:
        return ""
    head = ("metric", "n", labels[0], labels[1], "change", "interval", "margin", "detects",
            "status")
    body = []
    for r in rows:
        paired = r.test == "paired"
        interval = f"[{_number(r.low, True)}, {_number(r.high, True)}]" if paired else \
            f"threshold {r.threshold:g} - {r.tolerance:g}"
        cells = (r.metric, str(r.n) if r.n is not None else "-",
                 _number(r.baseline if paired else r.threshold), _number(r.value),
                 _number(r.difference if paired else r.delta, True), interval,
                 f"{r.margin:g}" if r.margin is not None else "-", _number(r.detectable),
                 r.status)
        body.append(f'<tr class="{row_state(r)}">'
                    + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>")
    return ('<table class="gate"><thead><tr>' + "".join(f"<th>{escape(h)}</th>" for h in head)
            + "</tr></thead><tbody>" + "".join(body) + "</tbody></table>")


def row_state(row: GateRow) -> charts.RowState:
    """How a page draws a gate's row: ok, worse (within its margin: held), small (reported,
    not gated) or failed (the alarm colour)."""
    states: dict[str, charts.RowState] = {"ok": "ok", "above": "ok", "under": "ok",
                                          "worse within margin": "worse",
                                          "can't tell": "worse", "too small": "small",
                                          "not selected": "small", "judge changed": "small"}
    return states.get(row.status, "failed")


def _bars(summary: BenchmarkSummary, prefix: str) -> list[charts.Bar]:
    rows = {r.metric: r for r in (summary.gate.rows if summary.gate else [])}
    out = []
    for name in summary.headline:
        metric = summary.metrics.get(name)
        if metric is None:
            continue
        row = rows.get(name)
        base = (row.baseline if row.test == "paired" else row.threshold) if row else None
        out.append(charts.Bar(name.removeprefix(prefix), metric.value, base))
    return out


def _top(summary: BenchmarkSummary) -> float:
    """The chart's full scale: the next power of ten above every value (10 for scores, 100
    for percentages)."""
    largest = max((m.value for m in summary.metrics.values()), default=1.0)
    top = 1.0
    while top < largest:
        top *= 10
    return top


class Audio:
    """A page's players: each clip embedded while the page's audio budget lasts, else linked by
    its path relative to the page's folder (``audio_budget`` makes one for a page built of these
    parts). No path it writes is the runner's own: the page is read away from the runner."""

    def __init__(self, folder: Path, limit: int, written: Written,
                 beyond: str = "beyond the page's audio limit") -> None:
        self.folder = folder
        self.left = limit
        self.written = written
        self.beyond = beyond
        """Why a clip is linked, as its row says."""

    def player(self, record: SampleRecord) -> str:
        """The player of a sample's clip, embedded if it still fits."""
        path = Path(record.audio_path)
        size = clip_size(path)
        return self.play(path, size, self.take(size))

    def take(self, size: int | None) -> bool:
        """Whether a clip of ``size`` bytes still fits; one that does takes its share."""
        if size is None or size > self.left:
            return False
        self.left -= size
        return True

    def play(self, path: Path, size: int | None, embed: bool) -> str:
        """The player of the clip at ``path`` (``size`` None: not found), embedded or linked."""
        relative = Path(os.path.relpath(path.resolve(), self.folder)).as_posix()
        if size is None:
            self.written.missing += 1
            return f'<p class="missing">audio not found: {escape(relative)}</p>'
        if embed:
            self.written.embedded += 1
            self.written.embedded_bytes += size
            media = _MEDIA.get(path.suffix.lower(), "audio/wav")
            data = base64.b64encode(path.read_bytes()).decode("ascii")
            source, note = f"data:{media};base64,{data}", ""
        else:
            self.written.linked += 1
            source = urllib.parse.quote(relative)
            note = (f'<p class="linked">audio linked, not embedded ({escape(self.beyond)}): it '
                    f"plays only beside the data, at {escape(relative)}</p>")
        return (f'<audio controls preload="none" src="{escape(source)}" '
                f'data-path="{escape(relative)}"></audio>{note}')


def clip_size(path: Path) -> int | None:
    """The clip's size in bytes; None when it cannot be found."""
    try:
        return path.stat().st_size
    except OSError:
        return None


_DEFERRED = "<audiobench-clip "
"""Where a row's player goes until the page is copied together; the clip's path and size
follow as JSON, to the end of the line. No sample's text can make one: every text is escaped,
and ``escape`` rewrites each ``<``."""


def _deferred(record: SampleRecord) -> str:
    """A marker for the player of a sample's clip, its size taken now, as the row is written."""
    size = clip_size(Path(record.audio_path))
    # JSON keeps a newline in the path escaped, so the marker ends its line.
    return f"{_DEFERRED}{json.dumps([record.audio_path, size])}\n"


def _markers(rows: TextIO) -> Iterator[tuple[str, tuple[Path, int | None] | None]]:
    """The rows of one kind, line by line: each line's text before its marker, if any, and
    the clip the marker holds (a line holds one at most, at its end)."""
    rows.seek(0)
    for line in rows:
        text, marker, clip = line.partition(_DEFERRED)
        if not marker:
            yield text, None
            continue
        path, size = json.loads(clip)
        yield text, (Path(path), size)


def _left_after_attention(rows: Mapping[str, TextIO], limit: int) -> int:
    """The budget the clips of the samples that need attention leave, each taking its share
    in the page's order as it will when copied (their rows read twice rather than their sizes
    kept: a run that fails whole keeps memory flat)."""
    share = Audio(Path(), limit, Written(path=Path()))
    for kind in KINDS:
        if kind in ATTENTION:
            for _, clip in _markers(rows[kind]):
                if clip is not None:
                    share.take(clip[1])
    return share.left


def _copy(rows: TextIO, out: TextIO, audio: Audio) -> None:
    """Copy one kind's rows into the page, each marker replaced by its player."""
    for text, clip in _markers(rows):
        out.write(text)
        if clip is not None:
            path, size = clip
            out.write(audio.play(path, size, audio.take(size)))


def _kind(record: SampleRecord) -> str:
    """How the page files a sample: its outcome, a regression told apart by the change the
    gate kept in its record."""
    if record.outcome == "failed":
        return "regressed" if record.change == "regressed" else "failed"
    return "not run" if record.outcome == "not_run" else record.outcome


MOVED = 8
"""The samples a benchmark's section lists as those whose own score moved most."""
Moved = tuple[float, str, str, str, float, float]
"""How far a sample moved (worse positive), its node id, task, id, and both scores."""


def _rows(page: Page, rows: Mapping[str, TextIO]
          ) -> tuple[dict[str, int], set[tuple[str, str]], dict[str, list[Moved]]]:
    """Write every sample's row to the file of its kind, a marker where its player goes (the
    budget is shared once every clip is known); count the kinds, gather the tasks, and keep
    per benchmark the ``MOVED`` samples whose score moved most (a heap each, never every
    sample)."""
    counts = dict.fromkeys(KINDS, 0)
    tasks = set()
    moved: dict[str, list[tuple[float, Moved]]] = {}
    for record in page.samples:
        kind = _kind(record)
        counts[kind] += 1
        tasks.add((record.benchmark, record.task))
        bench = page.benchmarks.get(record.benchmark)
        view = bench.view(record) if bench else SampleView()
        base = baseline_side(bench, record, page.lines.get(record.benchmark))
        now = bench.gating().line(record) if bench and base else None
        rows[kind].write(_sample(record, kind, view, (base, now), _deferred(record),
                                 page.labels))
        if base is not None and now is not None and base.score != now.score:
            worse = loss(base, now)
            entry = (abs(worse), (worse, record.nodeid, record.task, record.sample_id,
                                  base.score, now.score))
            kept = moved.setdefault(record.benchmark, [])
            (heapq.heappush if len(kept) < MOVED else heapq.heappushpop)(kept, entry)
    return counts, tasks, {name: [m for _, m in sorted(kept, reverse=True)]
                           for name, kept in moved.items()}


def _moved(moved: Sequence[Moved], labels: tuple[str, str]) -> str:
    """The samples whose own score moved most against the baseline, worse or better."""
    if not moved:
        return ""
    body = "".join(
        f'<tr class="{"worsened" if worse > 0 else "improved"}"><td>{escape(task)}</td>'
        f"<td>{escape(ident)}</td><td>{fixed(base)}</td><td>{fixed(now)}</td>"
        f"<td>{fixed(now - base, signed=True)} ({'worse' if worse > 0 else 'better'})</td></tr>"
        for worse, _, task, ident, base, now in moved)
    return ('<section class="moved"><h3>Moved most</h3><p class="note">The samples whose '
            f"own score moved most against the {escape(labels[0])} (for a word error rate, "
            'the utterance\'s word errors)</p><table class="moved"><thead><tr>'
            + "".join(f"<th>{escape(h)}</th>" for h in ("task", "sample", labels[0],
                                                         labels[1], "change"))
            + f"</tr></thead><tbody>{body}</tbody></table></section>")


def baseline_side(bench: Benchmark | None, record: SampleRecord,
                  lines: Mapping[str, SampleLine] | None) -> SampleLine | None:
    """What a sample's answer is set beside: head to head, the live baseline model's answer as
    the judge graded it in this run; else the per-sample baseline's line, whole."""
    if record.baseline_answers:
        return line_baseline_grades(bench, record) if bench is not None else None
    return whole(lines, record.nodeid) if lines is not None else None


def _filters(counts: Mapping[str, int], found: set[tuple[str, str]]) -> str:
    boxes = "".join(
        f'<label class="kind {escape(k).replace(" ", "-")}"><input type="checkbox" '
        f'name="kind" value="{escape(k)}" checked> {escape(k)} <span>{n}</span></label>'
        for k, n in counts.items() if n)
    tasks = sorted(found)
    options = "".join(f'<option value="{escape(b)}::{escape(t)}">{escape(b)} {escape(t)}'
                      "</option>" for b, t in tasks)
    return (f'<div class="filters">{boxes}<select id="task"><option value="">every task'
            f'</option>{options}</select><input id="text" type="search" '
            'placeholder="find text in the samples"> <span id="shown"></span></div>')


def _sample(record: SampleRecord, kind: str, view: SampleView,
            pair: tuple[SampleLine | None, SampleLine | None], player: str,
            labels: tuple[str, str]) -> str:
    answer = record.answers[0].said() if record.answers else ""
    summary = (f'<summary><span class="kind {escape(kind).replace(" ", "-")}">'
               f"{escape(kind)}</span><span class=\"task\">{escape(record.benchmark)} "
               f"{escape(record.task)}</span><span class=\"id\">{escape(record.sample_id)}"
               f"</span><span class=\"score\">{escape(view.score)}</span>"
               f"<span class=\"answer\">{_flags(record)}{escape(answer[:120])}</span>"
               "</summary>")
    body = _body(record, view, pair, labels) + player
    return (f'<details class="sample" data-kind="{escape(kind)}" '
            f'data-nodeid="{escape(record.nodeid)}" '
            f'data-task="{escape(record.benchmark)}::{escape(record.task)}">{summary}'
            f'<div class="body">{body}</div></details>')


def audio_budget(path: Path, limit: int) -> tuple[Audio, Written]:
    """The players of a page to be written at ``path``: clips embedded up to ``limit`` bytes,
    the rest linked relative to its folder, counted in the ``Written`` returned."""
    written = Written(path=path)
    return Audio(path.parent.resolve(), limit, written), written


def sample_row(record: SampleRecord, view: SampleView, audio: Audio) -> str:
    """A sample's row as the run page writes it, opening to its body and a player (its clip
    embedded while the budget lasts, whatever its outcome, rows taking it in the order they
    are made); no baseline answer beside it."""
    kind = _kind(record)
    return _sample(record, kind, view, (None, None), audio.player(record),
                   ("baseline", "this run"))


def _body(record: SampleRecord, view: SampleView,
          pair: tuple[SampleLine | None, SampleLine | None], labels: tuple[str, str]) -> str:
    base = pair[0]
    answer = record.answers[0].said() if record.answers else ""
    body = [_field("question", record.question), _choices(view) or _field("reference",
                                                                         record.reference)]
    body.append(_answers(answer, pair, labels))
    reasoning = record.answers[0].reasoning if record.answers else ""
    if not any(d.label.endswith("reasoning") for d in view.details):
        body.append(_folded("reasoning", reasoning))
    if record.message:
        # The first line says why; the rest of a failure report is laid out above and below.
        body.append(_field("why", record.message.splitlines()[0], pre=True))
    body += [_folded(d.label, d.text) if d.folded else _field(d.label, d.text, pre=True)
             for d in view.details]
    if base is not None and base.replies:
        body.append(_field(f"{labels[0]} judge", " | ".join(base.replies), pre=True))
    return "".join(body)


def item_extra(record: SampleRecord, view: SampleView,
               pair: tuple[SampleLine | None, SampleLine | None], folder: Path) -> str:
    """One sample's details for another report's row (pytest-html's extras): the same body
    as on our page, and a player linking its audio relative to ``folder``."""
    audio = Audio(folder.resolve(), 0, Written(path=folder), "pytest-html's report embeds none")
    return (f'<div class="audiobench-sample">{_body(record, view, pair, ("baseline", "this run"))}'
            f"{audio.player(record)}</div>")


def _field(label: str, text: str, pre: bool = False) -> str:
    if not text:
        return ""
    tag = "pre" if pre else "p"
    return (f'<div class="field"><h4>{escape(label)}</h4><{tag}>{escape(clipped(text))}'
            f"</{tag}></div>")


def _folded(label: str, text: str) -> str:
    """A long text shown closed, its length said, until opened."""
    if not text:
        return ""
    return (f'<details class="field folded"><summary><h4>{escape(label)}</h4> '
            f"({len(text):,} characters)</summary><pre>{escape(clipped(text))}</pre></details>")


def _flags(record: SampleRecord) -> str:
    """Marks on a sample's row: its answer was empty, or cut at the token limit."""
    first = record.answers[0] if record.answers else None
    if first is None:
        return ""
    marks = [name for name, on in (("empty", first.empty), ("cut", first.completion.cut)) if on]
    return "".join(f'<span class="flag {mark}" title="{_FLAG_TITLES[mark]}">{mark}</span> '
                   for mark in marks)


_FLAG_TITLES = {"empty": "the model answered nothing; counted as given",
                "cut": "the answer stopped at the token limit (--audiobench-max-tokens)"}


def _choices(view: SampleView) -> str:
    if not view.choices:
        return ""
    items = "".join(_choice(choice) for choice in view.choices)
    return f'<div class="field"><h4>choices</h4><ul class="choices">{items}</ul></div>'


def _choice(choice: Choice) -> str:
    marks = [mark for mark, on in (("correct", choice.correct), ("chosen", choice.chosen)) if on]
    said = "".join(f" ({mark})" for mark in marks)
    return f'<li class="{" ".join(marks)}">{escape(choice.text)}{said}</li>'


def _answers(answer: str, pair: tuple[SampleLine | None, SampleLine | None],
             labels: tuple[str, str]) -> str:
    base, now = pair
    if base is None:
        return _field("answer", answer)
    before, after = _marked(base.answer, answer)
    scored = f" (score {now.score:g})" if now is not None else ""
    return (f'<div class="side-by-side"><div class="field"><h4>{escape(labels[0])} answer '
            f"(score {base.score:g})</h4><p>{before}</p></div><div class=\"field\"><h4>"
            f"{escape(labels[1])} answer{scored}</h4><p>{after}</p></div></div>")


def _marked(old: str, new: str) -> tuple[str, str]:
    """Both answers with the words only one of them has marked (deleted, inserted); each cut
    at ``untrusted.SHOWN_CHARS`` first (a page's size is the samples', not a model's)."""
    a, b = clipped(old).split(), clipped(new).split()
    left: list[str] = []
    right: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        old_words, new_words = escape(" ".join(a[i1:i2])), escape(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(old_words)
            right.append(new_words)
            continue
        if old_words:
            left.append(f"<del>{old_words}</del>")
        if new_words:
            right.append(f"<ins>{new_words}</ins>")
    return " ".join(left), " ".join(right)
