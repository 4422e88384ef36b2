"""Each benchmark's release in one run: where its data is (located, or downloaded, once by
the controller and handed to the workers) and its samples, loaded on first use and narrowed to
the selected tasks and limit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.base import Benchmark, Release
from pytest_audiobench.benchmarks.release import check_inside, select
from pytest_audiobench.config.settings import Settings


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
            for name, bench in self.benchmarks.items():
                release = bench.load(self.roots[name])
                check_inside(release, self.roots[name])
                self.whole[name] = len(release.samples)
                chosen = select(release.samples, catalog.specs[name], settings.tasks,
                                settings.limit)
                self._loaded[name] = replace(release, samples=chosen)
        return self._loaded
