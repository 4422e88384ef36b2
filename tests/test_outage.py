"""A short outage of an endpoint is waited out: a model server restarted mid-run (its
supervisor brings it back on the same port) costs no sample, and only one that stays away
past ``--audiobench-outage-wait`` ends the run as the breaker did. The breaker's states on
hand-made probes, the attempts an outage gives back, the deadline over the waiting, and how
the outages of xdist workers add up."""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config.resolve import read_settings
from pytest_audiobench.config.settings import EndpointSettings, Sampling
from pytest_audiobench.errors import DeadlineReached, EndpointDown
from pytest_audiobench.transport.endpoint import Endpoint
from pytest_audiobench.transport.ledger import Backoff, Ledger, Line
from pytest_audiobench.transport.pacing import Pacer
from pytest_audiobench.transport.retrying import Tries
from pytest_audiobench.transport.types import Completion, EndpointTraffic
from tests.conftest import MODEL, XDIST_MODES, Servers, write_baseline
from tests.fakes.openai_server import (
    FakeOpenAIServer,
    Scripted,
    dies_after,
    restarts_after,
)

QUICK = Backoff(first=0.01, cap=0.02)
"""Probes 10 ms apart, then 20 ms: the unit tests' outages last a few of them."""


def probes(*replies: str | None) -> tuple[list[str | None], Any]:
    """A probe that answers ``replies`` in order (None: the server answered), the last one
    repeating, and the list of what it said each time it was asked."""
    said: list[str | None] = []

    async def probe(timeout: float) -> str | None:
        said.append(replies[min(len(said), len(replies) - 1)])
        return said[-1]

    return said, probe


def line(outage_wait: float, probe: Any, max_failures: int = 2) -> Line:
    made = Line("m at u", max_failures, outage_wait, QUICK)
    made.breaker.probe = probe
    return made


async def settle(made: Line) -> None:
    """Until the probes of the outage going on are done."""
    await made.breaker.until_up(5.0)


# --- the breaker's states -----------------------------------------------------------------


def test_a_trip_with_no_wait_stops_at_once_as_before() -> None:
    said, probe = probes(None)

    async def run() -> None:
        made = line(0.0, probe)
        made.connection_failed("refused")
        assert made.breaker.up
        made.connection_failed("refused again")
        assert made.traffic.stopped == ("m at u stopped answering (2 connection failures in a "
                                        "row, the last: refused again); no further request "
                                        "was sent to it")
        with pytest.raises(EndpointDown):
            await made.breaker.until_up(1.0)

    asyncio.run(run())
    assert said == []  # nothing is probed without an allowance


def test_an_outage_is_probed_with_a_backoff_until_the_server_answers() -> None:
    said, probe = probes("refused", "refused", "refused", None)

    async def run() -> Line:
        made = line(5.0, probe)
        made.connection_failed("dropped")
        made.connection_failed("refused")
        assert not made.breaker.up
        await settle(made)
        return made

    made = asyncio.run(run())
    # At once, then after 10 ms, 20 ms and 20 ms (the cap): the fourth answered.
    assert said == ["refused", "refused", "refused", None]
    assert made.breaker.up and made.breaker.comebacks == 1 and made.traffic.stopped is None
    assert made.traffic.outages == 1 and len(made.traffic.away_spans) == 1
    # The pauses alone take 50 ms.
    assert 0.05 <= made.traffic.away_seconds < 1.0
    start, end = made.traffic.away_spans[0]
    assert end - start == made.traffic.away_seconds


SILENT = re.compile(r"m at u stopped answering \(2 connection failures in a row, the last: "
                    r"(dropped|no whole reply within 1 s)\), while its models listing "
                    r"answered, with no reply to a request for \d+\.\d s "
                    r"\(--audiobench-outage-wait 0\.2\); no further request was sent to it")


async def trip(made: Line, kind: str) -> None:
    """The breaker tripped by two failures of ``kind``, and its probe's answer taken."""
    reason = "dropped" if kind == "connection" else "no whole reply within 1 s"
    made.connection_failed(reason, kind)
    made.connection_failed(reason, kind)
    with contextlib.suppress(EndpointDown):  # the trip that finds it silent too long
        await settle(made)


