"""The judge's drift: today's judge grades again a share of the per-sample baseline's own
answers, and the change of those scores is the judge's, reported every run."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_audiobench.gate.drift import Drift, calibrating, judge_comparison, judge_drift, measure
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.transport.types import EndpointTraffic, JudgeIdentity, Traffic
from tests.conftest import XDIST_MODES, ScoringJudge, Servers
from tests.fakes.openai_server import Reply, Scripted

ONE = Linear(value="v", by="by", weights={"g": 1.0}, low=0, high=10)


def line(sample: str, value: float, group: str = "g") -> SampleLine:
    return SampleLine(id=sample, cluster=sample, groups={"by": group}, values={"v": value},
                      draws=[value, value], judged=True, failed=False, answer_sha256="",
                      answer="")


def test_the_calibration_share_is_a_fixed_share_of_the_samples() -> None:
    ids = [f"audiobench::b::t::{n}" for n in range(4000)]
    quarter = calibrating(ids, 0.25)
    assert len(quarter) == 1000  # exactly the share: it never costs more than said
    assert quarter == calibrating(reversed(ids), 0.25)  # the same whatever the order
    assert quarter <= calibrating(ids, 0.5)  # a larger share holds it
    assert calibrating(ids, 0.0) == frozenset() and calibrating(ids, 1.0) == set(ids)
    assert len(calibrating(ids[:7], 0.25)) == 1  # rounded down: floor(1.75)
    # Spread over the samples, not the first ones: of the first 400 ids about a quarter.
    assert 70 < len(quarter & set(ids[:400])) < 130


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


JUDGE_THEN = JudgeIdentity(url="http://judge/v1", model="gpt-4o", sampling={"temperature": 1},
                           prompt="abc", served=["gpt-4o-2024-08-06"])


def test_a_judge_differs_by_what_identifies_it_and_unknown_served_ids_say_nothing() -> None:
    same = JUDGE_THEN.model_copy(update={"served": []})  # every reply came from the cache
    assert same.differs_from(JUDGE_THEN) is None and JUDGE_THEN.differs_from(same) is None
    moved = JUDGE_THEN.model_copy(update={"url": "http://proxy/v1", "prompt": "def"})
    assert moved.differs_from(JUDGE_THEN) == ("endpoint http://judge/v1 (today: "
                                              "http://proxy/v1); prompt abc (today: def)")
    snapshot = JUDGE_THEN.model_copy(update={"served": ["gpt-4o-2024-11-20"]})
    assert snapshot.differs_from(JUDGE_THEN) == (
        "replies from gpt-4o-2024-08-06 (today: gpt-4o-2024-11-20)")
    # The counts of the ids replies named add up over processes.
    one = Traffic(endpoints={"j at u": EndpointTraffic(served={"a": 2})})
    two = Traffic(endpoints={"j at u": EndpointTraffic(served={"a": 1, "b": 1})})
    assert (one + two).endpoints["j at u"].served == {"a": 3, "b": 1}
    assert (one + two).served_by("j", "u") == ["a", "b"]


def test_what_the_gate_pairs_against_by_mode_identity_and_drift() -> None:
    steady = Drift(metric="m", asked=50, n=50, difference=-0.1, low=-0.3, high=0.1,
                   detectable=0.57, changed=False)
    drifted = steady.model_copy(update={"difference": -1.0, "low": -1.2, "high": -0.8,
                                        "changed": True})
    other = JUDGE_THEN.model_copy(update={"model": "gpt-4.1"})
    table = [  # mode, baseline's judge, today's, drift -> judged again?
        ("always", JUDGE_THEN, JUDGE_THEN, steady, True),
        ("never", JUDGE_THEN, other, drifted, False),
        ("auto", JUDGE_THEN, other, None, True),
        ("auto", JUDGE_THEN, JUDGE_THEN, drifted, True),
        ("auto", JUDGE_THEN, JUDGE_THEN, steady, False),
        ("auto", None, other, steady, False),  # an old baseline names no judge
        ("auto", None, other, None, False),
    ]
    for mode, then, today, drift, rejudged in table:
        assert judge_comparison(mode, then, today, drift).rejudged is rejudged, (mode, then, drift)
    assert judge_comparison("auto", JUDGE_THEN, JUDGE_THEN, steady).why == (
        "the judge is the baseline's and did not drift beyond its noise (-0.10 on 50 of the "
        "baseline's answers, which would show a drift of 0.57)")
    assert judge_comparison("auto", JUDGE_THEN, other).why == (
        "the judge is not the baseline's: model gpt-4o (today: gpt-4.1)")
    assert judge_comparison("auto", None, other).why == (
        "the baseline names no judge identity (written before they were kept); no baseline "
        "answer was graded again to measure its drift")


def _write_baseline(run_bench: Any, servers: Servers) -> Any:
    """The per-sample baseline of a model that answers every sample well, as the judge of the
    servers scores it; the run that wrote it."""
    servers.model.script = Scripted("a good answer")
    written = run_bench("--audiobench-update-baseline")
    assert written.result.ret == 0
    return written


def _write_then_rerun(run_bench: Any, servers: Servers, judge: ScoringJudge,
                      *args: str) -> Any:
    _write_baseline(run_bench, servers)
    servers.judge.script = judge
    return run_bench("--audiobench-calibration-share=1", *args)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_unchanged_model_under_a_harsher_judge_is_held_against_its_answers_judged_again(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    run = _write_then_rerun(run_bench, servers, ScoringJudge({"good answer": 7}, reference=5),
                            *xdist)
    summary = run.report["benchmarks"][0]
    drift = summary["judge_drift"]
    assert drift["metric"] == "air_bench_chat.average.score"
    assert (drift["asked"], drift["n"]) == (16, 16)
    assert drift["difference"] == pytest.approx(-1.0) and drift["changed"] is True
    # The drift is beyond chance: every baseline answer is judged again, and the gate pairs
    # the new scores (7) with those (7), not with the recorded ones (8).
    assert summary["judge_comparison"]["rejudged"] is True
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["difference"] == pytest.approx(0.0)
    assert run.result.ret == pytest.ExitCode.OK
    out = run.result.stdout.str()
    assert ("judge drift: -1.00 [n/a] on air_bench_chat.average.score, today's judge on 16 of "
            "the baseline's own answers against the scores it recorded") in out
    assert ("judge: the gate pairs this run against every baseline answer judged again by "
            "today's judge: the judge drifted beyond its noise (-1.00 on "
            "air_bench_chat.average.score, 16 of the baseline's answers graded again)") in out


def test_never_keeps_the_recorded_scores_and_says_the_judge_changed(
        run_bench: Any, servers: Servers) -> None:
    _write_baseline(run_bench, servers)
    # As good an answer in other words (so that no reply of the old judge is cached for it),
    # under a judge one point harsher.
    servers.model.script = Scripted("a good answer, told otherwise")
    servers.judge.script = ScoringJudge({"good answer": 7}, reference=5)
    run = run_bench("--audiobench-calibration-share=1", "--audiobench-rejudge-baseline=never")
    summary = run.report["benchmarks"][0]
    assert summary["judge_comparison"]["rejudged"] is False
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    # The recorded 8 against today's 7: the judge's change reads as the model's.
    assert rows["air_bench_chat.average.score"]["difference"] == pytest.approx(-1.0)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    out = run.result.stdout.str()
    assert "judge drift: the judge changed since the baseline was written" in out
    assert ("judge: the gate pairs this run against the scores the baseline recorded: "
            "--audiobench-rejudge-baseline never") in out


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_judge_whose_replies_name_another_model_is_another_judge(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    _write_baseline(run_bench, servers)
    servers.judge.served_as = "judge-model-2026-12-01"
    servers.judge.script = ScoringJudge({"good answer": 7}, reference=5)
    before = servers.judge.count()
    run = run_bench("--audiobench-calibration-share=0.25", *xdist)
    summary = run.report["benchmarks"][0]
    why = summary["judge_comparison"]["why"]
    assert summary["judge_comparison"]["rejudged"] is True
    assert why == ("the judge is not the baseline's: replies from judge-model (today: "
                   "judge-model-2026-12-01)")
    assert run.result.ret == pytest.ExitCode.OK
    # Every baseline answer judged again (both orders) and every new answer judged afresh:
    # the same texts in one run are one request each.
    assert servers.judge.count() - before == 32
    assert summary["judge_drift"]["asked"] == 16
def test_a_steady_judge_shows_no_drift_and_the_default_share_asks_a_quarter(
        run_bench: Any, servers: Servers) -> None:
    _write_baseline(run_bench, servers)
    before = servers.judge.count()
    run = run_bench()
    drift = run.report["benchmarks"][0]["judge_drift"]
    nodes = run.report["selected"]
    assert drift["asked"] == len(calibrating(nodes, 0.25)) > 0
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
    _write_baseline(run_bench, servers)
    before = servers.judge.count()
    run = run_bench("--audiobench-calibration-share=0")
    assert run.report["benchmarks"][0]["judge_drift"] is None
    assert servers.judge.count() == before


def test_the_dry_run_counts_the_answers_graded_again(run_bench: Any, servers: Servers) -> None:
    _write_baseline(run_bench, servers)
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
    assert ('<p class="note drift">judge: the gate pairs this run against every baseline '
            "answer judged again by today&#x27;s judge: the judge drifted beyond its noise") in text


def test_a_baseline_answer_today_s_judge_cannot_grade_again_errors_its_item(
        run_bench: Any, servers: Servers) -> None:
    _write_baseline(run_bench, servers)
    servers.model.script = Scripted("a fine answer")
    # Today's judge replies no score to any prompt that holds the baseline's answer.
    servers.judge.script = ScoringJudge({"fine answer": 8}, replies={"good answer": "no idea"})
    run = run_bench("--audiobench-rejudge-baseline=always")
    outcomes = {s["outcome"] for s in run.report["samples"]}
    assert outcomes == {"error"}  # never scored against nothing, never dropped in silence
    sample = run.report["samples"][0]
    assert sample["grades"] == [] and sample["baseline_grades_failed"].startswith("JudgeError")
    assert "today's judge could not grade the baseline's answer again" in sample["message"]
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert run.report["benchmarks"][0]["gate"]["missing"] == 16


def test_the_dry_run_counts_every_baseline_answer_when_always_and_says_what_a_drift_adds(
        run_bench: Any, servers: Servers) -> None:
    written = _write_baseline(run_bench, servers)
    share = len(calibrating(written.report["selected"], 0.25))
    always = run_bench("--audiobench-dry-run", "--audiobench-rejudge-baseline=always",
                       "--audiobench-calibration-share=0").result.stdout.str()
    assert "judge calls include 16 baseline answers graded again" in always
    assert "if the judge drifted" not in always
    auto = run_bench("--audiobench-dry-run").result.stdout.str()
    assert f"judge calls include {share} baseline answers graded again" in auto
    assert (f"and {16 - share} more baseline answers are graded again if the judge drifted "
            "beyond its noise (not counted)") in auto


def test_a_resume_holds_to_the_run_s_decision(run_bench: Any, servers: Servers,
                                              small_records: list[Any]) -> None:
    _write_baseline(run_bench, servers)
    servers.judge.script = ScoringJudge({"good answer": 7}, reference=5)
    broken = Scripted("a good answer")
    for record in small_records[:4]:
        broken.when(contains=record["question"], replies=Reply(status=500))
    servers.model.script = broken
    first = run_bench("--audiobench-calibration-share=1", "--audiobench-retries", "0")
    first.result.assert_outcomes(passed=12, errors=4)
    assert first.report["benchmarks"][0]["judge_comparison"]["rejudged"] is True
    # The judge is steady again, yet the resume pairs as the run began: against the answers
    # judged again (from this run's cache), never half one way and half the other.
    servers.model.script = Scripted("a good answer")
    servers.judge.script = ScoringJudge({"good answer": 8}, reference=6)
    resumed = run_bench("--audiobench-calibration-share=1", "--audiobench-resume")
    resumed.result.assert_outcomes(passed=16)
    summary = resumed.report["benchmarks"][0]
    assert summary["judge_comparison"] == first.report["benchmarks"][0]["judge_comparison"]
    assert resumed.result.ret == pytest.ExitCode.OK


def test_the_calibration_ahead_of_the_items_counts_against_the_budget_under_xdist(
        run_bench: Any, servers: Servers) -> None:
    _write_baseline(run_bench, servers)
    before = servers.model.count() + servers.judge.count()
    # The controller grades all 16 baseline answers in both orders (32 requests) before the
    # workers start; the workers then share what is left of the 40, not 40 of their own.
    run = run_bench("--audiobench-calibration-share=1", "--audiobench-budget-requests=40",
                    "-n", "2")
    sent = servers.model.count() + servers.judge.count() - before
    assert sent <= 40
    counts = run.partial["benchmarks"][0]["counts"]
    assert counts["not_run"] > 0 and counts["passed"] + counts["not_run"] == 16


def test_one_rule_tells_another_judge_by_its_identity_else_its_model_id() -> None:
    from pytest_audiobench.gate.drift import other_judge
    from pytest_audiobench.transport.types import JudgeIdentity

    then = JudgeIdentity(url="u", model="j", sampling={"temperature": 1.0}, prompt="p")
    assert other_judge("j", then, "j", then) is None
    colder = then.model_copy(update={"sampling": {"temperature": 0.0}})
    assert other_judge("j", then, "j", colder) == (
        "sampling {'temperature': 1.0} (today: {'temperature': 0.0})")
    # A baseline written before identities were kept: its model id alone.
    assert other_judge("j", None, "j", colder) is None
    assert other_judge("j", None, "k", colder) == "model j (today: k)"
