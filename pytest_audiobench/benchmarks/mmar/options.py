"""MMAR's own options: the prompt, the matcher, the export, and the rubric judge's protocol."""

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
    from pytest_audiobench.benchmarks.mmar.settings import MmarSettings


class MmarOptions(BenchmarkOptions):
    mmar_prompt: Annotated[PromptStyle, Flag(
        "MMAR prompt: default (the maintainers' layout) or reasoning (asks for the reasoning, "
        "then an 'Answer:' line)", convert.choice(PROMPT_STYLES), "STYLE")] = "default"
    mmar_template: Annotated[Path | None, Flag(
        "file replacing the MMAR prompt; it must contain {question} and {choices}",
        convert.path, "FILE", unset="the built-in prompt")] = None
    mmar_matcher: Annotated[Matcher, Flag(
        "MMAR answer matcher that decides correctness: official (the official script's "
        "decisions) or strict (fixes its same-words false positives, accepts an option "
        "letter); both are reported", convert.choice(MATCHERS), "NAME",
        formerly="matcher")] = "official"
    export_mmar: Annotated[Path | None, Flag(
        "write the MMAR challenge submission (JSONL of id, thinking_prediction, "
        "answer_prediction) here", convert.path, "PATH", merge_setting="export_path",
        unset="none: not written")] = None
    rubric_temperature: Annotated[float, Flag(
        "MMAR rubric judge temperature (default: {default}, the official one)",
        convert.non_negative_float, "T")] = 0.0
    rubric_seed: Annotated[int, Flag(
        "MMAR rubric judge seed (default: {default}, the official one)", convert.whole_number,
        "N")] = 42
    rubric_raters: Annotated[int, Flag(
        "MMAR rubric raters per correct answer, the middle ones averaged (default: {default}, as "
        "officially)", convert.positive_int, "N")] = 5
    rubric_attempts: Annotated[int, Flag(
        "MMAR rubric judge attempts per rater before the sample's rubric score is unavailable "
        "(default: {default}, as officially)", convert.positive_int, "N")] = 20

    def settings(self) -> MmarSettings:
        from pytest_audiobench.benchmarks.choice.templates import CHOICE_PLACEHOLDERS
        from pytest_audiobench.benchmarks.mmar.settings import MmarSettings, RubricSettings
        from pytest_audiobench.benchmarks.templating import read_template

        template = self.mmar_template
        return MmarSettings(
            prompt=self.mmar_prompt, template_path=template,
            template=read_template(template, "--audiobench-mmar-template",
                                   CHOICE_PLACEHOLDERS) if template else None,
            matcher=self.mmar_matcher, export_path=self.export_mmar,
            rubric=RubricSettings(temperature=self.rubric_temperature, seed=self.rubric_seed,
                                  raters=self.rubric_raters, attempts=self.rubric_attempts))
