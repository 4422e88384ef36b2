"""Extra HTTP headers of an endpoint (a gateway's organisation or routing header), from an
environment variable that holds them as a JSON object or names a file that does.

They are read where the run starts, to check them and to describe them in the settings (their
names and a hash of their values, which the response cache keys on), and again where requests
are sent. Their values, like the API key, are never stored in the settings, written or printed:
a header value is as likely to be a secret as a key.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from pytest_audiobench.errors import AudiobenchError

_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
"""What an HTTP header name may be made of (RFC 9110's token)."""
_OURS = {"authorization": "the API key's environment variable (--audiobench-*api-key-env)",
         "content-type": "the plugin (JSON)", "content-length": "the plugin"}
EXAMPLE = '{"OpenAI-Organization": "org-123"}'


def read_headers(env: str) -> dict[str, str]:
    """The headers environment variable ``env`` gives: a JSON object of names and values, or
    the path of a file holding one; none when it is unset. AudiobenchError (one line naming the
    variable, never a value) when they cannot be sent."""
    raw = os.environ.get(env, "").strip()
    if not raw:
        return {}
    where = f"environment variable {env}"
    text = raw
    if not raw.startswith("{"):
        where = f"the file environment variable {env} names"
        try:
            text = Path(raw).expanduser().read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(
                exc).__name__
            raise AudiobenchError(
                f"environment variable {env} holds neither a JSON object of HTTP headers, like "
                f"{EXAMPLE}, nor the path of a readable file holding one ({reason})") from None
    return _checked(text, where)


def _checked(text: str, where: str) -> dict[str, str]:
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict) or not all(isinstance(v, str) for v in parsed.values()):
        raise AudiobenchError(f"{where}: expected a JSON object of HTTP header names and their "
                              f"text values, like {EXAMPLE}")
    for name, value in parsed.items():
        if not _TOKEN.match(name):
            raise AudiobenchError(f"{where}: {name!r} is not an HTTP header name")
        if name.lower() in _OURS:
            raise AudiobenchError(f"{where}: header {name} is set by {_OURS[name.lower()]}")
        if not all(" " <= character <= "~" for character in value):
            raise AudiobenchError(f"{where}: the value of header {name} holds a character an "
                                  "HTTP header cannot carry (a newline, a tab, a non-ASCII "
                                  "letter)")
    return parsed


def digest(headers: dict[str, str]) -> str | None:
    """A hash of the headers, names and values (what the cache keys on); None for none."""
    if not headers:
        return None
    text = json.dumps(sorted((name.lower(), value) for name, value in headers.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
