"""The served model: an OpenAI-compatible server at a URL, asked through the ``openai`` client,
a provider beside the ones that answer in this process (``builtin/``).

The one place that talks HTTP. One ``answer`` is one attempt; the ``Endpoint`` in front of it
(``endpoint.py``) keeps the response cache, the pacing, the ledger and the retries, and tells
an attempt's failures apart by the exceptions of ``replies.py``: an HTTP error status, a 200
that holds no answer, no reply at all. The client's own retries are off, so that every
attempt is counted and ``Retry-After`` is honoured by the endpoint.

Everything a server sends is untrusted, and this is where it comes in, to be read as data by
``replies.py``: a body past ``REPLY_LIMIT`` is refused before it is read whole, an error body
is read no further than ``ERROR_LIMIT`` (decoded: a compressed one is never inflated past
it), the start's models listing is one exchange bounded by the timeout and the deadline, and
no redirect is followed: the key and the extra headers (secrets too) would go with the
request to wherever the server points.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import re
import ssl
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from pytest_audiobench.config.headers import read_headers
from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport import secrets
from pytest_audiobench.transport.replies import (
    NoReply,
    StatusFailure,
    Unusable,
    completion_of,
    error_message,
    ids_named,
    kept,
    listing_entry,
    model_id,
    models_in,
)
from pytest_audiobench.transport.types import Completion
from pytest_audiobench.untrusted import brief

if TYPE_CHECKING:
    import httpx2
    import openai

# A refused key is never retried (``_transient``): its own line names the variable that
# holds the key, which is what the user has to change.
REFUSED = frozenset({401, 403})
NOT_LISTED = 404
"""A server that lists no models: the first request tells whether it serves the model."""
REPLY_LIMIT = 8 * 2**20
"""The most bytes of a reply's body that are read (decoded, as JSON is read): far above any
real completion (a reasoning model's longest is well under 1 MB). A longer one is a failure
of the endpoint ("too large"), like a body that is not JSON, and its rest is never read."""
ERROR_LIMIT = 64 * 2**10
"""The most bytes of an error status's or a redirect's body that are read, decoded: the line an
error message quotes is in its first few hundred; the rest (a 5 MB message, a gzip body that
would inflate to gigabytes) is never read."""
_NO_TIME = ("the run's deadline (--audiobench-deadline) passed before its models listing "
            "(GET /models) came whole")
_NO_KEY = "EMPTY"
"""Sent when no key is set: servers without auth accept any, the SDK insists on one."""


def api_key(settings: EndpointSettings) -> str:
    """The key from the environment, never from a flag; servers without auth get a dummy."""
    key = os.environ.get(settings.api_key_env)
    if key:
        if not all("!" <= character <= "~" for character in key):
            # Never the value: a key pasted with its newline is still a key.
            raise EndpointError(
                f"environment variable {settings.api_key_env} holds a character an HTTP header "
                "cannot carry (a space, a tab, a newline or a non-ASCII letter): set it to the "
                f"key alone, for {settings.named}")
        secrets.remember(key)
        return key
    if settings.api_key_required:
        raise EndpointError(
            f"environment variable {settings.api_key_env} is not set: it must hold the API key "
            f"for {settings.named}"
        )
    return _NO_KEY


def sent_headers(settings: EndpointSettings) -> dict[str, str]:
    """The extra headers the endpoint sends (``config/headers.py``), each value redacted from
    everything shown from now on, as a key is."""
    headers = read_headers(settings.headers.env) if settings.headers is not None else {}
    for value in headers.values():
        secrets.remember(value)
    return headers


class ServedModel:
    """The model ``settings`` names at its URL; ``named`` hears the model id each reply with
    an answer names (the ledger's)."""

    def __init__(self, settings: EndpointSettings,
                 named: Callable[[object], None] = lambda model: None) -> None:
        self.settings = settings
        self.identity: dict[str, Any] = {}
        """Nothing beside the request: the URL and the model id are in every cache key."""
        self._named = named
        self._key = api_key(settings)
        self._headers = sent_headers(settings)
        self._client: openai.AsyncOpenAI | None = None

    def check(self) -> None:
        self.listed()

    def listed(self, within: float | None = None) -> dict[str, Any] | None:
        """Fail fast when the server is unreachable or does not serve the model; return what
        it says of the model (its ``/models`` entry, its texts and numbers kept as text,
        redacted and cut: the run's identity, written into the reports and the run records),
        None when it lists none. The whole exchange, from connecting to the listing's last
        byte, takes at most --audiobench-timeout, and no longer than ``within`` (what is left
        of the run's deadline): a server that sends its listing a byte at a time is refused."""
        limit = self.settings.timeout if within is None else min(self.settings.timeout, within)
        # The deadline has passed already: no exchange is started that could not end in time.
        if limit <= 0:
            raise EndpointError(f"{self.settings.named}: {_NO_TIME}")
        try:
            # On a loop of its own, in a thread of its own: the caller may be on a loop (an
            # in-process model's check, a test), and the listing has a client of its own.
            with ThreadPoolExecutor(1, thread_name_prefix="audiobench-listing") as apart:
                served = apart.submit(asyncio.run, self._listing(limit)).result()
        except TimeoutError:
            why = (f"no whole reply to GET /models within {limit:g} s (--audiobench-timeout)"
                   if within is None or within >= self.settings.timeout else _NO_TIME)
            raise EndpointError(f"{self.settings.named}: {why}") from None
        if served is None:
            return None
        # An empty listing says nothing of the model: the first request tells, as with a 404.
        if served and self.settings.model not in served:
            raise EndpointError(
                f"{self.settings.named}: that server does not serve {self.settings.model!r}; "
                f"it serves: {ids_named(served)}")
        entry = served.get(self.settings.model)
        return None if entry is None else listing_entry(entry)

    async def _listing(self, limit: float) -> dict[str, dict[str, Any]] | None:
        """The server's models by id, within ``limit`` seconds (TimeoutError past it); None
        when it lists none; EndpointError when it cannot be read."""
        import openai

        # The client's timeouts just past ``limit``: the wait_for below is the bound that decides.
        client = openai.AsyncOpenAI(base_url=self.settings.url, api_key=self._key,
                                    max_retries=0, timeout=limit + 1.0,
                                    http_client=_aiohttp_client(self.settings.url, limit + 1.0),
                                    default_headers=self._headers or None)
        try:
            body = await asyncio.wait_for(self._listing_body(client, limit), limit)
        finally:
            await client.close()
        return None if body is None else models_in(body, self.settings.named)

    async def _listing_body(self, client: openai.AsyncOpenAI, limit: float) -> bytes | None:
        import httpx2
        import openai
        from openai._constants import RAW_RESPONSE_HEADER

        try:
            response = await client.get(
                "/models", cast_to=httpx2.Response,
                options={"timeout": limit + 1.0, "security": {"bearer_auth": True},
                         "headers": {RAW_RESPONSE_HEADER: "stream"}})
            return await _read(response)
        except openai.APIStatusError as exc:
            if exc.status_code == NOT_LISTED:
                return None
            if exc.status_code in REFUSED:
                raise EndpointError(self._refused("GET /models", exc)) from exc
            raise EndpointError(f"{self.settings.named} answered {short(exc)} to GET /models"
                                ) from exc
        except openai.APIError as exc:
            raise EndpointError(f"cannot reach {self.settings.named}: {short(exc)}") from exc
        except Unusable as exc:
            raise EndpointError(f"{self.settings.named} answered GET /models with {exc}"
                                ) from exc

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None, *,
                     timeout: float | None = None) -> Completion:
        """One attempt: the request with ``options`` (the sampling) and the extra body, and
        the reply read as a completion; an ``AttemptFailed`` when it gives none."""
        response = await self._post(messages, options, timeout or self.settings.timeout)
        completion = completion_of(response)
        self._named(model_id(response.get("model")))
        return completion

    async def _post(self, messages: list[dict[str, Any]], options: dict[str, Any],
                    timeout: float) -> Any:
        """The reply's body as decoded JSON; an ``AttemptFailed`` when there is none."""
        body = await self._body(messages, options, timeout)
        try:
            return json.loads(body)
        except ValueError as exc:  # not JSON, or not UTF-8
            raise Unusable("a reply that is not JSON", "not JSON") from exc
        # A body nested thousands deep ([[[[...) overflows the parser's recursion, which is not a
        # ValueError.
        except RecursionError:
            raise Unusable("a reply nested too deep to read as JSON", "not JSON") from None

    async def _body(self, messages: list[dict[str, Any]], options: dict[str, Any],
                    timeout: float) -> bytes:
        # The client's own POST rather than ``chat.completions.create``: the same request,
        # auth, timeout and error classes, without the SDK's walk over every message part to
        # transform params (our messages are plain JSON already) and without building its
        # pydantic models of the reply. The raw-response header set to "stream" is what the
        # SDK's ``with_streaming_response`` sends (a private name of the SDK, held by
        # tests/test_internals.py): with ``cast_to`` the response class of its HTTP library
        # (httpx2, its fork of httpx), the response comes back with its body unread, which
        # ``_read`` reads up to ``REPLY_LIMIT``. An error status is raised as before: the SDK
        # reads that body itself, whole, in either mode.
        import httpx2
        import openai
        from openai._constants import RAW_RESPONSE_HEADER

        try:
            response = await self._async_client().post(
                "/chat/completions", cast_to=httpx2.Response,
                body={**self.settings.extra_body, "model": self.settings.model,
                      "messages": messages, **options},
                options={"timeout": timeout, "security": {"bearer_auth": True},
                         "headers": {RAW_RESPONSE_HEADER: "stream"}},
            )
            return await _read(response)
        except openai.APIStatusError as exc:
            refused = self._refused(f"a request for {self.settings.model}", exc) \
                if exc.status_code in REFUSED else None
            raise StatusFailure(short(exc), exc.status_code,
                                exc.response.headers.get("retry-after"), refused) from exc
        except openai.APITimeoutError as exc:
            # The aiohttp transport reports a refused or dropped connection as a timeout;
            # say what httpx would have said.
            if _dropped(exc):
                raise NoReply(short(openai.APIConnectionError(request=exc.request)),
                              "connection") from exc
            raise NoReply(short(exc), "timeout") from exc
        except openai.APIError as exc:  # connection refused or dropped
            raise NoReply(short(exc), "connection") from exc

    async def probe(self, timeout: float) -> str | None:
        """Whether the server answers at all, asked of its models listing (``GET /models``,
        the lightest request it serves) on the client the requests use: None when it replies
        with a status under 500 (a 404 of a server that lists no models says it is there as
        well as a 200), else why not, in one redacted line. Nothing of a 200's body is read;
        an error's is read by the SDK, as for any request."""
        import httpx2
        import openai
        from openai._constants import RAW_RESPONSE_HEADER

        try:
            response = await self._async_client().get(
                "/models", cast_to=httpx2.Response,
                options={"timeout": timeout, "security": {"bearer_auth": True},
                         "headers": {RAW_RESPONSE_HEADER: "stream"}})
            await response.aclose()
        except openai.APIStatusError as exc:
            # A status under 500 (a 401, a 404) comes from the server itself: it is there. A
            # 5xx may be a gateway answering for a server behind it that is down.
            return short(exc) if exc.status_code >= 500 else None
        except openai.APITimeoutError as exc:  # or refused, as the aiohttp transport says it
            return short(openai.APIConnectionError(request=exc.request) if _dropped(exc)
                         else exc)
        except openai.APIError as exc:
            return short(exc)
        return None

    def _async_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            import openai

            self._client = openai.AsyncOpenAI(
                base_url=self.settings.url, api_key=self._key, max_retries=0,
                timeout=self.settings.timeout,
                http_client=_aiohttp_client(self.settings.url, self.settings.timeout),
                default_headers=self._headers or None,
            )
        return self._client

    def _refused(self, asked: str, exc: openai.APIStatusError) -> str:
        """A 401 or 403: the key that was refused, or that none is set and which variable
        holds it."""
        named, env = self.settings.named, self.settings.api_key_env
        if self._key == _NO_KEY:
            return (f"{named} refused {asked} without a key (HTTP {exc.status_code}): "
                    f"environment variable {env} is not set: set it to the API key for "
                    f"{self.settings.url}")
        return f"{named} refused the key in {env} (HTTP {exc.status_code} to {asked}): " \
            f"{_said(exc)}"

    async def close(self) -> None:
        if self._client is not None:
            await self._client.close()


def _aiohttp_client(url: str, timeout: float) -> Any:
    """The SDK's aiohttp transport (``openai[aiohttp]``, a dependency). Per request it costs
    about half the CPU of the SDK's default httpx pool, whose bookkeeping probes every idle
    connection on every request and so grows with the concurrency. No redirect is followed
    (the SDK follows them by default, and its HTTP library keeps every header but
    ``Authorization`` on the way to another host); every status that is not a success is
    raised by ``_unsuccessful``, its body read no further than ``ERROR_LIMIT``. An http URL
    never meets TLS (nor a redirect to https, which is not followed): it loads no CA bundle,
    and its context verifies with none, so that a TLS connection it made would fail, never go
    unchecked."""
    import openai

    https = urlsplit(url).scheme == "https"
    return openai.DefaultAioHttpClient(
        timeout=timeout, follow_redirects=False,
        verify=_tls() if https else ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT),
        event_hooks={"response": [_unsuccessful]})


