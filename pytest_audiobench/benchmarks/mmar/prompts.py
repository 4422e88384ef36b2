"""What MMAR asks the model: the maintainers' layout, a reasoning variant, or a user's template."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.mmar.data import MmarRecord
from pytest_audiobench.benchmarks.templates import read_template

_SELECT_LINE = "Select one option from the choices listed below."


def default_prompt(question: str, choices: Sequence[str]) -> str:
    """The maintainers' layout: the question, a line asking for one option, one choice a line."""
    return "\n".join([question, _SELECT_LINE, *choices])


def reasoning_prompt(question: str, choices: Sequence[str]) -> str:
    """The default layout plus a request to reason first and end with an ``Answer:`` line."""
    return (
        default_prompt(question, choices)
        + "\n\nFirst reason step by step about what you hear in the audio. Then end your reply "
        "with a line of the form\nAnswer: <the chosen option, written exactly as above>"
    )


def prompt_for(record: MmarRecord, style: str, template: str | None) -> str:
    """A user's template when given (filled in one pass, literally), else the built-in
    layout of ``style``."""
    if template is not None:
        values = {"{question}": record.question, "{choices}": "\n".join(record.choices)}
        return re.sub(r"\{question\}|\{choices\}", lambda m: values[m.group(0)], template)
    build: Callable[[str, Sequence[str]], str] = (
        reasoning_prompt if style == "reasoning" else default_prompt)
    return build(record.question, record.choices)


def read_prompt_template(path: Path) -> str:
    """A user's prompt, which must carry {question} and {choices}."""
    return read_template(path, "--audiobench-mmar-template", ("{question}", "{choices}"))
