"""The benchmarks by name: the ones that ship with the plugin, and any that a package registers
in the ``pytest_audiobench.benchmarks`` entry-point group.

An entry point names a ``BenchmarkSpec`` (``name = "package.module:SPEC"``); the spec names
the ``Benchmark`` subclass, which is imported only when a run selects it, so every pytest
start reads the specs alone.
"""

from __future__ import annotations

import functools
import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.declarations import BenchmarkSpec, Catalog
from pytest_audiobench.errors import RegistryError

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import Benchmark
    from pytest_audiobench.config.settings import Settings

ENTRY_POINTS = "pytest_audiobench.benchmarks"
BUILT_IN = ("pytest_audiobench.benchmarks.air_bench_chat:SPEC",
            "pytest_audiobench.benchmarks.mmar:SPEC")


@functools.cache
def catalog() -> Catalog:
    """Every benchmark this Python environment has, the built-in ones first. A registration
    that cannot be read is left out and said in ``problems``: one broken package must not
    stop every pytest run of the environment."""
    built_in = [_spec(path, "pytest-audiobench") for path in BUILT_IN]
    specs: dict[str, BenchmarkSpec] = {spec.name: spec for spec in built_in}
    problems = []
    for entry in metadata.entry_points(group=ENTRY_POINTS):
        try:
            spec = _spec(entry.value, _origin(entry))
            if spec.name in specs:
                raise RegistryError(f"benchmark {spec.name!r} is registered twice (again by "
                                    f"{_origin(entry)}, entry point {entry.value})")
        except RegistryError as exc:
            problems.append(str(exc))
            continue
        specs[spec.name] = spec
    return Catalog.of(specs.values(), problems)


def create(name: str, settings: Settings) -> Benchmark:
    """The benchmark called ``name``, built with the run's settings."""
    return benchmark_class(name)(settings)


def benchmark_class(name: str) -> type[Benchmark]:
    """The ``Benchmark`` subclass of ``name`` (importing it registers its verdict type);
    KeyError for a name no installed benchmark has."""
    from pytest_audiobench.benchmarks.base import Benchmark

    spec = catalog().specs[name]
    made = _load(spec.benchmark, f"benchmark {name!r}")
    if not (isinstance(made, type) and issubclass(made, Benchmark)):
        raise RegistryError(f"benchmark {name!r}: {spec.benchmark} is not a subclass of "
                            "pytest_audiobench.benchmarks.base.Benchmark")
    return made


def _spec(path: str, origin: str) -> BenchmarkSpec:
    spec = _load(path, f"entry point {path} of {origin}")
    if not isinstance(spec, BenchmarkSpec):
        raise RegistryError(f"entry point {path} of {origin} in group {ENTRY_POINTS} names a "
                            f"{type(spec).__name__}; expected a "
                            "pytest_audiobench.config.declarations.BenchmarkSpec")
    return spec


def _load(path: str, what: str) -> Any:
    module, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise RegistryError(f"{what}: cannot load {path} ({type(exc).__name__}: {exc})") from exc


def _origin(entry: metadata.EntryPoint) -> str:
    dist = entry.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