@pytest.mark.parametrize("kind", ["connection", "timeout"])
def test_a_server_that_lists_its_models_and_answers_no_request_is_stopped_past_the_allowance(
        kind: str) -> None:
    # Requests that time out (or drop, after a first answer to the probe that may have been a
    # restart) while the listing answers: a server there that does not answer them, for now.
    # The requests go on until the breaker trips once the whole allowance passed with no
    # reply: a stall or a load past the timeout is waited out, a hung server is not.
    said, probe = probes(None)

    async def run() -> tuple[Line, list[bool]]:
        made = line(0.2, probe)
        ups = []
        for _ in range(2):
            await trip(made, kind)
            ups.append(made.breaker.up)
        await asyncio.sleep(0.25)
        await trip(made, kind)
        return made, ups

    made, ups = asyncio.run(run())
    assert ups == [True, True] and said == [None, None, None]
    assert made.traffic.stopped is not None and SILENT.fullmatch(made.traffic.stopped), (
        made.traffic.stopped)
    # Only a dropped connection seen first may be a restart: its attempts were given back.
    assert made.breaker.comebacks == (1 if kind == "connection" else 0)
    assert made.traffic.outages == 0


def test_a_reply_to_a_request_starts_the_allowance_of_a_silent_server_anew() -> None:
    said, probe = probes(None)

    async def run() -> Line:
        made = line(0.2, probe)
        await trip(made, "timeout")
        await asyncio.sleep(0.25)
        made.answered()
        await trip(made, "timeout")
        return made

    made = asyncio.run(run())
    assert made.breaker.up and made.traffic.stopped is None and said == [None, None]


def test_a_reply_between_two_probes_that_answer_keeps_the_endpoint_up() -> None:
    said, probe = probes(None)

    async def run() -> Line:
        made = line(5.0, probe)
        for _ in range(2):
            made.connection_failed("dropped")
            made.connection_failed("dropped")
            await settle(made)
            made.answered()
        return made

    made = asyncio.run(run())
    assert said == [None, None] and made.breaker.up and made.breaker.comebacks == 2


def test_a_request_out_of_attempts_has_the_server_probed_and_fails_when_it_is_there(
        ) -> None:
    said, probe = probes(None)

    async def run() -> Line:
        made = line(5.0, probe, max_failures=10)
        made.connection_failed("timeout")
        made.breaker.suspect("timeout")
        assert not made.breaker.up
        await settle(made)
        # The first answer is taken for a restart: the request is given its attempts back.
        assert made.breaker.comebacks == 1
        made.connection_failed("timeout")
        made.breaker.suspect("timeout")
        await settle(made)
        return made

    made = asyncio.run(run())
    # The second, with no reply between, is not: the request fails.
    assert said == [None, None] and made.breaker.up and made.breaker.comebacks == 1
    assert made.traffic.stopped is None and made.traffic.outages == 0


def test_nothing_is_suspected_once_something_answered_since_the_last_failure() -> None:
    said, probe = probes("refused")

    async def run() -> Line:
        made = line(5.0, probe, max_failures=10)
        made.connection_failed("refused")
        made.answered()
        made.breaker.suspect("refused")
        return made

    assert asyncio.run(run()).breaker.up and said == []


def test_past_the_allowance_the_endpoint_is_gone_and_the_line_says_how_long_it_waited(
        ) -> None:
    said, probe = probes("ConnectError: refused")

    async def run() -> Line:
        made = line(0.2, probe)
        made.connection_failed("refused")
        made.connection_failed("refused")
        with pytest.raises(EndpointDown):
            await made.breaker.until_up(5.0)
        return made

    started = time.monotonic()
    made = asyncio.run(run())
    assert time.monotonic() - started < 1.5
    stopped = made.traffic.stopped
    assert stopped is not None
    assert re.fullmatch(r"m at u stopped answering \(2 connection failures in a row, the last: "
                        r"refused\) and was not back after 0\.\d s of waiting for it "
                        r"\(--audiobench-outage-wait 0\.2; its models listing: ConnectError: "
                        r"refused\); no further request was sent to it", stopped), stopped
    assert made.traffic.outages == 1 and made.traffic.away_seconds >= 0.2
    assert len(said) >= 3


def test_an_outage_going_on_is_counted_up_to_now() -> None:
    _, probe = probes("refused")

    async def run() -> tuple[EndpointTraffic, dict[str, Any]]:
        ledger = Ledger()
        made = ledger.line("m", "u", 1, 30.0)
        made.breaker.probe = probe
        made.connection_failed("refused")
        await asyncio.sleep(0.05)
        return ledger.traffic().endpoints["m at u"], ledger.away()

    counted, away = asyncio.run(run())
    assert counted.outages == 1 and 0.04 < counted.away_seconds < 1.0
    assert set(away["now"]) == {"m at u"} and away["seconds"] >= away["now"]["m at u"] > 0.04


