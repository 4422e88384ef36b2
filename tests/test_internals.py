"""The private pytest and xdist names the plugin reads (``run/internals.py``), and the private
name of the openai SDK ``transport/served.py`` sends, are still where it reads them and do
what it needs: a release that moves one fails here, by name."""

from __future__ import annotations

import asyncio
import json

import httpx2
import openai
import pytest
from openai._constants import RAW_RESPONSE_HEADER

from pytest_audiobench.run import internals
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted

CONFTEST = '''
from pytest_audiobench.run import internals

def pytest_collection_modifyitems(items):
    info = internals.fixture_info(items[0])
    assert type(info).__name__ == "FuncFixtureInfo", "pytest's Function._fixtureinfo is gone"
    assert "tmp_path" in info.names_closure
'''

TESTS = '''
from pytest_audiobench.run import internals

def test_one(request, tmp_path):
    queue = internals.xdist_queue(request.config)
    if hasattr(request.config, "workerinput"):
        assert queue is not None, "xdist's WorkerInteractor.torun is gone"
        with queue.lock() as pending:
            upcoming = list(pending)
        # What it holds, when xdist has sent more: item indices, as the plugin reads them,
        # and xdist's shutdown marker.
        assert all(isinstance(i, int) or getattr(i, "name", "") == "SHUTDOWN"
                   for i in upcoming), upcoming
    else:
        assert queue is None

def test_two(tmp_path):
    pass

def test_three():
    pass
'''


@pytest.mark.parametrize("xdist", [pytest.param([], id="no-xdist"),
                                   pytest.param(["-n", "1"], id="n1")])
def test_the_private_names_are_where_the_plugin_reads_them(
        pytester: pytest.Pytester, xdist: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_checks=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", *xdist)
    result.assert_outcomes(passed=3)


def test_a_plain_process_has_no_worker_queue(pytester: pytest.Pytester) -> None:
    assert internals.xdist_queue(pytester.parseconfig()) is None


def test_pytest_still_tells_the_keys_of_the_file_no_plugin_declared(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nnothing_declares_this = 1\nmarkers = x: y\n")
    config = pytester.parseconfigure()
    assert internals.unknown_ini_keys(config) == {"nothing_declares_this"}


def test_the_sdk_still_hands_back_a_reply_unread_when_asked_to_stream_it() -> None:
    """``transport/served.py`` reads a reply's body itself, up to its limit: it sends the
    SDK's private raw-response header set to "stream", as ``with_streaming_response`` does,
    and asks for the SDK's HTTP response class; an error status must still raise the SDK's
    status error, with the reply's headers."""

    async def ask(url: str) -> tuple[bool, bytes, openai.APIStatusError]:
        client = openai.AsyncOpenAI(base_url=url, api_key="x", max_retries=0,
                                    http_client=openai.DefaultAioHttpClient())

        async def post() -> httpx2.Response:
            return await client.post("/chat/completions", cast_to=httpx2.Response,
                                     body={"model": "m", "messages": []},
                                     options={"headers": {RAW_RESPONSE_HEADER: "stream"}})

        try:
            response = await post()
            unread = isinstance(response, httpx2.Response) and not response.is_stream_consumed
            body = b"".join([chunk async for chunk in response.aiter_bytes()])
            with pytest.raises(openai.APIStatusError) as refused:
                await post()
            return unread, body, refused.value
        finally:
            await client.close()

    script = Scripted("ok").when(replies=["an answer", Reply(status=429,
                                                             headers={"Retry-After": "7"})])
    with FakeOpenAIServer(script) as server:
        unread, body, refused = asyncio.run(ask(server.url))
    assert unread, "the SDK read the body: the raw-response header no longer streams it"
    assert json.loads(body)["choices"][0]["message"]["content"] == "an answer"
    assert (refused.status_code, refused.response.headers.get("retry-after")) == (429, "7")
