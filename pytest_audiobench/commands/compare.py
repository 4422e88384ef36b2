"""``audiobench-compare``: hold run B against run A, paired over the samples both scored, with
no baseline file: two checkpoints, two prompts, two serving stacks.

    audiobench-compare A.json B.json [--metrics NAME,...|all] [--margin NAME=VALUE ...]
                       [--confidence 0.95] [--samples N]

It prints, per benchmark, the gate's paired table (A, B, the change with its interval, the
margin, the smallest drop the sample size detects, the decision) and the samples that dropped
by more than their grading's noise explains. Exit status: 0 when B is not worse than A beyond
any margin, 1 when it is, 4 when the reports cannot be compared (2 for a usage error).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.config import convert
from pytest_audiobench.errors import AudiobenchError, ReportError
from pytest_audiobench.gate.decision import RunVerdict
from pytest_audiobench.gate.drift import judge_identity, other_judge
from pytest_audiobench.gate.evaluation import (
    UNRESOLVED,
    Gate,
    GateRow,
    Pairing,
    assess_all,
    paired_row,
)
from pytest_audiobench.gate.loaded import MORE_DRAWS
from pytest_audiobench.gate.paired import items_decidable, noise_of
from pytest_audiobench.gate.sample_change import Change, change
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.outcome.records import Outcome, SampleRecord
from pytest_audiobench.report import html
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.reading import read_report
from pytest_audiobench.report.terminal import paired_table
from pytest_audiobench.transport.types import JudgeIdentity
from pytest_audiobench.untrusted import one_line

ALL = "all"


@dataclass(frozen=True)
class Compared:
    """One benchmark of the two runs."""

    benchmark: str
    rows: dict[str, GateRow]
    both: int
    only_a: int
    only_b: int
    changes: dict[str, Change] = field(default_factory=dict)
    """Every sample in both runs that regressed, stayed under its bar or cleared it, by node
    id."""
    lines_a: dict[str, SampleLine] = field(default_factory=dict)
    under_bar: set[str] = field(default_factory=set)
    """B's samples under their item's bar."""
    noise_known: bool = True
    """False when a sampled judge scored them once each: no drop can be told from noise."""
    unpaired: list[str] = field(default_factory=list)
    """Metrics asked for that cannot be paired (a group without a sample both scored)."""

    @property
    def regressed(self) -> list[Change]:
        """Samples that dropped beyond the judge's noise, the largest drop first."""
        return sorted((c for c in self.changes.values() if c.kind == "regressed"),
                      key=lambda c: (c.new.score - c.base.score, c.new.id))

    @property
    def worse(self) -> bool:
        return any(row.status == "regressed" for row in self.rows.values())


