"""FLEURS's own options: the language, a prompt in place of ours, and a system prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.fleurs.facts import DEFAULT_LANGUAGES, LANGUAGES
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings


class FleursOptions(BenchmarkOptions):
    fleurs_language: Annotated[tuple[str, ...], Flag(
        "FLEURS languages (hub configs, comma-separated) whose test splits are run, each a "
        "task scored on its own: en_us, cmn_hans_cn (Chinese, character error rate), "
        "yue_hant_hk (Cantonese, characters), fr_fr, ... any of the release's 102",
        convert.some_of(LANGUAGES), "LANG[,LANG...]")] = DEFAULT_LANGUAGES
    fleurs_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each FLEURS utterance in place of ours (a model's own "
        "convention, such as a language tag)", convert.path, "FILE",
        unset="the built-in instruction")] = None
    fleurs_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each FLEURS utterance",
        convert.path, "FILE", unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read("fleurs", self.fleurs_prompt, self.fleurs_system,
                                          languages=self.fleurs_language)
