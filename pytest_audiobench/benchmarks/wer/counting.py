"""Word errors of one utterance, and a split's word error rate: the errors summed over the
split divided by the reference words summed over it (corpus level, as the reports compute it;
not a mean of per-utterance rates). A "word" is a token of the pipeline: a word, or a
character where the reference scores characters (Chinese, Cantonese). rapidfuzz aligns the
tokens as lists, so no token is ever joined to another and split again: a count equals the
reference's ``editdistance.eval`` of the same lists, whatever the characters."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein, Opcodes


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
    found = {"equal": 0, "replace": 0, "delete": 0, "insert": 0}
    for step in opcodes(reference, hypothesis):
        # A replaced run is as long on both sides; a deleted one has no hypothesis tokens, an
        # inserted one no reference tokens.
        found[step.tag] += max(step.src_end - step.src_start, step.dest_end - step.dest_start)
    return WordErrors(found["replace"], found["delete"], found["insert"], len(reference))


def opcodes(reference: Sequence[str], hypothesis: Sequence[str]) -> Opcodes:
    """One shortest alignment of the two token lists, as runs of equal, replaced, deleted and
    inserted tokens (the alignment jiwer gave, which asks rapidfuzz the same)."""
    # Each token an integer, one numbering for both lists: rapidfuzz compares integers as they
    # are, where it would compare the elements of a list of strings by their hashes.
    numbers: dict[str, int] = {}
    return Levenshtein.opcodes([numbers.setdefault(t, len(numbers)) for t in reference],
                               [numbers.setdefault(t, len(numbers)) for t in hypothesis])


def error_rate(utterances: Iterable[WordErrors]) -> float | None:
    """A split's word error rate in percent (its utterances' errors summed, over their
    reference words summed: ``WordErrors.rate`` of the sum); None when its references hold no
    word."""
    return sum(utterances, NONE).rate
