"""The terminal summary: per benchmark a table of its numbers against the baseline, the counts
and the gate's decision, then the run's requests and tokens."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_audiobench.config.names import located
from pytest_audiobench.gate.evaluation import UNRESOLVED, Gate, GateRow, paired_notes, some
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.numbers import fixed, signed
from pytest_audiobench.report.model import BenchmarkSummary, Counts, RunReport
from pytest_audiobench.transport.types import EndpointTraffic, Traffic
from pytest_audiobench.untrusted import one_line


def render(report: RunReport, verbose: bool = False, written: Sequence[str] = ()) -> list[str]:
    """The terminal summary: per benchmark a table of metric, n, value, baseline, delta and
    status, then the counts and the gate's decision, the files ``written``, and last the
    run's verdict in one line; no line holds a raw control character (``untrusted``)."""
    settings = report.settings
    judge = settings.judge
    runs = f", {settings.runs} runs per sample" if settings.runs > 1 else ""
    protocol = report.judge_protocol
    if judge is None:
        described = "no judge"
    elif judge.offline:
        said = "; ".join([*protocol, "not comparable to published LLM-judge scores"])
        described = f"offline judge {judge.endpoint.model} ({said})"
    else:
        said = ", ".join([f"temperature {judge.endpoint.sampling.temperature:g}", *protocol])
        described = f"judge {judge.endpoint.model} ({said})"
    revision = f" (revision {settings.model_revision})" if settings.model_revision else ""
    workers = report.run.workers if report.run is not None else None
    lines = [f"model {settings.model}{revision} {located(settings.endpoint.url, workers)}{runs}; "
             f"{described}"]
    if report.run is not None:
        lines += [f"run: {note}" for note in report.run.notes]
    for summary in report.benchmarks:
        table = [] if summary.baseline_status == "partial" else _table(summary, verbose)
        lines += ["", *table, *_footer(summary),
                  *answer_lines(summary.counts, settings.endpoint.sampling.max_tokens)]
    u = report.usage
    reused = ""
    if u.model_reused and report.run is not None and report.run.reused:
        reused = f", {u.model_reused} of them answers of run {report.run.reused}"
    rival = (f", baseline model {u.baseline_model_requests} ({u.baseline_model_cached} from "
             "the cache)") if u.baseline_model_requests else ""
    lines += ["", f"answers: model {u.model_requests} ({u.model_cached} from the cache"
              f"{reused}){rival}, judge {u.judge_requests} ({u.judge_cached} from the cache)"]
    counted = (u.model.prompt_tokens, u.model.completion_tokens, u.judge.prompt_tokens,
               u.judge.completion_tokens, u.baseline_model.prompt_tokens)
    if any(counted):  # models and judges that run here count none
        theirs = (f"; baseline model {u.baseline_model.prompt_tokens} prompt "
                  f"({u.baseline_model.audio_tokens} audio) + "
                  f"{u.baseline_model.completion_tokens} completion"
                  ) if u.baseline_model_requests else ""
        lines.append(f"tokens: model {u.model.prompt_tokens} prompt ({u.model.audio_tokens} "
                     f"audio) + {u.model.completion_tokens} completion{theirs}; judge "
                     f"{u.judge.prompt_tokens} prompt + {u.judge.completion_tokens} completion")
    if u.cost is not None:
        lines.append(u.cost.line())
    lines += _traffic(report.traffic)
    # A line can quote a server (a model id its replies named, the weights it lists, why it
    # stopped): each line is shown on its own line, its characters visible.
    return [one_line(line) for line in [*lines, *written, *baseline_files(report), "",
                                        verdict(report)]]


def baseline_files(report: RunReport) -> list[str]:
    """Every baseline file the run wrote and every one it refused to write, each named: an
    update of several benchmarks may write some and refuse others, and the working tree then
    holds exactly these changes."""
    written = [s.against for s in report.benchmarks if s.baseline_status == "written"]
    refused = [s.against for s in report.benchmarks if s.baseline_status == "refused"]
    return [f"baselines {what}: {', '.join(paths)}"
            for what, paths in (("written", written), ("refused, not written", refused))
            if paths]


