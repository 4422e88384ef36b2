"""The request and reply types every endpoint shares: data only, nothing heavy imported."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel


class Usage(BaseModel):
    """Token counts as the server reported them (0 when it did not)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    audio_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            audio_tokens=self.audio_tokens + other.audio_tokens,
        )

    def __sub__(self, other: Usage) -> Usage:
        """What is left of these tokens without ``other``'s (a part of them)."""
        return Usage(
            prompt_tokens=self.prompt_tokens - other.prompt_tokens,
            completion_tokens=self.completion_tokens - other.completion_tokens,
            audio_tokens=self.audio_tokens - other.audio_tokens,
        )


_THINK_OPEN, _THINK_CLOSE = "<think>", "</think>"


def split_thought(content: str) -> tuple[str, str]:
    """``content`` as (thought, answer) when the model thought inline: the text of a
    ``<think>...</think>`` block is the thought and what follows the block the answer. A
    block whose opening the chat template wrote (only ``</think>`` in the content) counts
    from the start; one never closed (the token limit came first) is all thought and leaves
    no answer. Content without a block is all answer, as it was sent."""
    if _THINK_CLOSE in content:
        thought, _, answer = content.rpartition(_THINK_CLOSE)
        return thought.replace(_THINK_OPEN, "", 1).strip(), answer.strip()
    if content.lstrip().startswith(_THINK_OPEN):
        return content.lstrip()[len(_THINK_OPEN):].strip(), ""
    return "", content


class Completion(BaseModel):
    """One answered chat request: the message's content as the server sent it (empty for
    ``null``) and, from a reasoning model, the reasoning it sent beside it."""

    text: str
    reasoning: str | None = None
    """The chain of thought a server sends apart (vLLM's reasoning parsers, DeepSeek's API:
    ``message.reasoning``, else ``message.reasoning_content``); None when it sent none."""
    finish_reason: str | None = None
    usage: Usage = Usage()
    attempts: int = 1
    """HTTP attempts it took, retries included."""
    cached: bool = False
    """Served from the response cache: no request was sent this time."""
    reused_from: str | None = None
    """The earlier run whose answer this is (``--audiobench-reuse``), when it is one."""
    replaced: int = 0
    """Code points the server sent that are not text (a lone surrogate, which JSON's
    ``"\\ud800"`` decodes to), each replaced by U+FFFD in the text, the reasoning and the
    finish reason: no file can hold one, and the record says how many there were."""

    @property
    def answer(self) -> str:
        """What the model answered: the content without an inline thought block. The
        matchers and the judges see this, as the official pipelines see a parsed reply."""
        return split_thought(self.text)[1]

    @property
    def thought(self) -> str:
        """The model's reasoning: the field the server sent it in, else an inline block
        (both when it sent both); empty when it gave none."""
        inline = split_thought(self.text)[0]
        sent = (self.reasoning or "").strip()
        return "\n\n".join(part for part in (sent, inline) if part)

    @property
    def empty(self) -> bool:
        """The model answered nothing (its content empty, null, or thought only): an answer
        all the same, which the benchmarks score as the official scripts do."""
        return not self.answer.strip()

    @property
    def cut(self) -> bool:
        """The reply stopped at the token limit (``finish_reason`` ``length``)."""
        return self.finish_reason == "length"


class Provider(Protocol):
    """A model or judge that answers in this process instead of a server at a URL (the
    built-in ``cascade``, ``random`` and ``overlap``, or a package's, found by the name its
    ``ProviderSpec`` gives it). It sits behind the run's ``Endpoint`` like a server: the same
    response cache, pacing and ledger. It gets the messages a server would, plus the request's
    fingerprint (the fields the messages were built from), and says what identifies it in the
    response cache."""

    identity: dict[str, Any]
    """What its answers depend on besides the request (weights, a nested endpoint)."""

    def check(self) -> None:
        """Fail with EndpointError (one line naming the fix) when it cannot run here."""

    async def answer(self, messages: list[dict[str, Any]], options: dict[str, Any],
                     fingerprint: Mapping[str, Any] | None) -> Completion:
        """Reply to one request; ``options`` are the sampling settings it would carry."""

    async def close(self) -> None:
        """Release what it holds."""


