"""MMAR's own options: the prompt, the matcher, the export, and the rubric judge's protocol."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.mmar.choices import (
    MATCHERS,
    PROMPT_STYLES,
    Matcher,
    PromptStyle,
)
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Option


class MmarOptions(BenchmarkOptions):
    mmar_prompt = Option[PromptStyle](
        "MMAR prompt: default (the maintainers' layout) or reasoning (asks for the reasoning, "
        "then an 'Answer:' line)", convert.choice(PROMPT_STYLES), "default", "STYLE")
    mmar_template = Option[Path | None](
        "file replacing the MMAR prompt; it must contain {question} and {choices}",
        convert.path, metavar="FILE")
    matcher = Option[Matcher](
        "MMAR answer matcher that decides correctness: official (the official script's "
        "decisions) or strict (fixes its same-words false positives, accepts an option letter); "
        "both are reported", convert.choice(MATCHERS), "official", "NAME")
    export_mmar = Option[Path | None](
        "write the MMAR challenge submission (JSONL of id, thinking_prediction, "
        "answer_prediction) here", convert.path, metavar="PATH", merge_setting="export_path")
    rubric_temperature = Option[float]("MMAR rubric judge temperature (official: 0)",
                                       convert.non_negative_float, 0.0, "T")
    rubric_seed = Option[int]("MMAR rubric judge seed (official: 42)", convert.whole_number, 42,
                              "N")
    rubric_raters = Option[int](
        "MMAR rubric raters per correct answer (official: 5; the middle ones are averaged)",
        convert.positive_int, 5, "N")
    rubric_attempts = Option[int](
        "MMAR rubric judge attempts per rater before the sample's rubric score is unavailable "
        "(official: 20)", convert.positive_int, 20, "N")

    def settings(self, here: Path) -> dict[str, Any]:
        from pytest_audiobench.benchmarks.mmar.prompts import read_prompt_template
        from pytest_audiobench.benchmarks.mmar.settings import MmarSettings, RubricSettings

        template = here / self.mmar_template if self.mmar_template else None
        return MmarSettings(
            prompt=self.mmar_prompt, template_path=template,
            template=read_prompt_template(template) if template else None,
            matcher=self.matcher,
            export_path=here / self.export_mmar if self.export_mmar else None,
            rubric=RubricSettings(temperature=self.rubric_temperature, seed=self.rubric_seed,
                                  raters=self.rubric_raters, attempts=self.rubric_attempts),
        ).model_dump(mode="json")
