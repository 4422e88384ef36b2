"""A run's numbers: one metric and the samples it rests on, and how repeated runs combine."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel


class Metric(BaseModel):
    """One number of the run and how many samples it rests on."""

    value: float
    n: int


def combine_runs(runs: Sequence[Mapping[str, Metric]]) -> dict[str, Metric]:
    """One value per metric over repeated inference runs: the mean of the middle runs (sorted,
    the lowest and the highest dropped when there are at least three; five runs: the middle
    three), as the MMAR paper's protocol does. Metrics missing from a run are left out."""
    if len(runs) == 1:
        return dict(runs[0])
    names = [name for name in runs[0] if all(name in run for run in runs)]
    return {name: Metric(value=trimmed_mean([run[name].value for run in runs]),
                         n=min(run[name].n for run in runs)) for name in names}


def trimmed_mean(values: Sequence[float]) -> float:
    """Mean without the lowest and the highest value (of five: the middle three); with fewer
    than three values nothing is dropped. ValueError for no values."""
    if not values:
        raise ValueError("trimmed_mean of no values")
    ordered = sorted(values)
    kept = ordered[1:-1] if len(ordered) >= 3 else ordered
    return sum(kept) / len(kept)
