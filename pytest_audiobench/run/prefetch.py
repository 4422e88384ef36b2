"""Which items this process will run next, so that their requests can start early.

pytest runs items one at a time; to keep many requests in flight, the pipelines of the next
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
        self._position: dict[str, int] | None = None
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
        if self._position is None:
            self._position = {it.nodeid: index for index, it in enumerate(items)}
        start = self._position.get(item.nodeid)
        if start is None:
            return [item]
        end = start + count
        fresh = items[max(start, self._horizon):end]
        self._horizon = max(self._horizon, end)
        return fresh
