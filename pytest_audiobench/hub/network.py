"""What every hub download shares: the error it raises, the choice of the hub's endpoint, and
a short one-line reason for a network error, with the fix to suggest."""

from __future__ import annotations

import os
import re
import socket
from collections.abc import Sequence

MAX_REASON_CHARS = 200


def env(names: Sequence[str]) -> list[str | None]:
    return [os.environ.get(name) for name in names]


def first_endpoint(candidates: Sequence[str | None], default: str) -> str:
    """The first non-blank candidate, else `default`; a bare host gets ``https://``, a trailing
    slash is dropped."""
    value = next((c.strip() for c in candidates if c and c.strip()), default)
    if not value.lower().startswith(("http://", "https://")):
        value = f"https://{value}"
    return value.rstrip("/")


def one_line(text: str) -> str:
    return " ".join(text.split())


def short_reason(exc: BaseException, *, host: str | None = None) -> str:
    """A short, single-line description of a (possibly deeply wrapped) network error.

    `host` is named when a name-resolution error carries no host name of its own (httpx's
    errors do not; urllib3's "Failed to resolve 'HOST'" does)."""
    chain: list[BaseException] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        item = todo.pop(0)
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        chain.append(item)
        reason = getattr(item, "reason", None)
        todo.extend(
            [
                reason if isinstance(reason, BaseException) else None,
                item.__cause__,
                item.__context__,
            ]
        )
    text = " ".join(one_line(str(e)) for e in chain)
    # ">": urllib's URLError says "<urlopen error [Errno 111] Connection refused>".
    errno_text = re.search(r"\[Errno -?\d+\] ([^)'\"\[\]>]+)", text)
    host_match = re.search(r"Failed to resolve '([^']+)'", text)
    resolved = host_match.group(1) if host_match else None
    if resolved is None and host and _is_name_resolution_error(chain, text):
        resolved = host
    if resolved:
        detail = errno_text.group(1).strip() if errno_text else "name resolution failed"
        return f"cannot resolve host {resolved} ({detail})"
    if errno_text:
        return errno_text.group(1).strip()
    if any(isinstance(e, TimeoutError) or "timed out" in str(e).lower() for e in chain):
        return "connection timed out"
    message = one_line(str(exc)) or "no message"
    reason_text = f"{type(exc).__name__}: {message}"
    if len(reason_text) > MAX_REASON_CHARS:
        reason_text = reason_text[: MAX_REASON_CHARS - 3] + "..."
    return reason_text


def _is_name_resolution_error(chain: Sequence[BaseException], text: str) -> bool:
    # getaddrinfo's errors: socket.gaierror, whose errno is negative on Linux ([Errno -2] Name
    # or service not known, [Errno -3] Temporary failure in name resolution); httpx keeps only
    # its text when it wraps one.
    return any(isinstance(e, socket.gaierror) for e in chain) or bool(
        re.search(r"\[Errno -\d+\]|getaddrinfo failed|nodename nor servname", text)
    )


def fix_hint(endpoint: str, contents: str | None = None) -> str:
    release = f"the release yourself ({contents})" if contents else "the release yourself"
    return (
        f"download {release} and pass its folder with --audiobench-data DIR, "
        f"or run where {endpoint} is reachable"
    )
