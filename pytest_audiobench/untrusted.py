"""Text a model, a judge or a server wrote, made safe to show (pure, imported from every layer).

A release gate runs the model it judges, and the model writes the text the gate prints. Sent
raw, an answer could clear the screen and print a fake "24 passed" and a fake verdict (ANSI
escapes, a carriage return, backspaces), reverse what follows it (a bidirectional override),
hide the rest of the log (concealed text), or issue a CI workflow command (GitHub Actions
reads ``::command`` at the start of a line, after spaces, and its older parser ``##[command]``
anywhere in one; Azure Pipelines reads ``##vso[`` anywhere, in any letter case). So:

- ``visible`` is the one function that makes such text safe to show: every control,
  bidirectional and invisible tag character as an escape (``\\x1b``, ``\\u202e``), a lone
  surrogate too; newlines and tabs stay (a CR LF pair is a newline); and every workflow
  command disarmed by one escaped character (``#\\x23[``, ``#\\x23vso[``, a line's leading
  ``\\x3a:``), which no runner reads;
- ``fenced`` puts a visible ``| `` before every line of such text after its first, whose
  label the caller writes: no line of it can start, after whitespace, with a workflow command
  or pose as one of the plugin's own lines;
- ``clipped`` bounds what a report carries of one text, saying its whole length and a hash of
  it, so that an answer of megabytes does not become a page of hundreds;
- ``brief`` bounds what an error message quotes of one (an error body, a judge's reply, a
  record's id): its first line, a few hundred characters at most, and its whole length.
"""

from __future__ import annotations

import hashlib
import re

BRIEF_CHARS = 300
"""The most characters of a text from outside that an error message quotes (``brief``)."""
SHOWN_CHARS = 20_000
"""The most characters of one text (an answer, a reasoning, a judge's reply) that the JSON
report, the page and the junit properties carry; past it the text is cut and says its length
and the SHA-256 of the whole (the response cache keeps it whole, and scoring read it whole)."""

_HIDDEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f"  # C0 but tab and newline, DEL, C1 (\x9b is a CSI)
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional marks and overrides
    "\u2028\u2029"  # line and paragraph separators
    "\ud800-\udfff"  # lone surrogates
    "\U000e0000-\U000e007f]")  # tag characters: invisible text
_COMMAND = re.compile(r"##(?=(?:vso)?\[)|^[^\S\n]*::", re.IGNORECASE | re.MULTILINE)
"""A workflow command's opening: ``##[`` or ``##vso[`` anywhere (the runners search each line
for them), ``::`` at a line's start after whitespace other than the newline."""
_FENCE = "| "


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def visible(text: str) -> str:
    """``text`` with every character that could move the cursor, change the terminal's state,
    reorder or hide what follows written as an escape."""
    text = text.replace("\r\n", "\n")
    if _HIDDEN.search(text):
        text = _HIDDEN.sub(_escape, text)
    return _COMMAND.sub(_disarmed, text) if _COMMAND.search(text) else text


def _disarmed(match: re.Match[str]) -> str:
    """A command's opening with one of its characters written as an escape: ``##[`` becomes
    ``#\\x23[``, a line's ``::`` becomes ``\\x3a:``."""
    opening = match.group()
    return opening[:-2] + "\\x3a:" if opening.endswith("::") else "#\\x23"


def plain(text: str) -> bool:
    """Whether ``text`` shows as it is, on one line: nothing in it that ``visible`` would
    write otherwise, no newline and no tab. A name pytest prints itself (a node id's parts)
    must be."""
    return visible(text) == text and "\n" not in text and "\t" not in text


def fenced(text: str, indent: str) -> str:
    """``text`` made visible, its lines after the first each starting with ``indent`` and a
    visible fence: the caller writes a label before the first."""
    first, *rest = visible(text).split("\n")
    return "\n".join([first, *(f"{indent}{_FENCE}{line}" for line in rest)])


def one_line(text: str) -> str:
    """``text`` made visible on one line (its newlines shown as ``\\n``): for a message that
    names what a server said."""
    return visible(text).replace("\n", "\\n")


def json_safe(text: str) -> str:
    """JSON text with every such character that JSON lets through raw (DEL, C1, bidirectional
    marks, separators, tags) written as its ``\\u`` escape, and a workflow command's ``##``
    as ``#\\u0023`` (a ``#`` stands only inside a JSON string, and a string never starts a
    line, so no ``::`` can): the same JSON to a reader, and nothing to a terminal or a CI log
    that prints the file."""
    if _HIDDEN.search(text):
        text = _HIDDEN.sub(_json_escape, text)
    return _JSON_COMMAND.sub("#\\\\u0023", text) if _JSON_COMMAND.search(text) else text


_JSON_COMMAND = re.compile(r"##(?=(?:vso)?\[)", re.IGNORECASE)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def clipped(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` when it has at most ``limit`` characters; else its first ``limit``, then its
    whole length and the SHA-256 of the whole (surrogates and all)."""
    if len(text) <= limit:
        return text
    whole = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    return (f"{text[:limit]} ... [clipped: {len(text)} characters in all, "
            f"sha256 {whole}]")


def brief(text: str, limit: int = BRIEF_CHARS, *, whole: bool = True) -> str:
    """``text`` as an error message quotes it: its first line, at most ``limit`` characters of
    it, then, when that is not all of it, its whole length (a server's error body of megabytes,
    a judge's reply that never parsed); ``whole`` False: ``text`` is the start of a longer one
    that was not read to its end, and says so."""
    first = text[:limit].splitlines()
    kept = first[0] if first else ""
    if not whole:
        return f"{kept} ... [cut: more than {len(text)} characters, the rest unread]"
    return kept if kept == text else f"{kept} ... [cut: {len(text)} characters in all]"
