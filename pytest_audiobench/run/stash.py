"""The run's one session object, kept in ``config.stash`` under a typed key."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from pytest_audiobench.run.session import AudiobenchSession

SESSION_KEY = pytest.StashKey["AudiobenchSession"]()


def session_of(config: pytest.Config) -> AudiobenchSession:
    return config.stash[SESSION_KEY]
