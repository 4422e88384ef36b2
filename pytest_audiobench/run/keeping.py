"""What pytest keeps of our items' reports: less than it would by default, output unchanged;
and what the session loads and collects out of the garbage collector's sight while items run.

pytest's terminal reporter keeps every report of every phase until the end of the run, the
passed setup and teardown ones under the key ``""``, only to print a failed test's teardown
output in its failure report. It finds that output by scanning all of them for each
failure (pytest-dev/pytest#13360): with thousands of items and thousands of failures that
scan is quadratic and dominates the run. Our items' setup and teardown print nothing, so
their passed phase reports are let go as soon as the reporter has counted them.

The collected items, samples and fixture closures live to the end of the run. Python's
garbage collector rescans every live object at each full collection, and a run that keeps
creating objects triggers dozens of them: 14 of the 76 seconds of 22,000 items were spent
there (0.6 of 7 s at 2,200). ``gc.freeze`` moves what exists into the permanent generation,
which full collections skip: once the releases and baselines are loaded (collection then
makes its items without rescanning the samples: with 19,000 of them collection took 1.4 s
instead of 1.85), and again once collection is over; it is undone at the end of the session.
Imports nothing heavy: the plugin module uses it.
"""

from __future__ import annotations

import gc
from typing import Any

import pytest


def forget_passed_phase(terminal: Any, report: pytest.TestReport) -> None:
    """Drop ``report`` (a passed setup or teardown of one of our items) from the terminal
    reporter's ``stats``, where it was the last one added; anything else is left alone."""
    if terminal is None:
        return
    kept = getattr(terminal, "stats", {}).get("")
    if kept and kept[-1] is report:
        kept.pop()


def freeze_kept(ours: bool) -> bool:
    """Keep every object tracked now out of later full collections, and say whether the
    frozen objects are ``ours`` (the session's earlier freezes) from now on: False (and
    nothing done) when something else froze objects already, to leave its freeze as it is.
    No collection first: it would cost a scan of the whole heap, and garbage frozen now is
    only held until the session unfreezes."""
    if gc.get_freeze_count() and not ours:
        return False
    gc.freeze()
    return True


def unfreeze() -> None:
    """Undo ``freeze_kept``: what the run let go can be collected again."""
    gc.unfreeze()
