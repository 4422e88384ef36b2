"""Where a benchmark's data is: the bundled mini benchmark, a local release, or a download."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def mini_folder() -> Path:
    return Path(str(resources.files("pytest_audiobench") / "data" / "mini"))


def mini_root(benchmark: str) -> Path:
    """The release root of ``benchmark``'s mini data, in the official layout."""
    return mini_folder() / benchmark


def mini_baselines() -> Path:
    """Where the baselines of runs on the mini data are kept by default."""
    return mini_folder() / "baselines"
