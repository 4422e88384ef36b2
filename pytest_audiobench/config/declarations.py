"""What options and benchmarks declare, and how pytest is told of them.

An option is an annotated class attribute of an ``OptionGroup``: the annotation is its type
with its ``Flag`` (help, converter, metavar) in ``Annotated``, the value is its default, the
attribute's name gives the flag ``--audiobench-<name>`` and the ini key ``audiobench_<name>``.
That is the only place an option is stated: ``register`` tells pytest of every flag and ini
key, ``read`` reads them (the flag wins over the ini key, which wins over the default) into an
instance of the group, and the run's ``Settings`` take their fields from the groups they
inherit. The run's own groups are in ``options.py``, a benchmark's in its folder (a
``BenchmarkOptions``).

A benchmark declares itself with a ``BenchmarkSpec``: cheap to import (no data, no HTTP
client, no pydantic), since pytest reads every spec in every start to register the flags. The
benchmark itself is named by an import path and loaded only when a run asks for it.
"""

from __future__ import annotations

import argparse
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

import pytest

if TYPE_CHECKING:
    from pytest_audiobench.config.frozen import OwnSettings

G = TypeVar("G", bound="OptionGroup")

Concern = Literal["model", "judge", "data", "gate", "run", "reports"]
CONCERNS: dict[Concern, str] = {
    "model": "audiobench: the model (what is asked, and how its audio is sent)",
    "judge": "audiobench: the judge (what grades the answers)",
    "data": "audiobench: data and benchmarks (the releases, their tasks and samples, and each "
            "benchmark's own options)",
    "gate": "audiobench: gate and baselines (what a run is held against, and how)",
    "run": "audiobench: run and cache (requests, pacing, budgets, the response cache, resuming, "
           "shards)",
    "reports": "audiobench: reports (the JSON report, the page, what a partial run writes)",
}
"""The groups ``pytest --help`` lists the options in, in this order, each with its heading: a
hundred options in one list is a wall, and a team looks for one concern at a time."""


class Flag:
    """How an option is given: its help (``{default}`` is filled in), the converter of its
    text (none: a switch, False unless given) and its metavar. A converter checks the text
    alone: names a start knows (its benchmarks, their tasks) are checked when the settings are
    resolved, once every conftest has registered what it adds."""

    def __init__(self, help: str, convert: Callable[[str], Any] | None = None,
                 metavar: str | None = None, *, merge_setting: str | None = None,
                 formerly: str | None = None, concern: Concern | None = None,
                 unset: str = "none") -> None:
        self.help = help
        self.convert = convert
        self.metavar = metavar
        self.concern = concern
        """Where ``--help`` lists it, when not its group's (``OptionGroup.concern``)."""
        self.unset = unset
        """What a default of None means, as the help says it ("none", "the model's own")."""
        self.formerly = formerly
        """The name the option had before it was renamed: its old flag and ini key are still
        read, when the new ones are not given, with a warning that names the new flag."""
        self.merge_setting = merge_setting
        """For an output written at the end of a run (an export): the benchmark setting it
        sets, so that ``audiobench-merge --<name> PATH`` writes it from the merged shards."""


