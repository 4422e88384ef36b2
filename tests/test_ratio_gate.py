"""The paired gate on a metric better lower that is a ratio (a split's word error rate: errors
summed over reference words summed), against values computed by hand on small tables."""

from __future__ import annotations

import math

import pytest

from pytest_audiobench.gate import exact
from pytest_audiobench.gate.baseline import (
    Baseline,
    Provenance,
    Threshold,
    from_run,
    lower_better,
)
from pytest_audiobench.gate.evaluation import HOLDING, Measured, evaluate, paired_row
from pytest_audiobench.gate.paired import assess, paired
from pytest_audiobench.gate.sample_change import change
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.outcome.metrics import Metric

WER = Linear(value="wer", by="all", weights={"all": 1.0}, low=0.0, high=math.inf,
             weight="words", lower_is_better=True, swing=100.0)


def utterance(sample: str, speaker: str, words: int, errors: int) -> SampleLine:
    """An utterance's line: its error rate in percent, weighed by its reference words; its
    own score the errors, better lower."""
    return SampleLine(id=sample, cluster=speaker, groups={"all": "all"},
                      values={"wer": 100.0 * errors / words, "words": float(words)},
                      draws=[float(errors)], failed=errors > 0, lower_is_better=True,
                      answer_sha256="", answer="")


def table(rows: list[tuple[str, str, int, int, int]]
          ) -> tuple[dict[str, SampleLine], dict[str, SampleLine]]:
    """(id, speaker, words, baseline errors, new errors) rows as both sides' lines."""
    base = {r[0]: utterance(r[0], r[1], r[2], r[3]) for r in rows}
    new = {r[0]: utterance(r[0], r[1], r[2], r[4]) for r in rows}
    return base, new


def test_the_ratio_is_errors_summed_over_words_summed_and_its_standard_error_clustered() -> None:
    base, new = table([("u1", "A", 10, 1, 2), ("u2", "A", 5, 0, 1),
                       ("u3", "B", 20, 2, 2), ("u4", "B", 5, 1, 0)])
    result = paired(WER, base, new)
    assert result is not None
    # 40 words; errors 4 then 5: 10 % then 12.5 %, not the mean of the utterances' rates.
    assert (result.baseline, result.new) == (pytest.approx(10.0), pytest.approx(12.5))
    assert result.difference == pytest.approx(2.5)
    assert result.gain == pytest.approx(-2.5)
    # Shares w/40 = .25, .125, .5, .125; per speaker the summed changes, as gains (negated):
    # A: -(0.25 * 10 + 0.125 * 20) = -5, B: -(0.5 * 0 + 0.125 * -20) = +2.5.
    assert result.sums == (pytest.approx(-5.0), pytest.approx(2.5))
    assert result.weights == (pytest.approx(0.375), pytest.approx(0.625))
    # The ratio's linearisation, (errors changed - words x 2.5 %) / 40 words, per speaker:
    # A: (1 - 0.25 + 1 - 0.125) x 100 / 40 = 4.0625, B: -4.0625; SE^2 = 2/1 x 2 x 4.0625^2.
    assert result.se == pytest.approx(math.sqrt(2 * 2 * 4.0625 ** 2)) == pytest.approx(8.125)
    assert (result.n, result.clusters, result.heaviest) == (4, 2, pytest.approx(0.5))
    assert result.room == math.inf


def test_a_rise_on_every_speaker_is_a_regression_and_a_fall_is_none() -> None:
    rows = [(f"u{i}", f"s{i}", 10, 1, 3) for i in range(12)]
    base, new = table(rows)
    result = paired(WER, base, new)
    assert result is not None and result.difference == pytest.approx(20.0)
    test = assess(result, margin=0.2, level=0.05)
    # Twelve speakers all worse: the sign-flip test's p is one pattern in 2^12, as shifted by
    # the margin (each still a rise of 20/12 - 0.2/12 points).
    assert test.p == pytest.approx(2 ** -12)
    assert test.regressed
    row = paired_row("librispeech.test-clean.wer", test)
    assert row.status == "regressed" and row.lower_is_better
    assert row.limit == pytest.approx(0.2)
    better = assess(paired(WER, new, base), margin=0.2, level=0.05)  # type: ignore[arg-type]
    assert better.p is None and not better.regressed
    assert paired_row("w", better).status in HOLDING


def test_lower_is_better_mirrors_higher_is_better_on_negated_values() -> None:
    rows = [("a", "s1", 8, 0, 1), ("b", "s1", 4, 2, 2), ("c", "s2", 12, 1, 0),
            ("d", "s3", 6, 0, 2), ("e", "s4", 9, 3, 4), ("f", "s5", 7, 1, 1)]
    base, new = table(rows)
    mirror = WER.model_copy(update={"lower_is_better": False, "low": -math.inf, "high": 0.0})

    def negated(lines: dict[str, SampleLine]) -> dict[str, SampleLine]:
        return {k: v.model_copy(update={"values": {"wer": -v.values["wer"],
                                                   "words": v.values["words"]}})
                for k, v in lines.items()}

    low = assess(paired(WER, base, new), 0.5, 0.05)  # type: ignore[arg-type]
    high = assess(paired(mirror, negated(base), negated(new)), 0.5, 0.05)  # type: ignore[arg-type]
    assert low.p == high.p and low.detectable == pytest.approx(high.detectable)
    assert low.low == pytest.approx(-high.high) and low.high == pytest.approx(-high.low)
    assert low.gains == (pytest.approx(high.low), pytest.approx(high.high))
    assert paired_row("x", low).status == paired_row("x", high).status


