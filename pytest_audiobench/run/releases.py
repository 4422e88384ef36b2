"""Each benchmark's release in one run: where its data is (located, or downloaded, once by
the controller and handed to the workers) and its samples, loaded on first use and narrowed to
the selected tasks and limit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark, Release
from pytest_audiobench.benchmarks.release import check_inside, check_names, select
from pytest_audiobench.config.declarations import Catalog
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import DataError


class Releases:
    def __init__(self, settings: Settings, benchmarks: Mapping[str, Benchmark],
                 roots: Mapping[str, Path]) -> None:
        self.settings = settings
        self.benchmarks = benchmarks
        self.roots = dict(roots)
        self._loaded: dict[str, Release] | None = None
        self.whole: dict[str, int] = {}
        """Each release's samples before the tasks and the limit narrowed them."""

    def loaded(self) -> dict[str, Release]:
        """Every benchmark's release, read and checked on the first call."""
        if self._loaded is None:
            catalog, settings = registry.catalog(), self.settings
            self._loaded = {}
            found: dict[str, tuple[str, ...]] = {}
            for name, bench in self.benchmarks.items():
                release = bench.load(self.roots[name])
                check_names(release, self.roots[name])
                check_inside(release, self.roots[name])
                self.whole[name] = len(release.samples)
                found[name] = catalog.specs[name].tasks or tuple(dict.fromkeys(
                    sample.task for sample in release.samples))
                chosen = select(release.samples, catalog.specs[name], settings.tasks,
                                settings.limit)
                self._loaded[name] = replace(release, samples=chosen)
            self._check_tasks(catalog, found)
        return self._loaded

    def _check_tasks(self, catalog: Catalog, found: Mapping[str, tuple[str, ...]]) -> None:
        """Every task given is a task of a selected benchmark (``found``: each one's, its
        release's when the release names them), checked here once such a release is read;
        the others were checked when the options were read."""
        given = self.settings.tasks
        if not given or all(catalog.specs[name].tasks for name in self.benchmarks):
            return
        theirs = [task for tasks in found.values() for task in tasks]
        unknown = [task for task in given if task not in theirs]
        if unknown:
            raise DataError(f"--audiobench-tasks {','.join(unknown)}: not a task of "
                            f"--audiobench-benchmark {','.join(self.benchmarks)}; its tasks "
                            f"are: {', '.join(theirs)}")