class EndpointTraffic(BaseModel):
    """What one endpoint (a model at a URL) took beyond its answers, in one process or summed
    over processes: attempts, retries, 429 replies, time spent waiting before retries, the
    outages it was waited through, and the connection failures that stopped it."""

    requests: int = 0
    """HTTP attempts sent, retries included (cached replies send none)."""
    received: int = 0
    """Replies that came back, of any status (with an answer or not)."""
    retries: int = 0
    throttled: int = 0
    """Replies of HTTP 429 (each halved the in-flight limit)."""
    failures: dict[str, int] = {}
    """Attempts that gave no answer, by reason: ``HTTP <status>``, ``timeout``, ``connection``
    (refused or dropped), ``not JSON``, ``too large`` (a body past the served model's
    ``REPLY_LIMIT``), ``no choices``, ``empty answer``."""
    waited_seconds: float = 0.0
    """Seconds slept before retries (backoff and Retry-After)."""
    connection_failures: int = 0
    stopped: str | None = None
    """Why no further request was sent to it (consecutive connection failures), if so."""
    outages: int = 0
    """Times it stopped answering and was waited for (``--audiobench-outage-wait``): each
    began when it was taken for away and ended when it answered again or the wait was given
    up. Summed over processes, one that several of them saw at once counts once."""
    away_seconds: float = 0.0
    """Seconds it was away in those outages, each second counted once however many processes
    saw it."""
    away_spans: list[tuple[float, float]] = []
    """When it was away: each outage's start and end (``time.time()``, joined where they
    overlap), the latest ``AWAY_SPANS`` of them; what tells one outage every xdist worker saw
    from outages of their own when the processes' traffic is summed."""
    served: dict[str, int] = {}
    """The model ids its replies named (a completion's ``model``), each with its count: what an
    alias such as ``gpt-4o`` stood for in this run. At most ``SERVED_IDS`` by name, the most
    named, the others counted together under ``OTHER_IDS``."""

    def __add__(self, other: EndpointTraffic) -> EndpointTraffic:
        return EndpointTraffic(
            requests=self.requests + other.requests, received=self.received + other.received,
            retries=self.retries + other.retries, throttled=self.throttled + other.throttled,
            failures=_summed(self.failures, other.failures),
            waited_seconds=self.waited_seconds + other.waited_seconds,
            connection_failures=self.connection_failures + other.connection_failures,
            stopped=self.stopped or other.stopped,
            served=bounded(_summed(self.served, other.served)), **_outages_of(self, other))


def _outages_of(one: EndpointTraffic, other: EndpointTraffic) -> dict[str, Any]:
    """The outages of both, one they saw at once counted once: their kept spans joined, and
    the outages past the kept spans (beyond ``AWAY_SPANS``) counted apart, as they were."""
    spans = joined([*one.away_spans, *other.away_spans])
    unkept = [(t.outages - len(t.away_spans), t.away_seconds - span_seconds(t.away_spans))
              for t in (one, other)]
    return {"outages": len(spans) + sum(n for n, _ in unkept),
            "away_seconds": max(0.0, span_seconds(spans) + sum(s for _, s in unkept)),
            "away_spans": spans[-AWAY_SPANS:]}


AWAY_SPANS = 20
"""The most outages a traffic keeps the spans of: a server that keeps going away must not grow
the reports; the ones before are still counted."""


def joined(spans: Iterable[tuple[float, float]]) -> list[tuple[float, float]]:
    """``spans`` (start, end) in order, each that overlaps or touches the one before it joined
    to it."""
    union: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if union and start <= union[-1][1]:
            union[-1] = (union[-1][0], max(union[-1][1], end))
        else:
            union.append((start, end))
    return union


def span_seconds(spans: Iterable[tuple[float, float]]) -> float:
    return sum(end - start for start, end in spans)


SERVED_IDS = 20
"""The most model ids a traffic counts by name: an alias stands for one or two, and a server
that names a new id in every reply must not grow the reports with them."""
OTHER_IDS = "(other ids)"
"""Where the replies that named an id past the first ``SERVED_IDS`` are counted."""


def bounded(served: Mapping[str, int]) -> dict[str, int]:
    """``served`` with at most ``SERVED_IDS`` ids by name, the most named (ties by name), the
    others' counts under ``OTHER_IDS``."""
    if len(served) - (OTHER_IDS in served) <= SERVED_IDS:
        return dict(served)
    named = sorted((model for model in served if model != OTHER_IDS),
                   key=lambda model: (-served[model], model))
    kept = {model: served[model] for model in named[:SERVED_IDS]}
    kept[OTHER_IDS] = served.get(OTHER_IDS, 0) + sum(served[model]
                                                     for model in named[SERVED_IDS:])
    return kept


def _summed(one: Mapping[str, int], other: Mapping[str, int]) -> dict[str, int]:
    summed = dict(one)
    for key, count in other.items():
        summed[key] = summed.get(key, 0) + count
    return summed


def endpoint_label(model: str, url: str) -> str:
    """How an endpoint is named in the counts: ``"<model> at <url>"``."""
    return f"{model} at {url}"


