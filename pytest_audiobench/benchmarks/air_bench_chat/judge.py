"""The AIR-Bench Chat judge: prompt, the official parse semantics, and the two-pass protocol.

The prompt is ours; it carries the official inputs in the official order (audio description,
question, Assistant 1, Assistant 2) in one user message and asks for the official output line.
Parsing follows the official ``cal_score.py``: strip, drop newlines, split on single spaces,
exactly two integers. Scores of 0 are kept; a score above 10 (which aborts the official
script) or below 0 is rejected like an unparseable reply. Rejected replies are asked again and,
when every attempt fails, the pass is a judge failure: excluded from the means, never a 0.
"""

from __future__ import annotations

import asyncio
import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from pytest_audiobench.benchmarks import templating
from pytest_audiobench.benchmarks.judging import Judge, ask_until_parsed, fence_for, shown
from pytest_audiobench.outcome.records import Grade
from pytest_audiobench.transport.types import Usage

PLACEHOLDERS = ("{audio_description}", "{question}", "{answer_1}", "{answer_2}")
FENCE = "{fence}"
"""Optional in a user's template: the marker that fences each answer (the built-in prompt
fences them, and names the marker in its instructions)."""
_PLACEHOLDER = re.compile("|".join(re.escape(name) for name in (*PLACEHOLDERS, FENCE)))
Order = Literal["reference_first", "model_first"]


class PassGrade(BaseModel):
    """One judge pass: who was Assistant 1, every raw reply, and the scores it gave."""

    order: Order
    outputs: list[str]
    """Raw judge replies, one per attempt, the accepted one last."""
    model_score: int | None = None
    reference_score: int | None = None
    usage: Usage = Usage()
    cached: int = 0
    """Replies served from the response cache."""
    sent_usage: Usage = Usage()
    """The tokens of the replies that were sent (not from the cache): what was paid for."""

    @property
    def parsed(self) -> bool:
        return self.model_score is not None


class ChatGrade(Grade):
    """Both passes of one sample and the sample's scores (mean over the parsed passes)."""

    kind: Literal["air_bench_chat"] = "air_bench_chat"
    passes: list[PassGrade]
    model_score: float | None = None
    reference_score: float | None = None
    notes: list[str] = Field(default_factory=list)
    """What the judge was not shown as it is (a cut answer)."""

    @property
    def judge_failures(self) -> int:
        """Passes whose every reply the parser rejected."""
        return sum(1 for p in self.passes if not p.parsed)

    @property
    def judge_usage(self) -> Usage:
        return sum((p.usage for p in self.passes), Usage())

    @property
    def judge_sent_usage(self) -> Usage:
        return sum((p.sent_usage for p in self.passes), Usage())

    @property
    def judge_calls(self) -> int:
        return sum(len(p.outputs) for p in self.passes)

    @property
    def judge_cached(self) -> int:
        return sum(p.cached for p in self.passes)


def builtin_template() -> str:
    """The judge prompt written for this plugin (``judge_prompt.txt``)."""
    return (resources.files("pytest_audiobench.benchmarks.air_bench_chat") / "judge_prompt.txt"
            ).read_text(encoding="utf-8")


def read_template(path: Path) -> str:
    """A user's judge prompt, which must carry the four placeholders."""
    return templating.read_template(path, "--audiobench-judge-template", PLACEHOLDERS)


def render(template: str, audio_description: str, question: str, answer_1: str,
           answer_2: str) -> str:
    """Fill the placeholders in one pass, literally: templates may hold other braces, and an
    answer that happens to contain "{question}" stays as the model wrote it. ``{fence}``
    becomes a marker no answer contains, made from the answers themselves."""
    values = dict(zip(PLACEHOLDERS, (audio_description, question, answer_1, answer_2),
                      strict=True))
    values[FENCE] = fence_for(answer_1, answer_2, audio_description, question)
    return _PLACEHOLDER.sub(lambda match: values[match.group(0)], template)


def parse_scores(reply: str) -> tuple[int, int] | None:
    """The two scores of a reply as the official scorer reads them, or None."""
    fields = reply.strip().replace("\n", "").split(" ")
    if len(fields) != 2:
        return None
    try:
        first, second = int(fields[0]), int(fields[1])
    except ValueError:
        return None
    if not (0 <= first <= 10 and 0 <= second <= 10):
        return None
    return first, second


