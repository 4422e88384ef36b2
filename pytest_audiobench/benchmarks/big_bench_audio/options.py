"""Big Bench Audio's own options: the instruction sent with the clip, the judge prompt, its
retries, and the judge's temperature and reading, by default those of AU-Harness, whose
leaderboard the published baselines come from (``baselines/big_bench_audio/``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.benchmarks.big_bench_audio.facts import (
    JUDGE_READING,
    JUDGE_TEMPERATURE,
    READINGS,
    Reading,
)
from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import BenchmarkOptions, Flag

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.big_bench_audio.settings import BigBenchAudioSettings


class BigBenchAudioOptions(BenchmarkOptions):
    big_bench_audio_prompt: Annotated[Path | None, Flag(
        "file replacing the instruction sent with each Big Bench Audio clip (the question "
        "is only in the audio)", convert.path, "FILE",
        unset="ours, to answer the question heard")] = None
    big_bench_audio_judge_template: Annotated[Path | None, Flag(
        "file replacing the built-in Big Bench Audio judge prompt; it must contain "
        "{question}, {official_answer} and {answer}, and ask for CORRECT or INCORRECT",
        convert.path, "FILE", unset="the built-in prompt")] = None
    big_bench_audio_judge_retries: Annotated[int, Flag(
        "new Big Bench Audio judge calls after a reply that is not the single word CORRECT "
        "or INCORRECT", convert.non_negative_int, "N")] = 2
    big_bench_audio_judge_temperature: Annotated[float, Flag(
        "Big Bench Audio judge temperature, in place of --audiobench-judge-temperature "
        "(default: {default}, AU-Harness's, whose leaderboard the published baselines are)",
        convert.non_negative_float, "T")] = JUDGE_TEMPERATURE
    big_bench_audio_judge_reading: Annotated[Reading, Flag(
        "how a Big Bench Audio judge reply is read: case-insensitive (Correct is CORRECT, as "
        "AU-Harness reads it) or exact (the upper-case word only); any other reply is asked "
        "again (default: {default})", convert.choice(READINGS), "HOW")] = JUDGE_READING

    def settings(self) -> BigBenchAudioSettings:
        from pytest_audiobench.benchmarks.big_bench_audio.judge import read_template
        from pytest_audiobench.benchmarks.big_bench_audio.settings import (
            BigBenchAudioSettings,
        )
        from pytest_audiobench.benchmarks.templating import read_template as read_prompt

        prompt, template = self.big_bench_audio_prompt, self.big_bench_audio_judge_template
        return BigBenchAudioSettings(
            prompt_path=prompt,
            prompt=read_prompt(prompt, "--audiobench-big-bench-audio-prompt", ())
            if prompt else None,
            judge_template_path=template,
            judge_template=read_template(template) if template else None,
            judge_retries=self.big_bench_audio_judge_retries,
            judge_temperature=self.big_bench_audio_judge_temperature,
            judge_reading=self.big_bench_audio_judge_reading)
