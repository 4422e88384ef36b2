"""Common Voice's own options: the locales, a prompt in place of ours, and a system prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.common_voice.facts import HUB_LOCALES, LOCALES
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings


class CommonVoiceOptions(BenchmarkOptions):
    common_voice_locale: Annotated[tuple[str, ...] | None, Flag(
        "Common Voice 15 locales (comma-separated) whose test splits are run, each a task "
        "scored on its own: en, fr (word error rate), zh-CN, yue (character error rate); a "
        "selected locale the data lacks stops the run", convert.some_of(LOCALES),
        "LOC[,LOC...]", unset=f"{', '.join(LOCALES)} from a folder; {', '.join(HUB_LOCALES)} "
        "from huggingface, whose copy has no yue")] = None
    common_voice_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each Common Voice utterance in place of ours (a model's "
        "own convention, such as a language tag)", convert.path, "FILE",
        unset="the built-in instruction")] = None
    common_voice_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each Common Voice utterance",
        convert.path, "FILE", unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read("common-voice", self.common_voice_prompt,
                                          self.common_voice_system,
                                          languages=self.common_voice_locale or ())
