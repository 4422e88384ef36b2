"""The one place that talks HTTP: an OpenAI-compatible endpoint with retries.

We retry ourselves (the ``openai`` client's own retries are off) so that every attempt is
counted, ``Retry-After`` is honoured, and the in-flight limit of the run applies to each
request rather than to each sample.
"""

from __future__ import annotations

import asyncio
import copy
import email.utils
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pytest_audiobench.config.frozen import OwnSettings
from pytest_audiobench.config.headers import read_headers
from pytest_audiobench.config.settings import EndpointSettings
from pytest_audiobench.errors import DeadlineReached, EndpointError
from pytest_audiobench.transport import secrets
from pytest_audiobench.transport.ledger import Ledger, Peeked
from pytest_audiobench.transport.types import Completion, Provider, Usage

if TYPE_CHECKING:
    import openai

    from pytest_audiobench.transport.cache import ResponseCache
    from pytest_audiobench.transport.pacing import Pacer

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_REFUSED = frozenset({401, 403})
_NO_KEY = "EMPTY"
"""Sent when no key is set: servers without auth accept any, the SDK insists on one."""
_BACKOFF_CAP = 30.0


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


@dataclass(frozen=True)
class ProviderSetup:
    """What a provider is built with (its spec's ``provider`` is called with it)."""

    endpoint: EndpointSettings
    """The endpoint it stands for: the name it was given and the sampling asked of it."""
    own: OwnSettings | None
    """What its own options resolved into (None when it declares none)."""
    served: Endpoint | None
    """The model served at ``--audiobench-api-url`` that it asks (the cascade's text model),
    sharing the run's pacing, cache and ledger; None when it asks none."""


class _Connection:
    """What every view of one endpoint shares: the HTTP client, made on first use."""

    def __init__(self) -> None:
        self.client: openai.AsyncOpenAI | None = None


