"""Matching a model's answer to one of a question's choices (pure), shared by every
multiple-choice benchmark: the word-set rule MMAR's and MMAU's official scorers use, a strict
variant, and splitting a reply into its reasoning and its answer line.

``match_official`` reproduces the decisions of the official ``string_match`` (``code/
evaluation.py`` and ``code/evaluation_rubrics.py`` of the MMAR repository, inherited from
MMAU): lowercase, split into sets of ``\\b\\w+\\b`` tokens; correct iff every answer token is in
the prediction and the prediction holds no token of another choice, where tokens shared with
the answer do not count and choices with the answer's token set are ignored. An empty
prediction is wrong.

``match_strict`` accepts only what the official rule accepts, with two changes:

- When another choice has the answer's word set but not its word sequence ("From far to
  near" / "From near to far", "1:3" / "3:1"), the official rule cannot tell them apart and
  accepts both. The strict rule also asks that the answer's token sequence occur in the
  prediction and that every occurrence of such a twin's sequence lie inside an occurrence of
  the answer's sequence (so "Guitar, Piano, Guitar" does not count as "Guitar, Piano").
- A prediction that is nothing but an option letter ("B", "(B)", "B.", "Option B",
  "The answer is B", "Answer: (b)") names the choice at that position (A is the first).
  A lone letter must be a capital, so that the article "a" is never read as option A. A
  letter beyond the last choice matches nothing. When some choice is itself a single letter (a
  note name, say) letters are ambiguous and the prediction is matched as text instead.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

_TOKEN = re.compile(r"\b\w+\b")

# The whole prediction must be the letter, possibly wrapped in the usual phrasing and
# punctuation: a letter inside a sentence ("B is wrong, it is C") is not an answer.
_LETTER = re.compile(
    r"""^[\s*_]*
    (?P<phrase>(?i:(?:the\s+)?(?:final\s+|correct\s+)?(?:answer|option|choice)\s*(?:is\s*)?
    [:\uff1a]?\s*))?
    (?i:(?:option|choice)\s*)?
    [(\[]?\s*(?P<letter>[A-Za-z])\s*[)\]]?
    [\s.!。*_]*$""",
    re.VERBOSE,
)

# A line of its own that opens with "Answer:" (or "Final answer:"), markdown emphasis allowed.
_ANSWER_LINE = re.compile(
    r"^[ \t>#*_]*(?:final\s+)?answer[ \t*_]*[:\uff1a]", re.IGNORECASE | re.MULTILINE)

_SINGLE_LETTERS = frozenset(frozenset({letter}) for letter in string.ascii_lowercase)


class MatchDecision(BaseModel):
    """What a matcher decided about one prediction, and why, for failure reports."""

    model_config = ConfigDict(frozen=True)

    correct: bool
    """True when the prediction counts as the answer."""
    extracted: str | None = None
    """The choice the matcher took the prediction to name, when it names exactly one."""
    reason: str
    """Why, in one human-readable sentence."""


def tokens(text: str) -> frozenset[str]:
    """The set of lowercase ``\\b\\w+\\b`` tokens of ``text``, as the official script forms it."""
    return frozenset(_TOKEN.findall(text.lower()))


def token_sequence(text: str) -> tuple[str, ...]:
    """The lowercase ``\\b\\w+\\b`` tokens of ``text`` in order (the strict rule's unit)."""
    return tuple(_TOKEN.findall(text.lower()))


def official_accepts(prediction: str, answer: str, choices: Sequence[str]) -> bool:
    """The bare official decision, without the explanation."""
    predicted = tokens(prediction)
    if not predicted:
        return False
    expected = tokens(answer)
    return expected <= predicted and not predicted & _foreign_tokens(answer, choices)


def match_official(prediction: str, answer: str, choices: Sequence[str]) -> MatchDecision:
    """Decide exactly as the official MMAR ``string_match`` does, and say why."""
    predicted = tokens(prediction)
    if not predicted:
        return MatchDecision(correct=False, reason="the prediction has no word: an empty "
                             "prediction is wrong")
    if official_accepts(prediction, answer, choices):
        twins = _twins(answer, choices)
        reason = "every answer token present; no token of another choice"
        if twins:
            reason += (f" (choice {twins[0]!r} has the same words: the official script cannot "
                       "tell them apart)")
        return MatchDecision(correct=True, extracted=answer, reason=reason)
    letter = _letter(prediction)
    if letter is not None and not _letters_are_choices(choices):
        kind = "bare letter" if tokens(prediction) == {letter.lower()} else "option letter"
        return MatchDecision(correct=False, reason=f"{kind} {letter} is not matched by the "
                             "official script: it compares words, not option letters")
    return MatchDecision(correct=False, extracted=_named_choice(prediction, answer, choices),
                         reason=_why_rejected(predicted, answer, choices))


def match_strict(prediction: str, answer: str, choices: Sequence[str]) -> MatchDecision:
    """The official rule without its same-words false positives, plus option letters."""
    letter = _letter(prediction)
    if letter is not None and not _letters_are_choices(choices):
        return _match_letter(letter, answer, choices)
    decision = match_official(prediction, answer, choices)
    twins = _twins(answer, choices)
    if not decision.correct or not twins:
        return decision
    problem = _order_problem(prediction, answer, twins)
    if problem is None:
        return MatchDecision(correct=True, extracted=answer,
                             reason="the answer's words in the answer's order; no other choice")
    named = {c for c in choices if tokens(c) and _strict_text_accepts(prediction, c, choices)}
    return MatchDecision(correct=False, extracted=named.pop() if len(named) == 1 else None,
                         reason=problem)


def split_reasoning(reply: str, thought: str = "") -> tuple[str, str]:
    """Split a reply to ``reasoning_prompt`` into (reasoning, answer); ``thought`` is the
    reasoning the model gave apart from it (``ModelAnswer.reasoning``: a server's reasoning
    field, or an inline ``<think>`` block, already taken out of ``reply``).

    The answer is the rest of the last line that opens with ``Answer:`` (``Final answer:``,
    any case, markdown emphasis allowed), or, when that line holds nothing else, all the text
    after it; the reasoning is ``thought`` and then everything before that line. Without such
    a line the whole reply is the answer, which is what the official scripts match against,
    and, when the model gave no reasoning apart, the reasoning too.
    """
    before, answer = _split_answer_line(reply)
    if answer is None:
        return thought or reply.strip(), reply.strip()
    return "\n\n".join(part for part in (thought, before) if part), answer


def _foreign_tokens(answer: str, choices: Sequence[str]) -> frozenset[str]:
    expected = tokens(answer)
    foreign: set[str] = set()
    for choice in choices:
        words = tokens(choice)
        if words != expected:
            foreign |= words - expected
    return frozenset(foreign)


def _twins(answer: str, choices: Sequence[str]) -> list[str]:
    """Choices with the answer's word set but another word sequence."""
    sequence, words = token_sequence(answer), tokens(answer)
    return [c for c in choices if tokens(c) == words and token_sequence(c) != sequence]


def _why_rejected(predicted: frozenset[str], answer: str, choices: Sequence[str]) -> str:
    missing = sorted(tokens(answer) - predicted)
    if missing:
        return "missing answer token(s) " + ", ".join(repr(t) for t in missing)
    expected = tokens(answer)
    for choice in choices:
        words = tokens(choice)
        if words == expected:
            continue
        clash = sorted(predicted & (words - expected))
        if clash:
            return f"also contains {', '.join(repr(t) for t in clash)} from choice {choice!r}"
    return "rejected by the official rule"  # unreachable: a rejection misses or clashes


def _named_choice(prediction: str, answer: str, choices: Sequence[str]) -> str | None:
    """The single other choice the official rule would accept this prediction for, if any."""
    named = {c for c in choices if c != answer and tokens(c) and official_accepts(
        prediction, c, choices)}
    return named.pop() if len(named) == 1 else None


def _strict_text_accepts(prediction: str, answer: str, choices: Sequence[str]) -> bool:
    if not official_accepts(prediction, answer, choices):
        return False
    twins = _twins(answer, choices)
    return not twins or _order_problem(prediction, answer, twins) is None


def _order_problem(prediction: str, answer: str, twins: Sequence[str]) -> str | None:
    """Why an officially accepted prediction fails the strict order check, or None."""
    said = token_sequence(prediction)
    spans = _spans(said, token_sequence(answer))
    if not spans:
        said_twin = next((t for t in twins if _spans(said, token_sequence(t))), twins[0])
        return (f"has the answer's words but not in its order; choice {said_twin!r} has the "
                "same words in another order")
    for twin in twins:
        if _outside(_spans(said, token_sequence(twin)), spans):
            return (f"also contains choice {twin!r}, which has the same words as the answer in "
                    "another order")
    return None


def _letter(prediction: str) -> str | None:
    """The option letter a letter-only prediction names, upper-cased, or None.

    A lone lowercase letter is not an option ("a" is an article); after a phrase such as
    "Answer:" or "option" any case counts.
    """
    found = _LETTER.match(prediction.strip())
    if found is None:
        return None
    letter = found.group("letter")
    if letter.islower() and not found.group("phrase"):
        return None
    return letter.upper()


def _letters_are_choices(choices: Sequence[str]) -> bool:
    """True when some choice is itself a single letter: then "A" may mean a note, not option A."""
    return any(tokens(choice) in _SINGLE_LETTERS for choice in choices)


def _match_letter(letter: str, answer: str, choices: Sequence[str]) -> MatchDecision:
    index = ord(letter) - ord("A")
    if index >= len(choices):
        return MatchDecision(correct=False, reason=f"option letter {letter} is out of range: "
                             f"there are only {len(choices)} choices")
    named = choices[index]
    if named == answer:
        return MatchDecision(correct=True, extracted=named,
                             reason=f"option letter {letter} names the answer {named!r}")
    return MatchDecision(correct=False, extracted=named, reason=f"option letter {letter} names "
                         f"choice {named!r}, not the answer {answer!r}")


def _spans(haystack: tuple[str, ...], needle: tuple[str, ...]) -> list[tuple[int, int]]:
    if not needle:
        return []
    width = len(needle)
    return [(i, i + width) for i in range(len(haystack) - width + 1)
            if haystack[i:i + width] == needle]


def _outside(spans: list[tuple[int, int]], covers: list[tuple[int, int]]) -> bool:
    """True when some span is not inside any of ``covers``."""
    return any(not any(a <= start and end <= b for a, b in covers) for start, end in spans)


def _split_answer_line(text: str) -> tuple[str, str | None]:
    lines = list(_ANSWER_LINE.finditer(text))
    if not lines:
        return text.strip(), None
    found = lines[-1]  # the last one: reasoning may quote "Answer:" on its way
    rest = text[found.end():]
    line, _, after = rest.partition("\n")
    answer = line if line.strip(" \t*_") else after
    return text[:found.start()].strip(), answer.strip().strip("*_").strip()
