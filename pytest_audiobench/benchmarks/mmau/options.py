"""MMAU's own options: the split, the prompt, the matcher and the submission."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.choice.names import (
    MATCHERS,
    PROMPT_STYLES,
    Matcher,
    PromptStyle,
)
from pytest_audiobench.benchmarks.mmau.facts import SPLITS
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.mmau.settings import MmauSettings


class MmauOptions(BenchmarkOptions):
    mmau_split: Annotated[str, Flag(
        "MMAU split: test-mini (answers published: scored and gated) or test (answers "
        "withheld: no numbers and no gate; write the submission with --audiobench-export-mmau)",
        convert.choice(tuple(SPLITS)), "SPLIT")] = "test-mini"
    mmau_prompt: Annotated[PromptStyle, Flag(
        "MMAU prompt: default (the question, a line asking for one option, the options one "
        "per line) or reasoning (asks for the reasoning, then an 'Answer:' line)",
        convert.choice(PROMPT_STYLES), "STYLE")] = "default"
    mmau_template: Annotated[Path | None, Flag(
        "file replacing the MMAU prompt; it must contain {question} and {choices}",
        convert.path, "FILE", unset="the built-in prompt")] = None
    mmau_matcher: Annotated[Matcher, Flag(
        "MMAU answer matcher that decides correctness: official (the official evaluation.py's "
        "decisions) or strict (fixes its same-words false positives, accepts an option "
        "letter); both are reported", convert.choice(MATCHERS), "NAME")] = "official"
    export_mmau: Annotated[Path | None, Flag(
        "write the MMAU submission here: the split's records as a JSON array, each with the "
        "model's answer under model_output and model_prediction", convert.path, "PATH",
        merge_setting="export_path", unset="none: not written")] = None

    def settings(self) -> MmauSettings:
        from pytest_audiobench.benchmarks.choice.templates import CHOICE_PLACEHOLDERS
        from pytest_audiobench.benchmarks.mmau.settings import MmauSettings
        from pytest_audiobench.benchmarks.templating import read_template

        template = self.mmau_template
        return MmauSettings(
            split=self.mmau_split, prompt=self.mmau_prompt, template_path=template,
            template=read_template(template, "--audiobench-mmau-template",
                                   CHOICE_PLACEHOLDERS) if template else None,
            matcher=self.mmau_matcher, export_path=self.export_mmau)
