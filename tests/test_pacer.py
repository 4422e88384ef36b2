"""The pacer on its own: the in-flight limit, its halving and regrowth, deadline and budget."""

from __future__ import annotations

import asyncio
import time

import pytest

from pytest_audiobench.errors import BudgetExhausted, DeadlineReached
from pytest_audiobench.transport.pacing import Pacer


def test_no_more_than_the_limit_is_in_flight() -> None:
    async def run() -> int:
        pacer = Pacer(3)
        peak = 0

        async def one() -> None:
            nonlocal peak
            async with pacer.slot():
                peak = max(peak, pacer.in_flight)
                await asyncio.sleep(0.01)

        await asyncio.gather(*(one() for _ in range(20)))
        return peak

    assert asyncio.run(run()) == 3


def test_a_429_halves_the_limit_and_successes_grow_it_back_one_by_one() -> None:
    async def run() -> list[int]:
        pacer = Pacer(8)
        seen = []
        await pacer.throttle()
        seen.append(pacer.limit)
        await pacer.throttle()
        seen.append(pacer.limit)
        for _ in range(2):
            await pacer.relax()
        seen.append(pacer.limit)
        for _ in range(3 + 4 + 5 + 6 + 7):
            await pacer.relax()
        seen.append(pacer.limit)
        await pacer.relax()
        seen.append(pacer.limit)
        return seen

    assert asyncio.run(run()) == [4, 2, 3, 8, 8]


def test_waiters_past_the_deadline_all_wake_and_fail_instead_of_hanging() -> None:
    async def run() -> list[str]:
        pacer = Pacer(1, deadline=time.time() + 0.05)

        async def one() -> str:
            try:
                async with pacer.slot():
                    await asyncio.sleep(0.1)
                return "sent"
            except DeadlineReached:
                return "refused"

        return await asyncio.wait_for(asyncio.gather(*(one() for _ in range(5))), timeout=5)

    assert asyncio.run(run()) == ["sent"] + ["refused"] * 4


def test_the_budget_refuses_the_request_past_it() -> None:
    async def run() -> None:
        pacer = Pacer(2, max_requests=2)
        for _ in range(2):
            async with pacer.slot():
                pass
        with pytest.raises(BudgetExhausted, match="request budget spent"):
            async with pacer.slot():
                pass

    asyncio.run(run())
