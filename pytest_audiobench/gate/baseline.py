"""Baseline files (``<dir>/<benchmark>/<model>.json``) and the gate they define (pure)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pytest_audiobench.errors import BaselineError, problems
from pytest_audiobench.outcome.lines import LARGEST, Linear, SampleLine, without_texts
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import JudgeIdentity, ModelIdentity


class Threshold(BaseModel):
    """The lowest acceptable value of one metric is ``threshold - tolerance``."""

    # Strict: a threshold written as "7.0" or true is a mistake in the file, not a number.
    model_config = ConfigDict(extra="forbid", strict=True)

    # Finite: Python's JSON reader takes NaN, and a NaN threshold would never fail; and no
    # larger than a line's numbers may be, so that every report can show it.
    threshold: float = Field(ge=-LARGEST, le=LARGEST, allow_inf_nan=False)
    tolerance: float = Field(default=0.0, ge=0, le=LARGEST, allow_inf_nan=False)
    margin: float | None = Field(default=None, ge=0, le=LARGEST, allow_inf_nan=False)
    """The drop the paired gate lets pass (None: the benchmark's default for the metric)."""
    min_n: int | None = Field(default=None, ge=1)
    """The samples both runs scored from which the paired gate holds it (None: the default,
    ``family.MIN_N``); below it, it is reported and not gated."""


class SamplesFile(BaseModel):
    """The per-sample file a baseline was written with: it is part of the baseline, and a
    baseline that lost it is refused, never held by its thresholds alone."""

    model_config = ConfigDict(extra="forbid", strict=True)

    file: str
    """Its name, beside the baseline file (``<model>.samples.jsonl``)."""
    lines: int = Field(ge=0)
    """How many sample lines it holds."""
    sha256: str
    """A hash of its lines (``lines_digest``): another file, or one cut short, is told apart."""


class Replaced(BaseModel):
    """The baseline a written one replaced, and how the run that wrote it did against it:
    replacing a baseline is an informed act, recorded for the pull request that commits it."""

    model_config = ConfigDict(extra="forbid", strict=True)

    model: str
    revision: str | None = None
    """The replaced baseline's model revision, when its run recorded one."""
    written: str | None = None
    """When the replaced baseline was written (UTC, ISO 8601), when it says."""
    digest: str
    """A hash of the replaced file's content (``Baseline.digest``)."""
    held: bool
    """Whether the run that wrote this baseline held against the one it replaced."""
    reasons: list[str] = []
    """Why it did not, a line per failed metric."""

    @classmethod
    def of(cls, old: Baseline, held: bool, reasons: list[str]) -> Replaced:
        return cls(model=old.model, revision=old.identity.revision if old.identity else None,
                   written=old.written, digest=old.digest(), held=held, reasons=reasons)


class Baseline(BaseModel):
    """Per-metric thresholds of one model on one benchmark, and the judge they came from."""

    model_config = ConfigDict(extra="forbid", strict=True)

    benchmark: str
    model: str
    judge_model: str | None = None
    """Judge the thresholds were measured with; another judge's numbers are not comparable."""
    judge: JudgeIdentity | None = None
    """What identified that judge (endpoint, sampling, prompt, the ids its replies named): a
    run whose judge differs judges the baseline's answers again (``drift.py``)."""
    source: str | None = None
    """Where the thresholds come from when no run here wrote them (a paper, a leaderboard)."""
    identity: ModelIdentity | None = None
    """What identified the model of the run that wrote it (revision, weights)."""
    noise: float | None = Field(default=None, ge=0, le=LARGEST, allow_inf_nan=False)
    """The judge's noise measured when it was written: the standard deviation of one draw."""
    max_errors: int = Field(default=0, ge=0)
    """Selected samples that may be without a score (errors, skips for missing or empty audio,
    not run) before the gate fails."""
    metrics: dict[str, Threshold]
    samples: SamplesFile | None = None
    """The per-sample file written with it; None: it never had one (published numbers, a file
    a team wrote by hand, or a baseline written before the file was recorded here), and
    without a file beside it the run is held by thresholds, not paired."""
    written: str | None = None
    """When it was written (UTC, ISO 8601)."""
    replaces: Replaced | None = None
    """The baseline it replaced, when it replaced one."""

    def digest(self) -> str:
        """What tells this baseline's content from another's (a rewritten one, another
        model's)."""
        return hashlib.sha256(self.model_dump_json().encode("utf-8")).hexdigest()[:16]


def path_for(folder: Path, benchmark: str, model: str) -> Path:
    """Model ids like ``Qwen/Qwen2-Audio-7B-Instruct`` become one safe file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "__", model).strip(".")
    return folder / benchmark / f"{safe}.json"


def load(path: Path) -> Baseline | None:
    """The baseline at ``path``; None when there is none; BaselineError when it is bad."""
    if not path.exists():
        return None
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(f"baseline {path}: not readable as JSON ({exc})") from exc
    try:
        return Baseline.model_validate(raw)
    except ValidationError as exc:
        raise BaselineError(
            f"baseline {path}: {problems(exc, 'file')}; expected {{benchmark, model, judge_model, "
            "max_errors, metrics: {name: {threshold, tolerance}}}"
        ) from None


@dataclass(frozen=True, slots=True)
class Provenance:
    """What a baseline written from a run records of that run, beside its numbers."""

    benchmark: str
    model: str
    judge_model: str | None = None
    judge: JudgeIdentity | None = None
    """What identified the judge whose grades made the numbers."""
    identity: ModelIdentity | None = None
    """What identified the model (only what the gate reads of it is kept)."""
    noise: float | None = None
    """The judge's noise measured on the run's lines."""
    replaces: Replaced | None = None
    """The baseline it replaces, as the run held against it."""


def from_run(made: Provenance, metrics: Mapping[str, Metric], names: tuple[str, ...],
             linear: Callable[[str], Linear | None], previous: Baseline | None,
             tolerance: float, allowed: int | None = None) -> Baseline:
    """A baseline of this run's values for ``names`` and for every metric ``previous`` gated;
    tolerances of ``previous`` stay, and so does its allowance unless ``allowed`` is given. A
    new metric's tolerance is ``tolerance`` (--audiobench-tolerance, in points of a 0-10
    score) scaled to its range, whose width ``linear`` gives where it makes the metric; a
    metric it makes better lower gets a ceiling, rounded up."""
    old = previous.metrics if previous else {}
    spans = spans_of(names, linear)
    lower = lower_better((*names, *old), linear)
    kept: dict[str, Threshold] = {}
    for name in dict.fromkeys((*names, *old)):
        if name in metrics:
            kept[name] = Threshold(
                # Rounded towards worse (down, or up for a ceiling): a baseline must hold
                # against the run that wrote it.
                threshold=(math.ceil if name in lower else math.floor)(
                    metrics[name].value * 10_000) / 10_000,
                tolerance=old[name].tolerance if name in old else _tolerance(
                    name, tolerance, spans.get(name)),
                margin=old[name].margin if name in old else None,
                min_n=old[name].min_n if name in old else None)
        elif name in old:
            kept[name] = old[name]
    if allowed is None:
        allowed = previous.max_errors if previous else 0
    # Only what the gate reads of the model's identity: a baseline is a file teams commit.
    identity = made.identity.kept() if made.identity is not None else None
    return Baseline(benchmark=made.benchmark, model=made.model, judge_model=made.judge_model,
                    judge=made.judge, identity=identity, noise=made.noise,
                    max_errors=allowed, metrics=kept, replaces=made.replaces)


def _tolerance(name: str, points: float, span: float | None) -> float:
    """``points`` of a 0-10 score on a metric whose range is ``span`` wide: 0.2 is 2 points of
    an accuracy in percent and 0.02 of a win rate. Of a range not known, a win rate is a share
    (0-1), anything else a score."""
    if span is None:
        span = 1.0 if name.endswith(".win_rate") else SCORE_SPAN
    return round(points * span / SCORE_SPAN, 4)


SCORE_SPAN = 10.0
"""The width of the range --audiobench-tolerance is stated in: a judge's 0-10 score."""


