"""The progress line's arithmetic, on a clock the test moves."""

from __future__ import annotations

from pytest_audiobench.run.progress import Progress


def test_the_line_counts_and_estimates_what_is_left() -> None:
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
                     "1 answers from the cache, 20 s elapsed, ~20 s left"]
    now[0] = 150.0
    progress.record("passed", 0, "gw0", 1)
    assert lines[-1] == ("audiobench: 3/4 samples done (75%), 6 requests in flight, 1 errors, "
                         "1 answers from the cache, 2 min 30 s elapsed, ~50 s left")