def test_one_utterance_measures_a_change_but_cannot_be_gated() -> None:
    base, new = table([("u", "s", 4, 0, 2)])
    result = paired(WER, base, new)
    assert result is not None and result.difference == pytest.approx(50.0)
    assert result.se is None and result.clusters == 1
    # One speaker: its sign flipped or not, p = 1/2; no level below it can reject.
    assert not result.detects_at_all(0.05, 0.2)
    assert exact.sign_flip_p(result.sums) == pytest.approx(0.5)
    test = assess(result, 0.2, 0.05, gated=False)
    assert (test.low, test.high, test.detectable, test.p) == (None, None, None, None)
    assert paired_row("w", test).status == "too small"


def test_all_pairs_equal_change_nothing_and_raise_no_alarm() -> None:
    base, new = table([(f"u{i}", f"s{i}", 5 + i, i % 2, i % 2) for i in range(10)])
    result = paired(WER, base, new)
    assert result is not None
    assert result.difference == 0.0 and result.se == 0.0
    test = assess(result, 0.2, 0.05)
    assert test.p is None and not test.regressed
    # No spread at all: no interval can be had, so the row says it cannot tell.
    assert paired_row("w", test).status == "can't tell"
    # Its smallest detectable rise: the margin plus (t + z) times one heaviest utterance's
    # whole swing (100 points x 14/95 words).
    q = exact.t_quantile(0.95, 9) + 0.8416212335729143
    assert test.detectable == pytest.approx(0.2 + q * 100 * 14 / 95)


def test_samples_without_their_words_are_not_weighed() -> None:
    base, new = table([("u1", "A", 10, 1, 2), ("u2", "B", 5, 0, 1)])
    base["u1"] = base["u1"].model_copy(update={"values": {"wer": 10.0}})
    assert paired(WER, base, new) is None


def test_a_ceiling_threshold_is_over_or_under_and_written_rounded_up() -> None:
    name = "librispeech.test-clean.wer"
    assert lower_better([name, "mmau.avg"], lambda m: WER if m == name else None) == {name}
    file = Baseline(benchmark="librispeech", model="m", judge_model=None, max_errors=0,
                    metrics={name: Threshold(threshold=2.0, tolerance=0.1)})
    held = evaluate(file, Measured({name: Metric(value=2.1, n=5)}, 0), lower=frozenset({name}))
    assert held.rows[0].status == "under" and held.held
    failed = evaluate(file, Measured({name: Metric(value=2.11, n=5)}, 0),
                      lower=frozenset({name}))
    assert failed.rows[0].status == "over" and not failed.held
    assert failed.reasons() == [f"{name} over (2.110 > 2 + 0.1)"]
    # Read as better higher, the same value would hold: the direction is the benchmark's.
    assert evaluate(file, Measured({name: Metric(value=2.11, n=5)}, 0)).held
    written = from_run(Provenance("librispeech", "m"), {name: Metric(value=1.23456, n=5)},
                       (name,), lambda metric: WER if metric == name else None, None, 0.2)
    assert written.metrics[name].threshold == 1.2346
    assert evaluate(written, Measured({name: Metric(value=1.23456, n=5)}, 0),
                    lower=frozenset({name})).held


def test_an_utterance_regresses_when_its_errors_rise() -> None:
    base, new = utterance("u", "s", 10, 1), utterance("u", "s", 10, 3)
    found = change(base, new, fails_now=True, noise=None, confidence=0.95)
    assert found is not None and found.kind == "regressed"
    assert found.reason == ("score 1 in the baseline, 3 now: a rise of 2; its grading does not "
                            "vary between draws, so any rise is a change")
    fewer = change(new, base, fails_now=True, noise=None, confidence=0.95)
    assert fewer is not None and fewer.kind == "xfailed"
    assert change(base, utterance("u", "s", 10, 1), fails_now=True, noise=None,
                  confidence=0.95).kind == "xfailed"  # type: ignore[union-attr]
    # Several runs: the draws' spread (1.5 errors) allows a rise of 1.96 x 1.5 x sqrt(2/3).
    noisy_base = base.model_copy(update={"draws": [1.0, 1.0, 1.0]})
    noisy_new = new.model_copy(update={"draws": [3.0, 3.0, 2.0]})
    allowed = 1.959963984540054 * 1.5 * math.sqrt(2 / 3)
    kept = change(noisy_base, noisy_new, fails_now=True, noise=1.5, confidence=0.95)
    assert kept is not None and kept.kind == "xfailed" and kept.allowed == pytest.approx(allowed)