def spans_of(names: Iterable[str], linear: Callable[[str], Linear | None]) -> dict[str, float]:
    """The width a sample's whole swing spans in each metric (its range's, or its
    ``swing`` when the range is open), of those ``linear`` knows."""
    return {name: made.span for name in names if (made := linear(name)) is not None}


def lower_better(names: Iterable[str], linear: Callable[[str], Linear | None]) -> frozenset[str]:
    """The metrics of ``names`` that are better lower (a word error rate), as their
    benchmark makes them (``Linear.lower_is_better``): the direction is the benchmark's data,
    never a baseline file's."""
    return frozenset(name for name in names
                     if (made := linear(name)) is not None and made.lower_is_better)


def samples_path(path: Path) -> Path:
    """``<model>.samples.jsonl`` beside ``<model>.json``."""
    return path.with_name(path.stem + ".samples.jsonl")


class BaseLines(Mapping[str, SampleLine]):
    """A baseline's sample lines by node id, held without their texts (answers, their hashes
    and judge replies), which the gate never reads: a run of 22,000 samples would keep every
    answer of the baseline in each process. ``full`` gives a line whole, read again from the
    file (kept open, so an update written meanwhile does not change it) when a report shows
    it."""

    def __init__(self, light: dict[str, SampleLine], source: BinaryIO | None = None,
                 places: Mapping[str, tuple[int, int]] | None = None,
                 digest: str | None = None) -> None:
        self._light = light
        self._source = source
        self._places = places or {}
        self.digest = digest
        """A hash of the file's lines (``LinesDigest``); None when there is no file."""

    def __getitem__(self, nodeid: str) -> SampleLine:
        return self._light[nodeid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._light)

    def __len__(self) -> int:
        return len(self._light)

    def close(self) -> None:
        """Let go of the file (``full`` gives the held lines only, without their texts)."""
        if self._source is not None:
            self._source.close()

    def line_number(self, nodeid: str) -> int | None:
        """Which line of the file holds ``nodeid``'s (from 1); None without the file."""
        if self._source is None or self._source.closed or nodeid not in self._places:
            return None
        before = os.pread(self._source.fileno(), self._places[nodeid][0], 0)
        return before.count(b"\n") + 1

    def full(self, nodeid: str) -> SampleLine | None:
        """The line of ``nodeid`` with its texts; None when it has none."""
        if nodeid not in self._light:
            return None
        if self._source is None or self._source.closed:
            return self._light[nodeid]
        offset, length = self._places[nodeid]
        return SampleLine.model_validate_json(os.pread(self._source.fileno(), length, offset))


