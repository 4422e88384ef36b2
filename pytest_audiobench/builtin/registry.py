"""The providers by name: the models and judge that ship with the plugin (``__init__.py``)
and any that a package registers in the ``pytest_audiobench.providers`` entry-point group
(``name = "package.module:SPEC"``, a ``ProviderSpec``). The class that answers is imported
only when a run names it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pytest_audiobench.config import entry_points
from pytest_audiobench.config.declarations import ProviderSpec
from pytest_audiobench.errors import RegistryError

if TYPE_CHECKING:
    from pytest_audiobench.transport.endpoint import ProviderSetup
    from pytest_audiobench.transport.types import Provider

ENTRY_POINTS = "pytest_audiobench.providers"
BUILT_IN = ("pytest_audiobench.builtin:CASCADE", "pytest_audiobench.builtin:RANDOM",
            "pytest_audiobench.builtin:OVERLAP")


def specs() -> tuple[dict[str, ProviderSpec], list[str]]:
    """Every provider spec, the built-in ones first, and the registrations that failed."""
    return entry_points.registered(ENTRY_POINTS, BUILT_IN, ProviderSpec, lambda spec: spec.name)


def make(spec: ProviderSpec, setup: ProviderSetup) -> Provider:
    """The provider ``spec`` names, built with ``setup``."""
    factory = entry_points.load(spec.provider, f"provider {spec.name!r}")
    if not callable(factory):
        raise RegistryError(f"provider {spec.name!r}: {spec.provider} is not callable")
    made: Provider = factory(setup)
    return made
