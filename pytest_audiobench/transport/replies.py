"""What a server's bytes mean, read as data: a reply as a completion, a models listing as
models by id, an error body as its message, each text as it may be kept. Pure (no HTTP:
``served.py`` talks to the server and hands the bytes here).

Everything a server sends is untrusted: every text kept has each code point that is not text
(a lone surrogate) replaced by U+FFFD and every key redacted (``secrets.py``); the texts a
server writes freely beside the answer are cut short; a reply or a listing that is not of its
shape, at any depth, is one failure; token counts are counts, or the reply is malformed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport import secrets
from pytest_audiobench.transport.types import Completion, Usage
from pytest_audiobench.untrusted import brief, clipped

TOKENS_LIMIT = 10**9
"""The most tokens a reply may say one count of its usage took: no context holds more, and a
larger count (or a negative one) is a server's error that would break the budget and the
cost."""
_FIELD_CHARS = 256
"""The most characters of one text field of a models listing's entry that are kept."""
_FIELDS = 32
"""The most fields of a models listing's entry that are kept: its texts and numbers, never a
nested list or object (vLLM's ``permission``), which no check reads."""
_FINISH_CHARS = 40
"""The most characters of a finish reason kept: the real ones are a word."""
_ID_CHARS = 256
"""The most characters of a model id a reply names that are kept: a path of weights fits."""
_NOT_TEXT = re.compile(r"[\ud800-\udfff]")
"""A lone surrogate: JSON's ``"\\ud800"`` decodes to one, and no file can hold it."""
class AttemptFailed(Exception):
    """One attempt that gave no answer; ``reason`` is its short name in the counts."""

    def __init__(self, message: str, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class StatusFailure(AttemptFailed):
    """The server answered with an error status."""

    def __init__(self, message: str, status: int, retry_after: str | None,
                 refused: str | None) -> None:
        super().__init__(message, f"HTTP {status}")
        self.status = status
        self.retry_after = retry_after
        self.refused = refused
        """For a 401 or 403, the line that says which key was refused or that none is set."""


class Unusable(AttemptFailed):
    """An HTTP 200 that holds no completion (a body that is not JSON, no choices), or a
    judge's empty reply: a failure of the endpoint like a 500, retried, never cached, never
    judged. A model's empty answer is not one: it is asked again, then it is the answer."""


class NoReply(AttemptFailed):
    """No reply: the connection was refused or dropped (``reason`` "connection"), or the
    reply was not whole within the timeout ("timeout")."""



def ids_named(models: dict[str, dict[str, Any]]) -> str:
    """The ids a listing names, as an error quotes them: the first 20, each redacted and cut
    (an id of megabytes, or with a newline, is a line of a few hundred characters)."""
    return ", ".join(brief(kept(model)[0], _FIELD_CHARS) for model in list(models)[:20])


def models_in(body: bytes, named: str) -> dict[str, dict[str, Any]]:
    """A models listing's entries by id (``{"data": [{"id": ...}, ...]}``, entries without a
    text id left out); EndpointError in one line naming the endpoint (``named``) when it is
    not one, at any depth."""
    try:
        listing = json.loads(body)
    except (ValueError, RecursionError):
        listing = None
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list):
        raise EndpointError(f"{named} answered GET /models with {_shape_of(listing)} where a "
                            'models listing was expected ({"data": [{"id": ...}, ...]})')
    return {entry["id"]: entry for entry in data
            if isinstance(entry, dict) and isinstance(entry.get("id"), str)}


_MESSAGE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)')
"""The opening of an error body's ``"message"`` text, up to its end or the body's, escapes
whole: what is left of it in a body cut at ``ERROR_LIMIT``."""


def error_message(body: bytes) -> str:
    """What an error body says: its ``error.message`` (or ``message``) when it is such JSON,
    as far as the body goes when it was cut; else its text."""
    text = body.decode("utf-8", "replace").strip()
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        started = _MESSAGE.search(text)
        if started is None:
            return text
        # A ``\\u`` escape cut short by the end of what was read is left out.
        # Read back as a JSON string literal, so the escapes of what was kept decode as they would
        # have in the whole body.
        escaped = re.sub(r"\\u[0-9a-fA-F]{0,3}$", "", started.group(1))
        try:
            return str(json.loads(f'"{escaped}"'))
        except ValueError:
            return text
    # OpenAI nests the message under "error"; other servers (older vLLM) put it at the top.
    error = parsed.get("error", parsed) if isinstance(parsed, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else text


def _shape_of(value: object) -> str:
    """What a body held, in a few words, for a message: never the body itself."""
    if value is None:
        return "a body that is not JSON (or is null, or nested too deep)"
    if isinstance(value, dict):
        data = value.get("data")
        return ("an object without \"data\"" if "data" not in value
                else f"an object whose \"data\" is {_kind(data)}, not a list")
    return f"{_kind(value)}"


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a text", bool: "a boolean",
            type(None): "null"}.get(type(value), "a number")


