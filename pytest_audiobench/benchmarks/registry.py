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

import pytest

from pytest_audiobench.builtin import registry as providers
from pytest_audiobench.config import declarations, entry_points
from pytest_audiobench.config.declarations import (
    BenchmarkSpec,
    Catalog,
    OptionGroup,
    ProviderSpec,
)
from pytest_audiobench.errors import RegistryError

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import Benchmark
    from pytest_audiobench.config.settings import Settings

ENTRY_POINTS = "pytest_audiobench.benchmarks"
BUILT_IN = ("pytest_audiobench.benchmarks.air_bench_chat:SPEC",
            "pytest_audiobench.benchmarks.mmar:SPEC",
            "pytest_audiobench.benchmarks.air_bench_foundation:SPEC",
            "pytest_audiobench.benchmarks.mmau:SPEC",
            "pytest_audiobench.benchmarks.mmsu:SPEC",
            "pytest_audiobench.benchmarks.big_bench_audio:SPEC",
            "pytest_audiobench.benchmarks.librispeech:SPEC",
            "pytest_audiobench.benchmarks.fleurs:SPEC",
            "pytest_audiobench.benchmarks.common_voice:SPEC",
            "pytest_audiobench.benchmarks.aishell1:SPEC",
            "pytest_audiobench.benchmarks.aishell2:SPEC",
            "pytest_audiobench.benchmarks.wenetspeech:SPEC",
            "pytest_audiobench.benchmarks.voicebench:SPEC")


def built_in() -> tuple[str, ...]:
    """The names of the benchmarks that ship with the plugin, in ``BUILT_IN``'s order: each
    is its folder's name (``tests/test_architecture.py`` holds that), so every list of them
    outside their folders reads this one."""
    return tuple(spec.split(":", 1)[0].rsplit(".", 1)[1] for spec in BUILT_IN)


@functools.cache
def _installed() -> Catalog:
    """Every benchmark and provider this Python environment has, the built-in ones first. A
    registration that cannot be read is left out and said in ``problems``."""
    specs, problems = entry_points.registered(ENTRY_POINTS, BUILT_IN, BenchmarkSpec,
                                              lambda spec: spec.name)
    found, troubles = providers.specs()
    return Catalog.of(specs.values(), [*problems, *troubles], found.values())


_ADDED: list[BenchmarkSpec | ProviderSpec] = []
"""What this start's conftests and plugins added (``hookspecs.pytest_audiobench_register``),
until the start ends (``forget_added``)."""


def catalog() -> Catalog:
    """Every benchmark and provider of this start: the installed ones, then those its
    conftests and plugins added."""
    base = _installed()
    if not _ADDED:
        return base
    benchmarks = [s for s in _ADDED if isinstance(s, BenchmarkSpec)]
    models = [s for s in _ADDED if isinstance(s, ProviderSpec)]
    return Catalog.of([*base.specs.values(), *benchmarks], base.problems,
                      [*base.providers.values(), *models])


def add(specs: object, origin: str) -> list[type[OptionGroup]]:
    """Add what a conftest or plugin (``origin``) registered; the option groups it brings,
    for the parser. RegistryError, naming it, for anything but new specs."""
    if not isinstance(specs, list | tuple):
        raise RegistryError(f"{origin}: pytest_audiobench_register returned "
                            f"{type(specs).__name__}; expected a list of BenchmarkSpec and "
                            "ProviderSpec")
    known = catalog()
    for index, spec in enumerate(specs):
        if not isinstance(spec, BenchmarkSpec | ProviderSpec):
            raise RegistryError(f"{origin}: pytest_audiobench_register returned a "
                                f"{type(spec).__name__}; expected a BenchmarkSpec or a "
                                "ProviderSpec")
        taken = known.specs if isinstance(spec, BenchmarkSpec) else known.providers
        if spec.name in taken or any(s.name == spec.name and type(s) is type(spec)
                                     for s in [*_ADDED, *specs[:index]]):
            raise RegistryError(f"{origin}: {spec.name!r} is registered twice (it is "
                                "already installed, or added by another conftest)")
    _ADDED.extend(specs)
    return [spec.options for spec in specs if spec.options is not None]


def register(specs: object, parser: pytest.Parser) -> None:
    """What a conftest or plugin registered (``hookspecs.pytest_audiobench_register``): in the
    catalog, and its options in ``parser``. What is not specs is kept for ``refuse_bad``: a
    start cannot stop cleanly while pytest loads the conftests."""
    try:
        groups = add(specs, "a conftest or plugin")
    except RegistryError as exc:
        _REFUSED.append(str(exc))
        return
    declarations.register(parser, groups, catalog())


_REFUSED: list[str] = []


def refuse_bad() -> None:
    """A UsageError, in one line, for the first registration ``register`` could not take."""
    if _REFUSED:
        raise pytest.UsageError(_REFUSED[0])


def forget_added() -> None:
    """The start is over: what its conftests added is not the next one's (pytester runs several
    in one process)."""
    _ADDED.clear()
    _REFUSED.clear()


def create(name: str, settings: Settings) -> Benchmark:
    """The benchmark called ``name``, built with the run's settings."""
    return benchmark_class(name)(settings)


def benchmark_class(name: str) -> type[Benchmark]:
    """The ``Benchmark`` subclass of ``name`` (importing it registers its grade type);
    KeyError for a name no installed benchmark has."""
    from pytest_audiobench.benchmarks.base import Benchmark

    spec = catalog().specs[name]
    made = entry_points.load(spec.benchmark, f"benchmark {name!r}")
    if not (isinstance(made, type) and issubclass(made, Benchmark)):
        raise RegistryError(f"benchmark {name!r}: {spec.benchmark} is not a subclass of "
                            "pytest_audiobench.Benchmark")
    stated = getattr(made, "name", None)
    if stated != name:
        raise RegistryError(f"benchmark {name!r}: {spec.benchmark} states its name as "
                            f"{stated!r}; set its class attribute name to the spec's, "
                            "best from one constant both import")
    return made
