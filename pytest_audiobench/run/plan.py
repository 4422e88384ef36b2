"""The run plan: what the controller settled at the run's start, frozen, and sent whole to every
xdist worker as one value of ``workerinput``.

It holds where each benchmark's data is (located or downloaded once), the inference run the
answers belong to and the one they reuse, the deadline, each worker's share of the budgets and
what the calibration spent of them, each benchmark's comparison (``gate/drift.py``), and what
was graded or run whole before the items (``run/calibration.py``); on a resume, where the
records of the samples already done are (``run/spool.py``). A worker builds its gear
and its worker from it alone; in a plain run the controller builds its own from the same plan.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializeAsAny, field_validator

from pytest_audiobench.gate.drift import JudgeComparison
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.outcome.records import Grade, SampleRecord, read_grade


class RunPlan(BaseModel):
    model_config = ConfigDict(frozen=True)

    KEY: ClassVar[str] = "audiobench_plan"
    """The plan's one key in xdist's ``workerinput``."""

    roots: dict[str, Path]
    """Each benchmark's data folder."""
    run_id: str | None = None
    """The inference run the model's answers belong to; None without the cache (nothing is
    kept, and a run's answers are nobody's to reuse)."""
    reuse: str | None = None
    """The earlier run whose answers this one takes (--audiobench-reuse)."""
    deadline_at: float | None = None
    """Wall-clock time after which no request is sent."""
    budget_share: int = 1
    """How many processes share what is left of the request and token budgets."""
    spent: tuple[int, int] = (0, 0)
    """Requests and tokens spent before the items (the calibration)."""
    comparisons: dict[str, JudgeComparison] = {}
    """Per benchmark, what its gate pairs against, when that was decided."""
    judged_again_ahead: dict[str, tuple[list[SerializeAsAny[Grade]], str | None]] = {}
    """Baseline answers today's judge graded before the items, by node id: the grades, or
    why there are none."""
    done_ahead: dict[str, SampleRecord] = {}
    """Head to head: samples run whole before the items, by node id; their items take these."""
    settled_in: Path | None = None
    """A resume: the run's records file (``run/spool.py``), where ``settled`` are."""
    settled: dict[str, tuple[int, int]] = {}
    """A resume: the samples an earlier session of the run did, by node id, each its record's
    place in ``settled_in``; their items take these whole, neither asking nor grading."""

    @field_validator("judged_again_ahead", mode="before")
    @classmethod
    def _each_as_its_kind(cls, value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        return {nodeid: ([read_grade(v) for v in grades], failed)
                for nodeid, (grades, failed) in value.items()}

    def sent(self) -> dict[str, str]:
        """The plan as xdist's ``workerinput`` carries it."""
        return {self.KEY: self.model_dump_json()}

    @classmethod
    def received(cls, workerinput: Mapping[str, Any]) -> RunPlan:
        return cls.model_validate_json(workerinput[cls.KEY])

    def decide(self, baselines: Mapping[str, LoadedBaseline]) -> dict[str, LoadedBaseline]:
        """The baselines with the comparisons this plan decided."""
        return {name: baseline.decided(self.comparisons[name])
                if name in self.comparisons else baseline
                for name, baseline in baselines.items()}
