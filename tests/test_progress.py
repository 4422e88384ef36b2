"""The progress line's arithmetic, on a clock the test moves."""

from __future__ import annotations

from pytest_audiobench.run.progress import Progress


def test_the_line_counts_and_says_nothing_of_the_time_left_until_it_can_be_told() -> None:
    now = [0.0]
    lines: list[str] = []
    progress = Progress(10.0, lines.append, clock=lambda: now[0])
    progress.total = 4
    now[0] = 5.0
    progress.record("passed", 1, "gw0", 7)
    assert lines == []  # not yet ten seconds
    now[0] = 20.0
    progress.record("error", 0, "gw1", 5)
    assert lines == ["audiobench: 2/4 samples done (50%), 12 requests in flight, 1 errors, "
                     "1 answers from the cache, 20 s elapsed"]
    now[0] = 150.0
    progress.record("passed", 0, "gw0", 1)
    assert lines[-1] == ("audiobench: 3/4 samples done (75%), 6 requests in flight, 1 errors, "
                         "1 answers from the cache, 2 min 30 s elapsed")


def test_the_time_left_is_measured_from_the_first_sample_done() -> None:
    # 200 samples: the first is done after 25 s (the requests of the first ones all in flight
    # at once), then one every 0.5 s. At the tenth: 9 intervals of 0.5 s since the first, so
    # 0.5 s each for the 190 left: 95 s (from the start it would be 29.5 / 10 x 190 = 560 s).
    now = [0.0]
    lines: list[str] = []
    progress = Progress(0.5, lines.append, clock=lambda: now[0])
    progress.total = 200
    for done in range(1, 11):
        now[0] = 25.0 + 0.5 * (done - 1)
        progress.record("passed", 0, "gw0", 8)
    assert progress.left(now[0]) == 95.0
    assert lines[-1].endswith("29 s elapsed, ~1 min 35 s left")
    assert [line for line in lines if "left" in line] == [lines[-1]]  # none before the tenth


def test_a_large_run_waits_for_its_first_twentieth() -> None:
    now = [0.0]
    progress = Progress(0.0, lambda line: None, clock=lambda: now[0])
    progress.total = 1000  # 5 %: 50 samples
    for done in range(1, 50):
        now[0] = float(done)
        progress.record("passed", 0, "gw0", 8)
    assert progress.left(now[0]) is None
    now[0] = 50.0
    progress.record("passed", 0, "gw0", 8)
    assert progress.left(now[0]) == 950.0


def test_the_time_an_endpoint_was_away_is_left_out_of_the_rate() -> None:
    # As above, one sample every 0.5 s from 25 s, but the model's server was away 10 s
    # between the fifth and the sixth. At the tenth, 14.5 s since the first, 10 of them away:
    # 4.5 / 9 = 0.5 s a sample, 95 s for the 190 left (with the outage in the rate: 306 s).
    now = [0.0]
    lines: list[str] = []
    progress = Progress(0.5, lines.append, clock=lambda: now[0])
    progress.total = 200
    for done in range(1, 11):
        now[0] = 25.0 + 0.5 * (done - 1) + (10.0 if done > 5 else 0.0)
        away = {"seconds": 10.0, "now": {}} if done > 5 else None
        progress.record("passed", 0, "gw0", 8, away)
    assert progress.left(now[0]) == 95.0
    assert lines[-1].endswith("39 s elapsed, ~1 min 35 s left")


def test_while_an_endpoint_is_away_the_line_says_so_instead_of_a_time_left() -> None:
    now = [0.0]
    lines: list[str] = []
    progress = Progress(0.5, lines.append, clock=lambda: now[0])
    progress.total = 200
    for done in range(1, 11):
        now[0] = float(done)
        progress.record("passed", 0, "gw0", 8)
    assert lines[-1].endswith(", ~3 min 10 s left")
    # The other worker's sample came from the cache while the server was away 12.5 s.
    now[0] = 11.0
    progress.record("passed", 1, "gw1", 0, {"seconds": 12.5, "now": {"m at http://u": 12.5}})
    assert progress.left(now[0]) is None
    assert lines[-1] == ("audiobench: 11/200 samples done (6%), 8 requests in flight, "
                         "0 errors, 1 answers from the cache, 11 s elapsed, waiting for m at "
                         "http://u (away 12 s)")
    # Back: the estimate returns, the 12.5 s away left out of the rate, the most any
    # worker reported (they saw the same outage): 13 done, 24.5 s since the first, 12 of
    # them working, 1 s a sample for the 187 left.
    now[0] = 25.5
    progress.record("passed", 0, "gw0", 8, {"seconds": 12.0, "now": {}})
    progress.record("passed", 0, "gw1", 8, {"seconds": 12.5, "now": {}})
    assert progress.left(now[0]) == 187.0


def test_an_outage_before_the_first_sample_is_done_is_not_left_out_twice() -> None:
    # Away 20 s at the start: the rate is measured from the first sample done, after it.
    now = [0.0]
    progress = Progress(0.0, lambda line: None, clock=lambda: now[0])
    progress.total = 100
    for done in range(1, 11):
        now[0] = 30.0 + (done - 1)
        progress.record("passed", 0, "gw0", 8, {"seconds": 20.0, "now": {}})
    assert progress.left(now[0]) == 90.0