@dataclass(frozen=True, slots=True)
class Declared:
    """One option as its group declares it."""

    attr: str
    default: Any
    how: Flag
    concern: Concern = "run"
    """Where ``--help`` lists it (``CONCERNS``)."""
    kind: type = str
    """Its value's type once read (int, float, bool or str): the ini key's type."""

    @property
    def flag(self) -> str:
        return "--audiobench-" + self.attr.replace("_", "-")

    @property
    def dest(self) -> str:
        return "audiobench_" + self.attr

    @property
    def former(self) -> Declared | None:
        """The option under the name it had before it was renamed (``Flag.formerly``)."""
        if self.how.formerly is None:
            return None
        return Declared(self.how.formerly, self.default, self.how, self.concern, self.kind)

    @property
    def switch(self) -> bool:
        return self.how.convert is None

    @property
    def merge_setting(self) -> str | None:
        return self.how.merge_setting

    @property
    def converter(self) -> Callable[[str], Any] | None:
        return self.how.convert

    def described(self, catalog: Catalog) -> str:
        """The help text, ``{default}`` filled in where it names the default (else the
        default said at the end: off for a switch, the option's ``unset`` words for one
        that is not given), ``{models}``, ``{judges}`` and ``{benchmarks}`` where it names
        what this start has."""
        shown = _shown(self.default)
        said = shown or ("off" if self.switch else self.how.unset)
        text = (self.how.help.replace("{default}", said)
                .replace("{models}", catalog.listed("model"))
                .replace("{judges}", catalog.listed("judge"))
                .replace("{benchmarks}", ", ".join(catalog.names))
                .replace("{default_benchmarks}", ",".join(catalog.defaults)))
        if "{default}" in self.how.help or "(default" in text:
            return text
        return f"{text} (default: {said})"


def _shown(default: Any) -> str | None:
    """A default as the help says it; None for one that means "not given" (None, off, none)."""
    if default is None or default is False or default in ((), ""):
        return None
    if isinstance(default, float):
        return f"{default:g}"
    return str(default)


def _kind(hint: Any) -> type:
    """The type an option's value has once read, from its annotation (``Annotated[int | None,
    Flag]``): int, float or bool when it is one of them (None aside), else str."""
    members = [t for t in typing.get_args(typing.get_args(hint)[0]) or
               [typing.get_args(hint)[0]] if t is not type(None)]
    return members[0] if len(members) == 1 and members[0] in (int, float, bool) else str


class OptionGroup:
    """Options declared as annotated class attributes (see the module's docstring); an
    instance holds the values one start read, and cannot be changed."""

    concern: ClassVar[Concern] = "run"
    """Where ``--help`` lists its options, unless an option's ``Flag`` says otherwise."""

    def __init__(self, values: Mapping[str, Any], given: Iterable[str] = ()) -> None:
        object.__setattr__(self, "_given", frozenset(given))
        for attr, value in values.items():
            object.__setattr__(self, attr, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read once and not changed ({name})")


def declared(group: type[OptionGroup]) -> tuple[Declared, ...]:
    """Every option of ``group`` (those of the groups it inherits from first)."""
    if group not in _DECLARED:
        _DECLARED[group] = _declarations(group)
    return _DECLARED[group]


_DECLARED: dict[type[OptionGroup], tuple[Declared, ...]] = {}


def _declarations(group: type[OptionGroup]) -> tuple[Declared, ...]:
    found = []
    for attr, hint in typing.get_type_hints(group, include_extras=True).items():
        flags = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, Flag)]
        if flags:
            if not hasattr(group, attr):
                raise TypeError(f"{group.__name__}.{attr}: an option needs a default")
            found.append(Declared(attr, getattr(group, attr), flags[0],
                                  flags[0].concern or group.concern, _kind(hint)))
    return tuple(found)


def option(group: type[OptionGroup], attr: str) -> Declared:
    """The option ``attr`` of ``group``."""
    return next(option for option in declared(group) if option.attr == attr)


def build(group: type[G], given: Mapping[str, Any], here: Path) -> G:
    """The group with ``given`` values (by attribute name), its defaults elsewhere (None is
    not given); a path is taken relative to ``here`` (where pytest was invoked)."""
    given = {attr: value for attr, value in given.items() if value is not None}
    options = {option.attr: option for option in declared(group)}
    unknown = set(given) - set(options)
    if unknown:
        raise TypeError(f"{group.__name__} has no option {', '.join(sorted(unknown))}")
    values = {attr: option.default for attr, option in options.items()}
    values |= {attr: here / v if isinstance(v, Path) else v for attr, v in given.items()}
    return group(values, given)


