"""One sample's scores as a paired comparison reads them: a line of a per-sample baseline, or
of a run's report read the same way. Data only.

A benchmark makes a ``SampleLine`` from a sample's record and says, per metric it can compare
paired, how the metric is made from the lines (``Linear``): a weighted sum of group means of
one per-sample value. The gate then needs nothing else of the benchmark.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field


def text_sha256(text: str) -> str:
    """The hash a line keeps of an answer (``SampleLine.answer_sha256``)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def protocol_sha256(protocol: Mapping[str, Any]) -> str:
    """A short hash of how a benchmark asks its judge (``JudgeUse.prompt_sha256``)."""
    return text_sha256(json.dumps(protocol, sort_keys=True))[:16]


LARGEST = 1e12
"""The largest size of any number a line holds: far past any real one (an utterance's word
error rate in percent, a reference's words, a score), and small enough that every report
shows it to its decimals; a larger one in a baseline file is a broken or forged file."""
Number = Annotated[float, Field(ge=-LARGEST, le=LARGEST)]
"""A finite number of a line (the model refuses NaN and the infinities): Python's JSON reader
takes them, and one NaN makes a metric NaN and the gate blind."""


class SampleLine(BaseModel):
    """One sample: what its metrics average, the judge's draws of its own score, its answer."""

    model_config = ConfigDict(allow_inf_nan=False)

    id: str
    """The sample's node id."""
    cluster: str
    """What samples that share a context have in common (their audio's hash): their errors
    are not independent, so the standard errors are clustered by it."""
    groups: dict[str, str]
    """The sample's group under each grouping a metric may use (task, category, ...)."""
    values: dict[str, Number]
    """Per-sample values the metrics average (over the inference runs)."""
    runs: list[dict[str, Number]] = []
    """Each inference run's values, when the sample was asked more than once (none for one
    run, whose values are ``values``): a gate against a side asked a different number of
    times needs them."""
    draws: list[Number] = Field(min_length=1)
    """Every draw of the item's own score (each judge pass, repeat and run): their spread is
    the judge's noise; at least one, whose mean is the item's score."""
    judged: bool = False
    """The score comes from a sampled judge, whose draws vary: a drop of this sample can be
    told from noise only when that noise was measured (False: graded by a rule, or by a
    deterministic judge)."""
    failed: bool
    """The sample fell short of its item's bar (a wrong answer, a score under the bar)."""
    lower_is_better: bool = False
    """The item's own score is better lower (an utterance's word errors): a regression is a
    rise of its draws, not a drop."""
    answer_sha256: str
    answer: str
    """The first run's answer, for the diff a regression report shows."""
    reasoning: str = ""
    """The reasoning the model gave beside that answer (a reasoning field or a thought
    block), which a judge that rates reasoning grades again with it."""
    replies: list[str] = []
    """The judge's raw replies, for the same report."""

    @property
    def score(self) -> float:
        """The item's own score: the mean of its draws."""
        return sum(self.draws) / len(self.draws)


_EVERY_FIELD = set(SampleLine.model_fields)
_GROUPS: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
"""One dict per distinct set of groups, shared by every line that has it (a built-in
benchmark has a few hundred sets); lines are never changed in place."""


def without_texts(line: SampleLine) -> SampleLine:
    """The line as the gate holds it: its answer, the answer's hash and the judge's replies
    left out, and its group and value names shared with every other line, about 1 KB instead
    of 2 KB and more. Every field counts as set, once for all such lines."""
    return SampleLine.model_construct(
        _fields_set=_EVERY_FIELD, id=line.id, cluster=line.cluster,
        groups=_shared(line.groups),
        values={sys.intern(k): v for k, v in line.values.items()},
        runs=[{sys.intern(k): v for k, v in run.items()} for run in line.runs], draws=line.draws,
        judged=line.judged, failed=line.failed, lower_is_better=line.lower_is_better,
        answer_sha256="", answer="", reasoning="",
        replies=[])


class Linear(BaseModel):
    """A metric as ``sum(weights[g] * mean of values[value] over the samples of group g)``,
    the groups taken from ``SampleLine.groups[by]``, the weights adding up to 1; with
    ``weight``, each group's mean weighs its samples by that value. Every leaderboard number
    of the built-in benchmarks is one: a category mean (one weight of 1), Mixed, Average, an
    accuracy, a split's word error rate (a ratio: the utterances' error rates weighed by their
    reference words are the errors summed over the words summed)."""

    value: str
    by: str
    weights: dict[str, float]
    low: float
    high: float
    """The range of one sample's value, and so of the metric (0 and 10 for a judge's score,
    0 and 100 for an accuracy in percent): intervals stay inside it."""
    binary: bool = False
    """One sample's value is right or wrong, ``high`` or ``low`` (an accuracy): tested as
    paired 0/1 outcomes when every value is one of them (one inference run)."""
    drawn: bool = False
    """The value is the mean of the sample's judge draws (``SampleLine.draws``), so the
    judge's measured noise is part of its spread."""
    weight: str | None = None
    """A per-sample value (in ``SampleLine.values``, the baseline's side) that weighs each
    sample within its group's mean; None: every sample weighs the same."""
    lower_is_better: bool = False
    """The metric is better lower (a word error rate): a regression is a rise, the margin a
    rise allowed, the room to worsen ``high - baseline``."""
    swing: float | None = None
    """One sample's whole swing, when the range is open (``high`` infinite: an utterance's
    error rate has no ceiling, insertions add to it): the smallest detectable change takes
    a sample to move at least this much (a word error rate: 100, every word wrong). None:
    the range's width."""

    @property
    def sign(self) -> int:
        """+1 when higher is better, -1 when lower is: a change times it is a gain."""
        return -1 if self.lower_is_better else 1

    @property
    def span(self) -> float:
        """The width a sample's whole swing is measured in (``swing``, else the range's)."""
        return self.swing if self.swing is not None else self.high - self.low


class JudgedBy(BaseModel):
    """What of a benchmark a judge decides: its metrics, by name, and the per-sample values
    the linear ones average (a baseline line holding one was graded by a judge)."""

    model_config = ConfigDict(frozen=True)

    metrics: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()


def _shared(groups: dict[str, str]) -> dict[str, str]:
    key = tuple(groups.items())
    found = _GROUPS.get(key)
    if found is None:
        found = _GROUPS[key] = {sys.intern(k): sys.intern(v) for k, v in key}
    return found
