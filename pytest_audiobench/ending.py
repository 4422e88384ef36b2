"""The end of a run, written once: the report of its records, the baselines the gate
decided to write, and the benchmarks' exports. A session's end (``run/session.py``) and a
merge of shard reports (``commands/merge.py``) both end here, so a merge ends as a run does:
a partial one (a rerun, or stopped early) writes its exports no more than such a run would.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from pytest_audiobench.benchmarks.base import Benchmark, Release, export, unexported
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.gate import writing
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.scope import Scope
from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import RunInfo, RunReport
from pytest_audiobench.report.summary import baselines_unwritten, build_report, exported
from pytest_audiobench.transport.types import Traffic


def conclude(settings: Settings, benchmarks: Mapping[str, Benchmark],
             releases: Mapping[str, Release], records: Iterable[SampleRecord],
             selected: Sequence[str], loaded: Mapping[str, LoadedBaseline], traffic: Traffic,
             run: RunInfo | None, *, seconds: float | None, left_out: Mapping[str, int],
             scope: Scope) -> RunReport:
    """The run's report once its baselines and exports were written (or said not to be).
    ``records`` are read once for the report and once more by a benchmark that exports."""
    report, updates = build_report(settings, benchmarks, releases, records, selected, loaded,
                                   traffic, run, seconds, left_out, scope)
    report = baselines_unwritten(report, writing.apply(updates))
    if aside(settings, scope):
        return exported(report, unexported(benchmarks, scope.words()))
    return exported(report, export(benchmarks, records))


def aside(settings: Settings, scope: Scope) -> bool:
    """Whether the run's outputs go beside the configured ones: a partial run's, unless
    ``--audiobench-partial-report replace`` (``gate/scope.py``)."""
    return scope.partial and settings.partial_report == "beside"