# --- what an outage gives back --------------------------------------------------------------


def test_the_attempts_lost_to_an_outage_are_given_back_three_times_at_most() -> None:
    tries = Tries(allowed=2)
    tries.sending(era=0)
    tries.unanswered += 1
    tries.sending(era=0)
    tries.unanswered += 1
    assert tries.last
    assert tries.give_back() and (tries.counted, tries.sent, tries.last) == (0, 2, False)
    for era in (1, 2):
        tries.sending(era)
        tries.unanswered += 1
        assert tries.give_back() and tries.counted == 0
    # A request that brings its server down each time it is sent ends after its retries.
    tries.sending(era=3)
    tries.unanswered += 1
    assert not tries.give_back() and (tries.counted, tries.sent) == (1, 5)


def test_a_reply_between_takes_nothing_back() -> None:
    tries = Tries(allowed=3)
    tries.sending(era=0)
    tries.replied()  # an HTTP 503: the server was there
    assert not tries.give_back() and tries.counted == 1 and tries.given_back == 0


# --- through an endpoint and a real server ------------------------------------------------


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Scripted("ok")) as fake:
        yield fake


def settings(url: str, **changes: Any) -> EndpointSettings:
    base: dict[str, Any] = {"url": url, "model": MODEL, "api_key_env": "AUDIOBENCH_NO_KEY",
                            "api_key_required": False, "retries": 0, "retry_wait": 0.0,
                            "max_connection_failures": 10, "outage_wait": 10.0,
                            "timeout": 5.0, "sampling": Sampling()}
    return EndpointSettings(**(base | changes))


def ask(endpoint_settings: EndpointSettings, pacer: Pacer, ledger: Ledger) -> Completion:
    async def run() -> Completion:
        endpoint = Endpoint(endpoint_settings, pacer, ledger=ledger)
        try:
            return await endpoint.complete([{"role": "user", "content": "hello"}])
        finally:
            await endpoint.close()

    return asyncio.run(run())


def test_a_request_with_no_retry_left_waits_out_a_restart_and_is_answered(
        server: FakeOpenAIServer) -> None:
    url = server.url
    server.stop()
    threading.Timer(0.8, server.start).start()
    ledger = Ledger()
    completion = ask(settings(url), Pacer(4), ledger)
    # The attempt refused while the server was away was given back: no retry was left.
    assert (completion.text, completion.attempts) == ("ok", 2)
    (counted,) = ledger.traffic().endpoints.values()
    assert counted.outages == 1 and 0.5 < counted.away_seconds < 5.0
    assert (counted.requests, counted.received, counted.failures) == (2, 1, {"connection": 1})
    assert counted.stopped is None


def test_the_deadline_bounds_the_wait(server: FakeOpenAIServer) -> None:
    url = server.url
    server.stop()
    started = time.monotonic()
    with pytest.raises(DeadlineReached, match="waited for its endpoint to come back"):
        ask(settings(url, outage_wait=60.0), Pacer(4, deadline=time.time() + 1.0), Ledger())
    assert time.monotonic() - started < 4.0


# --- the traffic of several processes -------------------------------------------------------


def test_an_outage_two_workers_saw_is_one_and_outages_of_their_own_add_up() -> None:
    # Worker 1 was away from 100 to 107, worker 2 from 101 to 108 (the same restart) and
    # from 200 to 203: 2 outages, 8 + 3 = 11 s.
    one = EndpointTraffic(outages=1, away_seconds=7.0, away_spans=[(100.0, 107.0)])
    two = EndpointTraffic(outages=2, away_seconds=10.0,
                          away_spans=[(101.0, 108.0), (200.0, 203.0)])
    summed = one + two
    assert (summed.outages, summed.away_seconds) == (2, 11.0)
    assert summed.away_spans == [(100.0, 108.0), (200.0, 203.0)]
    # A report written before the outages were counted adds nothing.
    assert (summed + EndpointTraffic()).model_dump() == summed.model_dump()
    assert EndpointTraffic.model_validate({"requests": 3}).outages == 0


