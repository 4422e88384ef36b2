"""What the offline judge (``--audiobench-judge-model overlap``) replies to VoiceBench's two
judge requests, so that a run without a key goes through the same reading, draws and gate:
- a rating: 1, plus 4 times the share of the instruction's content words the response
  uses, rounded half up (an empty response is 1);
- a Yes or No: Yes when the reference answer's content words all occur in the response.
Its numbers are not comparable to the leaderboard's (gpt-4o-mini judged); the notes of a run
made with it say so."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pytest_audiobench.builtin.words import content_words

NOT_COMPARABLE = ("offline judge 'overlap' (a rating from the instruction's words in the "
                  "response; Yes when the reference's words are all in it): not comparable "
                  "to the leaderboard's gpt-4o-mini ratings")


def rating(instruction: str, response: str) -> int:
    """1 to 5: the share of the instruction's content words found in the response."""
    wanted, said = content_words(instruction), content_words(response)
    if not wanted or not said:
        return 1
    share = sum(1 for word in wanted if word in said) / len(wanted)
    return 1 + math.floor(4 * share + 0.5)


def verdict(reference: str, response: str) -> str:
    """Yes when every content word of the reference occurs in the response."""
    wanted, said = content_words(reference), content_words(response)
    return "Yes" if wanted and all(word in said for word in wanted) else "No"


def reply(inputs: Mapping[str, Any]) -> str | None:
    """The reply to the VoiceBench request whose fingerprint is ``inputs``; None for any
    other request."""
    asked = inputs.get("voicebench")
    if asked == "rating":
        return str(rating(inputs["instruction"], inputs["response"]))
    if asked == "verdict":
        return verdict(inputs["reference"], inputs["response"])
    return None
