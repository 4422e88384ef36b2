"""Specs found by name: the built-in ones by import path, then those installed packages
register in an entry-point group (``name = "package.module:SPEC"``). A registration that
cannot be read is one line in ``problems``, never a failed start: one broken package must not
stop every pytest run of the environment."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, TypeVar

from pytest_audiobench.errors import RegistryError

S = TypeVar("S")


def registered(group: str, built_in: Sequence[str], kind: type[S],
               name_of: Callable[[S], str]) -> tuple[dict[str, S], list[str]]:
    """Every spec of ``kind``: the built-in ones first, by name, and the problems met."""
    specs = {name_of(spec): spec for spec in (spec_at(path, "pytest-audiobench", group, kind)
                                               for path in built_in)}
    problems = []
    for entry in metadata.entry_points(group=group):
        try:
            spec = spec_at(entry.value, _origin(entry), group, kind)
            if name_of(spec) in specs:
                raise RegistryError(f"{kind.__name__.removesuffix('Spec').lower()} "
                                    f"{name_of(spec)!r} is registered twice (again by "
                                    f"{_origin(entry)}, entry point {entry.value})")
        except RegistryError as exc:
            problems.append(str(exc))
            continue
        specs[name_of(spec)] = spec
    return specs, problems


def spec_at(path: str, origin: str, group: str, kind: type[S]) -> S:
    spec = load(path, f"entry point {path} of {origin}")
    if not isinstance(spec, kind):
        raise RegistryError(f"entry point {path} of {origin} in group {group} names a "
                            f"{type(spec).__name__}; expected a "
                            f"pytest_audiobench.{kind.__name__}")
    return spec


def load(path: Any, what: str) -> Any:
    """What ``module:attr`` names (a spec registered from a conftest may give the object
    itself); RegistryError naming ``what`` when it cannot be loaded."""
    if not isinstance(path, str):
        return path
    module, _, attr = path.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise RegistryError(f"{what}: cannot load {path} ({type(exc).__name__}: {exc})") from exc


def _origin(entry: metadata.EntryPoint) -> str:
    dist = entry.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
