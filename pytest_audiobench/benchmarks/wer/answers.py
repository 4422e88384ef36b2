"""What a transcript answer says besides the transcript: a chatty opening ("The transcription
is: ..."). None of the reference pipelines strips one, so its words count as insertions; the
report counts the answers that open with one, so that a person sees why a number is high."""

from __future__ import annotations

import re

_PREAMBLE = re.compile(
    r"""^\W*(?:(?:sure|okay|ok|certainly|of\ course)\W+)?
    (?:(?:here(?:'s|\ is)|this\ is)\s+(?:the|a|an)|the)\s+(?:\w+\s+){0,2}?
    (?:transcript(?:ion)?|text|audio|speaker|speech|recording)\b
    [^\n:"“]{0,60}?(?::|\b(?:says|said|reads)\b\s*[:,"“])
    |^\W*transcript(?:ion)?\s*:""",
    re.IGNORECASE | re.VERBOSE)


def opens_with_preamble(text: str) -> bool:
    """Whether ``text`` opens by announcing a transcript (a phrase ending in a colon, or
    "the speaker says," and the like), rather than with the transcript itself."""
    return _PREAMBLE.match(text) is not None
