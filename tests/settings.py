"""Settings for unit tests, made the way a run makes them: every option at its declared
default unless a test gives it, resolved by the plugin's own ``resolve``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config import declarations
from pytest_audiobench.config.resolve import Given, resolve
from pytest_audiobench.config.settings import Settings


def make_settings(here: Path, **values: Any) -> Settings:
    """``values`` are options by attribute name (``api_url="http://x"``), core or a
    benchmark's; relative paths are taken from ``here``, which is also the project folder."""
    catalog = registry.catalog()
    left = dict(values)

    def build(group: type[declarations.G]) -> declarations.G:
        own = {o.attr for o in declarations.declared(group)}
        return declarations.build(group, {k: left.pop(k) for k in list(left) if k in own}, here)

    given = Given.of(catalog, build)
    if left:
        raise TypeError(f"no option {', '.join(sorted(left))}")
    return resolve(given, catalog, here=here, project=here)
