"""VoiceBench's own options: the system message, the judge's sampling and draws (by default
the reference's: temperature 0.5, top_p 0.95, three), the seed of the guesses and the
bar of an open item."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.templating import read_template
from pytest_audiobench.benchmarks.voicebench.facts import (
    ASSISTANT_SYSTEM,
    JUDGE_DRAWS,
    JUDGE_TEMPERATURE,
    JUDGE_TOP_P,
    PEDANT_CLASSIFIER_URL,
)
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag
from pytest_audiobench.errors import AudiobenchError

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.voicebench.settings import VoiceBenchSettings


class VoiceBenchOptions(BenchmarkOptions):
    voicebench_no_system: Annotated[bool, Flag(
        "send VoiceBench's spoken instruction alone, without a system message (as the "
        "reference asks Qwen2-Audio and Phi-4-multimodal)")] = False
    voicebench_system: Annotated[Path | None, Flag(
        "file whose text is sent as the system message before each VoiceBench instruction, in "
        "place of the one the reference sends GPT-4o (it sends each model its own wrapper's: "
        "Ultravox's, Qwen2.5-Omni's; docs/benchmarks.md)", convert.path, "FILE",
        unset="the reference's GPT-4o message")] = None
    voicebench_judge_temperature: Annotated[float, Flag(
        "VoiceBench judge temperature, in place of --audiobench-judge-temperature "
        "(default: {default}, the reference's)", convert.non_negative_float, "T")
    ] = JUDGE_TEMPERATURE
    voicebench_judge_top_p: Annotated[float, Flag(
        "VoiceBench judge top_p (default: {default}, the reference's)", convert.share, "P")
    ] = JUDGE_TOP_P
    voicebench_judge_draws: Annotated[int, Flag(
        "draws of each VoiceBench judge request, times --audiobench-judge-repeats (default: "
        "{default}, the reference's three completions)", convert.positive_int, "N")
    ] = JUDGE_DRAWS
    voicebench_judge_retries: Annotated[int, Flag(
        "new VoiceBench judge calls after a reply that is not a rating of 1 to 5",
        convert.non_negative_int, "N")] = 2
    voicebench_seed: Annotated[int, Flag(
        "seed of the guess standing in for a multiple-choice or bbh reply no rule reads (the "
        "reference guesses unseeded)", convert.whole_number, "N")] = 0
    voicebench_rating_bar: Annotated[float, Flag(
        "an open VoiceBench item whose mean judge rating is below this fails its test item",
        convert.non_negative_float, "RATING")] = 3.0
    voicebench_pedant_url: Annotated[str, Flag(
        "where sd-qa's PEDANT classifier is downloaded from with the data, when qa-metrics is "
        "installed (default: {default}, where qa-metrics downloads it from)",
        convert.http_url, "URL")
    ] = PEDANT_CLASSIFIER_URL

    def settings(self) -> VoiceBenchSettings:
        from pytest_audiobench.benchmarks.voicebench.settings import VoiceBenchSettings

        if self.voicebench_no_system and self.voicebench_system is not None:
            raise AudiobenchError("--audiobench-voicebench-no-system and "
                                  "--audiobench-voicebench-system both given; expected one")
        system = None if self.voicebench_no_system else ASSISTANT_SYSTEM
        if self.voicebench_system is not None:
            system = read_template(self.voicebench_system, "--audiobench-voicebench-system", ())
        return VoiceBenchSettings(
            system=system, system_path=self.voicebench_system,
            judge_temperature=self.voicebench_judge_temperature,
            judge_top_p=self.voicebench_judge_top_p, judge_draws=self.voicebench_judge_draws,
            judge_retries=self.voicebench_judge_retries, seed=self.voicebench_seed,
            rating_bar=self.voicebench_rating_bar, pedant_url=self.voicebench_pedant_url)
