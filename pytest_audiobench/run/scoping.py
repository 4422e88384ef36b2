"""How the controller learns what part of the benchmark its run measures (``gate/scope.py``):
pytest's cache says whether ``--lf`` or ``--sw`` made the selection from earlier outcomes,
and the session's end says whether it stopped early.

pytest's own plugins keep what they select by in the cache (``cache/lastfailed``,
``cache/stepwise``): it is read here before the items run, as those plugins read it, so that
their writes at the session's end do not change the answer.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import pytest


def rerun_of(config: pytest.Config, selected: Sequence[str],
             known: Collection[str]) -> str | None:
    """Why the ``selected`` sample items were chosen by earlier outcomes, if they were;
    ``known``: the node ids of every sample of the run's releases."""
    cache = getattr(config, "cache", None)
    if cache is None or not selected:
        return None
    if config.getoption("lf", False):
        failed = {nodeid for nodeid in cache.get("cache/lastfailed", {}) if nodeid in known}
        if failed and all(nodeid in failed for nodeid in selected):
            return (f"--lf: a rerun of the {len(selected)} sample(s) that failed last time, "
                    "not a sample of the benchmark")
    return _stepwise(config, cache, selected, known)


def _stepwise(config: pytest.Config, cache: Any, selected: Sequence[str],
              known: Collection[str]) -> str | None:
    """--sw goes on from the item that failed last time, leaving out the ones before it."""
    if not config.getoption("stepwise", False) or config.getoption("stepwise_reset", False):
        return None
    last = (cache.get("cache/stepwise", None) or {}).get("last_failed")
    if last not in known or selected[0] != last or len(selected) >= len(known):
        return None
    return (f"--sw: going on from {last}, the sample that failed last time, the "
            f"{len(known) - len(selected)} sample(s) before it left out")


def stopped_by(session: pytest.Session, interrupted: str | None, not_run: int,
               selected: int, first_not_run: str | None) -> str | None:
    """Why the run stopped before every selected sample ran, with how many did not, if it
    did: pytest's stop (-x, --maxfail, --sw), an interruption (Ctrl-C, or xdist's stop, whose
    words ``interrupted`` holds), or samples not run (the deadline, a budget, an endpoint
    down, a lost worker; the first one's reason in ``first_not_run``)."""
    stop = session.shouldfail or session.shouldstop
    if session.exitstatus == pytest.ExitCode.INTERRUPTED:
        reason = f"interrupted ({interrupted})" if interrupted else "interrupted"
    elif stop:
        reason = str(stop)
    elif not_run:
        reason = first_not_run or "samples were not run"
    else:
        return None
    return f"{reason}; {not_run} of {selected} selected sample(s) not run"


def beside(path: Path) -> Path:
    """``report.json`` -> ``report.partial.json``: where a partial run writes an output that
    a whole run writes at ``path``."""
    return path.with_name(f"{path.stem}.partial{path.suffix}")
