"""How every report shows a number to a fixed count of decimals: one rule for the summary,
the page and its charts, so that two cells showing the same value agree.

A float carries noise from its arithmetic: a mean of 5.475 may be computed as 5.4749999999,
which ``:.2f`` shows as 5.47 while the baseline's stored 5.475 shows as 5.48, beside a
change of +0.00. Here the noise is rounded away first (to nine decimals), then halves round
up, away from zero; a value that rounds to zero is ``0.00``, ``+0.00`` as a change (never
``-0.00``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

NOISE_DECIMALS = 9


def fixed(value: float, digits: int = 2, *, signed: bool = False) -> str:
    """``value`` with ``digits`` decimals; with ``signed`` a ``+`` before a positive one."""
    exact = Decimal(repr(round(value, NOISE_DECIMALS))).quantize(
        Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    if exact.is_zero():
        exact = Decimal(0).quantize(exact)  # no -0.00
    return f"{exact:+f}" if signed else f"{exact:f}"


def signed(value: float, digits: int = 2) -> str:
    """``fixed`` with its sign: a change."""
    return fixed(value, digits, signed=True)
