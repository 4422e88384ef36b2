"""What a run's tokens cost at ``--audiobench-price`` (pure): per model id asked, the dollars of
the tokens it was sent for, and what the replies the response cache served would have cost.
Prompt tokens (audio included) are priced at the prompt rate, completion tokens at the
completion rate; a server that reports no tokens costs nothing here."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from pytest_audiobench.config.prices import Price
from pytest_audiobench.outcome.numbers import fixed
from pytest_audiobench.transport.types import Usage

PER = 1_000_000
"""A price is in dollars per this many tokens."""


class Spent(BaseModel):
    """One model id's tokens in a run."""

    role: str
    """model, judge, baseline model (or two of them, when one id plays both)."""
    sent: Usage = Usage()
    """Of the requests sent: what was paid for."""
    cached: Usage = Usage()
    """Of the replies served from the response cache: free this time."""


class CostItem(BaseModel):
    """One priced model id: dollars paid, and what its cached replies would have cost."""

    model: str
    role: str
    paid: float
    cached: float


class Cost(BaseModel):
    """The run's cost: every model id that used tokens, priced or named as unpriced."""

    items: list[CostItem] = []
    unpriced: list[str] = []
    """Model ids that used tokens and were given no price (their cost is unknown)."""

    @property
    def paid(self) -> float:
        return sum(item.paid for item in self.items)

    @property
    def cached(self) -> float:
        return sum(item.cached for item in self.items)

    def line(self) -> str:
        """One line: the total paid, per model id, what the cache saved, what is unpriced."""
        each = ", ".join(f"{item.role} {item.model} {money(item.paid)}" for item in self.items)
        text = f"cost: {money(self.paid)} for the tokens sent" + (f" ({each})" if each else "")
        if self.cached:
            text += f"; the replies from the cache would have cost {money(self.cached)} more"
        if self.unpriced:
            text += f"; no price for {', '.join(self.unpriced)} (--audiobench-price)"
        return text


def dollars(usage: Usage, price: Price) -> float:
    """What ``usage``'s tokens cost at ``price``."""
    return (usage.prompt_tokens * price.prompt + usage.completion_tokens * price.completion) / PER


def cost(spent: Mapping[str, Spent], prices: Sequence[Price]) -> Cost | None:
    """The cost of ``spent`` (by model id) at ``prices``; None when no price was given."""
    if not prices:
        return None
    priced = {price.model: price for price in prices}
    found = Cost()
    for model, tokens in spent.items():
        price = priced.get(model)
        if price is not None:
            found.items.append(CostItem(model=model, role=tokens.role,
                                        paid=dollars(tokens.sent, price),
                                        cached=dollars(tokens.cached, price)))
        elif _used(tokens.sent) or _used(tokens.cached):
            found.unpriced.append(model)
    return found


def money(amount: float) -> str:
    """Dollars as a person reads them: cents; below half a cent (which would
    show as $0.00), its first two digits."""
    if 0 < amount < 0.005:
        return "$" + fixed(amount, 1 - math.floor(math.log10(amount)))
    return "$" + fixed(amount)


def _used(usage: Usage) -> bool:
    return bool(usage.prompt_tokens or usage.completion_tokens)


class Planned(BaseModel):
    """One model id's calls in a dry run: those it would send, and the cached replies it
    looked at, whose mean tokens stand for theirs."""

    role: str
    to_send: int
    bound: bool = False
    """``to_send`` is a maximum (judge calls for answers not cached yet)."""
    cached_replies: int = 0
    cached: Usage = Usage()
    free: bool = False
    """It runs in this process and asks no server (an offline judge, the ``random`` model):
    it costs nothing, and needs no price."""


def estimate_lines(planned: Mapping[str, Planned], prices: Sequence[Price]) -> list[str]:
    """The dry run's cost lines, a line per priced model id; none without a price."""
    priced = {price.model: price for price in prices}
    lines = [_estimate(model, plan, priced[model]) for model, plan in planned.items()
             if model in priced]
    unpriced = [m for m, plan in planned.items()
                if m not in priced and plan.to_send and not plan.free]
    if lines and unpriced:
        lines.append(f"cost: no price for {', '.join(unpriced)} (--audiobench-price)")
    return lines


def _estimate(model: str, plan: Planned, price: Price) -> str:
    head = f"cost of the calls to the {plan.role} {model}"
    if not plan.to_send:
        return f"{head}: $0.00, nothing to send"
    if plan.free:
        return f"{head}: $0.00, it runs in this process"
    if not plan.cached_replies:
        return (f"{head}: unknown, no reply of it in the cache to measure its tokens from (a "
                "run of a few samples first, e.g. --audiobench-limit 1, caches some)")
    prompt = plan.cached.prompt_tokens / plan.cached_replies
    completion = plan.cached.completion_tokens / plan.cached_replies
    each = (prompt * price.prompt + completion * price.completion) / PER
    bound = "up to " if plan.bound else ""
    return (f"{head}: about {bound}{money(each * plan.to_send)} ({bound}{plan.to_send} x "
            f"{prompt:.0f} prompt + {completion:.0f} completion tokens, the mean of "
            f"{plan.cached_replies} replies in the cache)")
