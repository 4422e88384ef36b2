"""Faults of the endpoints cost neither a verdict nor a hang: a fault proxy stands between the
plugin and the scripted servers and answers with empty content, bodies that are not JSON, no
choices, trickling or hanging replies. Each is retried like a 500, never cached and never
judged, and after the retries it is an error in one line naming the endpoint; timeouts bound
the whole request, and the deadline bounds the run."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import JUDGE, MODEL, Servers, fenced_answers
from tests.fakes import fault_proxy
from tests.fakes.fault_proxy import FaultProxy
from tests.fakes.openai_server import Reply, Scripted


@pytest.fixture
def proxy(servers: Servers) -> Iterator[FaultProxy]:
    """A fault proxy in front of the model server (forwarding everything until told)."""
    with FaultProxy(servers.model.url) as running:
        yield running


def through(run_bench: Any, proxy: FaultProxy, *args: str, **kw: Any) -> Any:
    return run_bench("--audiobench-api-url", proxy.url, "--audiobench-retry-wait", "0",
                     *args, **kw)


def judged_answers(servers: Servers) -> list[str]:
    return [request.text for request in servers.judge.requests]


@pytest.mark.parametrize("fault", ["null_content", "blank_content", "invalid_json",
                                   "empty_choices"])
def test_a_200_without_an_answer_is_retried_and_the_retry_is_what_counts(
        run_bench: Any, servers: Servers, proxy: FaultProxy, fault: str) -> None:
    proxy.choose = fault_proxy.first_attempts(fault)
    run = through(run_bench, proxy)
    run.result.assert_outcomes(passed=16)
    assert proxy.injected[fault] == 16 and servers.model.count() == 16 + 16 * (
        fault in ("null_content", "blank_content"))
    # Every answer the judge saw was a real one: two passes per sample, nothing empty.
    assert servers.judge.count() == 32
    assert all("a good answer" in text for text in judged_answers(servers))
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {proxy.url}"]
    reason = {"null_content": "empty answer", "blank_content": "empty answer",
              "invalid_json": "not JSON", "empty_choices": "no choices"}[fault]
    assert traffic["failures"] == {reason: 16}
    assert (traffic["requests"], traffic["received"], traffic["retries"]) == (32, 32, 16)
    assert all(a["completion"]["attempts"] == 2 for s in run.report["samples"]
               for a in s["answers"])


@pytest.mark.parametrize(("fault", "said"), [
    ("invalid_json", "a reply that is not JSON"),
    ("empty_choices", "a completion without choices"),
])
def test_an_endpoint_that_never_answers_is_one_line_per_sample_and_nothing_is_judged(
        run_bench: Any, servers: Servers, proxy: FaultProxy, fault: str, said: str) -> None:
    proxy.choose = fault_proxy.always(fault)
    run = through(run_bench, proxy, "--audiobench-retries", "1")
    run.result.assert_outcomes(errors=16)
    assert servers.judge.count() == 0  # a judge is never asked to grade what was not said
    out = run.result.stdout.str()
    expected = f"the model {MODEL} at {proxy.url} (--audiobench-api-url) failed after 2 " \
        f"attempts: {said}"
    assert out.count(expected) >= 16
    assert "Traceback" not in out and "JSONDecodeError" not in out
    assert all(s["message"] == f"EndpointError: {expected}" for s in run.report["samples"])
    # Nothing of it was kept: the next run asks again.
    proxy.choose = fault_proxy.none
    through(run_bench, proxy).result.assert_outcomes(passed=16)


def test_a_judge_whose_replies_are_empty_is_the_judges_error_not_a_score(
        run_bench: Any, servers: Servers) -> None:
    with FaultProxy(servers.judge.url, fault_proxy.always("null_content")) as judge:
        run = run_bench("--audiobench-judge-api-url", judge.url, "--audiobench-retries", "0")
        url = judge.url
    run.result.assert_outcomes(errors=16)
    assert (f"the judge {JUDGE} at {url} (--audiobench-judge-api-url) failed after 1 attempt: "
            "an empty answer (content null)") in (
        run.result.stdout.str())


@pytest.mark.parametrize("fault", ["null_content", "blank_content"])
def test_a_model_that_always_answers_empty_has_its_empty_answers_judged_not_errors(
        run_bench: Any, servers: Servers, proxy: FaultProxy, fault: str) -> None:
    proxy.choose = fault_proxy.always(fault, model=MODEL)
    run = through(run_bench, proxy)  # four retries allowed: an empty answer takes one
    run.result.assert_outcomes(passed=16)  # the scoring judge gives an empty answer 6
    # Each asked twice (a glitch gets one retry), then judged in both orders as it was.
    assert proxy.injected[fault] == 32 and servers.judge.count() == 32
    for text in judged_answers(servers):
        shown = sorted(fenced_answers(text))
        assert not shown[0].strip() and shown[1], shown  # the model's empty, the reference's not
    answers = [a for s in run.report["samples"] for a in s["answers"]]
    assert all(a["empty"] and a["completion"]["attempts"] == 2 for a in answers)
    assert run.report["benchmarks"][0]["counts"]["empty_answers"] == 16
    out = run.result.stdout.str()
    assert "answers: 16 empty answers, counted as given" in out
    assert "Traceback" not in out
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {proxy.url}"]
    assert traffic["failures"] == {"empty answer": 16}  # the first asks, asked again
    assert (traffic["retries"], traffic["waited_seconds"]) == (16, 0.0)  # at once


def empty_then(fault: str, times: int | None = None) -> fault_proxy.Chooser:
    """Each distinct request of the model: an empty answer (content null), then ``fault``
    (``times`` times, every time after by default), then the server's reply."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def choose(body: dict[str, Any]) -> str | None:
        if body.get("model") != MODEL:
            return None
        key = json.dumps(body, sort_keys=True)
        with lock:
            seen[key] += 1
            if seen[key] == 1:
                return "null_content"
            return fault if times is None or seen[key] <= 1 + times else None

    return choose