def compare(a: RunReport, b: RunReport, *, confidence: float = 0.95,
            metrics: Sequence[str] | None = None,
            margins: Mapping[str, float] | None = None,
            gate_small: bool = False) -> list[Compared]:
    """Per benchmark both reports ran, ``metrics`` (default: the headline numbers; ``["all"]``:
    every metric that can be paired) of B held against A's, all of them one family for the
    confidence level (those too small to detect a drop reported, not held, unless
    ``gate_small``)."""
    _check_comparable(a, b)
    names = [n for n in b.settings.benchmarks if n in a.settings.benchmarks]
    sides = {name: (registry.create(name, a.settings), registry.create(name, b.settings))
             for name in names}
    chosen = {name: _chosen(name, a, b, sides[name][1], metrics) for name in names}
    _check_known(chosen, metrics)
    lines = {name: (_lines(bench_a, a), _lines(bench_b, b))
             for name, (bench_a, bench_b) in sides.items()}
    # The judge's noise as the gate measures a baseline's: from the side held against (A).
    pairings = {name: Pairing.of(bench_b.gating(), lines[name][0], lines[name][1],
                                 noise_of(None, lines[name][0].values()), margins)
                for name, (_, bench_b) in sides.items()}
    assessed = assess_all(pairings, {name: dict.fromkeys(chosen[name]) for name in sides},
                          confidence, gate_small)
    out = []
    for name in sides:
        lines_a, lines_b = lines[name]
        rows = {m: paired_row(m, a) for m, a in assessed[name].items()}
        every = [*lines_a.values(), *lines_b.values()]
        noise = pairings[name].noise
        changed = [change(lines_a[s], lines_b[s], lines_b[s].failed, noise, confidence)
                   for s in sorted(lines_a.keys() & lines_b.keys())]
        changes = {c.new.id: c for c in changed if c is not None}
        out.append(Compared(
            benchmark=name, rows=rows, both=len(lines_a.keys() & lines_b.keys()),
            only_a=len(lines_a.keys() - lines_b.keys()),
            only_b=len(lines_b.keys() - lines_a.keys()), changes=changes, lines_a=lines_a,
            under_bar={n for n, line in lines_b.items() if line.failed},
            noise_known=items_decidable(noise, every),
            unpaired=[m for m in chosen[name] if m not in rows]))
    if not any(c.rows for c in out):
        raise ReportError("no metric could be paired: the two runs share no scored sample in "
                          "the groups the metrics weigh (were they run on the same data?)")
    return out


def render(a: Path, b: Path, compared: Sequence[Compared], confidence: float,
           shown: int) -> list[str]:
    """The paired table per benchmark, its regressed samples, and the verdict."""
    rows = [row for c in compared for row in c.rows.values()]
    small = sum(row.status == "too small" for row in rows)
    lines = [f"A: {a}", f"B: {b}",
             f"paired over the samples both runs scored; confidence {confidence:g} across "
             f"{len(rows) - small} metrics" + (f" ({small} too small to hold)" if small else "")]
    for c in compared:
        lines += ["", f"{c.benchmark}: {c.both} samples in both, {c.only_a} only in A, "
                  f"{c.only_b} only in B",
                  *paired_table(list(c.rows), c.rows, {}, labels=("A", "B"),
                                gate_small="--gate-small")]
        if c.unpaired:
            lines.append("not compared (a group without a sample both runs scored): "
                         + ", ".join(c.unpaired))
        lines += (_regressed_samples(c.regressed, shown) if c.noise_known else [
            "samples: not compared one by one: a sampled judge scored each once, so its noise "
            f"is unknown (run with more draws: {MORE_DRAWS})"])
    worse = [f"{c.benchmark}: " + ", ".join(m for m, r in c.rows.items()
                                             if r.status == "regressed")
             for c in compared if c.worse]
    lines.append("")
    lines.append(f"B is worse than A beyond the margin: {'; '.join(worse)}" if worse
                 else "B is not worse than A beyond any margin")
    return lines


REGRESSED = "samples that dropped by more than their grading's noise explains"
"""A judge's noise, or none where a rule grades (MMAR's accuracy): then any drop counts."""


def _regressed_samples(regressed: Sequence[Change], shown: int) -> list[str]:
    if not regressed:
        return [f"{REGRESSED}: none"]
    lines = [f"{REGRESSED}: {len(regressed)}"
             + (f" (the {shown} largest drops)" if len(regressed) > shown else "")]
    lines += [f"  {c.new.id}: A {c.base.score:g}, B {c.new.score:g} ({_allowed(c)})"
              for c in regressed[:shown]]
    return lines


def _allowed(change: Change) -> str:
    if change.allowed > 0:
        return f"its noise allows {fixed(change.allowed)}"
    return "its grading does not vary: any drop counts"


