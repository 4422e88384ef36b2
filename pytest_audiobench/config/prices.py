"""``--audiobench-price MODEL=IN/OUT,...``: what a model's tokens cost, in dollars per million
prompt tokens (audio included) and per million completion tokens. Read here; priced in
``outcome/cost.py``."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

EXAMPLE = "gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10"


@dataclass(frozen=True, slots=True)
class Price:
    """One model's price: dollars per million tokens, finite and not negative (``prices``
    reads them). A dataclass, not a pydantic model: the options are read in every start of
    pytest, which must not import pydantic."""

    model: str
    """The model id as the run names it (--audiobench-model, --audiobench-judge-model, ...)."""
    prompt: float
    completion: float


def prices(value: str) -> tuple[Price, ...]:
    """``MODEL=IN/OUT`` entries, comma-separated; a model id may hold ``/`` (the price is
    what follows its last ``=``)."""
    found = tuple(_price(entry.strip()) for entry in value.split(",") if entry.strip())
    if not found:
        raise argparse.ArgumentTypeError(f"expected MODEL=IN/OUT, like {EXAMPLE}; got {value!r}")
    named = [p.model for p in found]
    twice = sorted({m for m in named if named.count(m) > 1})
    if twice:
        raise argparse.ArgumentTypeError(f"{', '.join(twice)} is priced twice in {value!r}")
    return found


def _price(entry: str) -> Price:
    model, sep, rates = entry.rpartition("=")
    prompt, slash, completion = rates.partition("/")
    per_prompt, per_completion = _dollars(prompt), _dollars(completion)
    if not (sep and slash and model.strip()) or per_prompt is None or per_completion is None:
        raise argparse.ArgumentTypeError(
            f"expected MODEL=IN/OUT (dollars per million prompt and completion tokens), like "
            f"{EXAMPLE}; got {entry!r}")
    return Price(model=model.strip(), prompt=per_prompt, completion=per_completion)


def _dollars(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) and number >= 0 else None
