"""How VoiceBench reads a spoken multiple-choice reply (openbookqa, mmsu): the letter the
reply chose, or None when nothing in it reads as one.

Equal to the reference's ``MCQEvaluator.extract_answer`` (MatthewCYM/VoiceBench,
``src/evaluator/mcq.py``), quirks included, as a regression gate must be to compare with the
published numbers:

- The reply is lower-cased but never stripped: " a" reads as nothing, where "a" reads as A.
  Only a leading ``<1>``, ``<2>`` or ``<3>`` is cut, and the rest stripped after it.
- The templates are tried in their listed order, and within one template the letters a to d:
  the first template that matches decides, wherever it sits in the reply. "(d) ... the answer
  is b" reads as B, since "the answer is [CHOICE]" comes before "([CHOICE])".
- A template matches inside longer words: "the answer is an owl" reads as A, and " [CHOICE]."
  takes any one-letter word a to d before a full stop.
- ``is [CHOICE],`` is listed twice, and the three special phrases after the bare letters can
  never decide (each holds a template: " a.", '"a.', "(a)"); both kept, to stay the list.

Departure: when nothing is read the reference guesses with ``random.choice`` unseeded, so two
runs of one model differ. ``fallback`` guesses from the run's seed and the sample's id
instead: the same sample gets the same guess in every run with that seed (the gate compares
runs sample by sample), whatever order the samples are scored in.
"""

from __future__ import annotations

import random

CHOICE = "[CHOICE]"
"""The place of the letter in a template."""

LETTERS: tuple[str, ...] = ("a", "b", "c", "d")

TEMPLATES: tuple[str, ...] = (
    "答案是[CHOICE]",
    "答案是 [CHOICE]",
    "答案是选项[CHOICE]",
    "答案应该是[CHOICE]",
    "答案应该是 [CHOICE]",
    "答案就是选项[CHOICE]",
    "答案是‘[CHOICE]",  # noqa: RUF001
    "是[CHOICE]：",  # noqa: RUF001
    "答案选[CHOICE]",
    "[CHOICE]是正确",
    "选项[CHOICE]是最合适的",
    "answer is: **[CHOICE]",
    "answer is **[CHOICE]",
    "the answer to the question is: **[CHOICE]",
    "the answer to the multiple-choice question is **[CHOICE]",
    "the answer is '[CHOICE]'",
    "[CHOICE] is the best answer",
    "the answer is [CHOICE]",
    "the correct answer is [CHOICE]",
    "would select [CHOICE]",
    "would choose [CHOICE]",
    "would select option [CHOICE]",
    "would choose option [CHOICE]",
    'is "[CHOICE]"',
    'is "[CHOICE].',
    "is: **[CHOICE])",
    "is **[CHOICE],",
    "is **[CHOICE]:",
    "is **[CHOICE])",
    "is: **[CHOICE].",
    "is: **[CHOICE]:",
    "is **[CHOICE].",
    "be **[CHOICE],",
    "is: **[CHOICE]**",
    "is therefore option **[CHOICE]:",
    "is: \n\n**[CHOICE])",
    "as **[CHOICE]:",
    "be **[CHOICE])",
    "be **[CHOICE]:",
    "is: \n\n**[CHOICE]**",
    "suggests **[CHOICE])",
    "be option **[CHOICE]:",
    "with **[CHOICE])",
    'is typically "[CHOICE])',
    "be to **[CHOICE])",
    "is: \n\n[CHOICE])",
    "is likely to be: **[CHOICE].",
    "is **[CHOICE] (",
    "is option **[CHOICE]**",
    "is likely **[CHOICE]**",
    "is:\n**[CHOICE].",
    "is:\n\n**[CHOICE].",
    "would be [CHOICE]",
    "would be option [CHOICE]",
    "would be ([CHOICE])",
    "would be option ([CHOICE])",
    "is [CHOICE],",
    "is typically [CHOICE],",
    "is typically [CHOICE].",
    "i'd say [CHOICE].",
    "option [CHOICE].",
    "option [CHOICE]:",
    "option [CHOICE],",
    "the answer is:\n**[CHOICE]",
    "is [CHOICE]:",
    "is [CHOICE].",
    "is [CHOICE],",
    "is: [CHOICE].",
    "is ([CHOICE])",
    "is:\n**[CHOICE])",
    "is likely **[CHOICE]:",
    "is the **[CHOICE])",
    ":\n[CHOICE].",
    ":\n[CHOICE])",
    ":\n[CHOICE],",
    ": \n[CHOICE].",
    ":  \n[CHOICE].",
    ":\n\n[CHOICE].",
    ":\n\n[CHOICE])",
    "is most likely **[CHOICE]:",
    ":\n\n[CHOICE],",
    ": \n\n[CHOICE].",
    "is option [CHOICE],",
    "([CHOICE]) would be",
    "is ([CHOICE]).",
    "is [CHOICE])",
    "is: [CHOICE])",
    "is:\n\n[CHOICE]:",
    "is: **[CHOICE],",
    "(option [CHOICE])",
    "answer is ([CHOICE])",
    'select option "[CHOICE]"',
    "is: [CHOICE]",
    "is typically **[CHOICE],",
    "is **[CHOICE]**",
    "is likely '[CHOICE]'",
    "is option '[CHOICE]'",
    "is:\n**[CHOICE]:",
    "is \\( \\boxed{[CHOICE] ",
    "would be '[CHOICE]'",
    "is the **[CHOICE]** ",
    "question is [CHOICE] (",
    "is:\n\n**[CHOICE])",
    "closest to option **[CHOICE]**",
    "is most likely **[CHOICE])",
    "the answer to the question is '[CHOICE]'",
    "question is **[CHOICE]**",
    "known as '[CHOICE]'",
    "is '[CHOICE])",
    "is typically **[CHOICE]:",
    "is \\( \\boxed{\\text{[CHOICE]}} \\)",
    "is \\( \\text{[CHOICE]) }",
    "is \\( \\text{[CHOICE]} \\)",
    "is \\( \\text{[CHOICE]:",
    "is \\( \\text{[CHOICE])",
    "is \\(\\text{[CHOICE].",
    "is:\n\n**[CHOICE]",
    "is \\( \\text{[CHOICE].}",
    "is \\( \\text{[CHOICE].",
    "is \\( \\boxed{[CHOICE]}",
    "is:\n\\[ \\boxed{\\text{[CHOICE]}}",
    "is:\n\\[ \\text{[CHOICE])",
    "is:\n\n\\[ \\text{[CHOICE])",
    "is \\( \\textbf{[CHOICE])",
    "is \\( \\text{[CHOICE]}",
    "is: \\( \\text{[CHOICE].",
    "corresponds to:\n- **[CHOICE]:",
    "would be: **[CHOICE]**.",
    "is \\( [CHOICE] \\)",
    "is:\n**[CHOICE] ",
    "corresponds to option **[CHOICE]**",
    "be **[CHOICE]**",
    "be: \n\n[CHOICE])",
    "is:\n\\[ \\boxed{[CHOICE]}",
    "is:  \n**[CHOICE]:",
    "is: \\( \\text{[CHOICE])",
    "is likely: **[CHOICE],",
    "is } \\mathbf{[CHOICE].",
    "is \\( \\boxed{[CHOICE])",
    "is \\( \\textbf{[CHOICE]}",
    "is \\([CHOICE]\\)",
    "is:\n  \n**[CHOICE]:",
    "is option **[CHOICE] ",
    "is:\n\\( \\textbf{[CHOICE].",
    "is \\( \\mathbf{[CHOICE]}",
    "was option **[CHOICE]**",
    'is likely "[CHOICE])',
    "option **[CHOICE]:",
    'is "[CHOICE])',
    "is most likely **[CHOICE],",
    "is often **[CHOICE]:",
    "is:  \n[CHOICE])",
    " [CHOICE].",
    " [CHOICE],",
    " [CHOICE]:",
    " [CHOICE])",
    "**[CHOICE].",
    "**[CHOICE])",
    '"[CHOICE].',
    '"[CHOICE],',
    '"[CHOICE]:',
    "([CHOICE])",
    '"[CHOICE]"',
)
"""The reference's templates in its order (``extract_answer``'s list, December 2026): how
models it evaluated wrote their choice, in Chinese and English, Markdown and LaTeX."""

