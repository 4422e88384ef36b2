"""Pure aggregation of AIR-Bench Chat grades into the leaderboard's numbers.

Like the official ``cal_score.py``, each judge pass is scored on its own (mean over its parsed
replies, win when the model's score is strictly above the reference's), and the two passes
are then averaged. Categories pool their tasks' samples (Speech = speech_QA together with
speech_dialogue_QA); Mixed is the mean of the two mixed categories and Average the mean of
Speech, Sound, Music and Mixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pytest_audiobench.benchmarks.air_bench_chat.facts import NAME, TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.judge import ChatGrade
from pytest_audiobench.outcome.metrics import Metric

CATEGORIES = ("speech", "sound", "music", "speech_and_sound", "speech_and_music")
MIXED = ("speech_and_sound", "speech_and_music")
AVERAGED = ("speech", "sound", "music", "mixed")


@dataclass
class _Pass:
    """One judge order's parsed passes in a group, summed (the scores are integers, so the
    sums are exact and the means those of the lists)."""

    n: int = 0
    model: int = 0
    reference: int = 0
    wins: int = 0


@dataclass
class _Group:
    scored: int = 0
    """Grades with a model score."""
    orders: dict[str, _Pass] = field(default_factory=dict)
    """By judge order, in the order first seen."""


class ChatScores:
    """What the numbers need of each grade, folded as it comes: per task and category, per
    judge order, the parsed passes' counts and score sums; no texts are kept."""

    def __init__(self) -> None:
        self._groups: dict[str, _Group] = {}

    def add(self, task: str, grade: ChatGrade) -> None:
        for name in (task, TASK_CATEGORY[task]):
            group = self._groups.setdefault(name, _Group())
            group.scored += grade.model_score is not None
            for judged in grade.passes:
                if judged.parsed:
                    order = group.orders.setdefault(judged.order, _Pass())
                    model, reference = judged.model_score or 0, judged.reference_score or 0
                    order.n += 1
                    order.model += model
                    order.reference += reference
                    order.wins += model > reference

    def metrics(self, prefix: str = NAME) -> dict[str, Metric]:
        metrics: dict[str, Metric] = {}
        for name, group in self._groups.items():
            for stat, value in _group_stats(group).items():
                metrics[f"{prefix}.{name}.{stat}"] = Metric(value=value, n=group.scored)
        for name, parts in (("mixed", MIXED), ("average", AVERAGED)):
            for stat in ("score", "reference"):
                found = [metrics.get(f"{prefix}.{part}.{stat}") for part in parts]
                if all(found):
                    present = [m for m in found if m is not None]
                    metrics[f"{prefix}.{name}.{stat}"] = Metric(
                        value=sum(m.value for m in present) / len(present),
                        n=sum(m.n for m in present))
        return metrics


def _group_stats(group: _Group) -> dict[str, float]:
    """Each judge order scored on its own, then the orders averaged (``cal_score.py``)."""
    if not group.orders:
        return {}
    per_pass = [{"score": p.model / p.n, "reference": p.reference / p.n, "win_rate": p.wins / p.n}
                for p in group.orders.values()]
    return {stat: sum(p[stat] for p in per_pass) / len(per_pass) for stat in per_pass[0]}
