"""Rates of the gate's statistics alone, by simulation: a measurement, not a test.

    python scripts/bench_statistics.py            # about a minute on 2 cores

Three figures, each from fixed seeds so that two invocations print the same:

- an unchanged model gated paired on an accuracy (random choices on 28 items of 2 to 4
  options, the mini MMAR's mix) and a judged score (24 samples, a noisy judge), both in one
  family: how often it fails (the gate promises at most 5 %);
- a baseline written over 20 runs and a new run of one (ten items of four options, random
  choices): how often the run-swap test fails the unchanged model (at most 5 %; the sign-flip
  test of the means failed it 5.6 % of the time on its own);
- one item under a judge as noisy as a real one (-2..+2 per pass, standard deviation 0.9), its
  two passes against the baseline's two: how often an unchanged item and one 2 points lower
  fail, without fresh draws and with two rounds of them (``--audiobench-confirm-draws``).

The tests keep the hand-computed tables these rates rest on (tests/test_small_samples.py,
tests/test_confirmation.py); scripts/README.md has the figures.
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pytest_audiobench.gate.family import Candidate, plan  # noqa: E402
from pytest_audiobench.gate.paired import assess, paired  # noqa: E402
from pytest_audiobench.gate.sample_change import Confirming, change  # noqa: E402
from tests.test_confirmation import line as item_line  # noqa: E402
from tests.test_small_samples import ACCURACY, SCORE, over_runs, runs  # noqa: E402

JUDGE = {-2: 0.05, -1: 0.2, 0: 0.5, 1: 0.2, 2: 0.05}
"""The tests' noisy judge: a pass's score is the true one plus this, standard deviation 0.894."""


def runs_of(rng: random.Random, options: list[int]) -> list[float]:
    """One run of random choices: each item right (100) with 1 / its options."""
    return [100.0 if rng.randrange(k) == 0 else 0.0 for k in options]


def unchanged_model(trials: int) -> float:
    rng = random.Random(2024)
    options = [4] * 11 + [3] * 9 + [2] * 8
    failed = 0
    for _ in range(trials):
        accuracy = [runs_of(rng, options) for _ in range(2)]
        scores = [[min(10, max(0, 5 + rng.choice((-2, -1, 0, 0, 1, 2)))) for _ in range(24)]
                  for _ in range(2)]
        by_accuracy = paired(ACCURACY, *runs(*accuracy))
        by_score = paired(SCORE, *runs(*scores, draws=2, judged=True), noise=1.1)
        assert by_accuracy is not None and by_score is not None
        found = {"accuracy": Candidate(by_accuracy, 1.0), "score": Candidate(by_score, 0.1)}
        failed += any(a.regressed for a in plan(found, 0.95).values())
    return failed / trials


def twenty_runs_against_one(trials: int) -> float:
    rng = random.Random(2026)
    options = [4] * 10
    failed = 0
    for _ in range(trials):
        history = [runs_of(rng, options) for _ in range(20)]
        now = runs_of(rng, options)
        base = {f"s{i}": over_runs(f"s{i}", [h[i] for h in history]) for i in range(10)}
        new = {f"s{i}": over_runs(f"s{i}", [now[i]]) for i in range(10)}
        result = paired(ACCURACY, base, new)
        assert result is not None
        failed += assess(result, 1.0, 0.05).regressed
    return failed / trials


def _draws(rng: random.Random, true: int, n: int) -> list[float]:
    return [float(min(10, max(0, true + rng.choices(list(JUDGE), list(JUDGE.values()))[0])))
            for _ in range(n)]


def item_fails(rng: random.Random, drop: int, rounds: int) -> bool:
    true = rng.randint(3, 9)

    def draw(round_: int) -> tuple[list[float], list[float]]:
        return _draws(rng, true, 2), _draws(rng, true - drop, 2)

    found = change(item_line(_draws(rng, true, 2)), item_line(_draws(rng, true - drop, 2)),
                   False, math.sqrt(0.8), 0.95, Confirming(rounds, draw))
    return found is not None and found.kind == "regressed"


def main() -> None:
    trials = 800
    print(f"unchanged model, accuracy and score in one family: fails "
          f"{100 * unchanged_model(trials):.2f} % of {trials} runs (promise: at most 5 %)")
    print(f"baseline over 20 runs, a new run of one: fails "
          f"{100 * twenty_runs_against_one(400):.2f} % of 400 runs (promise: at most 5 %)")
    rng, n = random.Random(20261201), 6000
    for rounds in (0, 2):
        shares = [sum(item_fails(rng, drop, rounds) for _ in range(n)) / n for drop in (0, 2)]
        print(f"an item under a noisy judge, {rounds} round(s) of fresh draws: fails "
              f"{100 * shares[0]:.1f} % unchanged and {100 * shares[1]:.1f} % 2 points lower "
              f"({n} items each)")


if __name__ == "__main__":
    main()
