"""Keys are never printed. Every API key the run is configured with is remembered when its
endpoint reads it, and any text a server sends back (a reply, an error body, its models
listing) has it, and any ``Bearer`` token, replaced before it reaches a message, a report, a
cache entry or the terminal: some servers echo the Authorization header in their errors.

A server may also send the key back re-encoded: in another letter case, or in base64 (a
``Basic`` header, a token it decoded and encoded again). Those forms are replaced too."""

from __future__ import annotations

import base64
import re

REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)(bearer\s+)[^\s\"',;}]+")
_KEYS: set[str] = set()
# Short placeholders ("EMPTY", "x") are not secrets, and replacing them would garble text.
_SHORTEST_KEY = 8
_FORMS: re.Pattern[str] | None = None
"""Every form of every remembered key, compiled once when a key is remembered."""
_NEEDLES: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
"""What a text holding a key holds: a key casefolded (in the casefolded text), or the part
of its base64 every form of the base64 holds. ``redact`` runs on every reply: a plain search
for these costs a few microseconds, the pattern's many alternatives tried at every
character much more, so the pattern runs only when one is found."""
# Where the key sits in a longer encoded text decides how its first bytes share base64's
# groups of three: at offset 1 or 2 of a group its first 2 or 3 characters depend on the byte
# before it, and the rest depend on the key alone.
_SHIFTS = ((0, 0), (1, 2), (2, 3))


def remember(key: str) -> None:
    """A key this process sends: from now on it is redacted from everything shown."""
    global _FORMS, _NEEDLES
    if len(key) >= _SHORTEST_KEY and key not in _KEYS:
        _KEYS.add(key)
        _FORMS = _compiled(_KEYS)
        _NEEDLES = (tuple(known.casefold() for known in _KEYS),
                    tuple(core for known in _KEYS for core in _base64_cores(known)))


def redact(text: str) -> str:
    """``text`` with every remembered key, in any letter case or in base64, and every bearer
    token replaced."""
    folded = text.casefold()
    keys, cores = _NEEDLES
    if _FORMS is not None and (any(key in folded for key in keys)
                               or any(core in text for core in cores)):
        text = _FORMS.sub(REDACTED, text)
    if "bearer" not in folded:
        return text
    return _BEARER.sub(lambda match: match.group(1) + REDACTED, text)


def _compiled(keys: set[str]) -> re.Pattern[str]:
    """One pattern for every form of ``keys``: each key in any letter case, and its base64
    exactly (a base64 text in another case is another text). The longest first, so that a
    whole encoding is replaced rather than the part of it another form matches."""
    forms = [(len(key), f"(?i:{re.escape(key)})") for key in keys]
    forms += [(len(form), re.escape(form)) for key in keys for form in _base64_forms(key)]
    return re.compile("|".join(pattern for _, pattern in sorted(forms, reverse=True)))


def _base64_forms(key: str) -> set[str]:
    """``key`` in standard and URL-safe base64, with and without its ``=`` padding, and the
    parts of it that are the same wherever the key sits in a longer encoded text."""
    raw = key.encode("utf-8")
    forms = _base64_cores(key)
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms |= {whole, whole.rstrip("=")}
    return forms


def _base64_cores(key: str) -> set[str]:
    """The parts of ``key``'s base64 (standard and URL-safe) that are the same wherever the
    key sits in a longer encoded text (a ``user:key`` pair in a ``Basic`` header): every form
    holds one of them."""
    raw = key.encode("utf-8")
    cores: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        for offset, skipped in _SHIFTS:
            shifted = bytes(offset) + raw
            # Only the whole groups of three: the last characters of a partial one depend on
            # the bytes after the key.
            cores.add(encode(shifted[:len(shifted) // 3 * 3]).decode("ascii")[skipped:])
    return cores