def answer_lines(counts: Counts, max_tokens: int | None) -> list[str]:
    """The model's answers that were empty or cut at the token limit, and what each means
    (the summary's lines, and the page's)."""
    lines = []
    if counts.empty_answers:
        lines.append(f"answers: {_many(counts.empty_answers, 'empty answer')}, counted as given "
                     "(wrong for a multiple-choice item, scored by the judge otherwise), as the "
                     "official scripts count them")
    if counts.cut_answers:
        limit = f" (now {max_tokens})" if max_tokens is not None else ""
        lines.append(f"answers: {_many(counts.cut_answers, 'answer')} cut at the token limit "
                     f"(finish_reason length): --audiobench-max-tokens{limit} raises it")
    return lines


def _many(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _traffic(traffic: Traffic) -> list[str]:
    """Per endpoint what was sent and what came back, with the attempts that gave no answer
    by reason; how long an endpoint was away, an endpoint that stopped answering, cache
    entries that could not be read or written, counts that are missing: said when they
    happened."""
    lines = []
    for label, line in traffic.endpoints.items():
        if line.requests:
            lines.append(f"sent: {label}: {line.requests} requests, {line.received} replies"
                         + _failed(line))
        if line.outages:
            lines.append(f"outage: {label}: away {line.away_seconds:.1f} s in "
                         f"{_many(line.outages, 'outage')}, "
                         + ("then given up" if line.stopped else "waited out"))
        if line.stopped:
            lines.append(f"stopped: {line.stopped}")
    if traffic.cache_unreadable:
        lines.append(f"cache: {traffic.cache_unreadable} unreadable entries were asked again "
                     f"and rewritten (the first: {traffic.first_unreadable})")
    if traffic.cache_unwritable:
        lines.append(f"cache: {traffic.cache_unwritable} replies could not be kept on disk "
                     f"({traffic.first_unwritable}): they served this run from memory, and a "
                     "resume will ask for them again")
    if traffic.missing:
        lines.append(f"traffic: the counts of {', '.join(traffic.missing)} are missing (the "
                     "worker ended without handing them over): its requests are not counted")
    return lines


def _failed(line: EndpointTraffic) -> str:
    """The attempts that gave no answer, by reason, and the retries they cost."""
    if not line.failures:
        return ""
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(line.failures.items()))
    return (f"; {sum(line.failures.values())} gave no answer ({reasons}), {line.retries} "
            f"retried, {line.waited_seconds:.1f} s waited")


def _table(summary: BenchmarkSummary, verbose: bool) -> list[str]:
    gated = {row.metric: row for row in summary.gate.rows} if summary.gate else {}
    names = list(summary.metrics) if verbose else list(summary.headline)
    names += [name for name in gated if name not in names]
    if any(row.test == "paired" for row in gated.values()):
        return paired_table(names, gated, summary.metrics)
    rows = [("metric", "n", "value", "baseline", "delta", "status")]
    for name in names:
        metric = summary.metrics.get(name)
        row = gated.get(name)
        rows.append((
            name,
            str(metric.n) if metric else "-",
            fixed(metric.value) if metric else "n/a",
            f"{fixed(row.threshold)} ± {row.tolerance:g}" if row else "-",
            signed(row.delta) if row and row.delta is not None else "",
            row.status if row else "",
        ))
    return _aligned(rows)


def paired_table(names: Sequence[str], gated: Mapping[str, GateRow],
                 metrics: Mapping[str, Metric], labels: tuple[str, str] = ("baseline", "value"),
                 gate_small: str = "--audiobench-gate-small") -> list[str]:
    """Per metric: the baseline and the new value over the samples both runs scored, the
    change with its interval, the smallest drop this sample size detects, the decision, and
    under the table what its cells cannot say. ``labels`` name the two sides' columns,
    ``gate_small`` the flag that gates the small metrics."""
    rows = [("metric", "n", *labels, "change [interval]", "margin", "detects", "status")]
    for name in names:
        metric = metrics.get(name)
        row = gated.get(name)
        if row is not None and row.test == "paired" and row.difference is not None:
            interval = (f" [{signed(row.low)}, {signed(row.high)}]" if row.low is not None
                        and row.high is not None else " [n/a]")
            rows.append((name, str(row.n), _or(row.baseline, "n/a"), _or(row.value, "n/a"),
                         f"{signed(row.difference)}{interval}", f"{row.margin:g}",
                         _or(row.detectable, "-"), row_status(row)))
        else:
            rows.append((name, str(metric.n) if metric else "-",
                         f"{fixed(row.threshold)} ± {row.tolerance:g}" if row else "-",
                         fixed(metric.value) if metric else "n/a", "", "", "",
                         row.status if row else ""))
    return [*_aligned(rows),
            *paired_notes([gated[n] for n in names if n in gated], gate_small)]