def _check_comparable(a: RunReport, b: RunReport) -> None:
    if not set(a.settings.benchmarks) & set(b.settings.benchmarks):
        raise ReportError(f"the runs share no benchmark: A ran {a.settings.benchmarks}, B ran "
                          f"{b.settings.benchmarks}")
    judge_a = a.settings.judge.endpoint.model if a.settings.judge else None
    judge_b = b.settings.judge.endpoint.model if b.settings.judge else None
    for name in set(a.settings.benchmarks) & set(b.settings.benchmarks):
        then, today = _judge_of(a, name), _judge_of(b, name)
        other = other_judge(judge_a, then, judge_b, today)
        if other is not None:
            how = "" if judge_a != judge_b else f" ({other})"
            raise ReportError(f"A was judged by {judge_a}, B by {judge_b}{how}: their scores "
                              "are not comparable; judge both with the same judge")


def _judge_of(report: RunReport, name: str) -> JudgeIdentity | None:
    """The judge of ``report``'s benchmark ``name``, as a baseline it writes would keep it."""
    use = registry.create(name, report.settings).judge_use()
    return judge_identity(report.settings, use.prompt_sha256(), report.traffic)


def _chosen(name: str, a: RunReport, b: RunReport, bench: Benchmark,
            metrics: Sequence[str] | None) -> list[str]:
    summary_a = next(s for s in a.benchmarks if s.benchmark == name)
    summary_b = next(s for s in b.benchmarks if s.benchmark == name)
    if metrics is None:
        wanted = list(summary_b.headline)
    elif list(metrics) == [ALL]:
        wanted = list(summary_b.metrics)
    else:
        wanted = list(metrics)
    return [m for m in wanted if m in summary_a.metrics and m in summary_b.metrics
            and bench.gating().linear(m) is not None]


def _check_known(chosen: Mapping[str, list[str]], metrics: Sequence[str] | None) -> None:
    if metrics is None or list(metrics) == [ALL]:
        return
    found = {m for names in chosen.values() for m in names}
    unknown = [m for m in metrics if m not in found]
    if unknown:
        raise ReportError(f"--metrics: {', '.join(unknown)} is not a metric both runs measured "
                          "that can be compared paired (a mean of per-sample values)")


def _lines(bench: Benchmark, report: RunReport) -> dict[str, SampleLine]:
    mine = (r for r in report.samples if r.benchmark == bench.name)
    return {line.id: line for line in map(bench.gating().line, mine) if line is not None}


def _margin(value: str) -> tuple[str, float]:
    name, sep, number = value.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError("expected NAME=VALUE, like "
                                         f"<benchmark>.average.score=0.2; got {value!r}")
    return name, convert.non_negative_float(number)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="audiobench-compare",
        description="Hold run B against run A, paired over the samples both scored.",
        epilog="Exit status: 0 when B is not worse than A beyond any margin, 1 when it is, "
               "4 when the reports cannot be compared, 2 for a bad option.")
    parser.add_argument("a", type=Path, help="the JSON report of the run held against (A)")
    parser.add_argument("b", type=Path, help="the JSON report of the run held (B)")
    parser.add_argument("--metrics", type=lambda s: [m for m in s.split(",") if m],
                        help="metrics to compare, comma-separated, or 'all' (default: the "
                             "headline numbers)")
    parser.add_argument("--margin", action="append", default=[], metavar="NAME=VALUE",
                        type=_margin,
                        help="the drop a metric may show before it counts (default: the "
                             "benchmark's, e.g. 0.1 points of a 0-10 score)")
    parser.add_argument("--confidence", type=convert.confidence, default=0.95,
                        help="family-wise confidence level (default 0.95)")
    parser.add_argument("--gate-small", action="store_true",
                        help="hold the metrics too small to detect a drop too (fewer samples "
                             "than the default minimum n, or none in their range could be "
                             "detected); without it they are reported, not held")
    parser.add_argument("--samples", type=int, default=10, metavar="N",
                        help="regressed samples listed per benchmark (default 10)")
    parser.add_argument("--html", type=Path, metavar="PATH",
                        help="write B against A as one self-contained HTML page here")
    parser.add_argument("--html-audio-mb", type=convert.non_negative_float, default=20.0,
                        metavar="MB", help="megabytes of audio the page embeds, every clip "
                                           "while they last (B's samples that need attention "
                                           "first); a clip beyond them is linked relative to "
                                           "the page (default 20)")
    args = parser.parse_args(argv)
    try:
        a = read_report(args.a, "audiobench-compare")
        b = read_report(args.b, "audiobench-compare")
        compared = compare(a, b, confidence=args.confidence, metrics=args.metrics,
                           margins=dict(args.margin), gate_small=args.gate_small)
    except AudiobenchError as exc:
        print(f"audiobench-compare: error: {exc}", file=sys.stderr)
        return 4
    lines = render(args.a, args.b, compared, args.confidence, max(0, args.samples))
    verdict = verdict_of(compared)
    if args.html is not None:
        page = compare_page(b, compared, verdict, int(args.html_audio_mb * 2**20),
                            f"B ({args.b.name}) against A ({args.a.name})")
        lines.append(html.write(page, args.html).line())
    print("\n".join(one_line(line) for line in lines))
    return 0 if verdict.held else 1


