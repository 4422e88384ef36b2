"""Helpers for the failure reports benchmarks print under a failed item."""

from __future__ import annotations

from pytest_audiobench.untrusted import fenced

SHOWN = 2000
"""The characters of one text a failure report shows (the page and the JSON report show more)."""
INDENT = " " * 11


def text_field(label: str, text: str) -> str:
    """``label:`` and a text under it: long texts cut with the length said, every character
    that could steer the terminal shown as an escape, and each line after the first behind a
    visible fence (``untrusted.fenced``): what a model wrote never starts a line of the log."""
    body = text if len(text) <= SHOWN else text[:SHOWN] + f" ... [{len(text) - SHOWN} more chars]"
    return f"{label + ':':<11}" + fenced(body, INDENT)