def _aligned(rows: Sequence[tuple[str, ...]]) -> list[str]:
    """The first column left-aligned, the numbers right-aligned, the status as it is."""
    last = len(rows[0]) - 1
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) if i < last else cell
                      for i, (cell, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in rows]


def _footer(summary: BenchmarkSummary) -> list[str]:
    c = summary.counts
    lines = [*summary.notes,
        f"samples: {c.selected} selected, {c.passed} passed, {_failed_items(summary)}"
        + (f", {c.xfailed} xfailed (under their bar, not regressed), {c.xpassed} xpassed "
           "(under their bar before, clearing it now)" if c.xfailed or c.xpassed else "")
        + f", {c.errors} errors, {c.skipped} skipped, {c.not_run} not run",
    ]
    if c.left_out and summary.baseline_status == "partial":
        lines.append(f"selection: {c.left_out} of its samples left out")
    elif c.left_out:
        lines.append(_left_out(summary))
    if c.missing_by_task:
        lines.append("without a score: " + "; ".join(
            f"{task} " + ", ".join(f"{n} {outcome.replace('_', ' ')}"
                                   for outcome, n in sorted(per.items()))
            for task, per in c.missing_by_task.items()))
    if c.judge_failures:
        lines.append(f"judge: {c.judge_failures} pass(es) without a parseable reply, excluded "
                     "from the means")
    if c.unfinished:
        lines.append(f"unfinished: {c.unfinished} sample(s) whose grading the judge could not "
                     "finish (out of attempts, or not sent); --audiobench-resume grades them "
                     "again")
    if c.confirmed:
        lines.append(f"items: {c.confirmed} sample(s) whose first draws suggested a drop got "
                     f"{c.confirmation_rounds} round(s) of fresh draws before their item was "
                     f"decided; {c.confirmed_failed} of them regressed (the metrics "
                     "use the planned draws only)")
    lines += drift_lines(summary)
    if summary.baseline_status == "shard":
        lines.append("gate: this is a shard; audiobench-merge gates on the union of all shards")
    elif summary.baseline_status == "unscored":
        lines.append("gate: the release withholds its answers: nothing to hold against "
                     f"{summary.against}")
    elif summary.baseline_status == "unselected":
        lines.append("gate: none of its samples was selected: nothing to hold against "
                     f"{summary.against}")
    elif summary.baseline_status == "missing":
        lines.append(f"gate: no baseline at {summary.against}: no gate applied")
    elif summary.baseline_status == "partial":
        lines.append(f"gate: no metric held against {summary.against}: this run is no "
                     "release verdict (the last line says why); its items were held against "
                     "their baseline lines")
    elif summary.baseline_status == "written":
        lines.append(f"gate: baseline written to {summary.against}, from {c.selected} "
                     f"samples ({c.xfailed} of them under their bar, recorded so: xfailed)")
        lines += [*_replaced(summary), *_one_draw(summary)]
    elif summary.baseline_status == "unwritten":
        pass  # said in its unwritten line
    elif summary.baseline_status == "refused":
        why = summary.refused_why or "; ".join(summary.gate.reasons() if summary.gate else [])
        lines += [f"gate: FAILED: baseline NOT written to {summary.against}: {why}",
                  *_replaced(summary)]
    elif summary.gate is not None:
        gate = summary.gate
        if gate.other_model:
            lines.append(f"gate: note: the baseline was written for {gate.other_model}")
        allowance = f"{gate.missing} without a score, {gate.allowed} allowed"
        mode = "" if paired(gate) else " by thresholds, not paired"
        if gate.held:
            lines.append(f"gate: held{mode} ({allowance}) against {summary.against}")
        else:
            lines.append(f"gate: FAILED{mode and f' ({mode.strip()})'} against "
                         f"{summary.against}: " + "; ".join(gate.reasons()))
        lines += _why_items_differ(summary)
    return [*lines, *summary.unwritten]


def paired(gate: Gate) -> bool:
    """Whether any metric was held paired (else every one by its threshold: a baseline with
    no per-sample lines)."""
    return any(row.test == "paired" for row in gate.rows)