def verdict_of(compared: Sequence[Compared]) -> RunVerdict:
    """The comparison's verdict, decided once: B fails where it is worse than A beyond a
    margin, in any benchmark; the exit status and the page read it."""
    rows = [row for c in compared for row in c.rows.values()]
    worse = tuple(c.benchmark for c in compared if c.worse)
    return RunVerdict("failed" if worse else "held", not worse, worse,
                      sum(row.status not in UNRESOLVED for row in rows), len(rows))


def compare_page(b: RunReport, compared: Sequence[Compared], verdict: RunVerdict,
                 audio_limit: int, title: str) -> html.Page:
    """B's run as a page, its gate, items and verdict those of the comparison with A."""
    by_name = {c.benchmark: c for c in compared}
    samples = [_held(record, by_name.get(record.benchmark)) for record in b.samples]
    summaries = []
    for summary in b.benchmarks:
        c = by_name.get(summary.benchmark)
        if c is None:
            continue
        gate = Gate(rows=list(c.rows.values()), missing=0, allowed=0)
        summaries.append(summary.model_copy(update={
            "gate": gate, "baseline_status": "applied", "holds_items": c.noise_known}))
    report = b.model_copy(update={"benchmarks": summaries, "samples": samples,
                                  "verdict": verdict, "gate_held": verdict.held})
    benches = {c.benchmark: registry.create(c.benchmark, b.settings) for c in compared}
    return html.Page(report=report, samples=samples, benchmarks=benches,
                     lines={c.benchmark: c.lines_a for c in compared},
                     audio_limit=audio_limit, labels=("A", "B"), title=title)


_OUTCOME = {"regressed": "failed", "xfailed": "xfailed", "xpassed": "xpassed"}


def _held(record: SampleRecord, compared: Compared | None) -> SampleRecord:
    """A sample of B with the outcome and change the comparison with A gives it."""
    found = compared.changes.get(record.nodeid) if compared is not None else None
    change = found.kind if found is not None and compared is not None and \
        compared.noise_known else None
    return record.model_copy(update={"outcome": _outcome(record, compared), "change": change})


def _outcome(record: SampleRecord, compared: Compared | None) -> Outcome:
    """A sample of B as the comparison with A sees it: regressed, under its bar without a
    drop, clearing it now, or passed; by its own bar when no drop can be told from noise."""
    if record.outcome in ("error", "skipped", "not_run") or compared is None:
        return record.outcome
    under = record.nodeid in compared.under_bar
    if not compared.noise_known:
        return "failed" if under else "passed"
    found = compared.changes.get(record.nodeid)
    if found is not None:
        return cast(Outcome, _OUTCOME[found.kind])
    return "xfailed" if under else "passed"


if __name__ == "__main__":
    raise SystemExit(main())
