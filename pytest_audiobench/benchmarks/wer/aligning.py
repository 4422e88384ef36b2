"""Two transcripts' words aligned for a person to read: the reference over the answer, word
under word, the words that differ in upper case (a substitution over its substitute, a
deleted word over stars, stars over an inserted word), as speech-recognition scoring tools
print them."""

from __future__ import annotations

from collections.abc import Sequence

import jiwer

GAP = "***"


def aligned(reference: Sequence[str], hypothesis: Sequence[str]) -> tuple[str, str]:
    """The reference's and the hypothesis's lines, their words padded to one width a pair."""
    if not reference and not hypothesis:
        return "", ""
    if not reference or not hypothesis:
        pairs = [(w.upper(), GAP) for w in reference] or [(GAP, w.upper()) for w in hypothesis]
    else:
        pairs = _pairs(reference, hypothesis)
    widths = [max(len(a), len(b)) for a, b in pairs]
    return (" ".join(a.ljust(n) for (a, _), n in zip(pairs, widths, strict=True)).rstrip(),
            " ".join(b.ljust(n) for (_, b), n in zip(pairs, widths, strict=True)).rstrip())


def _pairs(reference: Sequence[str], hypothesis: Sequence[str]) -> list[tuple[str, str]]:
    found = jiwer.process_words(" ".join(reference), " ".join(hypothesis))
    pairs: list[tuple[str, str]] = []
    for chunk in found.alignments[0]:
        ref = list(reference[chunk.ref_start_idx:chunk.ref_end_idx])
        hyp = list(hypothesis[chunk.hyp_start_idx:chunk.hyp_end_idx])
        if chunk.type == "equal":
            pairs += zip(ref, hyp, strict=True)
        elif chunk.type == "substitute":
            pairs += [(r.upper(), h.upper()) for r, h in zip(ref, hyp, strict=True)]
        elif chunk.type == "delete":
            pairs += [(r.upper(), GAP) for r in ref]
        else:
            pairs += [(GAP, h.upper()) for h in hyp]
    return pairs
