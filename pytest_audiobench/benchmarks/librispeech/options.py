"""LibriSpeech's own options: a prompt in place of ours, and a system prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings


class LibrispeechOptions(BenchmarkOptions):
    librispeech_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each LibriSpeech utterance in place of ours (a model's "
        "own convention, such as Qwen2-Audio's language tag; docs/benchmarks.md)",
        convert.path, "FILE", unset="the built-in instruction")] = None
    librispeech_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each LibriSpeech utterance (a "
        "model trained with one, such as Qwen2.5-Omni)", convert.path, "FILE",
        unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read("librispeech", self.librispeech_prompt,
                                          self.librispeech_system)
