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

    @property
    def rate(self) -> float | None:
        """The errors in percent of the reference's words: of an utterance its own rate, of
        the errors of a split summed its word error rate; None without a reference word."""
        return 100.0 * self.errors / self.reference_words if self.reference_words else None

    def __add__(self, other: WordErrors) -> WordErrors:
        return WordErrors(self.substitutions + other.substitutions,
                          self.deletions + other.deletions, self.insertions + other.insertions,
                          self.reference_words + other.reference_words)


NONE = WordErrors(0, 0, 0, 0)
"""No utterance's errors: what a split's sum starts from."""


def count(reference: Sequence[str], hypothesis: Sequence[str]) -> WordErrors:
    """The word errors of ``hypothesis`` against ``reference`` (both already normalised): an
    empty hypothesis is all deletions, an empty reference all insertions."""
    aligned = jiwer.process_words(" ".join(reference), " ".join(hypothesis))
    return WordErrors(aligned.substitutions, aligned.deletions, aligned.insertions,
                      len(reference))


def error_rate(utterances: Iterable[WordErrors]) -> float | None:
    """A split's word error rate in percent (its utterances' errors summed, over their
    reference words summed: ``WordErrors.rate`` of the sum); None when its references hold no
    word."""
    return sum(utterances, NONE).rate
