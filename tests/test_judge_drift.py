"""The judge's drift: today's judge grades again a share of the per-sample baseline's own
answers, and the change of those scores is the judge's, reported every run."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_audiobench.gate.drift import calibrates, judge_drift, measure
from pytest_audiobench.outcome.lines import Linear, SampleLine
from tests.conftest import XDIST_MODES, ScoringJudge, Servers
from tests.fakes.openai_server import Scripted

ONE = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=10)


def line(sample: str, value: float, group: str = "g") -> SampleLine:
    return SampleLine(id=sample, cluster=sample, groups={"by": group}, values={"v": value},
                      draws=[value, value], judged=True, failed=False, answer_sha256="",
                      answer="")


def test_the_calibration_share_is_a_fixed_share_of_the_samples() -> None:
    ids = [f"audiobench::b::t::{n}" for n in range(4000)]
    quarter = [i for i in ids if calibrates(i, 0.25)]
    assert 900 < len(quarter) < 1100  # 1,000 expected; the binomial SD is 27
    assert quarter == [i for i in ids if calibrates(i, 0.25)]  # the same every time
    assert set(quarter) <= {i for i in ids if calibrates(i, 0.5)}  # a larger share holds it
    assert not any(calibrates(i, 0.0) for i in ids) and all(calibrates(i, 1.0) for i in ids)


def test_a_judge_one_point_harsher_on_every_answer_drifts_by_minus_one() -> None:
    recorded = {f"s{i}": line(f"s{i}", 6.0 + i % 3) for i in range(12)}
    today = {k: line(k, v.values["v"] - 1) for k, v in recorded.items()}
    drift = measure("m", ONE, recorded, today, asked=13, confidence=0.95)
    # Every pair -1: the mean is -1, no spread (no interval), and the sign-flip test on 12
    # equal drops gives p = 2^-12, far below the level 0.025: the judge changed.
    assert (drift.n, drift.asked, drift.difference) == (12, 13, pytest.approx(-1.0))
    assert drift.changed
    lenient = measure("m", ONE, recorded, {k: line(k, v.values["v"] + 1)
                                           for k, v in recorded.items()}, 12, 0.95)
    assert lenient.difference == pytest.approx(1.0) and lenient.changed


def test_a_steady_judge_and_a_single_pair_show_no_change() -> None:
    recorded = {f"s{i}": line(f"s{i}", 6.0 + i % 3) for i in range(12)}
    steady = measure("m", ONE, recorded, dict(recorded), 12, 0.95)
    assert steady.difference == pytest.approx(0.0) and not steady.changed
    # One pair: p = 1/2 at best, never a change; no interval from one cluster.
    one = measure("m", ONE, recorded, {"s0": line("s0", 2.0)}, 1, 0.95)
    assert (one.n, one.difference, one.low, one.high, one.changed) == (
        1, pytest.approx(-4.0), None, None, False)
    assert measure("m", ONE, recorded, {}, 3, 0.95).n == 0


def test_of_the_headline_the_metric_that_pairs_the_most_answers_reports_the_drift() -> None:
    two = Linear(value="v", by="by", weights={"g": 0.5, "h": 0.5}, low=0, high=10)
    recorded = {"a": line("a", 5.0), "b": line("b", 7.0, group="h")}
    today = {"a": line("a", 4.0), "b": line("b", 6.0, group="h")}
    linears = {"narrow": ONE, "broad": two, "other": None}
    # "narrow" pairs the one answer of group g, "broad" both; a metric with no linear form
    # measures nothing, and with only group g graded again "broad" pairs none.
    drift = judge_drift(["narrow", "broad", "other"], linears.get, recorded, today, 2, 0.95)
    assert (drift.metric, drift.n, drift.difference) == ("broad", 2, pytest.approx(-1.0))
    alone = judge_drift(["narrow", "broad"], linears.get, recorded, {"a": today["a"]}, 1, 0.95)
    assert (alone.metric, alone.n) == ("narrow", 1)
    assert judge_drift(["other"], linears.get, recorded, today, 2, 0.95).n == 0


def _write_then_rerun(run_bench: Any, servers: Servers, judge: ScoringJudge,
                      *args: str) -> Any:
    servers.model.script = Scripted("a good answer")
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    servers.judge.script = judge
    return run_bench("--audiobench-calibration-share=1", *args)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_unchanged_model_under_a_harsher_judge_shows_the_drift(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    run = _write_then_rerun(run_bench, servers, ScoringJudge({"good answer": 7}, reference=5),
                            *xdist)
    drift = run.report["benchmarks"][0]["judge_drift"]
    assert drift["metric"] == "air_bench_chat.average.score"
    assert (drift["asked"], drift["n"]) == (16, 16)
    assert drift["difference"] == pytest.approx(-1.0) and drift["changed"] is True
    out = run.result.stdout.str()
    assert ("judge drift: -1.00 [n/a] on air_bench_chat.average.score, today's judge on 16 of "
            "the baseline's own answers against the scores it recorded") in out
    assert "judge drift: the judge changed since the baseline was written" in out


def test_a_steady_judge_shows_no_drift_and_the_default_share_asks_a_quarter(
        run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted("a good answer")
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    before = servers.judge.count()
    run = run_bench()
    drift = run.report["benchmarks"][0]["judge_drift"]
    nodes = run.report["selected"]
    assert drift["asked"] == sum(calibrates(n, 0.25) for n in nodes) > 0
    assert drift["difference"] == pytest.approx(0.0) and drift["changed"] is False
    # The unchanged answers are judged from the cache; the calibration draws afresh: both
    # orders of each answer asked again, and nothing else.
    assert servers.judge.count() - before == 2 * drift["asked"]
    usage = run.report["usage"]
    assert usage["judge_requests"] - usage["judge_cached"] == 2 * drift["asked"]
    assert "the judge changed" not in run.result.stdout.str()
    # A new run draws afresh: an earlier run's calibration replies never serve it.
    again = run_bench()
    assert servers.judge.count() - before == 4 * drift["asked"]
    assert again.report["benchmarks"][0]["judge_drift"]["asked"] == drift["asked"]


def test_no_share_asks_nothing_again(run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted("a good answer")
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    before = servers.judge.count()
    run = run_bench("--audiobench-calibration-share=0")
    assert run.report["benchmarks"][0]["judge_drift"] is None
    assert servers.judge.count() == before


def test_the_dry_run_counts_the_answers_graded_again(run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted("a good answer")
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    out = run_bench("--audiobench-dry-run", "--audiobench-calibration-share=1").result.stdout.str()
    # A new run asks the model again (its answers are the run's own), so the judge's 32 calls
    # on them are all to send; with them, the 16 baseline answers in both orders.
    assert "judge calls: 64 (0 in the cache, 64 to send)" in out
    assert "judge calls include 16 baseline answers graded again" in out


def test_the_page_shows_the_drift(run_bench: Any, servers: Servers, pytester: Any) -> None:
    page = pytester.path / "run.html"
    _write_then_rerun(run_bench, servers, ScoringJudge({"good answer": 9}, reference=7),
                      f"--audiobench-html={page}")
    text = page.read_text(encoding="utf-8")
    assert ('<p class="note drift">judge drift: +1.00 [n/a] on air_bench_chat.average.score'
            in text)
    assert "the judge changed since the baseline was written" in text