class Endpoint:
    """Chat completions against one server, at most ``limit`` requests in flight; or against
    a provider that answers in this process, with the same response cache in front of it.

    The model's endpoint is given the run its answers belong to (``run``): its cache entries
    are that run's, so another run never replays them unless it names the run in ``reuse``
    (or resumes it). A judge's endpoint has no run: its replies may serve any run whose request
    is the same in every input. ``scoped`` gives the view that one sample asks through, so that
    two samples sending the same request draw separately.
    """

    def __init__(self, settings: EndpointSettings, pacer: Pacer,
                 cache: ResponseCache | None = None, provider: Provider | None = None,
                 ledger: Ledger | None = None, *, run: str | None = None,
                 reuse: str | None = None, measure: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self._pacer = pacer
        self._cache = cache
        self._provider = provider
        self._ledger = ledger or Ledger()
        self._line = self._ledger.line(settings.model, settings.url,
                                       settings.max_connection_failures)
        self._key = "" if provider is not None else api_key(settings)
        self._headers = {} if provider is not None else sent_headers(settings)
        self._connection = _Connection()
        self._owner = True
        """Closes the client and the in-process model; the views made from it do not."""
        self._run = run
        self._reuse = reuse
        self._measure = measure
        """Earlier runs whose answers only measure tokens (a dry run's estimate): never served."""
        self._scope: str | None = None

    def _view(self, settings: EndpointSettings, scope: str | None) -> Endpoint:
        view = copy.copy(self)
        view.settings, view._scope, view._owner = settings, scope, False
        return view

    def resampled(self, sampling: Mapping[str, Any]) -> Endpoint:
        """The same endpoint (client, pacing, cache, in-process model) with these sampling
        settings changed, e.g. a judge at the temperature and seed another protocol asks for."""
        changed = self.settings.sampling.model_copy(update=dict(sampling))
        return self._view(self.settings.model_copy(update={"sampling": changed}), self._scope)

    def scoped(self, sample: str) -> Endpoint:
        """The view one sample asks through: its requests are cached under its id."""
        return self._view(self.settings, sample)

    def owned_by(self, run: str | None) -> Endpoint:
        """The view whose replies belong to ``run`` in the cache (a resume of it reuses them,
        no other run does): a judge asked to draw afresh in every run."""
        view = self._view(self.settings, self._scope)
        view._run, view._reuse = run, None
        return view

    def _async_client(self) -> openai.AsyncOpenAI:
        if self._connection.client is None:
            import openai

            self._connection.client = openai.AsyncOpenAI(
                base_url=self.settings.url, api_key=self._key, max_retries=0,
                timeout=self.settings.timeout, http_client=_aiohttp_client(self.settings.timeout),
                default_headers=self._headers or None,
            )
        return self._connection.client

    async def close(self) -> None:
        if not self._owner:
            return
        if self._connection.client is not None:
            await self._connection.client.close()
        if self._provider is not None:
            await self._provider.close()

    def check(self) -> dict[str, Any] | None:
        """Fail fast when the server is unreachable or does not serve the model (or the
        in-process model cannot run here); return what the server says of the model (its
        ``/models`` entry), or the in-process model's identity."""
        if self._provider is not None:
            self._provider.check()
            return dict(self._provider.identity)
        import openai

        client = openai.OpenAI(base_url=self.settings.url, api_key=self._key, max_retries=1,
                               timeout=min(self.settings.timeout, 15.0),
                               default_headers=self._headers or None)
        try:
            served = {model.id: model.model_dump() for model in client.models.list()}
        except openai.NotFoundError:
            return None  # the server does not list models; the first request will tell
        except openai.APIStatusError as exc:
            if exc.status_code in _REFUSED:
                raise EndpointError(self._refused("GET /models", exc)) from exc
            raise EndpointError(f"{self.settings.named} answered {_short(exc)} to GET /models"
                                ) from exc
        except openai.APIError as exc:
            raise EndpointError(f"cannot reach {self.settings.named}: {_short(exc)}") from exc
        finally:
            client.close()
        if served and self.settings.model not in served:
            raise EndpointError(
                f"{self.settings.named}: that server does not serve {self.settings.model!r}; "
                "it serves: "
                + secrets.redact(", ".join(list(served)[:20]))
            )
        return served.get(self.settings.model)

    async def complete(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
                       fingerprint: Mapping[str, Any] | None = None,
                       cache_tag: str | None = None) -> Completion:
        """Send one chat request, retrying transient failures; EndpointError when all fail.

        ``seed_offset`` tells repeated runs and judge retries apart (it moves the seed when one
        is set, and is part of the cache key always); ``fingerprint`` stands for the messages
        in the cache key when hashing them whole would be wasteful (audio); ``cache_tag`` tells
        apart identical requests that must each get their own reply (rubric raters)."""
        extra = self._sampling(seed_offset)
        if self._cache is None:
            return await self._reply(messages, extra, fingerprint)
        key = self.cache_key(messages, seed_offset, fingerprint=fingerprint, cache_tag=cache_tag)
        hit = self._cache.get(key)
        if hit is None:
            hit = self._reused(key, messages, seed_offset, fingerprint, cache_tag)
        if hit is not None:
            return hit
        completion = await self._reply(messages, extra, fingerprint)
        self._cache.put(key, completion)
        return completion

    def _reused(self, key: str, messages: list[dict[str, Any]], seed_offset: int,
                fingerprint: Mapping[str, Any] | None, cache_tag: str | None
                ) -> Completion | None:
        """The answer the run named in ``reuse`` got to this request, kept for this run too."""
        if self._cache is None or self._reuse is None:
            return None
        earlier = self._cache.get(self.cache_key(messages, seed_offset, fingerprint=fingerprint,
                                                 cache_tag=cache_tag, run=self._reuse))
        if earlier is None:
            return None
        self._cache.put(key, earlier.model_copy(update={"cached": False}))
        return earlier.model_copy(update={"reused_from": self._reuse})

    async def _reply(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        if self._provider is None:
            return await self._send(messages, extra)
        # No slot of the in-flight limit: it limits requests to servers, and a cascade's own
        # request to its text model takes one.
        return await self._provider.answer(messages, extra, fingerprint)

    def cached(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
               fingerprint: Mapping[str, Any] | None = None,
               cache_tag: str | None = None) -> Completion | None:
        """The reply ``complete`` would serve without sending anything (this run's, or the
        reused run's). On a miss, an earlier run's answer to the same request (``measure``)
        counts in ``peeked`` for the tokens such a call takes, and is not served."""
        if self._cache is None:
            return None
        runs = [self._run] + ([self._reuse] if self._reuse else [])
        for run in [*runs, *self._measure]:
            hit = self._cache.get(self.cache_key(messages, seed_offset, fingerprint=fingerprint,
                                                 cache_tag=cache_tag, run=run))
            if hit is not None:
                self._line.peeked.add(hit.usage)
                return hit if run in runs else None
        return None

    @property
    def peeked(self) -> Peeked:
        """The replies ``cached`` found, in every view of this endpoint, and their tokens."""
        return self._line.peeked

    def cache_key(self, messages: list[dict[str, Any]], seed_offset: int, *,
                  fingerprint: Mapping[str, Any] | None, cache_tag: str | None,
                  run: str | None = None) -> str:
        """Everything a reply depends on: the endpoint (URL and model id), the sampling, which
        run or retry it is, the request, the sample asking, and for the model the run whose
        answers these are (``run``, by default this endpoint's own)."""
        from pytest_audiobench.transport.cache import request_key

        key: dict[str, Any] = {"url": self.settings.url, "model": self.settings.model,
                               "sampling": self._sampling(seed_offset), "offset": seed_offset,
                               "tag": cache_tag, "request": fingerprint or messages,
                               "sample": self._scope, "run": run or self._run}
        if self._provider is not None:
            key["in_process"] = self._provider.identity
        # Only when given: the keys of the replies asked without them stay as they were.
        if self.settings.extra_body:
            key["body"] = self.settings.extra_body
        if self.settings.headers is not None and self.settings.headers.sha256:
            key["headers"] = self.settings.headers.sha256
        return request_key(key)

    def _sampling(self, seed_offset: int) -> dict[str, Any]:
        return self.settings.sampling.drawn(seed_offset).sent()

    async def _send(self, messages: list[dict[str, Any]], extra: dict[str, Any]) -> Completion:
        import openai

        pacer, line = self._pacer, self._line
        attempts = self.settings.retries + 1
        spent = Usage()  # every reply's tokens, an empty one asked again included
        for attempt in range(1, attempts + 1):
            line.check()
            try:
                async with pacer.slot():
                    line.traffic.requests += 1
                    completion = await self._attempt(messages, extra, attempt)
            except openai.APIStatusError as exc:
                line.answered(f"HTTP {exc.status_code}")
                if exc.status_code == 429:
                    line.traffic.throttled += 1
                    await pacer.throttle()
                if exc.status_code not in _RETRY_STATUS or attempt == attempts:
                    raise self._failure(exc, attempt) from exc
                await self._sleep(self._wait(attempt, exc.response.headers.get("retry-after")))
            except Unusable as exc:  # an HTTP 200 that holds no answer
                line.answered(exc.reason)
                if attempt == attempts:
                    raise self._failure(exc, attempt) from exc
                await self._sleep(self._wait(attempt, None))
            except (openai.APIError, Late) as exc:  # connection refused or dropped, timeout
                line.connection_failed(_short(exc), "timeout" if isinstance(
                    exc, Late | openai.APITimeoutError) else "connection")
                line.check()
                if attempt == attempts:
                    raise self._failure(exc, attempt) from exc
                await self._sleep(self._wait(attempt, None))
            else:
                await pacer.relax()
                pacer.spend(completion.usage.prompt_tokens + completion.usage.completion_tokens)
                spent = spent + completion.usage
                if self._asks_again(completion, attempt, attempts):
                    line.answered("empty answer")
                    await self._sleep(self._wait(attempt, None))
                    continue
                line.answered()
                return completion.model_copy(update={"usage": spent})
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _asks_again(self, completion: Completion, attempt: int, attempts: int) -> bool:
        """Whether an empty answer is asked again: while retries are left, unless the token
        limit ended it (the same limit would end it again). A model's empty answer that stays
        empty is its answer; a judge's is a failure of the judge (EndpointError)."""
        if not completion.empty or (completion.cut and self.settings.role != "judge"):
            return False
        if attempt < attempts:
            return True
        if self.settings.role == "judge":
            said = "null" if not completion.text else "empty"
            cut = (f", finish_reason length: it used the whole token limit, max_tokens "
                   f"{self.settings.sampling.max_tokens}" if completion.cut else "")
            self._line.answered("empty answer")
            raise self._failure(Unusable(f"an empty answer (content {said}{cut})",
                                         "empty answer"), attempt)
        return False

    async def _attempt(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                       attempt: int) -> Completion:
        """One request, from sending to the last byte of its reply within the timeout (and
        the run's deadline); the reply checked to be an answer."""
        left = self._pacer.remaining()
        timeout = self.settings.timeout if left is None else max(
            0.01, min(self.settings.timeout, left))
        try:
            # The client's timeout bounds each read; a reply whose bytes keep trickling in
            # would never end without this bound on the whole exchange (the client's is set
            # past it, so that one bound decides and says so).
            response = await asyncio.wait_for(self._post(messages, extra, timeout + 1.0),
                                              timeout)
        except TimeoutError:
            if left is not None and left <= self.settings.timeout:
                raise DeadlineReached(_DEADLINE_PASSED) from None
            raise Late(f"no whole reply within {timeout:g} s (--audiobench-timeout)") from None
        completion = _completion(response, attempt)
        self._line.named(response.get("model"))
        return completion

    async def _post(self, messages: list[dict[str, Any]], extra: dict[str, Any],
                    timeout: float) -> Any:
        # The client's own POST rather than ``chat.completions.create``: the same request,
        # auth, timeout and error classes, without the SDK's walk over every message part to
        # transform params (our messages are plain JSON already) and without building its
        # pydantic models of the reply; ``cast_to=object`` hands back the decoded JSON.
        import openai

        try:
            return await self._async_client().post(
                "/chat/completions", cast_to=object,
                body={**self.settings.extra_body, "model": self.settings.model,
                      "messages": messages, **extra},
                options={"timeout": timeout, "security": {"bearer_auth": True}},
            )
        except openai.APITimeoutError as exc:
            if _dropped(exc):
                # The aiohttp transport reports a refused or dropped connection as a
                # timeout; say what httpx would have said.
                raise openai.APIConnectionError(request=exc.request) from exc
            raise
        except ValueError as exc:  # the body of a 2xx reply is not JSON
            raise Unusable("a reply that is not JSON", "not JSON") from exc

    async def _sleep(self, seconds: float) -> None:
        """Wait before a retry: never past the deadline (the next attempt would be refused
        anyway), and no longer once the endpoint is taken for gone."""
        left = self._pacer.remaining()
        self._line.traffic.retries += 1
        await self._line.sleep(seconds if left is None else max(0.0, min(seconds, left)))

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        told = _parse_retry_after(retry_after)
        if told is not None:
            return min(told, _BACKOFF_CAP)
        ceiling = min(_BACKOFF_CAP, self.settings.retry_wait * 2.0 ** (attempt - 1))
        return ceiling * (0.5 + random.random() / 2)

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

    def _failure(self, exc: Exception, attempt: int) -> EndpointError:
        import openai

        if isinstance(exc, openai.APIStatusError) and exc.status_code in _REFUSED:
            return EndpointError(self._refused(f"a request for {self.settings.model}", exc))
        return EndpointError(
            f"{self.settings.named} failed after {attempt} "
            f"attempt{'s' if attempt > 1 else ''}: {_short(exc)}"
        )


def _aiohttp_client(timeout: float) -> Any:
    """The SDK's aiohttp transport (``openai[aiohttp]``, a dependency). Per request it costs
    about half the CPU of the SDK's default httpx pool, whose bookkeeping probes every idle
    connection on every request and so grows with the concurrency."""
    import openai

    return openai.DefaultAioHttpClient(timeout=timeout)


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


class Unusable(Exception):
    """An HTTP 200 that holds no completion (a body that is not JSON, no choices), or a
    judge's empty reply: a failure of the endpoint like a 500, retried, never cached, never
    judged. A model's empty answer is not one: it is asked again, then it is the answer."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason
        """Its short name in the counts of failures."""


class Late(Exception):
    """No whole reply within the timeout: the request was abandoned."""


_DEADLINE_PASSED = ("the run's deadline (--audiobench-deadline) has passed while the request "
                    "was in flight: it was abandoned")


def _completion(response: Any, attempts: int) -> Completion:
    """The reply as the decoded JSON of a chat completion (read leniently, like the SDK):
    its content (empty for ``null``), the reasoning sent beside it, why it ended and its
    tokens; Unusable when it holds no completion at all."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices or not isinstance(choices, list):
        raise Unusable("a completion without choices", "no choices")
    choice = _mapping(choices[0])
    message = _mapping(choice.get("message"))
    finish = choice.get("finish_reason")
    text = _text(message.get("content"))
    # vLLM's reasoning parsers since late 2025; older vLLM, DeepSeek and others.
    reasoning = _text(message.get("reasoning")) or _text(message.get("reasoning_content"))
    usage = Usage()
    reported = response.get("usage")
    if isinstance(reported, dict):
        details = _mapping(reported.get("prompt_tokens_details"))
        usage = Usage(
            prompt_tokens=_count(reported.get("prompt_tokens")),
            completion_tokens=_count(reported.get("completion_tokens")),
            audio_tokens=_count(details.get("audio_tokens")),
        )
    return Completion(text=secrets.redact(text),
                      reasoning=secrets.redact(reasoning) if reasoning else None,
                      finish_reason=finish if isinstance(finish, str) else None,
                      usage=usage, attempts=attempts)


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


def _parse_retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _short(exc: Exception) -> str:
    """One line about a failed request, with any key the server echoed redacted."""
    if isinstance(exc, Unusable | Late):
        return str(exc)
    status = getattr(exc, "status_code", None)
    return f"HTTP {status}: {_said(exc)}" if status else f"{type(exc).__name__}: {_said(exc)}"


def _said(exc: Exception) -> str:
    """The first line of what ``exc`` says, redacted, without the SDK's ``Error code: 401 -``
    (the status is said once, by the caller)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return secrets.redact(re.sub(r"^Error code: \d+ - ", "", text))
