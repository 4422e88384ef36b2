"""The hook a conftest (or a plugin) implements to add benchmarks, models and judges to a
run, as a package adds them through its entry points: pytest-xdist's
``pytest_xdist_make_scheduler`` is the model. Registered by ``plugin.pytest_addhooks``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_audiobench.config.declarations import BenchmarkSpec, ProviderSpec


@pytest.hookspec(historic=True)
def pytest_audiobench_register() -> Sequence[BenchmarkSpec | ProviderSpec]:
    """The benchmarks (``BenchmarkSpec``) and providers (``ProviderSpec``: models and judges
    that answer in this process) to add, each with its own options. Called once for every
    plugin and conftest that implements it, as it is registered: a repository's
    ``conftest.py`` beside its pytest configuration, or a module given with ``-p``. A spec
    may name its class or callable itself instead of an import path. The names must be new:
    one already installed is a usage error."""
    raise NotImplementedError
