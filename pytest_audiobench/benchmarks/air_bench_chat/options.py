"""AIR-Bench Chat's own options: the judge prompt, its protocol, and the per-sample bar."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.air_bench_chat.settings import ChatSettings


class ChatOptions(BenchmarkOptions):
    judge_retries: Annotated[int, Flag(
        "new judge calls after a reply the protocol's parser rejects", convert.non_negative_int,
        "N")] = 2
    judge_template: Annotated[Path | None, Flag(
        "file replacing the built-in judge prompt; it must contain {audio_description}, "
        "{question}, {answer_1} and {answer_2}", convert.path, "FILE",
        unset="the built-in prompt")] = None
    no_swap: Annotated[bool, Flag(
        "judge once (reference as Assistant 1) instead of both orders")] = False
    sample_bar: Annotated[float, Flag(
        "a sample whose model score is below this fails its test item",
        convert.non_negative_float, "SCORE")] = 5.0

    def settings(self) -> ChatSettings:
        from pytest_audiobench.benchmarks.air_bench_chat.judge import read_template
        from pytest_audiobench.benchmarks.air_bench_chat.settings import ChatSettings

        path = self.judge_template
        return ChatSettings(
            judge_template_path=path, judge_template=read_template(path) if path else None,
            swap=not self.no_swap, judge_retries=self.judge_retries, sample_bar=self.sample_bar)
