"""Word errors of one utterance, and a split's word error rate: the errors summed over the
split divided by the reference words summed over it (corpus level, as the reports compute it;
not a mean of per-utterance rates). jiwer aligns the words."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import jiwer


@dataclass(frozen=True)
class WordErrors:
    """What aligning an answer's words to the reference's found."""

    substitutions: int
    deletions: int
    insertions: int
    reference_words: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions


def count(reference: Sequence[str], hypothesis: Sequence[str]) -> WordErrors:
    """The word errors of ``hypothesis`` against ``reference`` (both already normalised): an
    empty hypothesis is all deletions, an empty reference all insertions."""
    aligned = jiwer.process_words(" ".join(reference), " ".join(hypothesis))
    return WordErrors(aligned.substitutions, aligned.deletions, aligned.insertions,
                      len(reference))


def error_rate(utterances: Iterable[WordErrors]) -> float | None:
    """A split's word error rate; None when its references hold no word."""
    errors = words = 0
    for counted in utterances:
        errors += counted.errors
        words += counted.reference_words
    return errors / words if words else None
