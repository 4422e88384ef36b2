"""VoiceBench's rule-based scorers (benchmarks/voicebench/reading.py, bbh.py, refusal.py):
hand tables whose every expected value was worked out by reading the reference's code
(MatthewCYM/VoiceBench, ``src/evaluator/mcq.py``, ``bbh.py``, ``harm.py``), then thousands of
generated replies read by lmms-eval's copies of those evaluators (where installed) and by the
reference's own files (where AUDIOBENCH_VOICEBENCH_REFERENCE points at them)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pytest_audiobench.benchmarks.voicebench import reading

# reply, the letter the reference reads (None: it would guess)
CHOICES = [
    # A bare letter, either case; with one of . , : ) after it.
    ("B", "B"),
    ("b", "B"),
    ("B.", "B"),
    ("A: yes", "A"),
    ("B) Paris", "B"),
    # Never stripped: a space or a newline around a bare letter leaves nothing to read.
    (" b", None),
    ("b ", None),
    ("\nA", None),
    # A leading <1>, <2> or <3> is cut and the rest stripped; <4> is not a tag.
    ("<1> c", "C"),
    ("<2>   d.", "D"),
    ("<4> c", None),
    # Nothing, or a letter past d.
    ("", None),
    ("   ", None),
    ("E", None),
    # Lower-cased before the templates: "the answer is [CHOICE]".
    ("THE ANSWER IS D", "D"),
    ("The answer is C.", "C"),
    # ... which takes "an" for the letter a.
    ("The answer is an owl.", "A"),
    # The template's order decides, not the place in the reply: "the answer is [CHOICE]"
    # comes long before "([CHOICE])".
    ("(A) is tempting, but the answer is B", "B"),
    # Within one template the letters go a to d: (b) before (c), though (c) is said first.
    ("I pick (c), not (b)", "B"),
    ("the answer is b or the answer is a", "A"),
    # Chinese templates: "答案是[CHOICE]", then "答案是 [CHOICE]" with its space.
    ("答案是C", "C"),
    ("我认为答案是 B。", "B"),
    ("所以C是正确的", "C"),
    ("选项D是最合适的", "D"),
    # Markdown and LaTeX.
    ("**C.** Paris", "C"),
    ("The answer is \\( \\boxed{B} \\)", "B"),
    ("Option B: Paris", "B"),
    ("I would choose option C", "C"),
    # " [CHOICE]," takes any one-letter word a to d before a comma.
    ("I'd say A, then.", "A"),
    # "would be a." is a special case of the reference's, but " [CHOICE]." reads it first.
    ("It would be a. Final.", "A"),
]


@pytest.mark.parametrize(("reply", "letter"), CHOICES)
def test_a_multiple_choice_reply_reads_as_the_reference_reads_it(
        reply: str, letter: str | None) -> None:
    assert reading.read_choice(reply) == letter


def test_the_templates_are_the_reference_s_list_in_its_order() -> None:
    # 163 entries, "is [CHOICE]," twice; the first and last of the reference's list.
    assert len(reading.TEMPLATES) == 163
    assert Counter(reading.TEMPLATES).most_common(1) == [("is [CHOICE],", 2)]
    assert (reading.TEMPLATES[0], reading.TEMPLATES[-1]) == ("答案是[CHOICE]", '"[CHOICE]"')
    assert all(reading.CHOICE in template for template in reading.TEMPLATES)


IDS = [f"openbookqa_{n}" for n in range(4_000)]


def test_the_guess_for_an_unread_reply_is_the_same_for_a_sample_and_seed() -> None:
    assert reading.fallback("mmsu_law_7", 0) == reading.fallback("mmsu_law_7", 0)
    guesses = {sample: reading.fallback(sample, 0) for sample in IDS}
    shuffled = IDS[::-1]
    random.Random(1).shuffle(shuffled)
    assert {sample: reading.fallback(sample, 0) for sample in shuffled} == guesses
    # Another seed, other guesses (about three in four differ).
    changed = sum(reading.fallback(sample, 1) != guess for sample, guess in guesses.items())
    assert 2_700 < changed < 3_300


def test_the_guess_is_one_of_four_letters_with_even_odds() -> None:
    counts = Counter(reading.fallback(sample, 0) for sample in IDS)
    assert set(counts) == {"A", "B", "C", "D"}
    # 1,000 expected each; a standard deviation of 27, so these bounds are over 5 of them.
    assert all(850 < count < 1_150 for count in counts.values()), counts
