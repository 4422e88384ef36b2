"""The mini benchmark shipped inside the package (``--audiobench-data mini``) and the
baselines of the built-in models on it. Written by ``scripts/make_mini.py``."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

MINI = "mini"
"""The ``--audiobench-data`` value that selects the bundled data."""


def mini_folder() -> Path:
    return Path(str(resources.files("pytest_audiobench") / "mini"))


def mini_root(benchmark: str) -> Path:
    """The release root of ``benchmark``'s mini data, in the official layout."""
    return mini_folder() / benchmark


def mini_baselines() -> Path:
    """Where the baselines of runs on the mini data are kept by default."""
    return mini_folder() / "baselines"
