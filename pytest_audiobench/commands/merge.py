"""``audiobench-merge``: combine the JSON reports of ``--audiobench-shard K/N`` runs and gate on
the union exactly as one unsharded run would.

    audiobench-merge shard-1.json shard-2.json ... [--report merged.json] [--baselines DIR]
                     [--update-baseline] [a benchmark's output flags, e.g. --export-mmar PATH]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from pytest_audiobench import ending
from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.config import convert, declarations
from pytest_audiobench.config.frozen import OwnSettings, UnreadSettings
from pytest_audiobench.errors import AudiobenchError, MergeError
from pytest_audiobench.gate.loaded import load_all
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.lines import JudgedBy, SampleLine
from pytest_audiobench.report import html
from pytest_audiobench.report.html import Written
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.reading import read_report
from pytest_audiobench.report.summary import Finished
from pytest_audiobench.report.terminal import render
from pytest_audiobench.transport.types import Traffic

# Settings that legitimately differ between the shards of one run.
_PER_SHARD = {"shard", "report", "html"}


def read(path: Path) -> RunReport:
    """A shard's report."""
    return read_report(path, "audiobench-merge")


@dataclass(frozen=True)
class Merged:
    """The merged report, the benchmarks that read it, and the baseline's sample lines as
    they were before any update (what the page sets the answers beside)."""

    report: RunReport
    benchmarks: dict[str, Benchmark]
    lines: dict[str, Mapping[str, SampleLine]]


def merge(reports: Sequence[tuple[Path, RunReport]], *, report_path: Path | None = None,
          baselines_dir: Path | None = None, update_baseline: bool = False,
          outputs: Mapping[str, Path | None] | None = None) -> RunReport:
    """One report over every shard's samples, gated against the baselines. ``outputs`` are a
    benchmark's output options by attribute name (``{"export_mmar": PATH}``)."""
    return _merge(reports, report_path=report_path, baselines_dir=baselines_dir,
                  update_baseline=update_baseline, outputs=outputs).report


def _merge(reports: Sequence[tuple[Path, RunReport]], *, report_path: Path | None,
           baselines_dir: Path | None, update_baseline: bool,
           outputs: Mapping[str, Path | None] | None) -> Merged:
    _check_shards(reports)
    first = reports[0][1].settings
    own = {name: _with_outputs(name, settings, outputs or {})
           for name, settings in first.benchmark_settings.items()}
    settings = first.model_copy(update={
        "shard": None, "report": report_path, "update_baseline": update_baseline,
        "baselines_dir": baselines_dir or first.baselines_dir, "benchmark_settings": own})
    benches = {name: registry.create(name, settings) for name in settings.benchmarks}
    # The data is not here: what it decided travels in every shard's report.
    releases = {name: next(b for _, r in reports for b in r.benchmarks
                           if b.benchmark == name).release() for name in benches}
    samples = [s for _, r in reports for s in r.samples]
    selected = [n for _, r in reports for n in r.selected]
    order = {nodeid: index for index, nodeid in enumerate(sorted(selected))}
    samples.sort(key=lambda s: order.get(s.nodeid, len(order)))
    traffic = sum((r.traffic for _, r in reports), Traffic())
    names = list(benches)
    longest = max((r.seconds for _, r in reports if r.seconds is not None), default=None)
    # Read before an update is written; nothing is judged again here, after the run.
    loaded = load_all(settings, {name: JudgedBy() for name in names},
                      {name: bench.gating().linear for name, bench in benches.items()},
                      {name for name, release in releases.items() if release.withheld})
    for name in names:
        # Every shard decided alike (by the judge's identity): the first one says it.
        comparison = next((b.judge_comparison for _, r in reports for b in r.benchmarks
                           if b.benchmark == name and b.judge_comparison is not None), None)
        if comparison is not None:
            loaded[name] = loaded[name].decided(comparison)
    # Every shard saw the same selection before its split: the first says what it left out.
    left_out = {name: next(b.counts.left_out for _, r in reports for b in r.benchmarks
                           if b.benchmark == name) for name in names}
    # A merge is partial when a shard was: a rerun, or one stopped early.
    scope = Scope()
    for path, shard in reports:
        scope = scope.joined(shard.scope, path.name)
    finished = Finished(sorted(selected), traffic, None, longest, left_out, scope)
    report = ending.conclude(settings, benches, releases, samples, loaded, finished)
    # The shards' records are in memory already (each report was read whole): keep them.
    return Merged(report.model_copy(update={"samples": samples}), benches,
                  {name: baseline.lines for name, baseline in loaded.items()})


