"""One sample as a person reads it in the HTML report: its score in a word or two, its
options marked, and the grading's details as labelled text. Data only; each benchmark makes
it from a record (``Benchmark.view``)."""

from __future__ import annotations

from pydantic import BaseModel


class Detail(BaseModel):
    """One labelled piece of the grading: a judge's reply, a matcher's decision, a rating."""

    label: str
    text: str
    folded: bool = False
    """Shown closed until opened (a long reasoning)."""


class Choice(BaseModel):
    """An option of a multiple-choice question, marked."""

    text: str
    correct: bool = False
    chosen: bool = False
    """The option the model's answer was read as naming."""


class SampleView(BaseModel):
    """What the report shows of one sample beyond its question, reference and answer."""

    score: str = ""
    """The sample's own score, shown in its row ("6.5", "right", "wrong")."""
    choices: list[Choice] = []
    details: list[Detail] = []
