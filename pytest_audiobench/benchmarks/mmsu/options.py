"""MMSU's own options: the prompt, a template in its place, and the matcher that decides."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.choice.names import (
    MATCHERS,
    PROMPT_STYLES,
    Matcher,
    PromptStyle,
)
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.choice.settings import ChoiceSettings


class MmsuOptions(BenchmarkOptions):
    mmsu_prompt: Annotated[PromptStyle, Flag(
        "MMSU prompt: default (the question, the lettered options, a one-letter reply asked "
        "for) or reasoning (asks for the reasoning, then an 'Answer:' line with the letter)",
        convert.choice(PROMPT_STYLES), "STYLE")] = "default"
    mmsu_template: Annotated[Path | None, Flag(
        "file replacing the MMSU prompt; it must contain {question} and {choices} (the "
        "lettered options, one a line)", convert.path, "FILE", unset="the built-in prompt")] = None
    mmsu_matcher: Annotated[Matcher, Flag(
        "MMSU answer matcher that decides correctness: official (mmsu_evaluation.py's rule: "
        "the reply's first or second-to-last character, other replies left out of the count) "
        "or strict (the letter as a person reads it; unreadable is wrong); both are reported",
        convert.choice(MATCHERS), "NAME")] = "official"

    def settings(self) -> ChoiceSettings:
        from pytest_audiobench.benchmarks.choice.settings import ChoiceSettings
        from pytest_audiobench.benchmarks.choice.templates import CHOICE_PLACEHOLDERS
        from pytest_audiobench.benchmarks.templating import read_template

        template = self.mmsu_template
        return ChoiceSettings(
            prompt=self.mmsu_prompt, template_path=template,
            template=read_template(template, "--audiobench-mmsu-template",
                                   CHOICE_PLACEHOLDERS) if template else None,
            matcher=self.mmsu_matcher)
