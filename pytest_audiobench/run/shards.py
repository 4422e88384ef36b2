"""Which samples a shard runs (--audiobench-shard K/N): every N-th in node id order, from
the K-th; its items are kept so at collection, and a head-to-head shard measures the judge's
noise on its own slice."""

from __future__ import annotations

from collections.abc import Iterable


def slice_of(nodeids: Iterable[str], k: int, n: int) -> list[str]:
    """Slice ``k`` of ``n`` of ``nodeids``: every ``n``-th in node id order, from the ``k``-th."""
    return sorted(nodeids)[k - 1::n]
