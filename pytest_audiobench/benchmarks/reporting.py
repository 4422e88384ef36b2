"""Helpers for the failure reports benchmarks print under a failed item."""

from __future__ import annotations

import textwrap


def text_field(label: str, text: str) -> str:
    """``label:`` and a text indented under it, long texts cut with the length said."""
    body = text if len(text) <= 2000 else text[:2000] + f" ... [{len(text) - 2000} more chars]"
    return f"{label + ':':<11}" + textwrap.indent(body, " " * 11).lstrip()
