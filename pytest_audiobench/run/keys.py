"""The typed stash keys of a run: the session on the config, its sample on an item."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from pytest_audiobench.benchmarks.sample import Sample

if TYPE_CHECKING:
    from pytest_audiobench.run.session import AudiobenchSession

SESSION_KEY = pytest.StashKey["AudiobenchSession"]()
SAMPLE_KEY = pytest.StashKey[Sample]()


def session_of(config: pytest.Config) -> AudiobenchSession:
    return config.stash[SESSION_KEY]
