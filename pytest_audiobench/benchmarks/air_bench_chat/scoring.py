"""Pure aggregation of AIR-Bench Chat verdicts into the leaderboard's numbers.

Like the official ``cal_score.py``, each judge pass is scored on its own (mean over its parsed
replies, win when the model's score is strictly above the reference's), and the two passes
are then averaged. Categories pool their tasks' samples (Speech = speech_QA together with
speech_dialogue_QA); Mixed is the mean of the two mixed categories and Average the mean of
Speech, Sound, Music and Mixed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pytest_audiobench.benchmarks.air_bench_chat import NAME, TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.judge import ChatVerdict, PassVerdict
from pytest_audiobench.outcome.metrics import Metric

CATEGORIES = ("speech", "sound", "music", "speech_and_sound", "speech_and_music")
MIXED = ("speech_and_sound", "speech_and_music")
AVERAGED = ("speech", "sound", "music", "mixed")


def chat_metrics(graded: Iterable[tuple[str, ChatVerdict]],
                 prefix: str = NAME) -> dict[str, Metric]:
    """Metrics named ``<prefix>.<task|category|mixed|average>.<score|reference|win_rate>``."""
    groups: dict[str, list[ChatVerdict]] = defaultdict(list)
    for task, verdict in graded:
        groups[task].append(verdict)
        groups[TASK_CATEGORY[task]].append(verdict)
    metrics: dict[str, Metric] = {}
    for group, verdicts in groups.items():
        for stat, value in _group_stats(verdicts).items():
            metrics[f"{prefix}.{group}.{stat}"] = Metric(
                value=value, n=sum(1 for v in verdicts if v.model_score is not None))
    for name, parts in (("mixed", MIXED), ("average", AVERAGED)):
        for stat in ("score", "reference"):
            found = [metrics.get(f"{prefix}.{part}.{stat}") for part in parts]
            if all(found):
                present = [m for m in found if m is not None]
                metrics[f"{prefix}.{name}.{stat}"] = Metric(
                    value=sum(m.value for m in present) / len(present),
                    n=sum(m.n for m in present))
    return metrics


def _group_stats(verdicts: list[ChatVerdict]) -> dict[str, float]:
    by_order: dict[str, list[PassVerdict]] = defaultdict(list)
    for verdict in verdicts:
        for judged in verdict.passes:
            if judged.parsed:
                by_order[judged.order].append(judged)
    if not by_order:
        return {}
    per_pass = [_pass_stats(passes) for passes in by_order.values()]
    return {stat: sum(p[stat] for p in per_pass) / len(per_pass) for stat in per_pass[0]}


def _pass_stats(passes: list[PassVerdict]) -> dict[str, float]:
    n = len(passes)
    model = [p.model_score or 0 for p in passes]
    reference = [p.reference_score or 0 for p in passes]
    return {
        "score": sum(model) / n,
        "reference": sum(reference) / n,
        "win_rate": sum(1 for m, r in zip(model, reference, strict=True) if m > r) / n,
    }