class Traffic(BaseModel):
    """Every endpoint's traffic by ``"<model> at <url>"``, the cache entries that could not be
    read (each was asked again and rewritten) or written, and whose counts are missing."""

    endpoints: dict[str, EndpointTraffic] = {}
    cache_unreadable: int = 0
    first_unreadable: str | None = None
    cache_unwritable: int = 0
    """Replies the cache could not write (kept in memory for the run instead)."""
    first_unwritable: str | None = None
    missing: list[str] = []
    """Processes whose counts never arrived (an xdist worker that crashed): the counts above
    leave their requests out."""

    def served_by(self, model: str, url: str) -> list[str]:
        """The model ids the replies of ``model`` at ``url`` named, sorted."""
        found = self.endpoints.get(endpoint_label(model, url))
        return sorted(found.served) if found is not None else []

    def __add__(self, other: Traffic) -> Traffic:
        endpoints = dict(self.endpoints)
        for label, traffic in other.endpoints.items():
            endpoints[label] = endpoints[label] + traffic if label in endpoints else traffic
        return Traffic(endpoints=endpoints,
                       cache_unreadable=self.cache_unreadable + other.cache_unreadable,
                       first_unreadable=self.first_unreadable or other.first_unreadable,
                       cache_unwritable=self.cache_unwritable + other.cache_unwritable,
                       first_unwritable=self.first_unwritable or other.first_unwritable,
                       missing=[*self.missing, *other.missing])


class ModelIdentity(BaseModel):
    """What identifies the model a run asked: where, under which id, the revision the user
    named, and what the server says it serves under that id (vLLM's ``root`` names the weights
    it loaded); for a built-in model, what its answers depend on."""

    url: str
    model: str
    revision: str | None = None
    served: dict[str, Any] | None = None
    extra_body: dict[str, Any] | None = None
    """What every request's body carried beyond the sampling (--audiobench-extra-body); None
    in a record written before it was kept."""
    headers: list[str] = []
    """The names of the extra headers sent (their values are never kept)."""

    @property
    def weights(self) -> str | None:
        root = (self.served or {}).get("root")
        return root if isinstance(root, str) else None

    def kept(self) -> ModelIdentity:
        """This identity as a baseline keeps it: of what the server said, only the weights
        (``root``, which ``differs_from`` reads); the fields a server writes freely
        (``owned_by``, ``parent``, anything else) stay out of a file teams commit."""
        weights = self.weights
        return self.model_copy(update={"served": None if weights is None else {"root": weights}})

    def differs_from(self, other: ModelIdentity) -> str | None:
        """How ``other`` (a baseline's, an earlier run's) names another model than this one,
        or None when nothing says so."""
        differences = [f"{what} {theirs} (this run: {mine})"
                       for what, theirs, mine in (("revision", other.revision, self.revision),
                                                  ("weights", other.weights, self.weights))
                       if theirs is not None and mine is not None and theirs != mine]
        if other.revision is not None and self.revision is None:
            differences.append(f"revision {other.revision} (this run names none)")
        if None not in (other.extra_body, self.extra_body) and other.extra_body != self.extra_body:
            differences.append(f"extra body {_json(other.extra_body)} (this run: "
                               f"{_json(self.extra_body)})")
        return "; ".join(differences) or None


class JudgeIdentity(BaseModel):
    """What identifies the judge whose scores a run (or the baseline it wrote) holds: where it
    was asked, under which id, with which sampling, with which prompt (the benchmark's hash of
    what it sends besides the sample), and the model ids its replies named."""

    url: str
    model: str
    sampling: dict[str, Any] = {}
    extra_body: dict[str, Any] = {}
    """What every judge request's body carried beyond the sampling
    (--audiobench-judge-extra-body)."""
    prompt: str | None = None
    served: list[str] = []
    """Empty when no reply came back in the run (every one served from the cache)."""

    def differs_from(self, other: JudgeIdentity) -> str | None:
        """How ``other`` (the baseline's judge) is not this one, in words; None when nothing
        known differs (a side that saw no reply says nothing of the served ids)."""
        differences = [f"{what} {theirs} (today: {mine})" for what, theirs, mine in (
            ("model", other.model, self.model), ("endpoint", other.url, self.url),
            ("sampling", other.sampling, self.sampling),
            ("extra body", other.extra_body, self.extra_body),
            ("prompt", other.prompt, self.prompt))
            if theirs != mine]
        if other.served and self.served and set(other.served) != set(self.served):
            differences.append(f"replies from {', '.join(other.served)} "
                               f"(today: {', '.join(self.served)})")
        return "; ".join(differences) or None


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
