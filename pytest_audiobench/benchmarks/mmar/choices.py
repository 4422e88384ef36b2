"""The names MMAR's options choose among: answer matchers and prompt styles."""

from __future__ import annotations

from typing import Literal

Matcher = Literal["official", "strict"]
MATCHERS: tuple[Matcher, ...] = ("official", "strict")
PromptStyle = Literal["default", "reasoning"]
PROMPT_STYLES: tuple[PromptStyle, ...] = ("default", "reasoning")