SPECIAL: tuple[tuple[str, str], ...] = (
    ("would be a.", "A"),
    ('would be "a.', "A"),
    ("the best option from the given choices would be a scorpion (a)", "A"),
)
"""The reference's last resort, tried after the bare letters (never reached: see above)."""

_AFTER_LETTER: tuple[str, ...] = (".", ",", ":", ")")
"""What may follow a letter that opens the reply ("b) because ...")."""

_TAGS: tuple[str, ...] = ("<1>", "<2>", "<3>")

_FILLED: tuple[tuple[str, str], ...] = tuple(
    (template.replace(CHOICE, letter), letter.upper())
    for template in TEMPLATES for letter in LETTERS)
"""Every template with every letter, in the order they are tried: filled once, not per reply."""


def read_choice(reply: str) -> str | None:
    """The upper-case letter ``reply`` chose, as the reference reads it; None when it reads
    none (the reference then guesses: see ``fallback``)."""
    text = _untagged(reply.lower())
    return _by_template(text) or _by_letter(text) or _by_phrase(text)


def fallback(sample_id: str, seed: int) -> str:
    """The letter guessed for a reply that chose none: uniform over A to D, as the
    reference's, but fixed by ``seed`` and ``sample_id`` alone."""
    # A string seed is hashed with SHA-512 by random.seed, so the guess is the same in every
    # process, whatever PYTHONHASHSEED.
    return random.Random(f"{seed}:{sample_id}").choice("ABCD")


def _untagged(text: str) -> str:
    if text.startswith(_TAGS):
        return text[3:].strip()
    return text


def _by_template(text: str) -> str | None:
    return next((letter for filled, letter in _FILLED if filled in text), None)


def _by_letter(text: str) -> str | None:
    for letter in LETTERS:
        if text == letter or text.startswith(tuple(letter + mark for mark in _AFTER_LETTER)):
            return letter.upper()
    return None


def _by_phrase(text: str) -> str | None:
    return next((letter for phrase, letter in SPECIAL if phrase in text), None)
