"""A toy benchmark, defined outside the plugin the way a third party would: a spec registered
in the ``pytest_audiobench.benchmarks`` entry-point group, its own option, its own data
layout, verdict type, judge protocol and metrics (see ``benchmark.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench import BenchmarkOptions, BenchmarkSpec, Flag, convert

if TYPE_CHECKING:
    from tests.toy.benchmark import ToySettings

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
