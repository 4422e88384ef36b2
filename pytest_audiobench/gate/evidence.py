"""What the gate rules on for one benchmark: its records folded in one pass (``Folded``, made by
``ending.py``), and with them the numbers, the baseline they are held against, what identified
the model and the judge, and the metrics paired against the baseline (``Evidence``, made by
``ruling.rule``). Data only, passed whole to whoever decides, rather than a dozen of its
fields one by one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pytest_audiobench.gate.evaluation import Pairing
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.paired import Assessed
from pytest_audiobench.outcome.lines import SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity


@dataclass(frozen=True, slots=True)
class Folded:
    """One benchmark's records as the gate reads them, folded in one pass (``ending.py``),
    with what its release and its judge say."""

    per_run: list[dict[str, Metric]]
    """Its numbers, per inference run."""
    lines: Mapping[str, SampleLine] | None
    """This run's sample lines, when ``wants_lines``; else None."""
    baseline_grades: Mapping[str, SampleLine]
    """The baseline's answers today's judge graded again, as lines (``gate/drift.py``)."""
    baseline_grades_asked: int
    baseline_per_run: list[dict[str, Metric]] | None
    """Head to head: the live baseline model's numbers, from its side of the records."""
    headline: tuple[str, ...]
    """The metrics a baseline holds, as the release decided them."""
    withheld: bool
    """The release withholds its answers (a test split): nothing to measure."""
    judged_metrics: tuple[str, ...]
    """The metrics a judge's grades make, whose drift the calibration measures."""
    judge_prompt: str | None
    """The hash of its judge prompt (``JudgeUse.prompt_sha256``), part of the judge's
    identity."""
    selected: int
    left_out: int
    """The release's samples the run's selection left out."""
    missing: int
    """Selected samples without a score (errors, skips, not run)."""
    failed: int
    regressed: int
    """Of ``failed``, the items that regressed against their baseline line."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """One benchmark as the gate rules on it."""

    name: str
    folded: Folded
    metrics: Mapping[str, Metric]
    """Its numbers; over several inference runs, the mean of the middle runs."""
    baseline: LoadedBaseline
    """What it is held against (head to head: the baseline the live model's numbers make)."""
    model: ModelIdentity | None
    """What identified the model (None for a merge of shards)."""
    judge: JudgeIdentity | None
    """What identified today's judge."""
    pairing: Pairing
    """This run's sample lines and the baseline's, as the benchmark pairs its metrics."""
    assessed: Mapping[str, Assessed]
    """Its metrics held paired, as the family of every benchmark's decided them."""