def _replaced(summary: BenchmarkSummary) -> list[str]:
    """What a written (or refused) baseline replaces, and how this run did against it (its
    items that regressed too)."""
    gate = summary.replaced
    if gate is None:
        return []
    how = ("this run FAILED: " + "; ".join(summary.fell_short) if summary.fell_short
           else against(gate))
    return [f"gate: against the baseline it replaces, {how}"]


def against(gate: Gate) -> str:
    """How a run did against a baseline, in a clause."""
    if not gate.held:
        return "this run FAILED: " + "; ".join(gate.reasons())
    rows = gate.rows
    told = sum(row.status not in UNRESOLVED for row in rows)
    if not told:
        return f"this run told nothing: none of {len(rows)} metric(s) could be told from chance"
    return f"this run held on {told} of {len(rows)} metric(s)"


def _failed_items(summary: BenchmarkSummary) -> str:
    """The failed items: regressions apart when items were held against a baseline."""
    c = summary.counts
    below = f"{c.failed - c.regressed} {summary.failed_means}"
    if not summary.holds_items:
        return below
    return f"{c.regressed} regressed" + (f", {below}" if c.failed > c.regressed else "")


def _left_out(summary: BenchmarkSummary) -> str:
    """What the run's selection left out of the benchmark, and the metrics it left unmeasured."""
    gate = summary.gate
    unmeasured = ([r.metric for r in gate.rows if r.status == "not selected"] if gate
                  else [m for m in summary.headline if m not in summary.metrics])
    said = (f"; not measured, so not gated: {some(unmeasured)}" if unmeasured
            else "; every gated metric was measured")
    return (f"selection: {summary.counts.left_out} of its samples left out (-k, -m, "
            f"--deselect, paths, --audiobench-tasks, --audiobench-limit){said}")


SMALL = 200
"""Fewer samples than this make a baseline written from one run a lucky or unlucky draw that
the runs after it inherit (docs/statistics.md, "The promise is over both runs")."""


def _one_draw(summary: BenchmarkSummary) -> list[str]:
    """For a baseline written from one inference run of a small set: how often an unchanged
    model fails against such a baseline, as measured, and what makes it steadier."""
    if summary.runs or summary.counts.selected >= SMALL:
        return []
    return [f"gate: note: written from one inference run of {summary.counts.selected} samples,"
            " this baseline is one draw too: on the mini benchmark an unchanged model failed 3 of "
            "20 runs against a one-run baseline (the gate promises 1 in 20 over both runs), and "
            "0.75 % of runs against one written over 20 runs: write it with --audiobench-runs 20 "
            "to make it steadier (docs/statistics.md)"]


def verdict(report: RunReport) -> str:
    """The summary's last line: the run's verdict as the gate decided it (``report.verdict``)
    in a few words, and why."""
    summaries, decided = report.benchmarks, report.verdict
    unwritten = [line for s in summaries for line in s.unwritten]
    if unwritten:
        return f"verdict: NOT DONE: {unwritten[0]}"
    if decided.kind == "partial":
        return _partial(report)
    if decided.failed:
        first = next(s for s in summaries if s.benchmark == decided.failed[0])
        more = (f" (and {len(decided.failed) - 1} more benchmark(s))"
                if len(decided.failed) > 1 else "")
        return f"verdict: gate FAILED: {first.benchmark}: {_failure(first)}{more}"
    if decided.kind == "shard":
        return ("verdict: a shard, no release verdict: audiobench-merge gates the union of the "
                f"shards{_regressed(summaries)}")
    written = [s.benchmark for s in summaries if s.baseline_status == "written"]
    if written and len(written) == len(summaries):
        return (f"verdict: baseline written for {', '.join(written)}: later runs are held to it"
                + "".join(f"; {s.benchmark}: against the one it replaces, {against(s.replaced)}"
                          for s in summaries if s.replaced is not None))
    gated = [s for s in summaries if s.baseline_status == "applied" and s.gate is not None]
    if not gated:
        return f"verdict: not gated: {_why_not_gated(summaries)}"
    rows = [row for s in gated if s.gate is not None for row in s.gate.rows]
    if decided.kind == "blind":
        return _blind(report, rows)
    extra = _items_beside(summaries, rows)
    if written:
        extra.append(f"baseline written: {', '.join(written)}")
    ungated = [s.benchmark for s in summaries if s.gate is None]
    if ungated:
        extra.append(f"not gated: {', '.join(ungated)}")
    thresholds = [s.benchmark for s in gated if s.gate is not None and not paired(s.gate)]
    if thresholds:
        extra.append(f"held by thresholds, not paired: {', '.join(thresholds)} (no per-sample "
                     "lines in the baseline)")
    names = ", ".join(s.benchmark for s in gated)
    # A gate that told no metric held nothing, whatever its rows: it says so, not "held".
    said = (f"verdict: gate held on {decided.told} of {decided.tested} metric(s) of {names}"
            if decided.told else f"verdict: gate told nothing: none of the {decided.tested} "
            f"metric(s) of {names} could be told from chance")
    return said + "".join(f"; {part}" for part in [*_unresolved(rows), *extra])