class LinesDigest:
    """A hash of a per-sample file's lines as they are written and read, whatever their line
    endings (a checkout may turn them into CRLF)."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self.count = 0

    def add(self, raw: bytes) -> None:
        self._hash.update(raw.rstrip(b"\r\n") + b"\n")
        self.count += 1

    def hexdigest(self) -> str:
        return self._hash.hexdigest()[:16]


def check_samples(path: Path, file: Baseline | None, lines: BaseLines) -> None:
    """A baseline written with a per-sample file has that file beside it, whole: a lost or
    foreign one is a BaselineError naming it, never a gate by thresholds alone."""
    named = file.samples if file is not None else None
    if named is None:
        return
    lines_path = samples_path(path)
    again = "write the baseline again with --audiobench-update-baseline"
    if lines.digest is None:
        raise BaselineError(
            f"baseline {path}: its per-sample file {lines_path} is missing: the baseline was "
            f"written with it ({named.lines} lines) and is held paired against it, never by its "
            "thresholds alone (a .gitignore that drops *.jsonl loses it); restore the file, or "
            f"{again}")
    if (len(lines), lines.digest) != (named.lines, named.sha256):
        raise BaselineError(
            f"baseline {path}: {lines_path} holds {len(lines)} lines (sha256 {lines.digest}) "
            f"where the baseline was written with {named.lines} (sha256 {named.sha256}): it is "
            f"not this baseline's per-sample file; restore the one written with it, or {again}")


def check_ranges(path: Path, file: Baseline | None, lines: BaseLines,
                 linear: Callable[[str], Linear | None]) -> None:
    """Every number of a line that a metric of the baseline reads lies in that metric's range:
    a value in its ``Linear``'s, a weight above 0, a draw of the item's own score in the
    range of the benchmark's values. A line outside it (a score of 40 on a 0-10 scale, a
    negative accuracy, a word error rate below 0) would move the gate where no run can: a
    BaselineError naming the file, the line and the field."""
    ranges, draws = _ranges(file.metrics if file is not None else (), linear)
    if not ranges:
        return
    for nodeid, line in lines.items():
        wrong = _out_of_range(line, ranges, draws)
        if wrong is not None:
            field, value, (low, high) = wrong
            raise BaselineError(
                f"baseline samples {samples_path(path)} line {lines.line_number(nodeid)}: "
                f"{field} is {value!r}, outside {_span(low, high)}, the range the benchmark's "
                "metrics read it in; fix the line, or remove the baseline and write it again "
                "with --audiobench-update-baseline")


Range = tuple[float, float]


def _ranges(metrics: Iterable[str], linear: Callable[[str], Linear | None]
            ) -> tuple[dict[str, Range], Range]:
    """The range of each value the metrics read (a weight's above 0), and the draws' (the
    widest of the values')."""
    ranges: dict[str, Range] = {}
    for made in filter(None, map(linear, metrics)):
        ranges[made.value] = (made.low, made.high)
        if made.weight is not None:
            ranges[made.weight] = (math.nextafter(0.0, 1.0), math.inf)
    spans = [ranges[made.value] for made in filter(None, map(linear, metrics))]
    draws = (min((low for low, _ in spans), default=-math.inf),
             max((high for _, high in spans), default=math.inf))
    return ranges, draws


def _out_of_range(line: SampleLine, ranges: Mapping[str, Range], draws: Range
                  ) -> tuple[str, float, Range] | None:
    """The first field of ``line`` outside its range, its value and the range; None."""
    for where, values in (("values", line.values),
                          *((f"runs[{n}]", run) for n, run in enumerate(line.runs))):
        for name, value in values.items():
            low, high = ranges.get(name, (-math.inf, math.inf))
            if not low <= value <= high:
                return f"{where}.{name}", value, (low, high)
    for n, value in enumerate(line.draws):
        if not draws[0] <= value <= draws[1]:
            return f"draws[{n}]", value, draws
    return None


def _span(low: float, high: float) -> str:
    if low > 0 and high == math.inf:
        return "above 0"
    return f"{low:g} to {high:g}" if high != math.inf else f"{low:g} and up"


def whole(lines: Mapping[str, SampleLine], nodeid: str) -> SampleLine | None:
    """The line of ``nodeid`` with its texts, whether ``lines`` were loaded without them
    (``BaseLines``) or are whole already."""
    return lines.full(nodeid) if isinstance(lines, BaseLines) else lines.get(nodeid)


def load_samples(path: Path) -> BaseLines:
    """The sample lines beside the baseline at ``path`` (empty when there are none, as for a
    threshold-only baseline), without their texts; BaselineError naming the file and line
    when one is bad."""
    lines_path = samples_path(path)
    if not lines_path.exists():
        return BaseLines({})
    try:
        source = lines_path.open("rb")  # kept open for BaseLines.full
    except OSError as exc:
        raise BaselineError(f"baseline samples {lines_path}: not readable ({exc})") from exc
    try:
        return _read_lines(lines_path, source)
    except OSError as exc:
        source.close()
        raise BaselineError(f"baseline samples {lines_path}: not readable ({exc})") from exc
    except BaselineError:
        source.close()
        raise


def _read_lines(lines_path: Path, source: BinaryIO) -> BaseLines:
    found: dict[str, SampleLine] = {}
    places = {}
    offset = 0
    digest = LinesDigest()
    for number, raw in enumerate(source, start=1):
        if raw.strip():
            digest.add(raw)
            try:
                line = SampleLine.model_validate_json(raw)
            except ValidationError as exc:
                raise BaselineError(f"baseline samples {lines_path} line {number}: "
                                    f"{problems(exc, 'line', one_line=True)}") from None
            if line.id in found:
                raise BaselineError(f"baseline samples {lines_path} line {number}: sample "
                                    f"{line.id} appears twice")
            found[line.id] = without_texts(line)
            places[line.id] = (offset, len(raw))
        offset += len(raw)
    return BaseLines(found, source, places, digest.hexdigest())
