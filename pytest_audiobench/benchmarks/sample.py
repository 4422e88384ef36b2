"""One benchmark sample as every layer sees it: a frozen record, nothing heavy imported."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_audiobench.outcome.records import SampleRecord

ROOT_NODE = "audiobench"


@dataclass(frozen=True, slots=True)
class NodeId:
    """A sample item's pytest node id, ``audiobench::<benchmark>::<task>::<sample id>``: the
    one place that builds and reads one (a sample id may hold ``::``; it comes last)."""

    benchmark: str
    task: str
    sample: str

    def __str__(self) -> str:
        return f"{ROOT_NODE}::{self.benchmark}::{self.task}::{self.sample}"

    @staticmethod
    def names_a_sample(nodeid: str) -> bool:
        """Whether ``nodeid`` is a sample item's (not a test of the user's own)."""
        return nodeid.startswith(ROOT_NODE + "::")

    @classmethod
    def parse(cls, nodeid: str) -> NodeId:
        """The parts of a sample item's node id; ValueError naming it when it is not one."""
        parts = nodeid.split("::", 3)
        if len(parts) != 4 or parts[0] != ROOT_NODE or not all(parts[1:]):
            raise ValueError(f"not a sample's node id: {nodeid!r} (expected "
                             f"{ROOT_NODE}::<benchmark>::<task>::<sample id>)")
        return cls(parts[1], parts[2], parts[3])


@dataclass(frozen=True, slots=True)
class Sample:
    """One benchmark sample, typed and validated at load."""

    benchmark: str
    id: str
    task: str
    category: str
    audio: Path
    question: str
    reference: str
    record: Any = None
    """The benchmark's own typed record, for what the fields above do not carry."""
    subcategory: str = ""
    choices: tuple[str, ...] = ()
    """The options of a multiple-choice question (MMAR), in the release's order."""
    lettered: bool = False
    """The options are asked by letter (A, B, ...) and the reply read by its letter (MMSU):
    an in-process model then names its option's letter first."""
    context: str = ""
    """What the judge reads in place of the audio (AIR-Bench Chat's meta_info); empty for a
    benchmark whose judge reads none."""

    def __post_init__(self) -> None:
        # The run keeps every sample to its end, and a release's reader makes these names
        # afresh for each (a JSON string each): one string per distinct name, about 60 bytes
        # a sample saved for each (frozen, so set as dataclasses' own __init__ does).
        for name in ("benchmark", "task", "category", "subcategory"):
            value = getattr(self, name)
            if type(value) is str:  # sys.intern refuses a subclass
                object.__setattr__(self, name, sys.intern(value))

    @property
    def nodeid(self) -> str:
        return str(NodeId(self.benchmark, self.task, self.id))

    def to_record(self, **story: Any) -> SampleRecord:
        """The sample's record with ``story`` (its outcome, answers, grades, ...)."""
        from pytest_audiobench.outcome.records import SampleRecord

        return SampleRecord(
            benchmark=self.benchmark, sample_id=self.id, task=self.task,
            category=self.category, subcategory=self.subcategory, nodeid=self.nodeid,
            audio_path=str(self.audio), question=self.question, reference=self.reference,
            choices=list(self.choices), **story)
