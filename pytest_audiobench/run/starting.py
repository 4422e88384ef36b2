"""The checks of a run's start on the controller, before any request: every output it will
write can be written, a cache that cannot be written is said, and the run's records are kept
where a resume finds them (on a resume, the places of the samples already done)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.base import Benchmark
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.files import cannot_write, cannot_write_in
from pytest_audiobench.gate.loaded import LoadedBaseline, baseline_path
from pytest_audiobench.run.runs import RunBook, RunStart, settled_fingerprint
from pytest_audiobench.run.spool import RecordSpool


def check_outputs(settings: Settings, config: pytest.Config,
                  benchmarks: Mapping[str, Benchmark]) -> None:
    """Every file the run writes at its end can be written: found out before the first
    request, not after every one was paid for. AudiobenchError naming the flag and file."""
    for flag, path in _outputs(settings, config, benchmarks):
        reason = cannot_write(path)
        if reason is not None:
            raise AudiobenchError(f"{flag} {path}: cannot be written ({reason}); nothing "
                                  "was sent")


def _outputs(settings: Settings, config: pytest.Config,
             benchmarks: Mapping[str, Benchmark]) -> list[tuple[str, Path]]:
    found = [("--audiobench-report", settings.report), ("--audiobench-html", settings.html)]
    junit = config.getoption("xmlpath", None)
    if junit:
        found.append(("--junitxml", config.invocation_params.dir / junit))
    if settings.update_baseline and settings.shard is None:
        found += [("--audiobench-update-baseline", baseline_path(settings, name))
                  for name in benchmarks]
    found += [output for bench in benchmarks.values() for output in bench.outputs().items()]
    return [(flag, path) for flag, path in found if path is not None]


def cache_note(settings: Settings) -> str | None:
    """What a cache folder that cannot be written means, said at once: the run goes on,
    keeping its replies in memory, but nothing of it can be resumed or reused."""
    reason = cannot_write_in(settings.cache_dir / "responses") if settings.cache else None
    if reason is None:
        return None
    return (f"cache: {settings.cache_dir} cannot be written ({reason}): replies are kept in "
            "memory for this run only; it cannot be resumed or reused")


def keep_records(settings: Settings, config: pytest.Config, runs: RunBook, start: RunStart,
                 records: RecordSpool, baselines: Mapping[str, LoadedBaseline]
                 ) -> tuple[Path | None, dict[str, tuple[int, int]]]:
    """Keep the run's records in its records file (``run/spool.py``), and on a resume the
    places there of the samples an earlier session did: their items take those whole instead
    of reading the audio, asking and grading again. A dry run's records (nothing sent) are
    nobody's to resume; without the cache nothing is kept."""
    if not settings.cache or settings.dry_run or config.option.collectonly:
        return None, {}
    digests = {name: baseline.digest for name, baseline in baselines.items()}
    path = runs.records_path(start.record.run_id, settled_fingerprint(settings, digests))
    if not records.keep_in(path) or not start.resumed:
        return None, {}
    return path, records.settled()
