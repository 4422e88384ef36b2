"""What the paired gate needs of a multiple-choice benchmark, the same for every one: a sample's
line of 0/1 outcomes in percent (one value per matcher, one draw per inference run), clustered
by its audio, and each metric read from its name as the mean of one value over one group.

A metric is named ``<benchmark>[.<prefix><group>].<ending>``: the prefix picks the grouping
(``modality.``, ``category.``, ...), the ending the value (``avg``, ``official.avg``, ...). A
group's name may hold a dot (a folder such as ``common_voice_13.0_en``), so the ending is taken
off the right.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Protocol, TypeVar

from pytest_audiobench.outcome.lines import Linear, SampleLine, text_sha256
from pytest_audiobench.outcome.records import SampleRecord


class Chosen(Protocol):
    """A graded answer to a multiple-choice question: right or wrong."""

    @property
    def correct(self) -> bool: ...


V = TypeVar("V", bound=Chosen)


def percent(flags: Iterable[bool]) -> float:
    """The share of ``flags`` that are true, in percent."""
    seen = list(flags)
    return 100.0 * sum(seen) / len(seen)


def slug(name: str) -> str:
    """A group's name in metric names: 'Semantic Layer' -> 'semantic_layer'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def choice_line(record: SampleRecord, graded: Sequence[V],
                values: Callable[[Sequence[V]], dict[str, float]], groups: Mapping[str, str], *,
                judged: bool = False, replies: Sequence[str] = ()) -> SampleLine:
    """``record``'s line: ``values`` of all its inference runs' grades ``graded`` (and of each
    run apart when there are several), a draw of 100 or 0 per run, failed unless every run is
    right, clustered by the audio of its first answer; ``groups`` beside the group of all.
    ``judged``: a sampled judge decides the outcome (its noise matters)."""
    first = record.answers[0]
    return SampleLine(
        id=record.nodeid, cluster=first.request.audio_sha256, groups={"all": "all", **groups},
        values=values(graded), runs=[values([v]) for v in graded] if len(graded) > 1 else [],
        draws=[100.0 * v.correct for v in graded], judged=judged,
        failed=not all(v.correct for v in graded), answer_sha256=text_sha256(first.text),
        answer=first.text, reasoning=first.reasoning, replies=list(replies))


def choice_linear(metric: str, name: str, groupings: Sequence[tuple[str, str]],
                  values: Mapping[str, str], rated: Collection[str] = ()) -> Linear | None:
    """The metric ``metric`` of benchmark ``name`` as a mean over one group, in percent:
    ``groupings`` pairs a sample line's grouping with its metric prefix, ``values`` a metric's
    ending with the line's value (a value in ``rated`` is a rating, not a 0/1 outcome); None
    for a metric it does not name."""
    rest = metric.removeprefix(f"{name}.")
    by, group = "all", "all"
    for grouping, prefix in groupings:
        if rest.startswith(prefix):
            by = grouping
            group, rest = _split_ending(rest.removeprefix(prefix), values)
            break
    value = values.get(rest)
    return None if value is None else Linear(value=value, by=by, weights={group: 1.0},
                                             low=0.0, high=100.0, binary=value not in rated)


def _split_ending(rest: str, values: Mapping[str, str]) -> tuple[str, str]:
    """``speech.official.avg`` -> ``("speech", "official.avg")``, the longest known ending
    first."""
    for ending in sorted(values, key=len, reverse=True):
        if rest.endswith("." + ending):
            return rest[:-len(ending) - 1], ending
    return rest, ""