def test_outages_past_the_kept_spans_still_count() -> None:
    # 25 outages of 1 s each; the spans of the latest 20 are kept.
    many = EndpointTraffic(outages=25, away_seconds=25.0,
                           away_spans=[(10.0 * n, 10.0 * n + 1) for n in range(5, 25)])
    summed = many + EndpointTraffic(outages=1, away_seconds=2.0, away_spans=[(1000.0, 1002.0)])
    assert (summed.outages, summed.away_seconds, len(summed.away_spans)) == (26, 27.0, 20)


# --- a run, as a user runs it ---------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_model_server_restarted_mid_run_costs_no_sample(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    url = servers.model.url
    servers.model.script = restarts_after(servers.model, 4, down=2.0)
    # No retry at all: a sample keeps its answer only if the outage gives its attempts back.
    run = run_bench("--audiobench-retries", "0", "--audiobench-outage-wait", "30",
                    xdist=xdist)
    run.result.assert_outcomes(passed=16)
    counts = run.report["benchmarks"][0]["counts"]
    assert (counts["errors"], counts["not_run"]) == (0, 0)
    # Scored as in a clean run: the judge gives every answer, "a good answer", an 8, and
    # the reference a 6.
    clean = {"score": 8.0, "reference": 6.0, "win_rate": 1.0}
    assert {name: value for name, value in run.metrics.items()
            if clean[name.rpartition(".")[2]] != value} == {}
    traffic = run.report["traffic"]["endpoints"][f"{MODEL} at {url}"]
    assert traffic["stopped"] is None and traffic["outages"] == 1
    assert 1.5 < traffic["away_seconds"] < 30.0  # within the allowance
    assert servers.model.count() > 16  # the dropped ones were asked again
    away = [line for line in run.result.stdout.str().splitlines()
            if line.startswith("outage: ")]
    assert len(away) == 1 and re.fullmatch(
        rf"outage: {MODEL} at {re.escape(url)}: away \d+\.\d s in 1 outage, waited out",
        away[0]), away


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_model_server_away_past_the_allowance_ends_the_run_as_the_breaker_did(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, xdist: list[str]) -> None:
    url = servers.model.url
    servers.model.script = dies_after(servers.model, 4)
    write_baseline(pytester.path, {"air_bench_chat.average.score": (7.5, 0.2)})
    run = run_bench("--audiobench-outage-wait", "1", xdist=xdist)
    outcomes = [s["outcome"] for s in run.partial["samples"]]
    assert outcomes.count("passed") <= 4 and outcomes.count("not_run") >= 10
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED  # not run is not a score
    stdout = run.result.stdout.str()
    stopped = [line for line in stdout.splitlines() if line.startswith("stopped: ")]
    assert len(stopped) == 1, stopped
    assert stopped[0].startswith(f"stopped: {MODEL} at {url} stopped answering (")
    assert re.search(r"was not back after \d+\.\d s of waiting for it "
                     r"\(--audiobench-outage-wait 1; its models listing: ", stopped[0])
    assert stopped[0].endswith("; no further request was sent to it")
    # Under xdist a worker that asks only after the other gave up sees an outage of its own.
    assert re.search(rf"outage: {MODEL} at {re.escape(url)}: away \d+\.\d s in \d outages?, "
                     "then given up", stdout)
    traffic = run.partial["traffic"]["endpoints"][f"{MODEL} at {url}"]
    assert traffic["outages"] >= 1 and 1.0 <= traffic["away_seconds"] < 10.0


# --- the option -----------------------------------------------------------------------------


def test_the_allowance_comes_from_the_project_file_like_any_option(
        pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\naudiobench_outage_wait = "7.5"\n')
    config = pytester.parseconfig("--audiobench-model", MODEL, "--audiobench-api-url",
                                  "http://127.0.0.1:8000/v1", "--audiobench-judge-model",
                                  "judge", "--audiobench-judge-api-url",
                                  "http://127.0.0.1:8001/v1", "--audiobench-data=mini")
    settings = read_settings(config, registry.catalog())
    assert settings.endpoint.outage_wait == 7.5
    assert settings.judge is not None and settings.judge.endpoint.outage_wait == 7.5
    flagged = pytester.parseconfig("--audiobench-model", MODEL, "--audiobench-api-url",
                                   "http://127.0.0.1:8000/v1", "--audiobench-data=mini",
                                   "--audiobench-judge-model", "overlap",
                                   "--audiobench-outage-wait", "0")
    assert read_settings(flagged, registry.catalog()).endpoint.outage_wait == 0.0
