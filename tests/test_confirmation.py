"""A sample whose first draws suggest a drop gets fresh draws before its item fails: checked
against hand-computed tables. Its false-alarm rate and power are measured by simulation in
scripts/bench_statistics.py."""

from __future__ import annotations

import math

import pytest

from pytest_audiobench.gate.sample_change import Confirming, change, confirmed, suggests
from pytest_audiobench.outcome.lines import SampleLine

NOISE = 0.9


def line(draws: list[float]) -> SampleLine:
    return SampleLine(id="s", cluster="c", groups={}, values={}, draws=draws, judged=True,
                      failed=False, answer_sha256="", answer="")


class Script:
    """Fresh draws by round, as the worker would give them; records the rounds asked."""

    def __init__(self, rounds: list[tuple[list[float], list[float]] | None]) -> None:
        self.rounds, self.asked = rounds, []

    def __call__(self, round_: int) -> tuple[list[float], list[float]] | None:
        self.asked.append(round_)
        return self.rounds[round_ - 1]


def test_a_drop_the_fresh_draws_do_not_bear_out_passes() -> None:
    # Two draws each: spread 0.9 * sqrt(1/2 + 1/2) = 0.9. A drop of 2 suggests one (beyond
    # z(0.90) * 0.9 = 1.15) and would fail at once (beyond z(0.975) * 0.9 = 1.76).
    base, new = line([8, 8]), line([6, 6])
    assert suggests(base, new, NOISE)
    script = Script([([8, 8], [8, 8]), ([8, 8], [8, 8])])
    # Round 1: 8 against 7 over four draws each, spread 0.636: still suggested (above 0.82),
    # not shown (under 1.25). Round 2: 8 against 7.33 over six, spread 0.520: the drop of
    # 0.67 is under 1.02, and the rounds are spent: it passes.
    assert change(base, new, False, NOISE, 0.95, Confirming(2, script)) is None
    assert script.asked == [1, 2]
    drawn_base, drawn_new, rounds = confirmed(base, new, NOISE, 0.95, Confirming(2, script))
    assert rounds == 2 and drawn_new.draws == [6, 6, 8, 8, 8, 8] and len(drawn_base.draws) == 6


def test_a_drop_the_first_round_bears_out_fails_without_a_second() -> None:
    base, new = line([8, 8]), line([6, 6])
    script = Script([([8, 8], [6, 6]), ([8, 8], [6, 6])])
    found = change(base, new, False, NOISE, 0.95, Confirming(2, script))
    # After round 1 the drop of 2 over four draws each is beyond 1.96 * 0.636 = 1.25: shown,
    # so round 2 is not asked.
    assert found is not None and found.kind == "regressed" and found.rounds == 1
    assert script.asked == [1]
    assert found.allowed == pytest.approx(1.959964 * 0.9 * math.sqrt(0.5), abs=1e-4)
    assert "over 4 draws with 1 fresh round(s)" in found.reason


def test_no_round_for_a_drop_not_suggested_a_steady_judge_or_none_allowed() -> None:
    base = line([8, 8])
    script = Script([([8, 8], [6, 6])])
    # 1 point under 1.15: not suggested, nothing drawn, and within the noise.
    assert change(base, line([7, 7]), False, NOISE, 0.95, Confirming(2, script)) is None
    # A judge whose draws never vary: every drop is a change, none is confirmed.
    found = change(line([8, 8]), line([7, 7]), False, 0.0, 0.95, Confirming(2, script))
    assert found is not None and found.kind == "regressed" and found.rounds == 0
    # No rounds allowed: decided on the first draws, as before.
    found = change(base, line([6, 6]), False, NOISE, 0.95, Confirming(0, script))
    assert found is not None and found.kind == "regressed" and found.rounds == 0
    assert script.asked == []


def test_a_round_that_cannot_be_drawn_leaves_the_draws_there_are() -> None:
    base, new = line([8, 8]), line([6, 6])
    script = Script([None])
    found = change(base, new, False, NOISE, 0.95, Confirming(2, script))
    assert script.asked == [1]
    assert found is not None and found.kind == "regressed" and found.rounds == 0
