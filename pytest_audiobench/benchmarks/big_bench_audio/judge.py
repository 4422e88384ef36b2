"""The Big Bench Audio judge: its prompt, the reading of its reply, and the draws of one
answer.

The prompt is ours, with the content of the published grading rules (consistent with the
official answer; the final answer when working is shown, the first when the answer
contradicts itself; numbers in words or digits; misspelled names accepted). The judge gets
the question's text, the official answer and the model's answer, fenced as data, and must
reply CORRECT or INCORRECT: that word alone (around it, white space) is read, in any letter
case by default, as AU-Harness reads it (the published numbers are its leaderboard's), or in
upper case only (``exact``). Any other reply is asked again and, when every attempt is spent,
the draw is a judge failure, excluded from the sample's share and counted; a sample without a
readable draw is an error, never a score.
"""

from __future__ import annotations

import asyncio
import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from pytest_audiobench.benchmarks import templating
from pytest_audiobench.benchmarks.big_bench_audio.facts import Reading
from pytest_audiobench.benchmarks.judging import (
    Judge,
    ask_until_parsed,
    fence_for,
    first_attempt,
    shown,
)
from pytest_audiobench.outcome.records import Grade
from pytest_audiobench.transport.types import Usage

PLACEHOLDERS = ("{question}", "{official_answer}", "{answer}")
FENCE = "{fence}"
"""Optional in a user's template: the marker fencing the answer (the built-in prompt fences
it and names the marker in its instructions)."""
_PLACEHOLDER = re.compile("|".join(re.escape(name) for name in (*PLACEHOLDERS, FENCE)))
GRADES = {"CORRECT": True, "INCORRECT": False}
"""The only replies read, and what each says of the answer."""
FLAG = "--audiobench-big-bench-audio-judge-template"


class JudgeDraw(BaseModel):
    """One draw of the judge on one answer: every raw reply, and what the accepted one said."""

    outputs: list[str]
    """Raw judge replies, one per attempt, the accepted one last."""
    correct: bool | None = None
    """CORRECT or INCORRECT; None when no reply was one of them."""
    usage: Usage = Usage()
    cached: int = 0
    """Replies served from the response cache."""
    sent_usage: Usage = Usage()
    """The tokens of the replies that were sent (not from the cache): what was paid for."""

    @property
    def parsed(self) -> bool:
        return self.correct is not None


class BigBenchAudioGrade(Grade):
    """The judge's draws on one answer and the answer's share of CORRECT among the readable
    ones (None when none was readable)."""

    kind: Literal["big_bench_audio"] = "big_bench_audio"
    draws: list[JudgeDraw]
    share: float | None = None
    """CORRECT draws over readable draws, 0 to 1."""
    notes: list[str] = Field(default_factory=list)
    """What the judge was not shown as it is (a cut answer)."""

    @property
    def judge_failures(self) -> int:
        return sum(1 for draw in self.draws if not draw.parsed)

    @property
    def judge_usage(self) -> Usage:
        return sum((draw.usage for draw in self.draws), Usage())

    @property
    def judge_sent_usage(self) -> Usage:
        return sum((draw.sent_usage for draw in self.draws), Usage())

    @property
    def judge_calls(self) -> int:
        return sum(len(draw.outputs) for draw in self.draws)

    @property
    def judge_cached(self) -> int:
        return sum(draw.cached for draw in self.draws)


def builtin_template() -> str:
    """The judge prompt written for this plugin (``judge_prompt.txt``)."""
    return (resources.files("pytest_audiobench.benchmarks.big_bench_audio")
            / "judge_prompt.txt").read_text(encoding="utf-8")


def read_template(path: Path) -> str:
    """A user's judge prompt, which must carry the three placeholders."""
    return templating.read_template(path, FLAG, PLACEHOLDERS)


def read_reply(reply: str, reading: Reading) -> bool | str:
    """What a judge reply says, read as ``reading`` says: True for CORRECT, False for
    INCORRECT, else why it is not read (a full stop, any other word, and under ``exact``
    another letter case: the reply is asked again)."""
    word = reply.strip()
    said = GRADES.get(word.upper() if reading == "case-insensitive" else word)
    if said is not None:
        return said
    return "not the single word CORRECT or INCORRECT" + (
        " in any letter case" if reading == "case-insensitive" else "")


JudgeRequest = tuple[list[dict[str, Any]], dict[str, str]]


def judge_request(template: str, question: str, official_answer: str, answer: str,
                  max_answer_chars: int) -> tuple[JudgeRequest, str | None]:
    """The judge's messages and their fingerprint (the inputs the prompt was made from: what
    an in-process judge reads, and what the response cache keys on), and a note when the
    answer had to be cut at ``max_answer_chars`` first. Placeholders are filled in one pass,
    literally: an answer holding "{question}" stays as the model wrote it."""
    shown_answer, cut = shown(answer, max_answer_chars)
    values = dict(zip(PLACEHOLDERS, (question, official_answer, shown_answer), strict=True))
    values[FENCE] = fence_for(shown_answer, question, official_answer)
    prompt = _PLACEHOLDER.sub(lambda match: values[match.group(0)], template)
    fingerprint = {"prompt": prompt, "question": question, "official_answer": official_answer,
                   "answer": shown_answer}
    return ([{"role": "user", "content": prompt}], fingerprint), cut



async def judge_draw(endpoint: Judge, request: JudgeRequest, retries: int, draw: int,
                     reading: Reading) -> JudgeDraw:
    """Ask until the reply is read or ``retries`` new attempts are spent; each attempt of
    each draw has its own seed offset (``first_attempt``), so its own reply."""
    messages, fingerprint = request
    asked = await ask_until_parsed(
        endpoint, messages, lambda reply: read_reply(reply, reading), retries + 1,
        fingerprint=fingerprint,
        seed_offset=lambda attempt: first_attempt(draw, retries) + attempt)
    return JudgeDraw(outputs=asked.outputs, correct=asked.parsed, usage=asked.usage,
                     cached=asked.cached, sent_usage=asked.sent_usage)


async def judge_answer(endpoint: Judge, request: JudgeRequest, *, retries: int, repeats: int,
                       reading: Reading, first_draw: int = 0, notes: list[str] | None = None
                       ) -> BigBenchAudioGrade:
    """``repeats`` draws of the judge on one answer at once, numbered from ``first_draw``
    (fresh draws for a confirmation start past the planned ones), each reply read as
    ``reading`` says."""
    draws = await asyncio.gather(*(judge_draw(endpoint, request, retries, draw, reading)
                                   for draw in range(first_draw, first_draw + repeats)))
    return combine(list(draws), notes)


def combine(draws: list[JudgeDraw], notes: list[str] | None = None) -> BigBenchAudioGrade:
    """The grade of ``draws``: the share of CORRECT among the readable ones."""
    read = [draw.correct for draw in draws if draw.correct is not None]
    share = sum(read) / len(read) if read else None
    return BigBenchAudioGrade(draws=draws, share=share, notes=notes or [])
