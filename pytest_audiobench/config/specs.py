"""What a benchmark declares before anything runs: its name, tasks, options and data sources.

A spec is cheap to import (no data, no HTTP client, no pydantic): pytest reads every spec in
every start to register the flags. The benchmark itself is named by an import path and loaded
only when a run asks for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_audiobench.config.options import BenchmarkOptions


@dataclass(frozen=True, slots=True)
class BenchmarkSpec:
    """One benchmark as the options see it."""

    name: str
    """Its name in ``--audiobench-benchmark``, its node ids and its metric names."""
    tasks: tuple[str, ...]
    """Every task, known before the data is read so that ``--audiobench-tasks`` is checked."""
    benchmark: str
    """``module:Class`` of its ``Benchmark`` subclass, imported when a run selects it."""
    options: type[BenchmarkOptions] | None = None
    """Its own ``--audiobench-*`` flags, resolved by the group's ``settings`` method."""
    sources: tuple[str, ...] = ()
    """``--audiobench-data`` values it downloads from (e.g. a hub's name)."""
    needs_judge: bool = False
    """True when its answers are graded by an LLM judge, so a run of it needs one."""
    default: bool = False
    """Run when ``--audiobench-benchmark`` is not given."""
    layout: str = ""
    """What its release root holds, for the error a missing root gets."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """The benchmarks a pytest start knows of, as the option converters check names."""

    specs: Mapping[str, BenchmarkSpec]

    @classmethod
    def of(cls, specs: Iterable[BenchmarkSpec]) -> Catalog:
        return cls({spec.name: spec for spec in specs})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self.specs)

    @property
    def defaults(self) -> tuple[str, ...]:
        return tuple(name for name, spec in self.specs.items() if spec.default) or self.names[:1]

    @property
    def all_tasks(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for spec in self.specs.values() for t in spec.tasks))

    @property
    def sources(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s for spec in self.specs.values() for s in spec.sources))
