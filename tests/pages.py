"""Reading the HTML page back in tests: its elements and attributes, with the standard
library's parser (the page is HTML, not XML)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: list[str] = field(default_factory=list)
    """The text inside it, nested elements' included."""

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class _Collector(HTMLParser):
    VOID = frozenset({"meta", "input", "br", "img", "link", "source", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[Element] = []
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.elements.append(element)
        if tag not in self.VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                return

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text.append(data)


@dataclass
class Page:
    path: Path
    source: str
    elements: list[Element]

    def all(self, tag: str, cls: str | None = None) -> list[Element]:
        return [e for e in self.elements
                if e.tag == tag and (cls is None or cls in e.classes)]

    def samples(self) -> dict[str, Element]:
        """The sample rows by node id."""
        return {e.attrs["data-nodeid"]: e for e in self.all("details", "sample")}

    def inside(self, outer: Element, tag: str) -> list[Element]:
        """The ``tag`` elements that come after ``outer`` and before the next sample row."""
        start = self.elements.index(outer)
        out = []
        for element in self.elements[start + 1:]:
            if element.tag == "details":
                break
            if element.tag == tag:
                out.append(element)
        return out


def read_page(path: Path) -> Page:
    source = path.read_text(encoding="utf-8")
    collector = _Collector()
    collector.feed(source)
    return Page(path, source, collector.elements)
