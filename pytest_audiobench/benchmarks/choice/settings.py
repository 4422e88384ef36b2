"""How a multiple-choice benchmark with the built-in prompts and matchers is asked and matched:
the settings MMAR and MMAU share (their options resolve them)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.choice.names import Matcher, PromptStyle
from pytest_audiobench.config.frozen import OwnSettings


class ChoiceSettings(OwnSettings):
    """The prompt, a user's template in its place, and the matcher that decides."""

    prompt: PromptStyle
    template_path: Path | None
    template: str | None
    """The text of the user's template with {question} and {choices}, read once at the start;
    it replaces ``prompt``."""
    matcher: Matcher
    """Which matcher decides correctness; both are always computed and reported."""

    @property
    def asked_with(self) -> str:
        """The prompt as the summary's notes name it: the user's file, or the style."""
        return f"prompt {self.template_path}" if self.template_path else f"{self.prompt} prompt"