def read(group: type[G], config: pytest.Config) -> G:
    """Every option of ``group``: the flag, else the ini key, else the default."""
    given = {option.attr: _given_value(config, option) for option in declared(group)}
    return build(group, given, config.invocation_params.dir)


def values_of(group: OptionGroup) -> dict[str, Any]:
    """The group's values by attribute name."""
    return {option.attr: getattr(group, option.attr) for option in declared(type(group))}


def was_given(group: OptionGroup, attr: str) -> bool:
    """Whether the user set option ``attr`` (by flag or ini key) rather than left its default."""
    given: frozenset[str] = vars(group)["_given"]
    return attr in given


class BenchmarkOptions(OptionGroup):
    """A benchmark's own options (declared in its folder, named by its spec)."""

    concern: ClassVar[Concern] = "data"

    def settings(self) -> OwnSettings:
        """The benchmark's settings from these values. AudiobenchError (one line naming the
        flag) when a value is unusable."""
        raise NotImplementedError


class ProviderOptions(OptionGroup):
    """A provider's own options (declared beside its spec, named by it)."""

    concern: ClassVar[Concern] = "model"

    served_option: ClassVar[str | None] = None
    """The option naming a model served at ``--audiobench-api-url`` that the provider asks
    (the cascade's ``cascade_llm``), if it asks one: given with the URL, the run names the
    model ``provider+served`` and the provider gets that endpoint."""

    def settings(self) -> OwnSettings:
        """The provider's settings from these values. AudiobenchError (one line naming the
        flag) when a value is unusable."""
        raise NotImplementedError


def _given_value(config: pytest.Config, option: Declared) -> Any:
    value = _value(config, option)
    former = option.former
    if value is not None or former is None:
        return value
    value = _value(config, former)
    if value is not None:
        config.issue_config_time_warning(pytest.PytestDeprecationWarning(
            f"{former.flag} (ini {former.dest}) is the old name of {option.flag} (ini "
            f"{option.dest}); it will be removed"), stacklevel=2)
    return value


def _value(config: pytest.Config, option: Declared) -> Any:
    given = config.getoption(option.dest)
    if given is not None:
        return given
    try:
        raw = config.getini(option.dest)
    except (ValueError, TypeError, pytest.UsageError) as exc:
        # pytest reads a bool, an int or a float itself, and its error does not name the key.
        expected = {bool: "true or false", int: "a whole number",
                    float: "a number"}.get(option.kind, "a string")
        raise pytest.UsageError(f"ini option {option.dest}: {exc}; expected {expected}") from None
    if option.switch:
        return True if raw else None
    if raw in (None, "", []):
        return None
    converter = option.converter
    assert converter is not None  # not a switch
    try:
        return converter(str(raw))
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"ini option {option.dest}: {exc}") from None


def register(parser: pytest.Parser, groups: Iterable[type[OptionGroup]],
             catalog: Catalog) -> None:
    """Add every option of ``groups`` to the help group of its concern (``CONCERNS``, made
    first, in their order), and its ini key."""
    made = {concern: parser.getgroup(f"audiobench-{concern}", title)
            for concern, title in CONCERNS.items()}
    for option in (option for g in groups for option in declared(g)):
        _add(parser, made[option.concern], option, option.described(catalog))
        if option.former is not None:
            _add(parser, made[option.concern], option.former,
                 f"deprecated name of {option.flag}")


def _add(parser: pytest.Parser, group: Any, option: Declared, help: str) -> None:
    """The flag and the ini key of ``option``, described by ``help``."""
    if option.switch:
        group.addoption(option.flag, action="store_true", default=None, dest=option.dest,
                        help=help)
        parser.addini(option.dest, help, type="bool", default=False)
    else:
        group.addoption(option.flag, type=option.converter, default=None, dest=option.dest,
                        metavar=option.how.metavar, help=help)
        # A number is typed as one, so that pytest's TOML table takes ``timeout = 30``; its
        # text is then checked by the option's converter as a flag's is.
        kind = {int: "int", float: "float"}.get(option.kind, "string")
        parser.addini(option.dest, help, type=kind, default=None)  # type: ignore[arg-type]


