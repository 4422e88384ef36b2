"""WenetSpeech's own options: a prompt in place of ours, and a system prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings


class WenetspeechOptions(BenchmarkOptions):
    wenetspeech_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each WenetSpeech segment in place of ours (a model's "
        "own convention, such as Qwen2-Audio's <|zh|> tag; docs/benchmarks.md)",
        convert.path, "FILE", unset="the built-in instruction")] = None
    wenetspeech_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each WenetSpeech segment (a "
        "model trained with one, such as Qwen2.5-Omni)", convert.path, "FILE",
        unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read("wenetspeech", self.wenetspeech_prompt,
                                          self.wenetspeech_system)
