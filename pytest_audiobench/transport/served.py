"""The served model: an OpenAI-compatible server at a URL, asked through the ``openai`` client,
a provider beside the ones that answer in this process (``builtin/``).

The one place that talks HTTP. One ``answer`` is one attempt; the ``Endpoint`` in front of it
(``endpoint.py``) keeps the response cache, the pacing, the ledger and the retries, and tells
an attempt's failures apart by the exceptions here: an HTTP error status, a 200 that holds no
answer, no reply at all. The client's own retries are off, so that every attempt is counted
and ``Retry-After`` is honoured by the endpoint.

Everything a server sends is untrusted, and this is where it comes in: every text kept from a
reply or the models listing has each code point that is not text (a lone surrogate) replaced
by U+FFFD and every key redacted (``secrets.py``), the texts a server writes freely beside the
answer are cut short, and a body past ``REPLY_LIMIT`` is refused before it is read whole.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.headers import read_headers
from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport import secrets
from pytest_audiobench.transport.types import Completion, Usage

if TYPE_CHECKING:
    import httpx2
    import openai

REFUSED = frozenset({401, 403})
REPLY_LIMIT = 8 * 2**20
"""The most bytes of a reply's body that are read (decoded, as JSON is read): far above any
real completion (a reasoning model's longest is well under 1 MB). A longer one is a failure
of the endpoint ("too large"), like a body that is not JSON, and its rest is never read."""
_FINISH_CHARS = 40
"""The most characters of a finish reason kept: the real ones are a word."""
_ID_CHARS = 256
"""The most characters of a model id a reply names that are kept: a path of weights fits."""
_NOT_TEXT = re.compile(r"[\ud800-\udfff]")
"""A lone surrogate: JSON's ``"\\ud800"`` decodes to one, and no file can hold it."""
_NO_KEY = "EMPTY"
"""Sent when no key is set: servers without auth accept any, the SDK insists on one."""


class AttemptFailed(Exception):
    """One attempt that gave no answer; ``reason`` is its short name in the counts."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class StatusFailure(AttemptFailed):
    """The server answered with an error status."""

    def __init__(self, message: str, status: int, retry_after: str | None,
                 refused: str | None) -> None:
        super().__init__(message, f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after
        self.refused = refused
        """For a 401 or 403, the line that says which key was refused or that none is set."""


class Unusable(AttemptFailed):
    """An HTTP 200 that holds no completion (a body that is not JSON, no choices), or a
    judge's empty reply: a failure of the endpoint like a 500, retried, never cached, never
    judged. A model's empty answer is not one: it is asked again, then it is the answer."""


class NoReply(AttemptFailed):
    """No reply: the connection was refused or dropped (``reason`` "connection"), or the
    reply was not whole within the timeout ("timeout")."""


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

    def listed(self) -> dict[str, Any] | None:
        """Fail fast when the server is unreachable or does not serve the model; return what
        it says of the model (its ``/models`` entry, every text in it kept as text and
        redacted: the run's identity, written into the reports and the run records), None
        when it lists none."""
        import openai

        client = openai.OpenAI(base_url=self.settings.url, api_key=self._key, max_retries=1,
                               timeout=min(self.settings.timeout, 15.0),
                               default_headers=self._headers or None)
        try:
            served = {model.id: model.model_dump() for model in client.models.list()}
        except openai.NotFoundError:
            return None  # the server does not list models; the first request will tell
        except openai.APIStatusError as exc:
            if exc.status_code in REFUSED:
                raise EndpointError(self._refused("GET /models", exc)) from exc
            raise EndpointError(f"{self.settings.named} answered {short(exc)} to GET /models"
                                ) from exc
        except openai.APIError as exc:
            raise EndpointError(f"cannot reach {self.settings.named}: {short(exc)}") from exc
        finally:
            client.close()
        if served and self.settings.model not in served:
            raise EndpointError(
                f"{self.settings.named}: that server does not serve {self.settings.model!r}; "
                "it serves: "
                + _kept(", ".join(list(served)[:20]))[0]
            )
        entry = served.get(self.settings.model)
        return None if entry is None else _kept_entry(entry)

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None, *,
                     timeout: float | None = None) -> Completion:
        """One attempt: the request with ``options`` (the sampling) and the extra body, and
        the reply read as a completion; an ``AttemptFailed`` when it gives none."""
        response = await self._post(messages, options, timeout or self.settings.timeout)
        completion = completion_of(response)
        self._named(_model_id(response.get("model")))
        return completion

    async def _post(self, messages: list[dict[str, Any]], options: dict[str, Any],
                    timeout: float) -> Any:
        """The reply's body as decoded JSON; an ``AttemptFailed`` when there is none."""
        body = await self._body(messages, options, timeout)
        try:
            return json.loads(body)
        except ValueError as exc:  # not JSON, or not UTF-8
            raise Unusable("a reply that is not JSON", "not JSON") from exc

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
                timeout=self.settings.timeout, http_client=_aiohttp_client(self.settings.timeout),
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


