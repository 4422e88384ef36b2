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

A failed item's exception outlives its report when a plugin keeps it: pytest-rerunfailures,
installed in many CI setups, keeps every failed phase's ``ExceptionInfo`` on its item to the end
of the run unless ``--reruns`` is given. Its traceback's frames keep their locals, and ours are
the sample's answers, grades, state and fixtures (about 6 KB a failed sample over a plain
test's). Once the item's report is made those locals serve nothing: they are cleared then
(``let_go_of_locals``), the exception's type and message staying for whoever reads them.

A failed item's report stays to the end of the run, and with it the failure's text, twice
(its lines, and the crash message the -r summary and junit read). pytest keeps a failure
raised without a traceback (``pytest.fail(..., pytrace=False)``, ours) as one string a line,
each costing about 50 bytes besides its text; ``one_string_a_failure`` keeps them as one
string, which prints the same: the exception's own text, so that a plugin which keeps the
exception (pytest-rerunfailures) keeps one copy of it, not two.

Each item's stash is pytest's dict, which never shrinks: the keys our items add while they
run grow it past its first size, and ``compact_stash`` makes it as small as what it keeps.

Imports nothing heavy: the plugin module uses it.
"""

from __future__ import annotations

import gc
import inspect
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

_SUSPENDABLE = (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR
                | inspect.CO_ITERABLE_COROUTINE)


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
    only held until the session unfreezes. Nor a count of the frozen objects once they are
    ours: ``gc.get_freeze_count`` walks every one of them, a tenth of a second in a process
    that holds a million (a process running pytester's in-process runs, each of which froze
    its whole heap at its start)."""
    if not ours and gc.get_freeze_count():
        return False
    gc.freeze()
    return True


def unfreeze() -> None:
    """Undo ``freeze_kept``: what the run let go can be collected again."""
    gc.unfreeze()


def compact_stash(item: pytest.Item) -> None:
    """Make ``item``'s stash as small as what it holds: a dict never shrinks, and ours (the
    sample, and the item's state while it runs) beside the keys of pytest's own plugins grow
    it past its first size, 128 bytes more for each item kept to the end of the run. Call it
    once the item no longer adds keys (its teardown report); the stash is pytest's
    (``Stash._storage``), left as it is if it is not a dict there."""
    storage = getattr(item.stash, "_storage", None)
    if type(storage) is dict:
        # From its items: dict(storage) would copy its table at the size it grew to.
        item.stash._storage = dict(storage.items())


def let_go_of_locals(error: BaseException) -> None:
    """Clear the local variables of every frame that ``error``, and the errors chained to it,
    went through: call it once the report of the phase that raised it is made and nothing will
    show those locals again (``--showlocals`` and ``--pdb`` have had them by then)."""
    for frame in _frames_of(error):
        # Python 3.11 and 3.12 clear a suspended generator's frame by closing the generator:
        # a coroutine of the engine thread may still be waiting. Later versions refuse.
        if frame.f_code.co_flags & _SUSPENDABLE and sys.version_info < (3, 13):
            continue
        try:
            frame.clear()
        except RuntimeError:  # still running: an ancestor, or a frame of another thread
            continue
        if frame.f_code.co_flags & inspect.CO_OPTIMIZED:
            _empty_locals_copy(frame)


def _empty_locals_copy(frame: FrameType) -> None:
    """Empty the copy of a cleared function frame's locals, if one was made: once read
    (pytest reads each frame's ``__tracebackhide__`` there), Python 3.11 and 3.12 keep a copy
    that ``clear()`` leaves whole. Found among what the frame holds, not read: reading
    ``f_locals`` would make a copy (an empty dict, 64 bytes) on every frame that had none,
    and pytest-rerunfailures keeps them all to the end of the run. (A module's or a class
    body's frame holds its namespace there instead: never called for those.)"""
    code = frame.f_code
    names = {*code.co_varnames, *code.co_cellvars, *code.co_freevars}
    for held in gc.get_referents(frame):
        if type(held) is dict and held.keys() <= names:
            held.clear()


def _frames_of(error: BaseException) -> Iterator[FrameType]:
    seen: set[int] = set()
    todo = [error]
    while todo:
        exc = todo.pop()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        tb = exc.__traceback__
        while tb is not None:
            yield tb.tb_frame
            tb = tb.tb_next
        todo += [e for e in (exc.__cause__, exc.__context__) if e is not None]
        if isinstance(exc, BaseExceptionGroup):
            todo += exc.exceptions


def one_string_a_failure(report: pytest.TestReport, error: BaseException | None = None
                         ) -> None:
    """Keep the lines of ``report``'s failure, when it has no traceback (pytest's "value"
    style: the exception's text alone), as one string: pytest writes each line and a newline
    after it, so the joined text prints the same. That string is ``error``'s own text when it
    is the same (pytest split it from there): a plugin that keeps the exception
    (pytest-rerunfailures) then keeps one copy of it, not two."""
    traceback = getattr(report.longrepr, "reprtraceback", None)
    entries: Any = getattr(traceback, "reprentries", ())
    if getattr(traceback, "style", None) != "value" or len(entries) != 1:
        return
    lines = getattr(entries[0], "lines", None)
    if not isinstance(lines, list) or not lines:
        return
    text = "\n".join(lines)
    if error is not None:
        said = str(error)
        if said == text:
            text = said
    entries[0].lines = [text]
