"""What a multiple-choice benchmark asks the model: MMAR's and MMAU's layout, a reasoning
variant, or a user's template (read by ``benchmarks/templating.py``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from pytest_audiobench.benchmarks.choice.names import PromptStyle

CHOICE_PLACEHOLDERS = ("{question}", "{choices}")
_SELECT_LINE = "Select one option from the choices listed below."


def default_prompt(question: str, choices: Sequence[str]) -> str:
    """MMAR's maintainers' layout, which MMAU's reports use too: the question, a line asking
    for one option, one choice a line."""
    return "\n".join([question, _SELECT_LINE, *choices])


def reasoning_prompt(question: str, choices: Sequence[str]) -> str:
    """The default layout plus a request to reason first and end with an ``Answer:`` line."""
    return (
        default_prompt(question, choices)
        + "\n\nFirst reason step by step about what you hear in the audio. Then end your reply "
        "with a line of the form\nAnswer: <the chosen option, written exactly as above>"
    )


def choice_prompt(question: str, choices: Sequence[str], style: PromptStyle,
                  template: str | None) -> str:
    """A user's template when given (filled in one pass, literally), else the built-in
    layout of ``style``."""
    if template is not None:
        values = {"{question}": question, "{choices}": "\n".join(choices)}
        return re.sub(r"\{question\}|\{choices\}", lambda m: values[m.group(0)], template)
    build = reasoning_prompt if style == "reasoning" else default_prompt
    return build(question, choices)
