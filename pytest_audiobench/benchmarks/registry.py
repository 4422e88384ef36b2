"""The benchmarks by name: the ones that ship with the plugin, and any that a package registers
in the ``pytest_audiobench.benchmarks`` entry-point group; with the providers
(``builtin/registry.py``), what one pytest start knows of (its ``Catalog``).

An entry point names a ``BenchmarkSpec`` (``name = "package.module:SPEC"``); the spec names
the ``Benchmark`` subclass, which is imported only when a run selects it, so every pytest
start reads the specs alone.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from pytest_audiobench.builtin import registry as providers
from pytest_audiobench.config import entry_points
from pytest_audiobench.config.declarations import BenchmarkSpec, Catalog
from pytest_audiobench.errors import RegistryError

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import Benchmark
    from pytest_audiobench.config.settings import Settings

ENTRY_POINTS = "pytest_audiobench.benchmarks"
BUILT_IN = ("pytest_audiobench.benchmarks.air_bench_chat:SPEC",
            "pytest_audiobench.benchmarks.mmar:SPEC",
            "pytest_audiobench.benchmarks.air_bench_foundation:SPEC")


@functools.cache
def catalog() -> Catalog:
    """Every benchmark and provider this Python environment has, the built-in ones first. A
    registration that cannot be read is left out and said in ``problems``."""
    specs, problems = entry_points.registered(ENTRY_POINTS, BUILT_IN, BenchmarkSpec,
                                              lambda spec: spec.name)
    found, troubles = providers.specs()
    return Catalog.of(specs.values(), [*problems, *troubles], found.values())


def create(name: str, settings: Settings) -> Benchmark:
    """The benchmark called ``name``, built with the run's settings."""
    return benchmark_class(name)(settings)


def benchmark_class(name: str) -> type[Benchmark]:
    """The ``Benchmark`` subclass of ``name`` (importing it registers its verdict type);
    KeyError for a name no installed benchmark has."""
    from pytest_audiobench.benchmarks.base import Benchmark

    spec = catalog().specs[name]
    made = entry_points.load(spec.benchmark, f"benchmark {name!r}")
    if not (isinstance(made, type) and issubclass(made, Benchmark)):
        raise RegistryError(f"benchmark {name!r}: {spec.benchmark} is not a subclass of "
                            "pytest_audiobench.Benchmark")
    return made
