"""A toy benchmark and a toy judge, defined outside the plugin the way a third party would: a
benchmark spec with its own option, its own data layout, grade type, judge protocol and
metrics (``benchmark.py``); a multiple-choice benchmark on the public ``ChoiceBenchmark``, which
states little more than its data and prompt (``choice.py``); and a judge provider with an
option of its own, that answers the toy's question in this process (``judge.py``). The tests
register them from a conftest (``pytest_audiobench_register``) and as a package would, in the
``pytest_audiobench.benchmarks`` and ``pytest_audiobench.providers`` entry-point groups."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench import (
    MATCHERS,
    BenchmarkOptions,
    BenchmarkSpec,
    Flag,
    ProviderOptions,
    ProviderSpec,
    convert,
)

if TYPE_CHECKING:
    from tests.toy.benchmark import ToySettings
    from tests.toy.choice import ToyChoiceSettings
    from tests.toy.judge import ToyJudgeSettings

NAME = "toy"
TASKS = ("colours", "numbers")


class ToyOptions(BenchmarkOptions):
    toy_prefix: Annotated[str, Flag("text put before every toy question", str, "TEXT")] = "Q:"
    toy_export: Annotated[Path | None, Flag(
        "write the toy answers here (one line per sample)", convert.path, "PATH",
        merge_setting="export")] = None

    def settings(self) -> ToySettings:
        from tests.toy.benchmark import ToySettings  # the spec stays cheap to import

        return ToySettings(prefix=self.toy_prefix, export=self.toy_export)


SPEC = BenchmarkSpec(name=NAME, tasks=TASKS, benchmark="tests.toy.benchmark:Toy",
                     options=ToyOptions, needs_judge=True, layout="the folder holding toy.json")


CHOICE_NAME = "toy_choice"
CHOICE_TASKS = ("animals", "instruments")
CHOICE_LAYOUT = "the folder holding toy_choice.json"


class ToyChoiceOptions(BenchmarkOptions):
    toy_choice_matcher: Annotated[str, Flag(
        "toy_choice matcher that decides: official or strict",
        convert.choice(MATCHERS), "NAME")] = "official"
    toy_choice_export: Annotated[Path | None, Flag(
        "write the toy_choice predictions here (JSONL)", convert.path, "PATH",
        merge_setting="export")] = None

    def settings(self) -> ToyChoiceSettings:
        from tests.toy.choice import ToyChoiceSettings

        return ToyChoiceSettings(matcher=self.toy_choice_matcher, export=self.toy_choice_export)


CHOICE_SPEC = BenchmarkSpec(name=CHOICE_NAME, tasks=CHOICE_TASKS,
                            benchmark="tests.toy.choice:ToyChoice", options=ToyChoiceOptions,
                            layout=CHOICE_LAYOUT)


class ToyJudgeOptions(ProviderOptions):
    toy_judge_case: Annotated[bool, Flag(
        "the toy judge tells answers apart by letter case too")] = False

    def settings(self) -> ToyJudgeSettings:
        from tests.toy.judge import ToyJudgeSettings

        return ToyJudgeSettings(case=self.toy_judge_case)


JUDGE = ProviderSpec(name="toy-judge", role="judge", provider="tests.toy.judge:ToyJudge",
                     about="says yes when the answer is the reference", options=ToyJudgeOptions)
