"""A toy benchmark, defined outside the plugin the way a third party would: a spec registered
in the ``pytest_audiobench.benchmarks`` entry-point group, its own option, its own data
layout, verdict type, judge protocol and metrics (see ``benchmark.py``)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench import BenchmarkOptions, BenchmarkSpec, Option, convert

NAME = "toy"
TASKS = ("colours", "numbers")


class ToyOptions(BenchmarkOptions):
    toy_prefix = Option[str]("text put before every toy question", str, "Q:", "TEXT")
    toy_export = Option[Path | None](
        "write the toy answers here (one line per sample)", convert.path, metavar="PATH",
        merge_setting="export")

    def settings(self, here: Path) -> dict[str, object]:
        return {"prefix": self.toy_prefix,
                "export": str(here / self.toy_export) if self.toy_export else None}


SPEC = BenchmarkSpec(name=NAME, tasks=TASKS, benchmark="tests.toy.benchmark:Toy",
                     options=ToyOptions, needs_judge=True, layout="the folder holding toy.json")