def completion_of(response: Any) -> Completion:
    """The reply as the decoded JSON of a chat completion (read leniently, like the SDK):
    its content (empty for ``null``), the reasoning sent beside it, why it ended and its
    tokens; Unusable when it holds no completion at all."""
    choices = response.get("choices") if isinstance(response, dict) else None
    if not choices or not isinstance(choices, list):
        raise Unusable("a completion without choices", "no choices")
    choice = _mapping(choices[0])
    message = _mapping(choice.get("message"))
    text, in_text = kept(_text(message.get("content")))
    # vLLM's reasoning parsers since late 2025; older vLLM, DeepSeek and others.
    reasoning, in_reasoning = kept(_text(message.get("reasoning"))
                                    or _text(message.get("reasoning_content")))
    sent = choice.get("finish_reason")
    finish, in_finish = kept(sent) if isinstance(sent, str) else (None, 0)
    return Completion(text=text, reasoning=reasoning or None,
                      finish_reason=None if finish is None else finish[:_FINISH_CHARS],
                      usage=_usage(response.get("usage")),
                      replaced=in_text + in_reasoning + in_finish)


def _usage(reported: object) -> Usage:
    """The reply's token counts, 0 for any it did not report; ``Unusable`` when one is not a
    count (negative, fractional, past ``TOKENS_LIMIT``, not a number): a count is spent from
    the budget and priced, and a server's error must do neither."""
    if reported is None:
        return Usage()
    if not isinstance(reported, dict):
        raise Unusable(f"a reply whose usage is {_kind(reported)}, not an object",
                       "bad usage")
    details = reported.get("prompt_tokens_details")
    details = details if isinstance(details, dict) else {}
    return Usage(prompt_tokens=_count(reported, "prompt_tokens"),
                 completion_tokens=_count(reported, "completion_tokens"),
                 audio_tokens=_count(details, "audio_tokens"))


def kept(text: str) -> tuple[str, int]:
    """``text`` from a server as it may be kept, and how many of its code points were not
    text: each lone surrogate replaced by U+FFFD (a file, the cache's among them, cannot hold
    one), then every key redacted."""
    valid, replaced = _NOT_TEXT.subn("\ufffd", text)
    return secrets.redact(valid), replaced


def listing_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """The server's ``/models`` entry as the run keeps it: its first ``_FIELDS`` fields of a
    text, a finite number, a boolean or null (``id``, ``root``, ``owned_by``, ``parent``,
    ``max_model_len``, any such field), names and texts kept as ``kept`` keeps them and cut
    at ``_FIELD_CHARS`` with their length and hash (two long weight paths stay told apart);
    nested lists and objects left out."""
    fields: dict[str, Any] = {}
    for name, value in entry.items():
        if len(fields) == _FIELDS:
            break
        if isinstance(value, str):
            value = clipped(kept(value)[0], _FIELD_CHARS)
        elif not _plain(value):
            continue
        fields[clipped(kept(name)[0], _FIELD_CHARS)] = value
    return fields


def _plain(value: object) -> bool:
    """A boolean, null, or a finite number of at most ``_FIELD_CHARS`` digits."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and len(str(value)) <= _FIELD_CHARS


def model_id(model: object) -> str | None:
    """The model id a reply named, kept as text, redacted and cut short; None when it named
    none."""
    return kept(model)[0][:_ID_CHARS] if isinstance(model, str) else None


def _text(content: object) -> str:
    """A message's content: a string, or the text of its parts (some servers send a list)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part["text"] for part in content
                       if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _count(usage: dict[str, Any], field: str) -> int:
    """A token count of ``usage``: 0 when absent or null, a whole number from 0 to
    ``TOKENS_LIMIT`` (written as an integer, or as a float with nothing after its point)."""
    value = usage.get(field)
    if value is None:
        return 0
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    # A bool is an int to Python: a ``true`` count would pass as 1 token.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= TOKENS_LIMIT:
        shown = repr(value) if isinstance(value, int | float) else _kind(value)
        raise Unusable(f"a reply whose usage.{field} is {brief(shown, 40)}, not a count of "
                       f"tokens from 0 to {TOKENS_LIMIT:,}", "bad usage")
    return value


