"""What every judge protocol shares: the model's answer shown as data (fenced, and cut when
it is too long), and asking until the reply parses.

Each attempt is one request (its seed offset and cache tag chosen by the protocol); every raw
reply is kept, the accepted one last, with the tokens and the cache hits they took. A reply
that never parses is the protocol's to report, never a score.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, Protocol, TypeVar

from pytest_audiobench.transport.types import Usage
from pytest_audiobench.untrusted import brief

if TYPE_CHECKING:
    from pytest_audiobench.config.settings import JudgeSettings
    from pytest_audiobench.transport.types import Completion

P = TypeVar("P")


class JudgeAsking(NamedTuple):
    """How a protocol asks the run's judge."""

    retries: int
    """New calls after a reply its parser rejects: none for an offline judge, which always
    replies in the protocol's format."""
    max_answer_chars: int
    """The answer is cut after this many characters for the judge."""
    repeats: int
    """Draws of each judge request (``--audiobench-judge-repeats``)."""
    judged: bool
    """Scores come from a sampled LLM judge, not the deterministic offline one."""


def judge_asking(judge: JudgeSettings | None, retries: int) -> JudgeAsking:
    """How a protocol whose own retries are ``retries`` asks ``judge`` (None: no judge)."""
    if judge is None:
        return JudgeAsking(retries=0, max_answer_chars=0, repeats=1, judged=False)
    return JudgeAsking(retries=0 if judge.offline else retries,
                    max_answer_chars=judge.max_answer_chars, repeats=judge.repeats,
                    judged=not judge.offline)


def fence_for(*texts: str) -> str:
    """A marker to fence untrusted text with in a judge prompt. It comes from a hash of the
    texts it fences, so an answer cannot name it without knowing its own hash (and the same
    request gets the same marker, which keeps the response cache useful); it is checked not
    to occur in any of them."""
    digest = hashlib.sha256("\x00".join(texts).encode("utf-8")).hexdigest().upper()
    for salt in itertools.count():
        marker = f"<<DATA-{digest[:20]}{salt or ''}>>"
        if not any(marker in text for text in texts):
            return marker
    raise AssertionError("unreachable: itertools.count() is endless")  # pragma: no cover


def replies_named(outputs: Iterable[str]) -> str:
    """A judge's replies as the error of a judge that never answered in form names them: each
    quoted as ``untrusted.brief`` quotes a text, so that six replies of a megabyte make a line
    of a few hundred characters each (the record, the page and the cache keep them whole)."""
    return "; ".join(repr(brief(out)) for out in outputs)


def shown(text: str, limit: int, what: str = "the answer") -> tuple[str, str | None]:
    """``text`` as the judge is shown it: cut after ``limit`` characters, with a note saying
    so about ``what``."""
    if len(text) <= limit:
        return text, None
    cut = len(text) - limit
    return (text[:limit] + f"\n[... {cut} more characters cut]",
            f"{what} is {len(text)} characters; the judge was shown the first {limit} "
            "(--audiobench-judge-max-answer-chars)")


def first_attempt(draw: int, retries: int) -> int:
    """The seed offset of a judge draw's first attempt when each draw may take ``retries``
    more: draw ``draw`` starts past every earlier draw's attempts, so no two attempts of one
    request share an offset (and so a reply)."""
    return draw * (retries + 1)


class Judge(Protocol):
    """What asking needs of an endpoint (``transport.endpoint.Endpoint`` fits)."""

    async def complete(self, messages: list[dict[str, Any]], seed_offset: int = 0, *,
                       fingerprint: Mapping[str, Any] | None = None,
                       cache_tag: str | None = None) -> Completion: ...


@dataclass
class Attempts(Generic[P]):
    """Every reply one ask took, and what the accepted one parsed to."""

    outputs: list[str] = field(default_factory=list)
    """Raw replies, one per attempt, the accepted one last."""
    parsed: P | None = None
    """None when no reply parsed."""
    problem: str | None = None
    """Why the last rejected reply was rejected."""
    usage: Usage = field(default_factory=Usage)
    cached: int = 0
    """Replies served from the response cache."""
    sent_usage: Usage = field(default_factory=Usage)
    """The tokens of the replies that were not: what was paid for."""


async def ask_until_parsed(
        judge: Judge, messages: list[dict[str, Any]], parse: Callable[[str], P | str],
        attempts: int, *, fingerprint: Mapping[str, Any] | None = None,
        seed_offset: Callable[[int], int] = lambda attempt: attempt,
        cache_tag: Callable[[int], str | None] = lambda attempt: None) -> Attempts[P]:
    """Ask up to ``attempts`` times; ``parse`` gives the parsed reply or why it is rejected."""
    asked: Attempts[P] = Attempts()
    for attempt in range(attempts):
        completion = await judge.complete(messages, seed_offset(attempt),
                                          fingerprint=fingerprint, cache_tag=cache_tag(attempt))
        asked.outputs.append(completion.text)
        asked.usage = asked.usage + completion.usage
        asked.cached += completion.cached
        if not completion.cached:
            asked.sent_usage = asked.sent_usage + completion.usage
        # A judge that thinks inline is read after its thought, as a parser would serve it.
        parsed = parse(completion.answer)
        if not isinstance(parsed, str):
            asked.parsed = parsed
            return asked
        asked.problem = parsed
    return asked
