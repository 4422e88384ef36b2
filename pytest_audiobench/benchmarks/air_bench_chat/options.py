"""AIR-Bench Chat's own options: the judge prompt, its protocol, and the per-sample bar."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Option


class ChatOptions(BenchmarkOptions):
    judge_retries = Option[int]("new judge calls after a reply the protocol's parser rejects",
                                convert.non_negative_int, 2, "N")
    judge_template = Option[Path | None](
        "file replacing the built-in judge prompt; it must contain {audio_description}, "
        "{question}, {answer_1} and {answer_2}", convert.path, metavar="FILE")
    no_swap = Option[bool]("judge once (reference as Assistant 1) instead of both orders")
    sample_bar = Option[float]("a sample whose model score is below this fails its test item",
                               convert.non_negative_float, 5.0, "SCORE")

    def settings(self, here: Path) -> dict[str, Any]:
        from pytest_audiobench.benchmarks.air_bench_chat.judge import read_template
        from pytest_audiobench.benchmarks.air_bench_chat.settings import ChatSettings

        path = here / self.judge_template if self.judge_template else None
        return ChatSettings(
            judge_template_path=path, judge_template=read_template(path) if path else None,
            swap=not self.no_swap, judge_retries=self.judge_retries,
            sample_bar=self.sample_bar).model_dump(mode="json")
