"""Names known before any data is read: audio modes, when to judge a baseline again, the
in-process URL, the mini data.

Kept free of heavy imports: the option converters use it in every pytest start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

AudioMode = Literal["input_audio", "data-uri", "audio-url"]
AUDIO_MODES: tuple[AudioMode, ...] = ("input_audio", "data-uri", "audio-url")

Rejudge = Literal["auto", "always", "never"]
"""--audiobench-rejudge-baseline: when every baseline answer is judged again (``gate/drift.py``)."""
REJUDGE: tuple[Rejudge, ...] = ("auto", "always", "never")

PartialReport = Literal["beside", "replace"]
"""--audiobench-partial-report: where a run that is no release verdict writes its reports."""
PARTIAL_REPORT: tuple[PartialReport, ...] = ("beside", "replace")

IN_PROCESS = "in-process"
"""The endpoint URL recorded for a model or judge that answers in this process (a provider)."""

MINI = "mini"
"""The ``--audiobench-data`` value that selects the mini benchmark bundled in the package."""
ALL_BENCHMARKS = "all"
"""``--audiobench-benchmark all``: every benchmark registered, built in or added."""


def bundled(*parts: str) -> Path:
    """A path inside the plugin's own data (``data/``): the mini benchmark (``mini/``) and the
    baselines of the built-in models on it (``baselines/mini/``), found wherever the plugin
    is installed."""
    from importlib import resources

    return Path(str(resources.files("pytest_audiobench").joinpath("data", *parts)))


def located(url: str, workers: int | None = 0) -> str:
    """Where a model or judge answers, as the summary, the page and the header say it; one
    that runs here runs in every process that runs items (``workers``: how many xdist workers
    do, 0 none, None not known, as in a merge of shards)."""
    if url != IN_PROCESS:
        return f"at {url}"
    if workers is None:
        return "in the processes that ran the items"
    return "in this process" if not workers else f"in each of the {workers} xdist workers"
