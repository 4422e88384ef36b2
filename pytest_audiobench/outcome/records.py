"""What one sample produced, as it crosses from an xdist worker to the controller (plain
JSON) and lands in the JSON report."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    Field,
    SerializeAsAny,
    computed_field,
    field_validator,
)

from pytest_audiobench.config.names import AudioMode
from pytest_audiobench.config.settings import Sampling
from pytest_audiobench.transport.types import Completion, Usage

ItemChange = Literal["regressed", "below the bar", "xfailed", "xpassed", "unpaired"]
"""What the gate made of an item (``gate/sample_change.item_decision``, kept in its record):
regressed against its per-sample baseline line; below the bar, with no line to hold it against;
xfailed (under its bar and not regressed, or recorded so by a run that writes its baseline);
xpassed (under its bar in the baseline, clearing it now); unpaired (the baseline's answer it is
held against could not be graded again: an error of the item)."""

Outcome = Literal["passed", "failed", "error", "skipped", "not_run", "xfailed", "xpassed"]
"""``not_run``: stopped before it could be graded (the item shows as skipped). With a
per-sample baseline, ``failed`` is a regression, ``xfailed`` a sample under its bar as
before, ``xpassed`` one that was under it and clears it now."""


class Grade(BaseModel):
    """An answer's grade: what grading one answer gives. Each benchmark subclasses it with a
    ``kind`` of its own (its name); a record read back from JSON gets the subclass its
    ``kind`` names, which is known once the benchmark's module is imported (the registry does
    that first). ``Verdict`` is its old name (the same class)."""

    kind: str
    kinds: ClassVar[dict[str, type[Grade]]] = {}

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        kind = cls.model_fields["kind"].default
        if isinstance(kind, str):  # a base shared by several kinds (ChoiceGrade) names none
            Grade.kinds[kind] = cls

    @property
    def judge_failures(self) -> int:
        """Judge passes or raters whose every reply was rejected."""
        return 0

    @property
    def unfinished(self) -> str | None:
        """What of the grading could not be done on the way (a judge out of attempts, or not
        sent), when the score stands without it: a resume grades the sample again. None when
        the grading is whole."""
        return None

    @property
    def judge_usage(self) -> Usage:
        """The tokens of every judge reply the grade rests on, cached ones included (what
        it would have cost)."""
        return Usage()

    @property
    def judge_sent_usage(self) -> Usage:
        """Of those, the tokens of the replies sent, not served from the cache (what it cost).
        A benchmark that does not say counts none."""
        return Usage()

    @property
    def judge_calls(self) -> int:
        """Judge requests this grade took, retries included."""
        return 0

    @property
    def judge_cached(self) -> int:
        """Of those, the ones served from the response cache."""
        return 0


Verdict = Grade
"""The old name of ``Grade``, kept so that a benchmark written against it still subclasses
the same class (its kind registered alike)."""


def read_grade(raw: Any) -> Any:
    """A grade as the subclass its ``kind`` names (a grade object stays as it is)."""
    if not isinstance(raw, dict):
        return raw
    kind = raw.get("kind")
    if kind not in Grade.kinds:
        raise ValueError(f"a grade of kind {kind!r}, and no benchmark of that name is loaded "
                         f"(loaded: {', '.join(Grade.kinds) or 'none'})")
    return Grade.kinds[kind].model_validate(raw)


class RequestRecord(BaseModel):
    """Everything that was sent to the model for one sample, audio summarised."""

    url: str
    model: str
    sampling: Sampling
    audio_mode: AudioMode
    prompt: str
    system: str | None = None
    """The system message sent before the audio, when the benchmark sends one."""
    audio_format: str
    audio_seconds: float
    audio_sha256: str
    transcoded: bool


class ModelAnswer(BaseModel):
    """The model's reply to one sample and the request that produced it."""

    run: int = 0
    """Which of the ``--audiobench-runs`` inferences this is, from 0."""
    request: RequestRecord
    completion: Completion
    warnings: list[str] = []

    @property
    def text(self) -> str:
        """The answer: the content without an inline thought block (what the matchers and the
        judges see), empty when the model said nothing."""
        return self.completion.answer

    @property
    def reasoning(self) -> str:
        """The reasoning the model gave beside its answer (a server's reasoning field, or an
        inline thought block); empty when it gave none."""
        return self.completion.thought

    @computed_field  # type: ignore[prop-decorator]
    @property
    def empty(self) -> bool:
        """The model answered nothing, after being asked ``completion.attempts`` times: an
        answer all the same, counted as given (a multiple-choice item is wrong, a judge
        scores it), never an error."""
        return self.completion.empty

    def said(self) -> str:
        """The answer as a report shows it: its text, or that it was empty and how often the
        model was asked."""
        if not self.empty:
            return self.text
        asked = self.completion.attempts
        times = "once" if asked == 1 else f"{asked} times"
        cut = ", cut at the token limit" if self.completion.cut else ""
        return f"(empty answer{cut}: asked {times}, counted as given)"