@pytest.mark.parametrize(("fault", "reason"), [("server_error", "HTTP 500"),
                                               ("invalid_json", "not JSON")])
def test_an_empty_answer_whose_retry_fails_is_judged_as_given_not_an_error(
        run_bench: Any, servers: Servers, proxy: FaultProxy, fault: str, reason: str) -> None:
    # One retry allowed: the empty answer's retry is the request's last attempt.
    proxy.choose = empty_then(fault)
    run = through(run_bench, proxy, "--audiobench-retries", "1")
    run.result.assert_outcomes(passed=16)  # the scoring judge gives an empty answer 6
    assert (proxy.injected["null_content"], proxy.injected[fault]) == (16, 16)
    answers = [a for s in run.report["samples"] for a in s["answers"]]
    assert all(a["empty"] and a["completion"]["attempts"] == 2 for a in answers)
    counts = run.report["benchmarks"][0]["counts"]
    assert (counts["empty_answers"], counts["errors"]) == (16, 0)
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {proxy.url}"]
    assert traffic["failures"] == {"empty answer": 16, reason: 16}
    assert (traffic["requests"], traffic["retries"]) == (32, 16)


@pytest.mark.parametrize(("fault", "reason"), [("server_error", "HTTP 500"),
                                               ("reset", "connection")])
def test_a_glitchs_empty_answer_whose_retry_meets_a_fault_gets_the_models_answer(
        run_bench: Any, servers: Servers, proxy: FaultProxy, fault: str, reason: str) -> None:
    # The retry's failure is retried as any is: the model's own answer is scored, as in a run
    # without the glitch, and the record says the three attempts it took.
    proxy.choose = empty_then(fault, times=1)
    run = through(run_bench, proxy)
    run.result.assert_outcomes(passed=16)
    answers = [a for s in run.report["samples"] for a in s["answers"]]
    assert all(a["completion"]["text"] == "a good answer" and not a["empty"] for a in answers)
    assert all(a["completion"]["attempts"] == 3 for a in answers)
    assert run.report["benchmarks"][0]["counts"]["empty_answers"] == 0
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {proxy.url}"]
    assert traffic["failures"] == {"empty answer": 16, reason: 16}


def test_an_empty_answer_cut_by_the_token_limit_is_asked_once_and_says_so(
        run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted(Reply(None, reasoning="hmm, " * 7, finish_reason="length"))
    run = run_bench("--audiobench-max-tokens", "7", "-k", "speech_QA and 400")
    run.result.assert_outcomes(passed=1)
    assert servers.model.count() == 1  # the same limit would cut it again: not asked again
    (sample,) = run.report["samples"]
    (answer,) = sample["answers"]
    assert answer["empty"] and answer["completion"]["finish_reason"] == "length"
    assert answer["completion"]["reasoning"].startswith("hmm,")
    counts = run.report["benchmarks"][0]["counts"]
    assert (counts["empty_answers"], counts["cut_answers"], counts["errors"]) == (1, 1, 0)
    out = run.result.stdout.str()
    assert "answers: 1 empty answer, counted as given" in out
    assert ("answers: 1 answer cut at the token limit (finish_reason length): "
            "--audiobench-max-tokens (now 7) raises it") in out


def test_a_reply_that_trickles_is_abandoned_at_the_timeout(
        run_bench: Any, servers: Servers, proxy: FaultProxy) -> None:
    proxy.choose = fault_proxy.always("trickle", model=MODEL)
    proxy.trickle_interval = 0.05
    started = time.monotonic()
    run = through(run_bench, proxy, "--audiobench-timeout", "1", "--audiobench-retries", "0",
                  "--audiobench-concurrency", "16", "--audiobench-max-connection-failures", "99")
    took = time.monotonic() - started
    run.result.assert_outcomes(errors=16)
    assert "no whole reply within 1 s (--audiobench-timeout)" in run.result.stdout.str()
    # Each was held from its first byte until the client hung up: the timeout, and a little.
    held = proxy.held_once(16)
    assert len(held) == 16 and max(held) < 2.5, held
    assert took < 30
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {proxy.url}"]
    assert traffic["failures"] == {"timeout": 16}


def test_the_deadline_bounds_the_run_and_what_remains_is_not_run(
        run_bench: Any, servers: Servers, proxy: FaultProxy) -> None:
    proxy.choose = fault_proxy.always("hang", model=MODEL)
    started = time.monotonic()
    run = through(run_bench, proxy, "--audiobench-timeout", "600", "--audiobench-deadline", "2",
                  "--audiobench-concurrency", "4")
    took = time.monotonic() - started
    assert took < 20
    counts = run.partial["benchmarks"][0]["counts"]
    assert counts["not_run"] == 16 and counts["errors"] == 0
    held = proxy.held_once(4)  # the four in flight, let go at the deadline
    assert len(held) == 4 and max(held) < 4.5, held
    messages = {s["message"] for s in run.partial["samples"]}
    assert any("deadline (--audiobench-deadline) has passed" in m for m in messages)
    assert run.result.ret == pytest.ExitCode.OK or not run.partial["gate_held"]
