"""Keys are never printed. Every API key the run is configured with is remembered when its
endpoint reads it, and any text a server sends back (a reply, an error body) has it, and any
``Bearer`` token, replaced before it reaches a message, a report, a cache entry or the
terminal: some servers echo the Authorization header in their errors."""

from __future__ import annotations

import re

REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;}]+")
_KEYS: set[str] = set()
# Short placeholders ("EMPTY", "x") are not secrets, and replacing them would garble text.
_SHORTEST_KEY = 8


def remember(key: str) -> None:
    """A key this process sends: from now on it is redacted from everything shown."""
    if len(key) >= _SHORTEST_KEY:
        _KEYS.add(key)


def redact(text: str) -> str:
    """``text`` with every remembered key and every bearer token replaced."""
    for key in sorted(_KEYS, key=len, reverse=True):
        if key in text:
            text = text.replace(key, REDACTED)
    return _BEARER.sub(lambda match: match.group(1) + REDACTED, text)
