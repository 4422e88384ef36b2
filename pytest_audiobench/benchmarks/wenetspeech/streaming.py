"""The records of one JSON array in a JSON object too large to load whole, one at a time, with
the standard library: ``WenetSpeech.json`` holds the whole corpus (gigabytes, every training
segment), and a test run needs the few thousand recordings of its test sets.

The file is read in chunks; each record of the array is decoded by ``json``'s own scanner
(``raw_decode``) once the buffer holds it whole, and the part already read is dropped, so
memory holds one record and a chunk, whatever the file's size. A record that does not decode
is read further only while the failure could be the buffer's end; then it is a ``BadJson``
naming its line.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, TextIO

CHUNK = 1 << 20
"""Characters read at a time, at least (a record longer than the buffer doubles it)."""
SLACK = 1 << 16
"""How far before the buffer's end a failure to decode may still be the buffer's end: a
string starts there that goes on past it (no string of the release is that long)."""
_WHITESPACE = " \t\n\r"


class BadJson(Exception):
    """The file is not the JSON expected; the message says where (its line) and why."""


class _Reader:
    """A window on the text of a file: the characters from ``pos`` on, read as needed."""

    def __init__(self, text: TextIO) -> None:
        self.text = text
        self.buffer = ""
        self.pos = 0
        self.line = 1
        """The line of the buffer's first character."""
        self.ended = False
        self.decoder = json.JSONDecoder()

    def _more(self) -> bool:
        """Read on into the buffer, dropping what was consumed; False at the end. As much
        as the buffer holds, at least a chunk: a record longer than a chunk is decoded again
        a few times only."""
        if self.ended:
            return False
        if self.pos:
            self.line += self.buffer.count("\n", 0, self.pos)
            self.buffer, self.pos = self.buffer[self.pos:], 0
        chunk = self.text.read(max(CHUNK, len(self.buffer)))
        self.ended = not chunk
        self.buffer += chunk
        return bool(chunk)

    def where(self, pos: int | None = None) -> str:
        at = self.pos if pos is None else pos
        return f"line {self.line + self.buffer.count(chr(10), 0, at)}"

    def peek(self) -> str:
        """The next character that is not whitespace, left unread; '' at the end."""
        while True:
            while self.pos < len(self.buffer) and self.buffer[self.pos] in _WHITESPACE:
                self.pos += 1
            if self.pos < len(self.buffer) or not self._more():
                return self.buffer[self.pos:self.pos + 1]

    def take(self, allowed: str, expected: str) -> str:
        """Consume the next character, one of `allowed`; BadJson naming `expected` else."""
        found = self.peek()
        if not found or found not in allowed:
            said = repr(found) if found else "the end of the file"
            raise BadJson(f"{self.where()}: {said} where {expected} was expected")
        self.pos += 1
        return found

    def value(self) -> Any:
        """The next JSON value, decoded whole."""
        self.peek()
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buffer, self.pos)
            except json.JSONDecodeError as exc:
                # Near the buffer's end the value may only be cut off: read on. Anywhere else
                # (or at the file's end) the text itself is wrong.
                if exc.pos < len(self.buffer) - SLACK or not self._more():
                    raise BadJson(f"{self.where(exc.pos)}: not JSON ({exc.msg})") from exc
                continue
            # A number at the buffer's end may go on in the next chunk ("12" of "125").
            if end == len(self.buffer) and not isinstance(value, dict | list | str) \
                    and self._more():
                continue
            self.pos = end
            return value


def array_items(path: Path, key: str) -> Iterator[tuple[str, Any]]:
    """Each item of the array under the top-level `key` of the JSON object in `path`, with
    the line it starts on; the object's other keys are read past. BadJson when the file is
    not an object, has no such array, or is not JSON where it is read; OSError and
    UnicodeDecodeError as the file raises them."""
    with path.open(encoding="utf-8") as text:
        reader = _Reader(text)
        reader.take("{", "a JSON object")
        found = reader.peek() != "}" and (yield from _members(reader, key))
        if not found:
            raise BadJson(f"no top-level {key!r}; expected an object holding the array {key}")


def _members(reader: _Reader, key: str) -> Generator[tuple[str, Any], None, bool]:
    """The object's members up to its closing brace, the array's items yielded; returns
    whether the array was there."""
    found = False
    while True:
        name = reader.value()
        if not isinstance(name, str):
            raise BadJson(f"{reader.where()}: a key that is not a string")
        reader.take(":", "':' after a key")
        if name == key:
            found = True
            yield from _items(reader, key)
        else:
            reader.value()
        if reader.take(",}", "',' or '}' after a value") == "}":
            return found


def _items(reader: _Reader, key: str) -> Iterator[tuple[str, Any]]:
    reader.take("[", f"the array {key}")
    if reader.peek() == "]":
        reader.pos += 1
        return
    while True:
        reader.peek()
        where = reader.where()
        yield where, reader.value()
        if reader.take(",]", f"',' or ']' after an item of {key}") == "]":
            return
