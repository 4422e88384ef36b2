"""The OpenAI-compatible endpoint against a real HTTP server on 127.0.0.1: requests, usage,
retries, Retry-After, timeouts, the in-flight limit, the API key, and the start-up check."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_audiobench.config.settings import EndpointSettings, Headers, Sampling
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.endpoint import Endpoint
from pytest_audiobench.transport.ledger import Ledger
from pytest_audiobench.transport.pacing import Pacer
from pytest_audiobench.transport.replies import Unusable, completion_of
from pytest_audiobench.transport.served import api_key
from pytest_audiobench.transport.types import Completion, EndpointTraffic, Usage
from tests.fakes.fault_proxy import Chooser, FaultProxy
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted

MODEL = "audio-model"
KEY_ENV = "AUDIOBENCH_TEST_CLIENT_KEY"
HELLO = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Scripted("ok")) as fake:
        yield fake


@pytest.fixture(autouse=True)
def _no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)


def settings(url: str, **changes: Any) -> EndpointSettings:
    # No outage is waited out here (a refused request fails after its retries, as it did):
    # tests/test_outage.py waits them out.
    base: dict[str, Any] = {"url": url, "model": MODEL, "api_key_env": KEY_ENV,
                            "api_key_required": False, "retries": 2, "retry_wait": 0.0,
                            "max_connection_failures": 10, "outage_wait": 0.0,
                            "timeout": 5.0, "sampling": Sampling()}
    return EndpointSettings(**(base | changes))


def script(server: FakeOpenAIServer, *replies: Reply | str) -> None:
    """The server answers ``replies`` in order, the last one repeating."""
    server.script = Scripted("ok").when(replies=list(replies))


def complete(endpoint_settings: EndpointSettings, messages: list[dict[str, Any]] | None = None,
             seed_offset: int = 0, limit: int = 4, ledger: Ledger | None = None) -> Completion:
    async def run() -> Completion:
        endpoint = Endpoint(endpoint_settings, Pacer(limit), ledger=ledger)
        try:
            return await endpoint.complete(messages or HELLO, seed_offset=seed_offset)
        finally:
            await endpoint.close()

    return asyncio.run(run())


def failure(endpoint_settings: EndpointSettings, ledger: Ledger | None = None) -> str:
    with pytest.raises(EndpointError) as caught:
        complete(endpoint_settings, ledger=ledger)
    return str(caught.value)


def traffic(ledger: Ledger) -> EndpointTraffic:
    """What the one endpoint asked through ``ledger`` counted: requests, retries, waits."""
    (counted,) = ledger.traffic().endpoints.values()
    return counted


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


# --- a plain request ----------------------------------------------------------------------


def test_the_reply_text_and_finish_reason_are_returned(server: FakeOpenAIServer) -> None:
    script(server, "a dog is barking")
    completion = complete(settings(server.url))
    assert completion.text == "a dog is barking"
    assert completion.finish_reason == "stop"
    assert completion.attempts == 1


def test_usage_with_audio_tokens_is_parsed(server: FakeOpenAIServer) -> None:
    script(server, Reply("hi", usage={"prompt_tokens": 120, "completion_tokens": 7,
                                      "total_tokens": 127,
                                      "prompt_tokens_details": {"audio_tokens": 95}}))
    assert complete(settings(server.url)).usage == Usage(
        prompt_tokens=120, completion_tokens=7, audio_tokens=95)


def test_usage_without_details_has_no_audio_tokens(server: FakeOpenAIServer) -> None:
    script(server, Reply("one two three", usage={"prompt_tokens": 4, "completion_tokens": 3,
                                                 "total_tokens": 7}))
    assert complete(settings(server.url)).usage == Usage(prompt_tokens=4, completion_tokens=3)


def test_usage_reported_as_nulls_counts_zero(server: FakeOpenAIServer) -> None:
    script(server, Reply("hi", usage={"prompt_tokens": None, "completion_tokens": 5,
                                      "prompt_tokens_details": None}))
    assert complete(settings(server.url)).usage == Usage(completion_tokens=5)


def test_a_reply_without_choices_holds_no_completion() -> None:
    # The decoded JSON is read directly (the SDK's models are skipped): odd shapes fail
    # with our message, not a KeyError, and are retried like a 500.
    for body in ({"choices": []}, {"object": "chat.completion"}, ["not", "an", "object"]):
        with pytest.raises(Unusable, match="without choices"):
            completion_of(body)
    parts = {"content": [{"type": "text", "text": "in "}, {"type": "text", "text": "parts"}]}
    odd = completion_of({"choices": [{"message": parts, "finish_reason": 3}], "usage": None})
    assert odd == Completion(text="in parts", finish_reason=None)


def test_null_or_blank_content_is_read_as_an_empty_answer_with_why_it_ended() -> None:
    null = completion_of({"choices": [{"message": None, "finish_reason": 3}], "usage": None})
    assert (null.text, null.empty) == ("", True)
    cut = completion_of({"choices": [{"message": {"content": " "}, "finish_reason": "length"}]})
    assert cut.empty and cut.cut and cut.finish_reason == "length"


@pytest.mark.parametrize("field", ["reasoning", "reasoning_content"])
def test_the_reasoning_is_read_from_either_field_a_server_sends_it_in(field: str) -> None:
    message = {"content": "Answer: B", field: "the hum is low"}
    read = completion_of({"choices": [{"message": message, "finish_reason": "stop"}]})
    assert (read.reasoning, read.thought, read.answer) == (
        "the hum is low", "the hum is low", "Answer: B")


def test_reasoning_wins_over_reasoning_content_and_a_null_one_is_none() -> None:
    both = {"content": "B", "reasoning": "new", "reasoning_content": "old"}
    assert completion_of({"choices": [{"message": both}]}).reasoning == "new"
    nulls = {"content": "B", "reasoning": None, "reasoning_content": "old"}
    assert completion_of({"choices": [{"message": nulls}]}).reasoning == "old"
    assert completion_of({"choices": [{"message": {"content": "B"}}]}).reasoning is None


def test_a_thought_with_no_answer_after_it_leaves_an_empty_answer_and_keeps_the_thought() -> None:
    ran_out = Completion(text="", reasoning="thinking and thinking", finish_reason="length")
    assert ran_out.empty and ran_out.cut and ran_out.thought == "thinking and thinking"
    inline = Completion(text="<think>thinking and thinking", finish_reason="length")
    assert inline.empty and inline.thought == "thinking and thinking"


# --- empty answers ------------------------------------------------------------------------


# The retry settings a run has by default: an empty answer must not cost them.
PATIENT = {"retries": 4, "retry_wait": 1.0}


def test_a_models_empty_answer_is_asked_again_once_at_once_then_is_its_answer(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(None, usage={"prompt_tokens": 5, "completion_tokens": 1}))
    ledger = Ledger()
    completion = complete(settings(server.url, **PATIENT), ledger=ledger)
    assert server.count() == 2
    assert (completion.text, completion.empty, completion.attempts) == ("", True, 2)
    # Both replies were paid for: their tokens are the answer's.
    assert completion.usage == Usage(prompt_tokens=10, completion_tokens=2)
    counted = traffic(ledger)
    assert (counted.requests, counted.received, counted.retries) == (2, 2, 1)
    assert counted.waited_seconds == 0.0
    assert counted.failures == {"empty answer": 1}  # the first, asked again; the last is given


def test_an_empty_answer_that_clears_on_its_retry_is_the_retrys_answer_without_a_wait(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(""), Reply("a dog"))
    ledger = Ledger()
    completion = complete(settings(server.url, **PATIENT), ledger=ledger)
    assert (completion.text, completion.attempts, server.count()) == ("a dog", 2, 2)
    assert completion.usage == Usage(prompt_tokens=2, completion_tokens=2)
    assert (traffic(ledger).retries, traffic(ledger).waited_seconds) == (1, 0.0)


def test_an_empty_answer_after_a_failure_is_still_asked_again_only_once(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(status=500), Reply(None))
    ledger = Ledger()
    completion = complete(settings(server.url, retries=4), ledger=ledger)
    assert (completion.empty, completion.attempts, server.count()) == (True, 3, 3)
    assert traffic(ledger).failures == {"HTTP 500": 1, "empty answer": 1}


TRANSIENT = [
    ("server_error", "HTTP 500"),
    ("throttle", "HTTP 429"),
    ("reset", "connection"),
    ("truncate", "connection"),
    ("invalid_json", "not JSON"),
    ("empty_choices", "no choices"),
]


def then(fault: str, times: int | None = None) -> Chooser:
    """The first request reaches the server; the next ``times`` (every later one by
    default) get ``fault`` instead, and those after them reach it again."""
    sent = itertools.count()

    def choose(body: dict[str, Any]) -> str | None:
        nth = next(sent)
        return fault if nth > 0 and (times is None or nth <= times) else None

    return choose


@pytest.mark.parametrize(("fault", "reason"), TRANSIENT)
def test_an_empty_answer_whose_retry_fails_for_good_is_kept_as_the_answer_never_an_error(
        server: FakeOpenAIServer, fault: str, reason: str) -> None:
    # The retry's failures are retried as any request's are, with what is left of its
    # attempts (4 retries here, no backoff): when all fail, the empty answer stands.
    script(server, Reply(None, usage={"prompt_tokens": 5, "completion_tokens": 1}))
    ledger = Ledger()
    with FaultProxy(server.url, then(fault)) as proxy:
        completion = complete(settings(proxy.url, retries=4), ledger=ledger)
        injected = proxy.injected[fault]
    forwarded = injected if fault == "truncate" else 0  # it cuts the reply of a sent request
    assert injected == 4 and server.count() == 1 + forwarded
    assert (completion.text, completion.empty, completion.attempts) == ("", True, 5)
    assert completion.usage == Usage(prompt_tokens=5, completion_tokens=1)  # what was paid
    counted = traffic(ledger)
    assert (counted.requests, counted.retries) == (5, 4)
    assert counted.failures == {"empty answer": 1, reason: 4}


@pytest.mark.parametrize(("fault", "reason"), TRANSIENT)
def test_an_empty_answer_whose_retry_meets_a_fault_is_asked_again_and_the_answer_kept(
        server: FakeOpenAIServer, fault: str, reason: str) -> None:
    # A glitch's empty answer, and a fault on its retry: the retry of the retry brings the
    # model's answer (a transient failure says nothing of what the model would answer).
    script(server, Reply(None), Reply("a dog"))
    ledger = Ledger()
    with FaultProxy(server.url, then(fault, times=1)) as proxy:
        completion = complete(settings(proxy.url, retries=4), ledger=ledger)
        injected = proxy.injected[fault]
    forwarded = injected if fault == "truncate" else 0  # it cuts the reply of a sent request
    assert injected == 1 and server.count() == 2 + forwarded
    assert (completion.text, completion.empty, completion.attempts) == ("a dog", False, 3)
    assert traffic(ledger).failures == {"empty answer": 1, reason: 1}


def test_an_empty_answer_cut_at_the_token_limit_is_not_asked_again(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(None, reasoning="on and on", finish_reason="length"))
    ledger = Ledger()
    completion = complete(settings(server.url, sampling=Sampling(max_tokens=8), **PATIENT),
                          ledger=ledger)
    assert (server.count(), completion.attempts) == (1, 1)
    assert completion.empty and completion.cut and completion.thought == "on and on"
    assert (traffic(ledger).retries, traffic(ledger).failures) == (0, {})


@pytest.mark.parametrize(("finish_reason", "why"), [
    ("length", ", finish_reason length: it used the whole token limit, max_tokens 64"),
    ("stop", ""),
])
def test_a_judges_empty_reply_is_asked_again_after_a_wait_then_is_a_failure_of_the_judge(
        server: FakeOpenAIServer, finish_reason: str, why: str) -> None:
    script(server, Reply(None, finish_reason=finish_reason))
    ledger = Ledger()
    said = failure(settings(server.url, role="judge", sampling=Sampling(max_tokens=64),
                            retry_wait=0.02), ledger)
    assert said == (f"the judge {MODEL} at {server.url} (--audiobench-judge-api-url) failed "
                    f"after 3 attempts: an empty answer (content null{why})")
    assert server.count() == 3
    counted = traffic(ledger)
    assert (counted.retries, counted.failures) == (2, {"empty answer": 3})
    assert counted.waited_seconds > 0  # the judge's backoff, as for any failure of it


def test_the_model_and_messages_are_sent_as_given(server: FakeOpenAIServer) -> None:
    messages = [{"role": "user", "content": [
        {"type": "input_audio", "input_audio": {"data": "UklGRg==", "format": "wav"}},
        {"type": "text", "text": "What is heard?"}]}]
    complete(settings(server.url), messages)
    (request,) = server.requests
    assert request.model == MODEL
    assert request.body["messages"] == messages
    assert request.text == "What is heard?"
    assert len(request.audio_parts) == 1


# --- sampling settings ------------------------------------------------------------------------


def test_the_sampling_settings_are_sent_in_the_body(server: FakeOpenAIServer) -> None:
    sampling = Sampling(temperature=0.7, max_tokens=64, seed=42)
    complete(settings(server.url, sampling=sampling))
    body = server.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.7, 64, 42)


def test_unset_sampling_settings_are_left_out_of_the_body(server: FakeOpenAIServer) -> None:
    complete(settings(server.url, sampling=Sampling()))
    body = server.requests[0].body
    assert not {"seed", "temperature", "max_tokens"} & set(body)


def test_a_temperature_of_zero_is_sent_not_dropped(server: FakeOpenAIServer) -> None:
    complete(settings(server.url, sampling=Sampling(temperature=0.0, seed=0)))
    body = server.requests[0].body
    assert body["temperature"] == 0.0
    assert body["seed"] == 0


def test_the_seed_is_omitted_when_unset_even_with_an_offset(server: FakeOpenAIServer) -> None:
    complete(settings(server.url, sampling=Sampling(temperature=1.0)), seed_offset=3)
    assert "seed" not in server.requests[0].body


@pytest.mark.parametrize(("seed", "offset", "sent"), [(42, 3, 45), (0, 2, 2)])
def test_the_seed_offset_is_added_to_the_seed(server: FakeOpenAIServer, seed: int, offset: int,
                                              sent: int) -> None:
    complete(settings(server.url, sampling=Sampling(seed=seed)), seed_offset=offset)
    assert server.requests[0].body["seed"] == sent


# --- retries ----------------------------------------------------------------------------------


def test_a_429_with_retry_after_zero_is_retried(server: FakeOpenAIServer) -> None:
    script(server, Reply(status=429, headers={"Retry-After": "0"}), "fine")
    completion = complete(settings(server.url))
    assert completion.text == "fine"
    assert completion.attempts == 2
    assert server.count() == 2


@pytest.mark.parametrize("status", [408, 502, 503])
def test_transient_statuses_are_retried(server: FakeOpenAIServer, status: int) -> None:
    script(server, Reply(status=status), "fine")
    assert complete(settings(server.url)).attempts == 2


def test_a_server_error_on_every_attempt_fails_after_retries_plus_one(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(status=500), Reply(status=500), Reply(status=500), Reply(status=500),
           "too late")
    message = failure(settings(server.url, retries=2))
    assert "failed after 3 attempts" in message
    assert MODEL in message and server.url in message
    assert "HTTP 500" in message
    assert server.count() == 3


@pytest.mark.parametrize("status", [400, 401, 422])
def test_a_client_error_is_not_retried(server: FakeOpenAIServer, status: int) -> None:
    script(server, Reply("bad request body", status=status), "fine")
    message = failure(settings(server.url, retries=3))
    if status == 401:  # a refusal says whose key, once: no key is set in this test
        assert message == (f"the model {MODEL} at {server.url} (--audiobench-api-url) refused "
                           f"a request for {MODEL} without a key (HTTP 401): environment "
                           "variable AUDIOBENCH_TEST_CLIENT_KEY is not set: set it to the API key "
                           f"for {server.url}")
    else:
        assert message.endswith(f"failed after 1 attempt: HTTP {status}: bad request body")
    assert server.count() == 1


def test_zero_retries_means_one_attempt(server: FakeOpenAIServer) -> None:
    script(server, Reply(status=503), "fine")
    assert "failed after 1 attempt:" in failure(settings(server.url, retries=0))
    assert server.count() == 1


def test_a_dropped_connection_is_retried(server: FakeOpenAIServer) -> None:
    script(server, Reply(drop=True), "after the drop")
    completion = complete(settings(server.url))
    assert completion.text == "after the drop"
    assert completion.attempts == 2
    assert server.count() == 2


def test_a_connection_dropped_on_every_attempt_is_an_endpoint_error(
        server: FakeOpenAIServer) -> None:
    script(server, Reply(drop=True))
    message = failure(settings(server.url, retries=1))
    assert "failed after 2 attempts: APIConnectionError: Connection error." in message
    assert server.count() == 2


def test_a_refused_connection_is_a_connection_error_not_a_timeout() -> None:
    # The aiohttp transport calls it a connect timeout; we report it as httpx did.
    message = failure(settings(f"http://127.0.0.1:{free_port()}/v1", retries=0))
    assert message.endswith("failed after 1 attempt: APIConnectionError: Connection error.")


def test_a_timeout_is_retried_then_an_endpoint_error(server: FakeOpenAIServer) -> None:
    # Half a second each: on a loaded machine a shorter limit could end an attempt before the
    # server had read it, and the count below would miss it.
    script(server, Reply("slow", delay=4.0))
    start = time.monotonic()
    message = failure(settings(server.url, timeout=0.5, retries=1))
    elapsed = time.monotonic() - start
    assert "failed after 2 attempts: no whole reply within 0.5 s (--audiobench-timeout)" in message
    assert server.count() == 2
    assert elapsed < 3.5  # abandoned at the timeout, not after the server's 4 s


def test_a_timeout_then_a_quick_reply_succeeds(server: FakeOpenAIServer) -> None:
    # The quick reply must come within the limit even on a loaded machine: a second, where the
    # slow one takes four.
    script(server, Reply("slow", delay=4.0), "quick")
    completion = complete(settings(server.url, timeout=1.0, retries=1))
    assert (completion.text, completion.attempts) == ("quick", 2)


def test_retry_after_is_honoured(server: FakeOpenAIServer) -> None:
    script(server, Reply(status=429, headers={"Retry-After": "1"}), "fine")
    start = time.monotonic()
    completion = complete(settings(server.url, retry_wait=0.0))
    elapsed = time.monotonic() - start
    assert completion.attempts == 2
    assert elapsed >= 0.9


def test_retry_after_as_a_past_http_date_retries_at_once(server: FakeOpenAIServer) -> None:
    script(server, Reply(status=503, headers={"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}),
           "fine")
    start = time.monotonic()
    assert complete(settings(server.url)).attempts == 2
    assert time.monotonic() - start < 0.9


# --- the in-flight limit ----------------------------------------------------------------------


def test_no_more_requests_are_in_flight_than_the_semaphore_allows(
        server: FakeOpenAIServer) -> None:
    limit = 4
    script(server, Reply("slow", delay=0.2))

    async def run() -> list[Completion]:
        endpoint = Endpoint(settings(server.url), Pacer(limit))
        try:
            return await asyncio.gather(*(endpoint.complete(HELLO) for _ in range(16)))
        finally:
            await endpoint.close()

    completions = asyncio.run(run())
    assert [c.text for c in completions] == ["slow"] * 16
    assert server.count() == 16
    assert server.max_in_flight == limit


# --- the API key ------------------------------------------------------------------------------


def test_the_api_key_comes_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-from-env")
    assert api_key(settings("http://x")) == "sk-from-env"
    assert api_key(settings("http://x", api_key_required=True)) == "sk-from-env"


def test_an_unset_optional_key_is_a_dummy() -> None:
    assert api_key(settings("http://x")) == "EMPTY"


@pytest.mark.parametrize("value", [None, ""])
def test_an_unset_required_key_is_an_error_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is not None:
        monkeypatch.setenv(KEY_ENV, value)
    with pytest.raises(EndpointError, match=f"environment variable {KEY_ENV} is not set"):
        api_key(settings("http://x", api_key_required=True))


def test_an_endpoint_with_an_unset_required_key_fails_when_built() -> None:
    with pytest.raises(EndpointError, match=KEY_ENV):
        Endpoint(settings("http://x", api_key_required=True), Pacer(1))


@pytest.mark.parametrize(("value", "sent"), [("sk-secret-123", "sk-secret-123"),
                                             (None, "EMPTY")])
def test_the_key_is_sent_as_a_bearer_token(server: FakeOpenAIServer,
                                           monkeypatch: pytest.MonkeyPatch, value: str | None,
                                           sent: str) -> None:
    if value is not None:
        monkeypatch.setenv(KEY_ENV, value)
    complete(settings(server.url))
    assert server.requests[0].headers["authorization"] == f"Bearer {sent}"


# --- check ------------------------------------------------------------------------------------


def check(endpoint_settings: EndpointSettings) -> None:
    Endpoint(endpoint_settings, Pacer(1)).check()


def test_check_passes_when_the_model_is_served() -> None:
    with FakeOpenAIServer(models=["other", MODEL]) as fake:
        check(settings(fake.url))


def test_https_clients_load_the_ca_bundle_once_a_process_and_http_ones_never(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Each client loaded the CA bundle again, 30 ms of CPU, for every listing, endpoint and
    # xdist worker, an https URL or not.
    import ssl

    from pytest_audiobench.transport import served

    loaded: list[object] = []
    load = ssl.SSLContext.load_verify_locations

    def counted(context: ssl.SSLContext, *args: Any, **kwargs: Any) -> None:
        loaded.append(context)
        load(context, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    served._tls.cache_clear()
    try:
        with FakeOpenAIServer(models=[MODEL]) as fake:
            for _ in range(3):
                check(settings(fake.url))
                asyncio.run(asyncio.wait_for(_ask(fake.url), 10))
        assert loaded == []
        for url in ("https://models.example/v1", "HTTPS://judge.example/v1"):
            served._aiohttp_client(url, 5.0)
    finally:
        served._tls.cache_clear()
    assert len(loaded) == 1, loaded


async def _ask(url: str) -> None:
    endpoint = Endpoint(settings(url), Pacer(1))
    try:
        await endpoint.complete(HELLO)
    finally:
        await endpoint.close()


def test_check_names_the_model_and_the_served_ones_when_it_is_not_served() -> None:
    with FakeOpenAIServer(models=["qwen-a", "qwen-b"]) as fake, \
            pytest.raises(EndpointError) as caught:
        url = fake.url
        check(settings(url))
    message = str(caught.value)
    assert message.startswith(f"the model {MODEL} at {url} (--audiobench-api-url): that "
                              f"server does not serve {MODEL!r}")
    assert "it serves: qwen-a, qwen-b" in message


def test_check_passes_when_the_server_does_not_list_models(server: FakeOpenAIServer) -> None:
    check(settings(server.url))


def test_check_of_a_closed_port_says_it_cannot_reach_the_url() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    with pytest.raises(EndpointError) as caught:
        check(settings(url, timeout=2.0))
    assert str(caught.value).startswith(
        f"cannot reach the model {MODEL} at {url} (--audiobench-api-url): ")
    with pytest.raises(EndpointError) as caught:
        check(settings(url, timeout=2.0, role="judge"))
    assert str(caught.value).startswith(
        f"cannot reach the judge {MODEL} at {url} (--audiobench-judge-api-url): ")


def test_check_sends_no_chat_request() -> None:
    with FakeOpenAIServer(models=[MODEL]) as fake:
        check(settings(fake.url))
        assert fake.count() == 0


# --- what a request carries beyond the sampling ---------------------------------------------


HEADERS_ENV = "AUDIOBENCH_TEST_CLIENT_HEADERS"
THINK_OFF = {"top_k": 20, "chat_template_kwargs": {"enable_thinking": False}}


def test_the_extra_body_is_merged_into_every_request(server: FakeOpenAIServer) -> None:
    complete(settings(server.url, extra_body=THINK_OFF, sampling=Sampling(temperature=0.0)))
    (request,) = server.requests
    assert request.body["top_k"] == 20
    assert request.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert (request.body["model"], request.body["temperature"]) == (MODEL, 0.0)


def test_extra_headers_from_the_environment_reach_the_server_and_the_models_check(
        server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> None:
    server.models = [MODEL]
    monkeypatch.setenv(HEADERS_ENV, '{"X-Route": "gpu-pool-7", "OpenAI-Organization": "org-1"}')
    described = Headers(env=HEADERS_ENV, names=("OpenAI-Organization", "X-Route"))
    complete(settings(server.url, headers=described))
    (request,) = server.requests
    assert (request.headers["x-route"], request.headers["openai-organization"]) == (
        "gpu-pool-7", "org-1")
    seen: list[dict[str, str]] = []
    server.models_script = lambda headers: seen.append(headers) or Reply("no", status=404)
    asyncio.run(_check(Endpoint(settings(server.url, headers=described), Pacer(1))))
    assert seen[0]["x-route"] == "gpu-pool-7"


async def _check(endpoint: Endpoint) -> None:
    try:
        endpoint.check()
    finally:
        await endpoint.close()


def test_the_extra_body_and_headers_key_the_cache_and_leave_other_keys_as_they_were() -> None:
    plain = settings("http://127.0.0.1:9/v1")

    def key(endpoint_settings: EndpointSettings) -> str:
        return Endpoint(endpoint_settings, Pacer(1)).cache_key(
            HELLO, 0, fingerprint=None, cache_tag=None)

    keys = {key(plain), key(settings(plain.url, extra_body=THINK_OFF)),
            key(settings(plain.url, extra_body={"top_k": 40})),
            key(settings(plain.url, headers=Headers(env=HEADERS_ENV, names=("X-Route",),
                                                    sha256="a" * 16))),
            key(settings(plain.url, headers=Headers(env=HEADERS_ENV, names=("X-Route",),
                                                    sha256="b" * 16)))}
    assert len(keys) == 5
    # None given: the key of a reply cached before these existed.
    assert key(settings(plain.url, headers=Headers(env=HEADERS_ENV))) == key(plain)


def test_a_draws_seed_is_said_once_and_the_request_and_the_record_agree(
        server: FakeOpenAIServer) -> None:
    sampling = Sampling(temperature=0.7, max_tokens=16, seed=42)
    assert sampling.drawn(3) == Sampling(temperature=0.7, max_tokens=16, seed=45)
    assert Sampling(temperature=0.0).drawn(3) == Sampling(temperature=0.0)  # no seed, none sent
    complete(settings(server.url, sampling=sampling), seed_offset=3)
    (request,) = server.requests
    assert {k: request.body[k] for k in ("seed", "temperature", "max_tokens")} == \
        sampling.drawn(3).sent()