def _aiohttp_client(timeout: float) -> Any:
    """The SDK's aiohttp transport (``openai[aiohttp]``, a dependency). Per request it costs
    about half the CPU of the SDK's default httpx pool, whose bookkeeping probes every idle
    connection on every request and so grows with the concurrency."""
    import openai

    return openai.DefaultAioHttpClient(timeout=timeout)


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


def completion_of(response: Any) -> Completion:
    """The reply as the decoded JSON of a chat completion (read leniently, like the SDK):
    its content (empty for ``null``), the reasoning sent beside it, why it ended and its
    tokens; Unusable when it holds no completion at all."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices or not isinstance(choices, list):
        raise Unusable("a completion without choices", "no choices")
    choice = _mapping(choices[0])
    message = _mapping(choice.get("message"))
    text, in_text = _kept(_text(message.get("content")))
    # vLLM's reasoning parsers since late 2025; older vLLM, DeepSeek and others.
    reasoning, in_reasoning = _kept(_text(message.get("reasoning"))
                                    or _text(message.get("reasoning_content")))
    sent = choice.get("finish_reason")
    finish, in_finish = _kept(sent) if isinstance(sent, str) else (None, 0)
    return Completion(text=text, reasoning=reasoning or None,
                      finish_reason=None if finish is None else finish[:_FINISH_CHARS],
                      usage=_usage(response.get("usage")),
                      replaced=in_text + in_reasoning + in_finish)


def _usage(reported: object) -> Usage:
    """The reply's token counts, 0 for any it did not report as a count."""
    if not isinstance(reported, dict):
        return Usage()
    details = _mapping(reported.get("prompt_tokens_details"))
    return Usage(prompt_tokens=_count(reported.get("prompt_tokens")),
                 completion_tokens=_count(reported.get("completion_tokens")),
                 audio_tokens=_count(details.get("audio_tokens")))


def _kept(text: str) -> tuple[str, int]:
    """``text`` from a server as it may be kept, and how many of its code points were not
    text: each lone surrogate replaced by U+FFFD (a file, the cache's among them, cannot hold
    one), then every key redacted."""
    valid, replaced = _NOT_TEXT.subn("\ufffd", text)
    return secrets.redact(valid), replaced


def _kept_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The server's ``/models`` entry with every text in it kept as ``_kept`` keeps one, at
    any depth, names and values alike (``root``, ``owned_by``, ``parent``, any field)."""
    return {_kept(str(name))[0]: _kept_value(value) for name, value in entry.items()}


def _kept_value(value: object) -> object:
    if isinstance(value, str):
        return _kept(value)[0]
    if isinstance(value, dict):
        return _kept_entry(value)
    if isinstance(value, list):
        return [_kept_value(item) for item in value]
    return value


def _model_id(model: object) -> str | None:
    """The model id a reply named, kept as text, redacted and cut short; None when it named
    none."""
    return _kept(model)[0][:_ID_CHARS] if isinstance(model, str) else None


def _text(content: object) -> str:
    """A message's content: a string, or the text of its parts (some servers send a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part["text"] for part in content
                       if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def short(exc: Exception) -> str:
    """One line about a failed request, with any key the server echoed redacted."""
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}: {_said(exc)}" if status else f"{type(exc).__name__}: {_said(exc)}"


def _said(exc: Exception) -> str:
    """The first line of what ``exc`` says, redacted, without the SDK's ``Error code: 401 -``
    (the status is said once, by the caller)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return _kept(re.sub(r"^Error code: \d+ - ", "", text))[0]
