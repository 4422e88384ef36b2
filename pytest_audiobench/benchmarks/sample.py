"""One benchmark sample as every layer sees it: a frozen record, nothing heavy imported."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT_NODE = "audiobench"


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
    context: str
    """What the judge reads in place of the audio (AIR-Bench Chat's meta_info)."""
    record: Any = None
    """The benchmark's own typed record, for what the fields above do not carry."""
    subcategory: str = ""
    choices: tuple[str, ...] = ()
    """The options of a multiple-choice question (MMAR), in the release's order."""

    @property
    def nodeid(self) -> str:
        return f"{ROOT_NODE}::{self.benchmark}::{self.task}::{self.id}"
