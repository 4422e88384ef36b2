"""The base of every multiple-choice benchmark (MMAR, MMAU, AIR-Bench Foundation, a third
party's): items that are a question, options and one correct option.

A benchmark on it declares its records (``load``), its prompt, its metric groups
(``groupings`` and ``groups``) and its grade type; it gets from the base the grading by the
official token-set rule with the strict one beside it (``MatchedGrade``), the 0/1 sample
lines clustered by audio and their metrics for the paired gate, the counts per group, the
failure report, the page's view and the submission export. A benchmark whose matchers are
other (Foundation's align judge) makes its own ``ChoiceGrade`` and keeps the rest.

Metric names are ``<benchmark>.[<prefix><group>.]<ending>``: ``avg`` (the deciding matcher),
``<matcher>.avg`` for each matcher, ``<matcher>.fail_num`` for a matcher that can fail to
read a reply, and a grade's own ``counts``.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from pytest_audiobench.benchmarks.base import Benchmark, Gating, Runtime, Tally
from pytest_audiobench.benchmarks.choice.gating import choice_line, choice_linear, percent
from pytest_audiobench.benchmarks.choice.matching import (
    MatchDecision,
    match_official,
    match_strict,
    split_reasoning,
)
from pytest_audiobench.benchmarks.reporting import text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.files import replacing
from pytest_audiobench.outcome.lines import Linear, SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
from pytest_audiobench.outcome.view import Choice, Detail, SampleView

LETTERS = string.ascii_uppercase


class ChoiceGrade(Grade):
    """One answer to a multiple-choice question as each of its benchmark's matchers read it;
    ``matcher`` decides. A subclass names its ``kind`` and says what each matcher decided."""

    matcher: str

    @property
    def decisions(self) -> dict[str, bool | None]:
        """Each matcher that read the answer: right, wrong, or None when it could not read
        it (left out of that matcher's count); empty when the split withholds the answer."""
        raise NotImplementedError

    @property
    def scored(self) -> bool:
        """Whether it was graded at all (a withheld answer is not)."""
        return bool(self.decisions)

    @property
    def correct(self) -> bool:
        """Right by the deciding matcher (a matcher that could not read it is not right)."""
        return self.decisions.get(self.matcher) is True

    def chosen(self, choices: Sequence[str]) -> int | None:
        """The index of the option the deciding matcher read the answer as; None: none."""
        return None

    def readings(self) -> list[Detail]:
        """What each matcher read, as the failure report (the unfolded ones) and the page
        show it."""
        return []

    def counts(self) -> dict[str, int]:
        """Counts of its own that its benchmark reports per group, by metric ending."""
        return {}

    @property
    def judge_reply(self) -> str | None:
        """The reply of a judge that read the answer; None when none did."""
        return None


class MatchedGrade(ChoiceGrade):
    """An answer read by the official token-set rule and the strict one
    (``choice/matching.py``): the reply's answer line taken from its reasoning, and each
    rule's decision (None where the split withholds the answer)."""

    reasoning: str
    prediction: str
    """The final answer taken from the reply (the whole reply when it has no answer line)."""
    official: MatchDecision | None = None
    strict: MatchDecision | None = None

    @classmethod
    def read(cls, answer: ModelAnswer, correct: str | None, choices: Sequence[str],
             matcher: str, **more: Any) -> Any:
        """``answer`` split from its reasoning and matched against ``correct`` by both rules
        (neither when ``correct`` is withheld); an empty answer is wrong, as officially."""
        reasoning, prediction = split_reasoning(answer.text, answer.reasoning)
        if correct is None:
            return cls(matcher=matcher, reasoning=reasoning, prediction=prediction, **more)
        return cls(matcher=matcher, reasoning=reasoning, prediction=prediction,
                   official=match_official(prediction, correct, choices),
                   strict=match_strict(prediction, correct, choices), **more)

    @property
    def decisions(self) -> dict[str, bool | None]:
        return {name: decision.correct for name, decision in self._decided().items()}

    def _decided(self) -> dict[str, MatchDecision]:
        return {name: decision for name, decision in (("official", self.official),
                                                       ("strict", self.strict))
                if decision is not None}

    def chosen(self, choices: Sequence[str]) -> int | None:
        decision = self._decided().get(self.matcher)
        taken = decision.extracted if decision is not None else None
        return choices.index(taken) if taken in choices else None

    def readings(self) -> list[Detail]:
        details = [Detail(label="extracted", text=self.prediction)]
        details += [Detail(label=name, text=_decision(decision))
                    for name, decision in self._decided().items()]
        if self.reasoning:
            details.append(Detail(label="reasoning", text=self.reasoning, folded=True))
        return details


ChoiceVerdict = ChoiceGrade
"""The old name of ``ChoiceGrade`` (the same class)."""
MatchedVerdict = MatchedGrade
"""The old name of ``MatchedGrade`` (the same class)."""


class ChoiceBenchmark(Benchmark):
    """A benchmark of multiple-choice items. Required: ``load``, ``prompt`` and ``groups``
    (from ``Benchmark`` and here), the class attributes ``grade_type`` (its ``ChoiceGrade``
    subclass) and ``groupings``; ``grade`` reads the answer with ``grade_type.read`` when
    that is a ``MatchedGrade``. Built with the matcher that decides (``"official"`` or
    ``"strict"`` for a ``MatchedGrade``)."""

    grade_type: ClassVar[type[ChoiceGrade]]
    groupings: ClassVar[tuple[tuple[str, str], ...]] = ()
    """Each grouping of a sample line (``groups``' keys) with its metric prefix."""
    matchers: ClassVar[tuple[str, ...]] = ("official", "strict")
    endings: ClassVar[Mapping[str, str]] = {"avg": "correct", "official.avg": "official",
                                             "strict.avg": "strict"}
    """A metric's ending and the sample line's value it averages."""
    ratings: ClassVar[frozenset[str]] = frozenset()
    """Values among ``endings``' that are ratings, not 0/1 outcomes."""
    fallible: ClassVar[frozenset[str]] = frozenset()
    """Matchers that can fail to read a reply: their failures are counted (``fail_num``)."""
    lettered: ClassVar[bool] = False
    """Whether the options are shown with their letters (the prompt names them so)."""
    export_flag: ClassVar[str] = ""
    """The flag naming the submission's path."""
    export_title: ClassVar[str] = ""
    """The submission's name in what the run says it wrote."""
    export_array: ClassVar[bool] = False
    """The submission is one JSON array (else one JSON object a line)."""

    def __init__(self, settings: Settings, matcher: str = "official") -> None:
        super().__init__(settings)
        self.matcher = matcher

    def groups(self, record: SampleRecord) -> dict[str, str]:
        """The record's group in each grouping, by the grouping's name; an empty one counts in
        no group of that grouping."""
        raise NotImplementedError(f"benchmark {self.name} defines no groups")

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        if not issubclass(self.grade_type, MatchedGrade):
            raise NotImplementedError(f"benchmark {self.name} grades its answers itself")
        known = sample.reference in sample.choices  # else the split withholds it
        grade: Grade = self.grade_type.read(answer, sample.reference if known else None,
                                             sample.choices, self.matcher)
        return grade

    def graded(self, grades: Sequence[object]) -> list[Any]:
        """This benchmark's scored grades among a record's."""
        return [v for v in grades if isinstance(v, self.grade_type) and v.scored]

    def decided_by_judge(self) -> bool:
        """Whether a sampled judge decides correctness (its noise matters to the gate)."""
        return False

    def values(self, graded: Sequence[Any]) -> dict[str, float]:
        """A sample's values over its runs ``graded``: percent right by each matcher over the
        runs it could read, and by the deciding one as ``correct``."""
        values: dict[str, float] = {}
        for matcher in self.matchers:
            read = [d for v in graded if (d := v.decisions.get(matcher)) is not None]
            if read:
                values[matcher] = percent(read)
        if self.matcher in values:
            values["correct"] = values[self.matcher]
        return values

    def failed_means(self) -> str:
        return "wrong"

    def tally(self, runs: int) -> Tally:
        return ChoiceTally(self, [self.scores() for _ in range(runs)])

    def scores(self) -> ChoiceScores:
        """One inference run's counts, empty."""
        return ChoiceScores(self)

    def question_lines(self, sample: Sample, first: ChoiceGrade) -> list[str]:
        """The failure report's question, options and correct option."""
        options = [f"{LETTERS[i]}. {c}" if self.lettered else c
                   for i, c in enumerate(sample.choices) if _shown(c, self.lettered)]
        return [text_field("question", sample.question),
                text_field("choices", " | ".join(options)),
                text_field("correct", sample.reference)]

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        graded = self.graded(grades)
        wrong = [v for v in graded if not v.correct]
        if not wrong:
            return None
        runs = "" if len(graded) == 1 else f" in {len(wrong)} of {len(graded)} runs"
        lines = [f"wrong answer{runs} ({self.matcher} matcher)",
                 *self.question_lines(sample, graded[0])]
        for answer, grade in zip(answers, graded, strict=False):
            prefix = "" if len(graded) == 1 else f"run {answer.run} "
            lines.append(text_field(prefix + "answer", answer.said()))
            lines += [text_field(d.label, d.text) for d in grade.readings() if not d.folded]
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        graded = self.graded(grades)
        return [("audiobench_correct", " ".join(str(v.correct).lower() for v in graded))] \
            if graded else []

    def view(self, record: SampleRecord) -> SampleView:
        graded = self.graded(record.grades)
        chosen = graded[0].chosen(record.choices) if graded else None
        choices = [Choice(text=f"{LETTERS[i]}. {c}" if self.lettered else c,
                          correct=c == record.reference, chosen=i == chosen)
                   for i, c in enumerate(record.choices) if _shown(c, self.lettered)]
        if not graded:
            return SampleView(choices=choices)
        right = sum(v.correct for v in graded)
        score = ("right" if right else "wrong") if len(graded) == 1 else \
            f"right in {right} of {len(graded)} runs"
        details = [d.model_copy(update={"label": f"run {i}, {d.label}"}) if len(graded) > 1
                   else d for i, grade in enumerate(graded) for d in grade.readings()]
        return SampleView(score=score, choices=choices, details=details)

    def export_path(self) -> Path | None:
        """Where the submission is written; None: not asked for (the default)."""
        return None

    def submission(self, record: SampleRecord, grade: Any) -> dict[str, Any]:
        """The submission's entry for ``record``, its first run's ``grade`` (None
        when it has none)."""
        raise NotImplementedError(f"benchmark {self.name} writes no submission")

    def outputs(self) -> dict[str, Path]:
        path = self.export_path()
        return {} if path is None else {self.export_flag: path}

    def finish(self, records: Iterable[SampleRecord]) -> list[str]:
        path = self.export_path()
        if path is None:
            return []
        written = empty = 0
        with replacing(path) as out:
            out.write("[\n" if self.export_array else "")
            for record in records:
                grades = [v for v in record.grades if isinstance(v, self.grade_type)]
                entry = json.dumps(self.submission(record, grades[0] if grades else None),
                                   ensure_ascii=False)
                separator = ",\n" if self.export_array and written else ""
                out.write(separator + entry + ("" if self.export_array else "\n"))
                written += 1
                empty += not grades
            out.write("\n]\n" if self.export_array and written else
                      "]\n" if self.export_array else "")
        unit = "records" if self.export_array else "lines"
        return [f"{self.export_title} submission: {written} {unit} written to {path}"
                + (f" ({empty} without a prediction)" if empty else "")]

    def gating(self) -> ChoiceGating:
        return ChoiceGating(self)


class ChoiceGating(Gating):
    """A multiple-choice benchmark's samples as the paired gate reads them: 0/1 outcomes."""

    bench: ChoiceBenchmark

    def line(self, record: SampleRecord) -> SampleLine | None:
        graded = self.bench.graded(record.grades)
        if not graded or not record.answers:
            return None
        replies = [reply for v in graded if (reply := v.judge_reply) is not None]
        return choice_line(record, graded, self.bench.values, self.bench.groups(record),
                           judged=self.bench.decided_by_judge(), replies=replies)

    def linear(self, metric: str) -> Linear | None:
        bench = self.bench
        return choice_linear(metric, bench.name, bench.groupings, bench.endings,
                             rated=bench.ratings)

    def margin(self, metric: str) -> float:
        return 1.0  # percentage points of accuracy


@dataclass
class _Group:
    n: int = 0
    seen: Counter[str] = field(default_factory=Counter)
    """By matcher: the answers it read or tried to."""
    read: Counter[str] = field(default_factory=Counter)
    right: Counter[str] = field(default_factory=Counter)
    counts: Counter[str] = field(default_factory=Counter)


class ChoiceScores:
    """One inference run's counts per group (all, and each grouping's), folded grade by
    grade; no texts are kept."""

    def __init__(self, bench: ChoiceBenchmark) -> None:
        self.bench = bench
        self.groups: dict[str, _Group] = {}

    def names(self, record: SampleRecord) -> list[str]:
        """The metric prefixes ``record`` counts in, the whole first."""
        groups = self.bench.groups(record)
        return ["", *(f"{prefix}{groups[by]}." for by, prefix in self.bench.groupings
                      if groups.get(by))]

    def add(self, record: SampleRecord, grade: ChoiceGrade) -> None:
        decisions, counts = grade.decisions, grade.counts()
        for name in self.names(record):
            group = self.groups.setdefault(name, _Group())
            group.n += 1
            for matcher, decision in decisions.items():
                group.seen[matcher] += 1
                group.read[matcher] += decision is not None
                group.right[matcher] += decision is True
            group.counts.update(counts)

    def metrics(self) -> dict[str, Metric]:
        """Accuracy in percent per group (pooled over items) by each matcher over the answers
        it read, the deciding one's as ``avg``; failures of the fallible matchers; the
        grades' own counts."""
        out: dict[str, Metric] = {}
        for name, group in self.groups.items():
            base = f"{self.bench.name}.{name}"
            for matcher in self.bench.matchers:
                read = group.read[matcher]
                if read:
                    out[f"{base}{matcher}.avg"] = Metric(value=100 * group.right[matcher] / read,
                                                         n=read)
                if matcher in self.bench.fallible and group.seen[matcher]:
                    out[f"{base}{matcher}.fail_num"] = Metric(
                        value=group.seen[matcher] - read, n=group.seen[matcher])
            out.update({f"{base}{ending}": Metric(value=count, n=group.n)
                        for ending, count in group.counts.items()})
            deciding = out.get(f"{base}{self.bench.matcher}.avg")
            if deciding is not None:
                out[base + "avg"] = deciding
        return out


class ChoiceTally(Tally):
    """Each inference run's counts, folded record by record."""

    def __init__(self, bench: ChoiceBenchmark, runs: list[ChoiceScores]) -> None:
        self._bench = bench
        self._runs = runs

    def add(self, record: SampleRecord) -> None:
        for scores, grade in zip(self._runs, self._bench.graded(record.grades),
                                   strict=False):
            scores.add(record, grade)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._runs[run].metrics()


def _decision(decision: MatchDecision) -> str:
    said = "correct" if decision.correct else "wrong"
    took = f", read as {decision.extracted!r}" if decision.extracted else ""
    return f"{said}{took}: {decision.reason}"


def _shown(option: str, lettered: bool) -> bool:
    """Whether a report shows `option`: an empty one of lettered options only pads the
    question (MMSU's two-option items), and the others keep their letters without it."""
    return bool(option) or not lettered
