"""What the offline judge (``--audiobench-judge-model overlap``) replies to Big Bench Audio's
judge request: CORRECT when the official answer's words occur in the answer with no answer
word (yes, no, valid, invalid, a number) after their last occurrence, the final answer given;
else INCORRECT. Its accuracies are not comparable to published (GPT-judged) ones; the notes
of a run made with it say so."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_audiobench.builtin.words import NUMBER_WORDS, words

NOT_COMPARABLE = ("offline judge 'overlap' (CORRECT when the answer's last answer word is the "
                  "official answer): not comparable to published LLM-judge accuracies")
ANSWER_WORDS = frozenset(("yes", "no", "valid", "invalid")) | NUMBER_WORDS
"""The words a final answer to a Big Bench Audio question is made of."""
_ASKED = frozenset(("official_answer", "answer"))
"""The fingerprint of its judge request holds these (``judge.judge_request``)."""


def agrees(answer: str, official: str) -> bool:
    """Whether ``answer`` ends on ``official``: its words occur in the answer (numbers in
    digits or words alike) and no answer word follows their last occurrence."""
    said, wanted = words(answer), words(official)
    if not wanted:
        return False
    ends = [i + len(wanted) for i in range(len(said) - len(wanted) + 1)
            if said[i:i + len(wanted)] == wanted]
    return bool(ends) and not ANSWER_WORDS.intersection(said[ends[-1]:])


def reply(inputs: Mapping[str, Any]) -> str | None:
    """CORRECT or INCORRECT for the request whose fingerprint is ``inputs``; None when it is
    not a Big Bench Audio grading request."""
    if not inputs.keys() >= _ASKED:
        return None
    return "CORRECT" if agrees(inputs["answer"], inputs["official_answer"]) else "INCORRECT"
