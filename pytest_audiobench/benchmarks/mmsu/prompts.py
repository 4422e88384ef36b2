"""What MMSU asks the model, in our words with the official prompt's effect: the question,
the options lettered A to D, and a reply of one letter asked for (or, in the reasoning style,
the reasoning first and the letter on a last ``Answer:`` line).

A question of two or three options is padded in the release with nulls in any place: each
given option keeps its own letter (the official scoring reads a reply's letter against
``choice_a`` to ``choice_d`` as they are) and a missing one is not shown. The official
inference script prints it as "None" (Python's text for the null); a model that picked that
line would be counted wrong all the same, so leaving it out changes no right answer."""

from __future__ import annotations

import re
from collections.abc import Mapping

from pytest_audiobench.benchmarks.choice.names import PromptStyle


def lettered(options: Mapping[str, str]) -> list[str]:
    """The options that have a text, each after its own letter ("B. ..."), in their order."""
    return [f"{letter}. {text}" for letter, text in options.items() if text]


def mmsu_prompt(question: str, options: Mapping[str, str], style: PromptStyle,
                template: str | None) -> str:
    """A user's template when given (``{question}`` and ``{choices}`` filled in one pass,
    literally), else the built-in layout of ``style``."""
    lines = lettered(options)
    if template is not None:
        values = {"{question}": question, "{choices}": "\n".join(lines)}
        return re.sub(r"\{question\}|\{choices\}", lambda m: values[m.group(0)], template)
    letters = ", ".join(line[0] for line in lines)
    if style == "reasoning":
        ask = (f"Think about what you hear step by step, then end your reply with a line of "
               f"the form\nAnswer: <one of the letters {letters}>")
    else:
        ask = f"Reply with the letter of the correct option only ({letters}), nothing else."
    return "\n".join([question, "", *lines, "", ask])