@functools.cache
def _tls() -> ssl.SSLContext:
    """The TLS context every https client of the process shares, made as the SDK's transport
    makes its own (the CA bundle, SSL_CERT_FILE and SSL_CERT_DIR read once). Each client made
    its own: 30 ms of CPU to load the CA bundle, for every listing, endpoint and xdist worker.
    A context is safe to share between connections and threads."""
    import httpx2

    return httpx2.create_ssl_context()


async def _unsuccessful(response: httpx2.Response) -> None:
    """An error status or a redirect, raised as the SDK raises a status (``APIStatusError``)
    before the SDK reads the body itself, whole: here it is read decoded and no further than
    ``ERROR_LIMIT``, and its message (the body's ``error.message``, or its text) is redacted
    and cut as an error message quotes it (``untrusted.brief``). A redirect says where it
    points: it is never followed."""
    if response.is_success:
        return
    import openai

    body, whole = await _first(response, ERROR_LIMIT)
    said = brief(kept(error_message(body))[0], whole=whole)
    if response.is_redirect:
        location = brief(kept(response.headers.get("location", "nowhere"))[0])
        said = (f"redirected to {location}: no redirect is followed, since the key and the "
                "extra headers would go with it; give the URL it points to, if it is yours")
    raise openai.APIStatusError(
        f"Error code: {response.status_code}" + (f" - {said}" if said else ""),
        response=response, body=None)


