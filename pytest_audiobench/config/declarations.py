"""What options and benchmarks declare, and how pytest is told of them.

An option is a class attribute of an ``OptionGroup``: the run's own options in
``options.CoreOptions``, a benchmark's in its folder (a ``BenchmarkOptions``). ``register``
adds every flag to one ``audiobench`` group with its ini key ``audiobench_<name>``;
``OptionGroup.read`` reads them (the flag wins over the ini key, which wins over the default)
into an instance whose attributes have the options' types.

A benchmark declares itself with a ``BenchmarkSpec``: cheap to import (no data, no HTTP
client, no pydantic), since pytest reads every spec in every start to register the flags. The
benchmark itself is named by an import path and loaded only when a run asks for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Self, TypeVar, overload

import pytest

T = TypeVar("T")


class Option(Generic[T]):
    """One ``--audiobench-<name>`` flag and its ini key ``audiobench_<name>``; the name is the
    attribute's, with ``-`` for ``_``. Without a converter it is a switch (False unless given).
    A converter or default that depends on the benchmarks known to this start comes from
    ``convert_for`` / ``default_for`` instead."""

    def __init__(self, help: str, convert: Callable[[str], T] | None = None,
                 default: T | None = None, metavar: str | None = None, *,
                 convert_for: Callable[[Catalog], Callable[[str], T]] | None = None,
                 default_for: Callable[[Catalog], T] | None = None,
                 merge_setting: str | None = None) -> None:
        self.help = help
        self.convert = convert
        self.default = default
        self.metavar = metavar
        self._convert_for = convert_for
        self._default_for = default_for
        self.merge_setting = merge_setting
        """For an output written at the end of a run (an export): the benchmark setting it
        sets, so that ``audiobench-merge --<name> PATH`` writes it from the merged shards."""
        self.attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self.attr = attr

    @overload
    def __get__(self, group: None, owner: type) -> Option[T]: ...
    @overload
    def __get__(self, group: OptionGroup, owner: type) -> T: ...
    def __get__(self, group: OptionGroup | None, owner: type) -> Option[T] | T:
        if group is None:
            return self
        value: T = group.values[self.attr]
        return value

    @property
    def flag(self) -> str:
        return "--audiobench-" + self.attr.replace("_", "-")

    @property
    def dest(self) -> str:
        return "audiobench_" + self.attr

    @property
    def switch(self) -> bool:
        return self.convert is None and self._convert_for is None

    def converter(self, catalog: Catalog) -> Callable[[str], T] | None:
        return self._convert_for(catalog) if self._convert_for else self.convert

    def default_value(self, catalog: Catalog) -> T | None:
        return self._default_for(catalog) if self._default_for else self.default

    def described(self) -> str:
        """The help text, ``{default}`` filled in where it names the default."""
        return self.help.replace("{default}", str(self.default))


class OptionGroup:
    """Options declared as class attributes; an instance holds the values one run read."""

    def __init__(self, values: Mapping[str, Any], given: Iterable[str] = ()) -> None:
        self.values = dict(values)
        self._given = frozenset(given)

    @classmethod
    def declared(cls) -> list[Option[Any]]:
        return [value for value in vars(cls).values() if isinstance(value, Option)]

    @classmethod
    def read(cls, config: pytest.Config, catalog: Catalog) -> Self:
        """Every option of the group: the flag, else the ini key, else the default."""
        given = {option.attr: _given_value(config, option, catalog) for option in cls.declared()}
        return cls.of(catalog, **{attr: v for attr, v in given.items() if v is not None})

    @classmethod
    def of(cls, catalog: Catalog, **given: Any) -> Self:
        """The group with ``given`` values (by attribute name), the defaults elsewhere."""
        values = {option.attr: False if option.switch else option.default_value(catalog)
                  for option in cls.declared()}
        unknown = set(given) - set(values)
        if unknown:
            raise TypeError(f"{cls.__name__} has no option {', '.join(sorted(unknown))}")
        return cls(values | given, given)

    def given(self, option: Option[Any]) -> bool:
        """Whether the user set ``option`` (by flag or ini key) rather than left its default."""
        return option.attr in self._given


class BenchmarkOptions(OptionGroup):
    """A benchmark's own options (declared in its folder, named by its spec)."""

    def settings(self, here: Path) -> dict[str, Any]:
        """The benchmark's settings from these values, as JSON; paths are relative to
        ``here``. AudiobenchError (one line naming the flag) when a value is unusable."""
        raise NotImplementedError


def _given_value(config: pytest.Config, option: Option[Any], catalog: Catalog) -> Any:
    given = config.getoption(option.dest)
    if given is not None:
        return given
    raw = config.getini(option.dest)
    if option.switch:
        return True if raw else None
    if raw in (None, "", []):
        return None
    converter = option.converter(catalog)
    assert converter is not None  # not a switch
    try:
        return converter(str(raw))
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"ini option {option.dest}: {exc}") from None


def register(parser: pytest.Parser, groups: Iterable[type[OptionGroup]],
             catalog: Catalog) -> None:
    """Add every option of ``groups`` to one ``audiobench`` group, and its ini key."""
    group = parser.getgroup("audiobench", "audio-language-model benchmarks as a release gate")
    for option in (option for g in groups for option in g.declared()):
        if option.switch:
            group.addoption(option.flag, action="store_true", default=None, dest=option.dest,
                            help=option.described())
            parser.addini(option.dest, option.described(), type="bool", default=False)
        else:
            group.addoption(option.flag, type=option.converter(catalog), default=None,
                            dest=option.dest, metavar=option.metavar, help=option.described())
            parser.addini(option.dest, option.described(), default=None)


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
    problems: tuple[str, ...] = ()
    """Registrations that could not be read (each one line); those benchmarks are left out."""

    @classmethod
    def of(cls, specs: Iterable[BenchmarkSpec], problems: Iterable[str] = ()) -> Catalog:
        return cls({spec.name: spec for spec in specs}, tuple(problems))

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
