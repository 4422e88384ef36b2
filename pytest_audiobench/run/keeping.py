"""What pytest keeps of our items' reports: less than it would by default, output unchanged.

pytest's terminal reporter keeps every report of every phase until the end of the run, the
passed setup and teardown ones under the key ``""``, only to print a failed test's teardown
output in its failure report. It finds that output by scanning all of them for each
failure (pytest-dev/pytest#13360): with thousands of items and thousands of failures that
scan is quadratic and dominates the run. Our items' setup and teardown print nothing, so
their passed phase reports are let go as soon as the reporter has counted them.
Imports nothing heavy: the plugin module uses it.
"""

from __future__ import annotations

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
