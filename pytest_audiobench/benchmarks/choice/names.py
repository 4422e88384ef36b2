"""The names a multiple-choice benchmark's options choose among: its prompt styles and its
matchers. A leaf, cheap to import: the spec modules read it at every pytest start."""

from __future__ import annotations

from typing import Literal

PromptStyle = Literal["default", "reasoning"]
PROMPT_STYLES: tuple[PromptStyle, ...] = ("default", "reasoning")
Matcher = Literal["official", "strict"]
MATCHERS: tuple[Matcher, ...] = ("official", "strict")
"""The official token-set rule and the strict one (``choice/matching.py``)."""