def selected(tasks: Iterable[str], chosen: Sequence[str]) -> list[str]:
    """``tasks``, in their order, narrowed to those the run ``chosen``
    (``--audiobench-tasks``); all of them when it chose none of them: what a benchmark whose
    tasks are read or downloaded apart (splits, devices, languages) reads."""
    every = list(tasks)
    return [task for task in every if task in chosen] or every


@dataclass(frozen=True, slots=True)
class BenchmarkSpec:
    """One benchmark as the options see it."""

    name: str
    """Its name in ``--audiobench-benchmark``, its node ids and its metric names."""
    tasks: tuple[str, ...]
    """Every task, known before the data is read so that ``--audiobench-tasks`` is checked;
    empty when the release names its tasks (MMSU's 47): a task given for such a benchmark is
    checked once its data is read (``run/releases.py``)."""
    benchmark: Any
    """``module:Class`` of its ``Benchmark`` subclass, imported when a run selects it (a spec
    registered from a conftest may give the class itself)."""
    options: type[BenchmarkOptions] | None = None
    """Its own ``--audiobench-*`` flags, resolved by the group's ``settings`` method."""
    sources: tuple[str, ...] = ()
    """``--audiobench-data`` values it downloads from (e.g. a hub's name)."""
    needs_judge: bool = False
    """True when its answers are graded by an LLM judge, so a run of it needs one."""
    judged_tasks: tuple[str, ...] = ()
    """With ``needs_judge``, the tasks the judge grades when only some are (VoiceBench's
    four): a run whose ``--audiobench-tasks`` selects none of them needs no judge. Empty:
    every task."""
    default: bool = False
    """Run when ``--audiobench-benchmark`` is not given."""
    layout: str = ""
    """What its release root holds, for the error a missing root gets."""


Role = Literal["model", "judge"]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """A model or judge that answers in this process, found by the name a run gives it
    (``--audiobench-model NAME``, ``--audiobench-judge-model NAME``): cheap to import, as a
    ``BenchmarkSpec`` is. A name no provider has is a model served at a URL."""

    name: str
    role: Role
    provider: Any
    """``module:callable`` that makes it from a ``ProviderSetup``, imported when a run names
    it (or the callable itself, from a conftest); what it returns answers as a ``Provider``."""
    about: str
    """What it is, in a few words after its name (``seeded random choice``)."""
    options: type[ProviderOptions] | None = None
    """Its own ``--audiobench-*`` flags."""
    default_seed: int | None = None
    """The sampling seed it is asked with when ``--audiobench-seed`` is not given (``random``:
    0, so that its picks are the same on every run)."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """The benchmarks a pytest start knows of, as the option converters check names."""

    specs: Mapping[str, BenchmarkSpec]
    problems: tuple[str, ...] = ()
    """Registrations that could not be read (each one line); those are left out."""
    providers: Mapping[str, ProviderSpec] = field(default_factory=dict)
    """The models and judges that answer in this process, by name."""

    @classmethod
    def of(cls, specs: Iterable[BenchmarkSpec], problems: Iterable[str] = (),
           providers: Iterable[ProviderSpec] = ()) -> Catalog:
        return cls({spec.name: spec for spec in specs}, tuple(problems),
                   {spec.name: spec for spec in providers})

    def in_process(self, role: Role) -> dict[str, ProviderSpec]:
        """The providers of ``role``, by name."""
        return {name: spec for name, spec in self.providers.items() if spec.role == role}

    def listed(self, role: Role) -> str:
        """The providers of ``role`` as the help shows them: ``name (about)``, comma-separated."""
        return ", ".join(f"{name} ({spec.about})" for name, spec in self.in_process(role).items())

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
