"""Settings for unit tests, made the way a run makes them: every option at its declared
default unless a test gives it, resolved by the plugin's own ``resolve``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config.options import CoreOptions
from pytest_audiobench.config.resolve import resolve
from pytest_audiobench.config.settings import Settings


def make_settings(here: Path, **values: Any) -> Settings:
    """``values`` are options by attribute name (``api_url="http://x"``), core or a
    benchmark's; relative paths are taken from ``here``, which is also the project folder."""
    catalog = registry.catalog()
    own_groups = {name: spec.options for name, spec in catalog.specs.items() if spec.options}
    owner = {o.attr: name for name, group in own_groups.items() for o in group.declared()}
    core = CoreOptions.of(catalog, **{k: v for k, v in values.items() if k not in owner})
    own = {name: group.of(catalog, **{k: v for k, v in values.items() if owner.get(k) == name})
           for name, group in own_groups.items()}
    return resolve(core, own, catalog, here=here, project=here)