def short_verdict(report: RunReport) -> str:
    """The verdict as the gate decided it, in a few words, for a page's header."""
    decided = report.verdict
    if decided.kind == "partial":
        return f"no release verdict ({report.scope.words()})"
    if decided.kind == "blind":
        return "gate blind: it tested no metric, and samples regressed"
    if decided.kind == "shard":
        return "a shard: its merge gates"
    if not decided.held:
        return "gate FAILED"
    if not decided.tested:
        return "no gate applied"
    return "gate held" if decided.told else "gate told nothing (too small or can't tell)"


def _blind(report: RunReport, rows: Sequence[GateRow]) -> str:
    """A gate that said nothing of the model: why, and what its items did, which decide."""
    narrowed = report.scope.narrowed
    what = "told no metric, past can't tell" if narrowed else "tested no metric"
    failed = sum(s.counts.failed for s in report.benchmarks)
    regressed = sum(s.counts.regressed for s in report.benchmarks)
    items = (f"{failed} item(s) failed ({regressed} regressed), and they fail the run"
             if failed else "none failed")
    where = f"; {narrowed} (--audiobench-tasks and --audiobench-limit narrow the configured " \
            "selection itself)" if narrowed else ""
    return (f"verdict: gate {'blind' if report.verdict.held else 'BLIND'}: it {what} ("
            + ", ".join(_unresolved(rows)) + f"){where}: its items decide, as in any pytest run: "
            + items)


def _failure(summary: BenchmarkSummary) -> str:
    if summary.baseline_status == "refused" and summary.refused_why:
        return f"baseline NOT written: {summary.refused_why}"
    if summary.baseline_status == "written":
        return ("baseline written over one this run falls short of: "
                + "; ".join(summary.fell_short))
    gate = summary.gate
    mode = "" if gate is None or paired(gate) else "held by thresholds, not paired: "
    return mode + ("; ".join(gate.reasons() if gate else []) or "failed")


def _partial(report: RunReport) -> str:
    """A rerun's or an early stop's verdict: what it was, what its items did, and, for a
    rerun, the whole run it cannot overturn."""
    scope = report.scope
    failed = sum(s.counts.failed for s in report.benchmarks)
    missing = sum(s.counts.missing for s in report.benchmarks)
    said = [f"{failed} item(s) failed" if failed else "no item failed"]
    if missing and scope.stopped is None:
        said.append(f"{missing} sample(s) without a score")
    if scope.rerun is not None:
        last = scope.last_whole
        said.append("no whole run of these settings is on record (the cache keeps them)"
                    if last is None else last.words()
                    + ("" if last.held else ": a rerun cannot overturn it; run the whole "
                       "selection again"))
    passes = "passes on its items" if report.verdict.held else "FAILED"
    return f"verdict: NO RELEASE VERDICT ({passes}): {scope.words()}; " + "; ".join(said)


def _unresolved(rows: Sequence[GateRow]) -> list[str]:
    """The metrics the gate could not tell, counted by why."""
    return [f"{n} {what}" for what, n in (
        ("can't tell (a drop past the margin not ruled out)",
         sum(r.status == "can't tell" for r in rows)),
        ("too small to gate", sum(r.status == "too small" for r in rows)),
        ("not selected", sum(r.status == "not selected" for r in rows)),
        ("held against another judge's threshold", sum(r.status == "judge changed" for r in rows)),
    ) if n]


def _regressed(summaries: Sequence[BenchmarkSummary]) -> str:
    regressed = sum(s.counts.regressed for s in summaries)
    return f"; {regressed} sample(s) regressed" if regressed else ""


