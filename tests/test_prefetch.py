"""Which items a plain run's process runs next (``run/prefetch.Lookahead``): the window after
the current item, each item handed out once, found in the order pytest runs them."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from pytest_audiobench.run.prefetch import Lookahead


def lookahead(items: list[Any]) -> Lookahead:
    """A plain run's lookahead over ``items`` (no xdist: its config has no workerinput)."""
    session: Any = SimpleNamespace(items=items, config=SimpleNamespace())
    return Lookahead(session)


def made(count: int) -> list[Any]:
    return [SimpleNamespace(nodeid=f"audiobench::b::t::{i}") for i in range(count)]


def test_each_item_brings_the_items_after_it_that_no_earlier_one_brought() -> None:
    items = made(6)
    ahead = lookahead(items)
    assert ahead.upcoming(items[0], 3) == items[0:3]
    assert ahead.upcoming(items[1], 3) == items[3:4]
    assert ahead.upcoming(items[2], 3) == items[4:5]
    # pytest-rerunfailures runs an item again: it is found where it was, nothing new comes.
    assert ahead.upcoming(items[2], 3) == []
    assert ahead.upcoming(items[3], 3) == items[5:6]


def test_an_item_out_of_order_is_found_and_one_not_in_the_run_comes_alone() -> None:
    items = made(6)
    ahead = lookahead(items)
    assert ahead.upcoming(items[3], 2) == items[3:5]
    stranger = SimpleNamespace(nodeid="elsewhere")
    assert ahead.upcoming(stranger, 2) == [stranger]