def combine(passes: list[PassGrade], notes: list[str] | None = None) -> ChatGrade:
    """A sample's scores: the mean over its parsed passes (None when none parsed)."""
    parsed = [p for p in passes if p.parsed]
    if not parsed:
        return ChatGrade(passes=passes, notes=notes or [])
    return ChatGrade(
        passes=passes, notes=notes or [],
        model_score=sum(p.model_score or 0 for p in parsed) / len(parsed),
        reference_score=sum(p.reference_score or 0 for p in parsed) / len(parsed),
    )


JudgeRequest = tuple[list[dict[str, Any]], dict[str, str]]


def pass_request(prompt: str, order: Order, reference: str, answer: str) -> JudgeRequest:
    """The messages of one pass and its fingerprint: the inputs the prompt was made from
    (what an in-process judge reads, and what the response cache keys on)."""
    first, second = (reference, answer) if order == "reference_first" else (answer, reference)
    return ([{"role": "user", "content": prompt}],
            {"prompt": prompt, "reference": reference, "answer_1": first, "answer_2": second})


async def judge_pass(endpoint: Judge, request: JudgeRequest, order: Order,
                     retries: int, draw: int = 0) -> PassGrade:
    """Ask until the reply parses or ``retries`` new attempts are spent; ``draw`` numbers
    the repeats of one pass (--audiobench-judge-repeats), each its own request."""
    messages, fingerprint = request
    # Tagged by the pass and the draw: when the answer is the reference, both passes send the
    # very same request, and a judge at temperature 1 must still draw each time.
    tag = order if draw == 0 else f"{order} draw {draw}"
    asked = await ask_until_parsed(
        endpoint, messages, _scores_or_problem, retries + 1, fingerprint=fingerprint,
        seed_offset=lambda attempt: draw * (retries + 1) + attempt,
        cache_tag=lambda attempt: tag)
    if asked.parsed is None:
        return PassGrade(order=order, outputs=asked.outputs, usage=asked.usage,
                           cached=asked.cached, sent_usage=asked.sent_usage)
    first, second = asked.parsed
    model, reference = (second, first) if order == "reference_first" else (first, second)
    return PassGrade(order=order, outputs=asked.outputs, model_score=model,
                       reference_score=reference, usage=asked.usage, cached=asked.cached,
                       sent_usage=asked.sent_usage)


def _scores_or_problem(reply: str) -> tuple[int, int] | str:
    return parse_scores(reply) or "not two integer scores from 0 to 10"


def judge_prompts(template: str, audio_description: str, question: str, reference: str,
                  answer: str, max_answer_chars: int
                  ) -> tuple[dict[Order, JudgeRequest], str | None]:
    """The request of each pass (the reference as Assistant 1, then the model), and a note
    when the answer had to be cut at ``max_answer_chars`` first."""
    answer, cut = shown(answer, max_answer_chars)
    return {
        "reference_first": pass_request(
            render(template, audio_description, question, reference, answer),
            "reference_first", reference, answer),
        "model_first": pass_request(
            render(template, audio_description, question, answer, reference),
            "model_first", reference, answer),
    }, cut


async def judge_sample(endpoint: Judge, template: str, *, audio_description: str,
                       question: str, reference: str, answer: str, swap: bool,
                       retries: int, max_answer_chars: int, repeats: int = 1,
                       first_draw: int = 0) -> ChatGrade:
    """Run pass A (reference as Assistant 1) and, with swap, pass B at the same time, each
    ``repeats`` times (the means are then steadier), the draws numbered from ``first_draw``
    (fresh draws for a confirmation start past the planned ones); the answer is cut at
    ``max_answer_chars`` first (noted in the grade)."""
    requests, cut = judge_prompts(template, audio_description, question, reference, answer,
                                  max_answer_chars)
    orders: list[Order] = ["reference_first", "model_first"] if swap else ["reference_first"]
    passes = await asyncio.gather(*(judge_pass(endpoint, requests[o], o, retries, draw)
                                    for draw in range(first_draw, first_draw + repeats)
                                    for o in orders))
    return combine(list(passes), [cut] if cut else [])