def _items_beside(summaries: Sequence[BenchmarkSummary], rows: Sequence[GateRow]) -> list[str]:
    """What the regressed items mean beside a gate that held: no gated metric moved past its
    margin, or, in so many words, which ungated ones show a drop past theirs."""
    regressed = sum(s.counts.regressed for s in summaries)
    shown = dropped_ungated(rows)
    if shown:
        return [f"{regressed} sample(s) regressed; {len(shown)} metric(s) too small to gate show "
                f"a drop past their margin: {some(shown)} (--audiobench-gate-small gates them)"]
    if regressed:
        return [f"{regressed} sample(s) regressed, no gated metric moved past its margin"]
    return []


def dropped_ungated(rows: Sequence[GateRow]) -> list[str]:
    """The metrics left ungated by a rule of size whose interval still lies wholly past the
    margin: a drop the data resolves, said as such."""
    return [r.metric for r in rows if r.status == "too small" and r.high is not None
            and r.margin is not None and r.high < -r.margin]


def row_status(row: GateRow) -> str:
    """A paired row's status as its cell says it: a metric too small to gate with the rule
    that left it ungated and, when its interval lies past the margin, that it dropped."""
    if row.status != "too small":
        return row.status
    rule = (f"n {row.n} < {row.min_n}" if row.n is not None and row.min_n is not None
            and row.n < row.min_n else "too few to tell from chance")
    dropped = row.high is not None and row.margin is not None and row.high < -row.margin
    return f"too small ({rule}{'; dropped past the margin' if dropped else ''})"


def _why_not_gated(summaries: Sequence[BenchmarkSummary]) -> str:
    reasons = {"missing": "no baseline", "unselected": "no sample selected",
               "unscored": "answers withheld",
               "written": "baseline written"}
    return "; ".join(f"{s.benchmark} {reasons.get(s.baseline_status, s.baseline_status)}"
                     for s in summaries)


def drift_lines(summary: BenchmarkSummary) -> list[str]:
    """Today's judge on the baseline's own answers, against the scores it recorded, and what
    the gate paired against (the summary's lines, and the page's)."""
    comparison = summary.judge_comparison
    said = [comparison.line()] if comparison is not None else []
    return [*_drift(summary), *said]


def _drift(summary: BenchmarkSummary) -> list[str]:
    drift = summary.judge_drift
    if drift is None:
        return []
    unscored, outside = drift.asked - drift.graded, drift.graded - drift.n
    lost = "".join([f"; {unscored} could not be graded again" if unscored else "",
                    f"; {outside} outside its groups" if outside and drift.n else ""])
    if drift.difference is None:
        what = "could be scored" if not drift.graded else (
            f"scored ({drift.graded}) fill the groups of a metric the judge decides")
        return [f"judge drift: none of the {drift.asked} baseline answers asked again {what}"
                f"{lost}"]
    interval = ("[n/a]" if drift.low is None or drift.high is None
                else f"[{signed(drift.low)}, {signed(drift.high)}]")
    detects = _or(drift.detectable, "-")
    line = (f"judge drift: {signed(drift.difference)} {interval} on {drift.metric}, today's judge "
            f"on {drift.n} of the baseline's own answers against the scores it recorded "
            f"(detects {detects}{lost})")
    if not drift.changed or (summary.judge_comparison is not None
                             and summary.judge_comparison.rejudged):
        return [line]
    return [line, "judge drift: the judge changed since the baseline was written: the paired "
                  "changes above hold its change as well as the model's"]


def _why_items_differ(summary: BenchmarkSummary) -> list[str]:
    """One sentence when the items and the gate seem to disagree (paired gate only)."""
    gate = summary.gate
    if gate is None or not any(row.test == "paired" for row in gate.rows):
        return []
    regressed = summary.counts.regressed
    if gate.held and regressed:
        shown = dropped_ungated(gate.rows)
        beside = (f"; {some(shown)} too small to gate show a drop past the margin"
                  if shown else "")
        return [f"why: the gate held although {regressed} sample(s) regressed: their drops move "
                f"no gated metric beyond its margin at this confidence{beside}."]
    # Only a paired drop is "many small drops"; a gate failed by a metric not measured or
    # another judge has its reason in the verdict line.
    dropped = any(row.status == "regressed" for row in gate.rows)
    if not gate.held and not regressed and gate.missing <= gate.allowed and dropped:
        return ["why: the gate failed although no sample regressed on its own: many small "
                "drops, each too small to fail its item, add up to a metric's drop beyond its "
                "margin."]
    return []


def _or(value: float | None, missing: str) -> str:
    return missing if value is None else fixed(value)