class SampleRecord(BaseModel):
    """One sample's whole story: outcome, requests, answers, grades, and why it ended so."""

    benchmark: str
    sample_id: str
    task: str
    category: str
    subcategory: str = ""
    nodeid: str
    outcome: Outcome
    audio_path: str
    question: str = ""
    reference: str = ""
    """The reference answer (for a multiple-choice question, the correct option)."""
    choices: list[str] = []
    answers: list[ModelAnswer] = []
    """One per inference run, in run order; empty when the model could not be asked."""
    grades: list[SerializeAsAny[Grade]] = Field(
        default=[], validation_alias=AliasChoices("grades", "verdicts"))
    """One per answer; empty when grading failed. Format 6 and before called it
    ``verdicts``."""
    unfinished: str | None = None
    """What of its grading could not be done on the way (``Grade.unfinished``): its score
    stands without it, and a resume grades the sample again."""
    message: str | None = None
    """Why the sample failed, errored or was skipped."""
    change: ItemChange | None = None
    """What the gate made of the item (``ItemChange``); None when it passed on its own."""
    baseline_answers: list[ModelAnswer] = []
    """Head to head (--audiobench-baseline-model): the live baseline model's answers, asked in
    this run, one per inference run as ``answers``; ``baseline_grades`` grades them."""
    baseline_grades: list[SerializeAsAny[Grade]] = Field(
        default=[], validation_alias=AliasChoices("baseline_grades", "baseline_verdicts",
                                                  "judged_again"))
    """Today's judge on the baseline's side of the sample, graded in this run: head to head,
    the live baseline model's answers (``baseline_answers``, one grade each); otherwise the
    per-sample baseline's recorded answer, when the sample calibrates the judge
    (``gate/drift.py``; one grade). Formats 5 and 6 called it ``baseline_verdicts``, format
    4 ``judged_again``."""
    baseline_grades_failed: str | None = Field(
        default=None, validation_alias=AliasChoices("baseline_grades_failed",
                                                    "baseline_verdicts_failed",
                                                    "judged_again_failed"))
    """Why the baseline's side could not be graded in this run (``baseline_grades``)."""
    confirmation: list[SerializeAsAny[Grade]] = []
    """Fresh draws of the judge on the first answer, a grade per round, when its first
    draws suggested a drop (``gate/sample_change.py``); the metrics never read them."""
    confirmation_of_baseline: list[SerializeAsAny[Grade]] = []
    """The same rounds on the baseline's answer."""
    confirmation_failed: str | None = None
    """Why a round could not be drawn (the item was then decided on the draws it had)."""

    @property
    def verdicts(self) -> list[Grade]:
        """The old name of ``grades``, for a benchmark written against it."""
        return self.grades

    def baseline_model_record(self) -> SampleRecord | None:
        """Head to head, the live baseline model's side of the sample as a record of its own:
        its answer and today's judge's grade on it; None when it has none."""
        if not self.baseline_answers or not self.baseline_grades:
            return None
        return self.model_copy(update={
            "outcome": "passed", "answers": self.baseline_answers,
            "grades": self.baseline_grades,
            "baseline_answers": [], "baseline_grades": [], "confirmation": [],
            "confirmation_of_baseline": []})

    @field_validator("grades", "baseline_grades", "confirmation", "confirmation_of_baseline",
                     mode="before")
    @classmethod
    def _each_as_its_kind(cls, value: Any) -> Any:
        return [read_grade(v) for v in value] if isinstance(value, list) else value