def _write_html(merged: Merged, path: Path, audio_mb: float | None) -> Written:
    page = html.run_page(merged.report, merged.report.samples, merged.benchmarks,
                         merged.lines)
    if audio_mb is not None:
        page = replace(page, audio_limit=int(audio_mb * 2**20))
    return html.write(page, path)


def _with_outputs(name: str, own: OwnSettings, outputs: Mapping[str, Path | None]
                  ) -> OwnSettings:
    """``own`` with the outputs the merge writes instead of the shards (none unless given)."""
    group = registry.catalog().specs[name].options
    changed = {option.merge_setting: None if outputs.get(option.attr) is None
               else str(outputs[option.attr])
               for option in (declarations.declared(group) if group else ())
               if option.merge_setting is not None}
    return UnreadSettings(**(own.model_dump(mode="json") | changed))


def _check_shards(reports: Sequence[tuple[Path, RunReport]]) -> None:
    if not reports:
        raise MergeError("no reports given: pass the JSON report of every shard")
    shards = {}
    for path, report in reports:
        if report.settings.shard is None:
            raise MergeError(f"{path}: not a shard's report (it ran without --audiobench-shard)")
        shards[path] = report.settings.shard
    total = {n for _, n in shards.values()}
    if len(total) != 1:
        raise MergeError(f"the reports come from different splits: {sorted(total)} shards")
    (n,) = total
    seen = sorted(k for k, _ in shards.values())
    if seen != list(range(1, n + 1)):
        raise MergeError(f"expected shards 1..{n} once each, got {seen}")
    reference_path, reference = reports[0]
    base = reference.settings.model_dump(mode="json", exclude=_PER_SHARD)
    for path, report in reports[1:]:
        other = report.settings.model_dump(mode="json", exclude=_PER_SHARD)
        differing = sorted(key for key in base if base[key] != other.get(key))
        if differing:
            raise MergeError(f"{path} ran with other settings than {reference_path}: "
                             + ", ".join(differing))
    nodeids = [n for _, r in reports for n in r.selected]
    if len(nodeids) != len(set(nodeids)):
        raise MergeError("a sample appears in more than one shard: were the shards run on the "
                         "same data and selection?")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="audiobench-merge",
        description="Combine the JSON reports of --audiobench-shard K/N runs and gate on the "
                    "union exactly as one unsharded run would.")
    parser.add_argument("reports", nargs="+", type=Path, help="every shard's JSON report")
    parser.add_argument("--report", type=Path, help="write the merged JSON report here")
    parser.add_argument("--baselines", type=Path, help="baselines folder (default: the shards')")
    parser.add_argument("--update-baseline", action="store_true",
                        help="write the baseline file from the merged metrics")
    parser.add_argument("--html", type=Path, metavar="PATH",
                        help="write the merged run as one self-contained HTML page here")
    parser.add_argument("--html-audio-mb", type=convert.non_negative_float, metavar="MB",
                        help="megabytes of audio the page embeds, every clip while they last "
                             "(those that need attention first); a clip beyond them is linked "
                             "relative to the page (default: the shards' "
                             "--audiobench-html-audio-mb)")
    outputs = [option for spec in registry.catalog().specs.values() if spec.options
               for option in declarations.declared(spec.options)
               if option.merge_setting is not None]
    for option in outputs:
        parser.add_argument("--" + option.attr.replace("_", "-"), type=Path, dest=option.attr,
                            help=option.described(registry.catalog()))
    args = parser.parse_args(argv)
    try:
        merged = _merge([(path, read(path)) for path in args.reports],
                        report_path=args.report, baselines_dir=args.baselines,
                        update_baseline=args.update_baseline,
                        outputs={option.attr: getattr(args, option.attr) for option in outputs})
    except AudiobenchError as exc:
        print(f"audiobench-merge: error: {exc}", file=sys.stderr)
        return 4
    report = merged.report
    if args.report is not None:
        report.write(args.report)
    written = [] if args.html is None else [
        _write_html(merged, args.html, args.html_audio_mb).line()]
    print("\n".join(render(report, written=written)))
    outcomes = {s.outcome for s in report.samples}
    status = 1 if outcomes & {"failed", "error"} else 0
    return int(ending.status_of(report, status))


if __name__ == "__main__":
    raise SystemExit(main())
