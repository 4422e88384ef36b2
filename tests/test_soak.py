"""scripts/soak.py: which replies paid twice a kill took (the soak's own accounting)."""

from __future__ import annotations

from scripts.soak import KILL_WINDOW, taken_at_kills

RUN_BEGAN, KILL = 100.0, 200.0
KILLS = [(KILL, RUN_BEGAN)]


def test_a_reply_just_before_or_after_a_kill_is_near_it() -> None:
    whole = [KILL - KILL_WINDOW + 0.5, KILL + 0.5, KILL - KILL_WINDOW - 5.0]
    assert taken_at_kills(whole, [], KILLS) == (2, 0)


def test_an_empty_answer_whose_retry_is_still_asked_at_the_kill_is_held_by_it() -> None:
    # The empty answer came 5 s before the kill; its retry trickled to the timeout and was
    # sent again, unanswered when the process died: the plugin had kept neither.
    empty = KILL - 5.0
    retries = [empty + 0.01, empty + 4.9]
    assert taken_at_kills([empty], retries, KILLS) == (0, 1)


def test_a_request_answered_again_before_the_kill_is_not_held_by_it() -> None:
    empty = KILL - 9.0
    retry = empty + 0.01
    answered = retry + 0.2  # the sample was done long before the kill
    assert taken_at_kills([empty, answered], [empty - 0.1, retry], KILLS) == (0, 0)


def test_a_request_not_asked_again_before_the_kill_is_not_held_by_it() -> None:
    assert taken_at_kills([KILL - 5.0], [KILL - 5.1, KILL + 30.0], KILLS) == (0, 0)


def test_a_reply_from_a_run_before_the_killed_one_is_not_held_by_the_kill() -> None:
    # Forwarded whole in an earlier run, asked again in the killed run: whatever lost the
    # first reply, it was not this kill.
    earlier = RUN_BEGAN - 20.0
    assert taken_at_kills([earlier], [earlier - 0.1, RUN_BEGAN + 1.0], KILLS) == (0, 0)
