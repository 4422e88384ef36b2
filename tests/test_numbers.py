"""The one rule by which reports show numbers: hand-picked values, the float noise and the
zero that once showed as ``-0.00`` included."""

from __future__ import annotations

import pytest

from pytest_audiobench.outcome.numbers import fixed, signed


@pytest.mark.parametrize(("value", "shown", "with_sign"), [
    (5.475, "5.48", "+5.48"),
    (5.4749999999, "5.48", "+5.48"),        # a mean of 5.475 with float noise: the same cell
    (sum([5.475] * 3) / 3, "5.48", "+5.48"),
    (5.4749, "5.47", "+5.47"),             # not noise: a real difference in the fourth decimal
    (-2.345, "-2.35", "-2.35"),            # halves away from zero on both sides
    (-1e-12, "0.00", "+0.00"),             # never -0.00
    (-0.004, "0.00", "+0.00"),
    (0.0, "0.00", "+0.00"),
    (12.0, "12.00", "+12.00"),
    (0.125, "0.13", "+0.13"),
])
def test_two_decimals(value: float, shown: str, with_sign: str) -> None:
    assert fixed(value) == shown
    assert signed(value) == with_sign


def test_other_counts_of_decimals() -> None:
    assert fixed(2.0 / 3, 3) == "0.667" and signed(-2.0 / 3, 1) == "-0.7"
    assert fixed(-0.04, 1) == "0.0" and fixed(7, 0) == "7"