async def _first(response: httpx2.Response, limit: int) -> tuple[bytes, bool]:
    """At most ``limit`` bytes of ``response``'s body, decoded, and whether that was all of
    it; the rest unread, the response closed."""
    kept = bytearray()
    whole = True
    try:
        async for chunk in response.aiter_bytes():
            kept += chunk[:limit - len(kept)]
            if len(kept) >= limit:
                whole = False
                break
    except Exception:  # a body cut off or not decodable: its start is all there is
        pass
    finally:
        await response.aclose()
    return bytes(kept), whole


async def _read(response: httpx2.Response) -> bytes:
    """The body of ``response``; a read that fails raises the SDK's error, as when the SDK
    read the body itself."""
    import httpx2
    import openai

    try:
        return await _bounded(response)
    except httpx2.TimeoutException as exc:
        raise openai.APITimeoutError(request=response.request) from exc
    except httpx2.RequestError as exc:
        raise openai.APIConnectionError(request=response.request) from exc


async def _bounded(response: httpx2.Response) -> bytes:
    """The body of ``response``, read as it comes (decoded, so a compressed body counts as
    what it holds), then closed; ``Unusable`` past ``REPLY_LIMIT`` bytes, the rest unread."""
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > REPLY_LIMIT:
                raise Unusable(f"a reply of more than {REPLY_LIMIT // 2**20} MB", "too large")
            chunks.append(chunk)
    finally:
        await response.aclose()
    return b"".join(chunks)


def _dropped(exc: BaseException) -> bool:
    """Whether a timeout error really stands for a connection that was refused or dropped:
    an aiohttp connection error that is not one of its timeouts, somewhere in the causes."""
    import aiohttp

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, aiohttp.ClientConnectionError):
            return not isinstance(seen, aiohttp.ServerTimeoutError | asyncio.TimeoutError)
        seen = seen.__cause__ or seen.__context__
    return False


def short(exc: Exception) -> str:
    """One line about a failed request, with any key the server echoed redacted."""
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}: {_said(exc)}" if status else f"{type(exc).__name__}: {_said(exc)}"


def _said(exc: Exception) -> str:
    """What ``exc`` says, redacted, without the SDK's ``Error code: 401 -`` (the status is said
    once, by the caller): a status's message as ``_unsuccessful`` cut it, a few hundred
    characters at most; another error's first line."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return kept(re.sub(r"^Error code: \d+(?: - )?", "", text))[0]
