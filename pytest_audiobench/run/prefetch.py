"""Which items this process will run next, so that their requests can start early.

pytest runs items one at a time; to keep many requests in flight, the flows of the next
items start before those items come up. In a plain run the order is ``session.items``. On an
xdist worker it is the worker's own queue of item indices (``internals.xdist_queue``, not
public API); when it is absent, only the current item is known.
"""

from __future__ import annotations

import pytest

from pytest_audiobench.run.internals import in_xdist_worker, xdist_queue


class Lookahead:
    def __init__(self, session: pytest.Session) -> None:
        self._session = session
        self._next = 0
        """In a plain run: where the item after the last one asked about is expected."""
        self._horizon = 0
        """In a plain run: items before this index were handed out already."""
        self._queue = xdist_queue(session.config)

    def upcoming(self, item: pytest.Item, count: int) -> list[pytest.Item]:
        """``item`` and up to ``count - 1`` items that this process runs after it; in a plain
        run only those not handed out by an earlier call (one item per call once the window
        is full, rather than the whole window to check again)."""
        items = self._session.items
        if self._queue is not None:
            with self._queue.lock() as pending:
                indices = [i for i in list(pending)[: count - 1] if isinstance(i, int)]
            return [item, *(items[i] for i in indices if i < len(items))]
        if in_xdist_worker(self._session.config):
            return [item]
        start = self._place(item, items)
        if start is None:
            return [item]
        end = start + count
        fresh = items[max(start, self._horizon):end]
        self._horizon = max(self._horizon, end)
        return fresh

    def _place(self, item: pytest.Item, items: list[pytest.Item]) -> int | None:
        """Where ``item`` is in ``items``: pytest runs them in order, so the one after the last
        (or the last again, run once more by pytest-rerunfailures), found without an index of
        every item's node id (about 55 bytes a sample kept to the end)."""
        for guess in (self._next, self._next - 1):
            if 0 <= guess < len(items) and items[guess] is item:
                break
        else:
            guess = next((i for i, it in enumerate(items) if it is item), -1)
            if guess < 0:
                return None
        self._next = guess + 1
        return guess
