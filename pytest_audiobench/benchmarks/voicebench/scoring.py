"""VoiceBench's numbers, folded grade by grade, named, and the leaderboard's Overall.

Each subset's numbers are its evaluator's, on the reference's scales:
- open subsets: ``voicebench.<subset>.rating``, the mean of every judge rating (1 to 5);
- sd-qa: ``voicebench.sd-qa.judge`` (items whose judge majority is Yes, percent) and
  ``voicebench.sd-qa.pedant`` (PEDANT's mean x 100), and both per accent;
- openbookqa, mmsu, bbh: ``.accuracy`` (a reply no rule reads counted by its seeded guess, as
  the reference counts its random one), ``.strict.accuracy`` (counted wrong) and ``.fallback``
  (the share guessed, the reference's "fail"); per mmsu domain and per bbh task too;
- ifeval: ``.strict-prompt``, ``.strict-instruction``, ``.loose-prompt``,
  ``.loose-instruction`` (prompt level: items with every instruction followed; instruction
  level: instructions followed over all of them) and ``.final``, their mean, in percent;
- advbench: ``.refusal``, the refusal rate in percent.
``voicebench.overall`` is the leaderboard's: the mean of the nine columns, the three ratings
times 20; only when every subset was run.
"""

from __future__ import annotations

from collections import defaultdict

from pytest_audiobench.benchmarks.voicebench.facts import NAME, RATED, SUBSETS
from pytest_audiobench.benchmarks.voicebench.grades import VoiceBenchGrade
from pytest_audiobench.outcome.metrics import Metric

IFEVAL_FIGURES = ("strict-prompt", "strict-instruction", "loose-prompt", "loose-instruction")
COLUMNS: dict[str, str] = {
    **{subset: "rating" for subset in RATED},
    "sd-qa": "judge", "mmsu": "accuracy", "openbookqa": "accuracy", "bbh": "accuracy",
    "ifeval": "final", "advbench": "refusal",
}
"""Each subset's leaderboard column. Which sd-qa figure the leaderboard shows is not stated;
the judge's is VoiceBench's headline evaluator for it (PEDANT is reported beside)."""
OVERALL = f"{NAME}.overall"
BESIDE = frozenset({OVERALL, f"{NAME}.ifeval.final"})
"""The leaderboard's means of other numbers, shown beside them: IFEval's final (the mean of its
four figures, two of them weighted by instructions) and Overall (the mean of the nine
columns). No sample line makes either, so neither is gated; their parts are, paired."""
_VALUE_OF_STAT = {"rating": "rating", "judge": "judge", "pedant": "pedant",
                  "accuracy": "accuracy", "fallback": "fallback", "refusal": "refusal",
                  **{figure: figure for figure in IFEVAL_FIGURES}}


def metric_name(subset: str, stat: str, group: str | None = None) -> str:
    """``voicebench.<subset>[.<group>].<stat>`` (a strict accuracy's stat is
    ``strict.accuracy``)."""
    middle = f"{subset}.{group}" if group else subset
    return f"{NAME}.{middle}.{stat}"


def column(subset: str) -> str:
    """The metric of ``subset``'s leaderboard column."""
    return metric_name(subset, COLUMNS[subset])


def headline(subsets: tuple[str, ...]) -> tuple[str, ...]:
    """The leaderboard's columns of the subsets run, IFEval's four figures before its final
    (which is not gated, ``BESIDE``: they are), and Overall when all nine were."""
    columns: list[str] = []
    for subset in (s for s in SUBSETS if s in subsets):
        if subset == "ifeval":
            columns += [metric_name(subset, figure) for figure in IFEVAL_FIGURES]
        columns.append(column(subset))
    return (*columns, OVERALL) if set(subsets) >= set(SUBSETS) else tuple(columns)


def overall(columns: dict[str, float]) -> float:
    """The leaderboard's Overall from its nine columns (subset -> value): the ratings times
    20, then the mean."""
    return sum(value * (20 if subset in RATED else 1) for subset, value in columns.items()) \
        / len(columns)


class _Mean:
    """A weighted mean, folded."""

    __slots__ = ("n", "total", "weight")

    def __init__(self) -> None:
        self.n, self.total, self.weight = 0, 0.0, 0.0

    def add(self, value: float, weight: float = 1.0) -> None:
        self.n += 1
        self.total += value * weight
        self.weight += weight

    def metric(self) -> Metric:
        return Metric(value=self.total / self.weight, n=self.n)


class VoiceBenchScores:
    """One inference run's numbers, folded grade by grade; no texts kept."""

    def __init__(self) -> None:
        self._means: dict[str, _Mean] = defaultdict(_Mean)

    def add(self, category: str, grade: VoiceBenchGrade) -> None:
        subset, values = grade.subset, grade.values()
        groups = [None] if category == subset else [None, category]
        for group in groups:
            self._add(subset, group, grade, values)

    def _add(self, subset: str, group: str | None, grade: VoiceBenchGrade,
             values: dict[str, float]) -> None:
        if grade.evaluator == "open":
            # The reference averages every rating, not each item's mean.
            for rating in grade.ratings:
                self._means[metric_name(subset, "rating", group)].add(rating)
            return
        for value, number in values.items():
            if value == "instructions":
                continue
            stat = "strict.accuracy" if value == "strict" else value
            weight = values["instructions"] if value.endswith("-instruction") else 1.0
            self._means[metric_name(subset, stat, group)].add(number, weight)

    def metrics(self) -> dict[str, Metric]:
        found = {name: mean.metric() for name, mean in self._means.items()}
        for subset in SUBSETS:
            figures = [found.get(metric_name(subset, f)) for f in IFEVAL_FIGURES]
            if subset == "ifeval" and all(figures):
                found[metric_name(subset, "final")] = Metric(
                    value=sum(f.value for f in figures if f) / 4,
                    n=min(f.n for f in figures if f))
        columns = {s: found[column(s)] for s in SUBSETS if column(s) in found}
        if len(columns) == len(SUBSETS):
            found[OVERALL] = Metric(value=overall({s: m.value for s, m in columns.items()}),
                                    n=sum(m.n for m in columns.values()))
        return found


def value_of(stat: str) -> str | None:
    """The per-sample value a metric's last part averages (None: not a mean of one)."""
    if stat == "strict.accuracy":
        return "strict"
    return _VALUE_OF_STAT.get(stat)
