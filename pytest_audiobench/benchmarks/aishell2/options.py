"""AISHELL-2's own options: a prompt in place of ours, and a system prompt."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.aishell2.facts import NAME
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings


class Aishell2Options(BenchmarkOptions):
    aishell2_prompt: Annotated[Path | None, Flag(
        "file whose text is sent with each AISHELL-2 utterance in place of ours (a model's "
        "own convention; docs/benchmarks.md)", convert.path, "FILE",
        unset="the built-in instruction")] = None
    aishell2_system: Annotated[Path | None, Flag(
        "file whose text is sent as a system message before each AISHELL-2 utterance",
        convert.path, "FILE", unset="none: no system message")] = None

    def settings(self) -> TranscriptionSettings:
        from pytest_audiobench.benchmarks.wer.settings import TranscriptionSettings

        return TranscriptionSettings.read(NAME, self.aishell2_prompt, self.aishell2_system)
