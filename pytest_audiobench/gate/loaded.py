"""One benchmark's baseline as a run holds it, loaded once before any request: the file's
thresholds, its per-sample lines, the judge's noise they measure (computed here, once) and
so which gate its items get: the per-sample baseline, or the bar when no drop of a sample
can be told from the judge's noise. Every process that runs items, the controller's report
and a merge of shards read the same object.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

from pytest_audiobench.config.names import MINI, bundled
from pytest_audiobench.config.settings import EndpointSettings, Settings
from pytest_audiobench.errors import BaselineError
from pytest_audiobench.gate.baseline import (
    Baseline,
    BaseLines,
    Provenance,
    check_ranges,
    check_samples,
    from_run,
    load,
    load_samples,
    path_for,
    whole,
)
from pytest_audiobench.gate.drift import JudgeComparison, calibrating
from pytest_audiobench.gate.paired import items_decidable, noise_of
from pytest_audiobench.gate.sample_change import Change, Confirming, change
from pytest_audiobench.outcome.lines import JudgedBy, Linear, SampleLine
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.transport.types import JudgeIdentity

MORE_DRAWS = ("--audiobench-runs 2, any benchmark; a scoring judge also "
              "--audiobench-judge-repeats 2, or a second pass in swapped order where the "
              "benchmark has one, on by default")
"""How a sample gets more than one judge draw, which the judge's noise is measured from."""

ITEMS_BY_THE_BAR = (
    "items: held against the bar, not the per-sample baseline: the baseline has one judge draw "
    "per sample, so the judge's noise is unknown and no sample's drop can be told from it "
    f"(write the baseline with more draws: {MORE_DRAWS})")


LIVE_ITEMS_BY_THE_BAR = (
    "items: held against the bar, not the baseline model's answers: the judge's noise could "
    "not be measured before the items (no calibration share, or one judge draw per answer: "
    f"raise --audiobench-calibration-share, or draw more: {MORE_DRAWS})")


@dataclass(frozen=True)
class LoadedBaseline:
    """A benchmark's baseline file (None: there is none yet) and its per-sample lines (empty:
    a threshold-only baseline, or none)."""

    path: Path
    file: Baseline | None
    lines: Mapping[str, SampleLine]
    noise: float | None
    """The judge's noise: as the file states it, else measured from its lines."""
    confidence: float
    calibration: frozenset[str] = frozenset()
    """The node ids of the lines whose answers today's judge grades again (``drift.py``)."""
    judged: JudgedBy = field(default_factory=JudgedBy)
    """What a judge decides of the benchmark (``JudgeUse.decides``): a line with such a
    value was graded by a judge even when its own score is a rule's (MMAR's rubric rating
    beside accuracy), and such a metric's threshold is the baseline's judge's."""
    comparison: JudgeComparison | None = None
    """What the gate holds this run against, once decided before the items (``drift.py``)."""
    baseline_endpoint: EndpointSettings | None = None
    """Head to head (--audiobench-baseline-model): the live baseline model that answers every
    sample in this run. There is no file and no line: every item pairs
    against its answer judged in the run, and ``noise`` is measured before the items
    (``run/calibration.py``)."""

    @classmethod
    def of(cls, path: Path, file: Baseline | None, lines: Mapping[str, SampleLine],
           confidence: float, calibration_share: float = 0.0,
           judged: JudgedBy | None = None) -> LoadedBaseline:
        noise = noise_of(file.noise if file else None, lines.values()) if lines else None
        return cls(path, file, lines, noise, confidence, calibrating(lines, calibration_share),
                   judged or JudgedBy())

    @classmethod
    def live(cls, endpoint: EndpointSettings, confidence: float,
             judged: JudgedBy | None = None) -> LoadedBaseline:
        """The baseline of a head-to-head run: the live model at ``endpoint``."""
        return cls(Path(), None, {}, None, confidence, judged=judged or JudgedBy(),
                   baseline_endpoint=endpoint)

    @property
    def against(self) -> str:
        """What the gate holds the run against, as the summary names it."""
        live = self.baseline_endpoint
        return str(self.path) if live is None else f"{live.model} at {live.url}"

    @property
    def digest(self) -> str | None:
        """What tells this baseline file from another (a rewritten one, another model's): a
        hash of its content; None without a file (none yet, or head to head)."""
        if self.file is None or self.baseline_endpoint is not None:
            return None
        return self.file.digest()

    @property
    def graded_by_a_judge(self) -> bool:
        """Whether any of its lines was (so that today's judge may grade its answers again)."""
        return any(self._judged(line) for line in self.lines.values())

    def _judged(self, line: SampleLine) -> bool:
        """A judge graded the line: its own score, or a value a judge decides."""
        return line.judged or bool(self.judged.values & line.values.keys())

    @property
    def rejudged(self) -> bool:
        """Every baseline answer is judged in this run, and items and gate pair against those
        (head to head, always)."""
        return self.baseline_endpoint is not None or (self.comparison is not None
                                          and self.comparison.rejudged)

    def decided(self, comparison: JudgeComparison) -> LoadedBaseline:
        """This baseline once what the gate holds against is decided (head to head: with the
        judge's noise measured to decide it)."""
        noise = comparison.noise if self.baseline_endpoint is not None else self.noise
        return replace(self, comparison=comparison, noise=noise)

    def answered(self, settings: Settings, benchmark: str, metrics: Mapping[str, Metric],
                 headline: tuple[str, ...], judge: JudgeIdentity | None,
                 linear: Callable[[str], Linear | None]) -> LoadedBaseline:
        """Head to head, once the run is over: the baseline the live model's ``metrics`` make,
        its thresholds theirs (as a baseline written from them would be, with the ranges and
        directions ``linear`` gives), held as a file's are; a file's baseline stays as it
        is."""
        if self.baseline_endpoint is None:
            return self
        judge_model = settings.judge.endpoint.model if settings.judge else None
        made = Provenance(benchmark, self.baseline_endpoint.model, judge_model, judge,
                          noise=self.noise)
        file = from_run(made, metrics, headline, linear, None, settings.tolerance,
                        settings.max_errors)
        return replace(self, file=file)

    def to_judge_again(self, nodeid: str) -> SampleLine | None:
        """The baseline's line of ``nodeid``, whole, when today's judge is to grade its answer
        again: the sample is in the calibration share (or every answer is judged again), and
        its line holds one inference run's answer graded by a judge (not an offline one), its
        own score or a value a judge decides."""
        line = self.lines.get(nodeid)  # head to head: none, the live model answers
        if line is None or line.runs or not self._judged(line) \
                or not (self.rejudged or nodeid in self.calibration):
            return None
        full = whole(self.lines, nodeid)
        return full if full is not None and full.answer else None

    @cached_property
    def holds_items(self) -> bool:
        """Whether its items are held against their baseline lines (else against the bar);
        head to head, against the live model's answers once the judge's noise is known.
        Decided once: every item asks, and a rule-graded baseline's answer takes a look at
        every line (a change of noise or lines is a new object, ``replace``)."""
        if self.baseline_endpoint is not None:
            return self.noise is not None
        return bool(self.lines) and items_decidable(self.noise, self.lines.values())

    def notes(self) -> list[str]:
        """What the summary says of the items' gate."""
        if self.baseline_endpoint is not None:
            return [] if self.holds_items else [LIVE_ITEMS_BY_THE_BAR]
        return [ITEMS_BY_THE_BAR] if self.lines and not self.holds_items else []

    def unpaired(self, baseline_grades_failed: str | None) -> str | None:
        """Why a sample cannot be held against its baseline answer graded again by today's
        judge, which the gate pairs it against: that grading failed
        (``baseline_grades_failed``)."""
        if baseline_grades_failed is None or not self.rejudged:
            return None
        return _unpaired_words(self.baseline_endpoint is not None, baseline_grades_failed)

    def change(self, nodeid: str, new: SampleLine | None, fails_now: bool,
               baseline_grades: SampleLine | None = None,
               confirming: Confirming | None = None) -> Change | None:
        """The sample's change against its line, if it has one (when every answer is judged
        again: against ``baseline_grades``, today's judge on the baseline's answer), a
        suggested drop confirmed by fresh draws (``confirming``); a regression's carries the
        old answer and the replies it was held against, which its report shows."""
        old = baseline_grades if self.rejudged else self.lines.get(nodeid)
        found = change(old, new, fails_now, self.noise, self.confidence, confirming)
        full = None if found is None or found.kind != "regressed" else whole(self.lines, nodeid)
        if found is not None and full is not None:
            # Its old answer from the file; the replies it was held against: today's when
            # judged again (``baseline_grades`` keeps them), else the file's.
            replies = found.base.replies if self.rejudged else full.replies
            found = replace(found, base=found.base.model_copy(
                update={"answer": full.answer, "replies": replies}))
        return found

    def close(self) -> None:
        """Let go of the lines' file."""
        if isinstance(self.lines, BaseLines):
            self.lines.close()


def _unpaired_words(live: bool, baseline_grades_failed: str) -> str:
    if live:
        return (f"head to head, the sample has no answer of the baseline model graded by "
                f"the judge to pair against ({baseline_grades_failed}); a resume asks it again")
    return (f"today's judge could not grade the baseline's answer again, which the gate "
            f"pairs this sample against ({baseline_grades_failed}); a resume asks it again")


def baseline_path(settings: Settings, benchmark: str, *, full_release: bool = False) -> Path:
    """``<baselines>/<benchmark>/<model>.json``, under ``mini/`` for a run on the bundled mini
    data (its numbers say nothing of the full release) unless ``full_release``; the model is
    --audiobench-gate-against when given. On the mini data, a model the project's folder has
    no baseline of is held against the one the plugin bundles (the built-in models'), so that
    the plugin installed anywhere gates its own mini run; a baseline is always written to the
    project's folder."""
    model = settings.gate_against or settings.model
    if settings.data.get(benchmark) != MINI or full_release:
        return path_for(settings.baselines_dir, benchmark, model)
    own = path_for(settings.baselines_dir / MINI, benchmark, model)
    theirs = path_for(bundled("baselines", MINI), benchmark, model)
    if own.exists() or settings.update_baseline or not theirs.exists():
        return own
    return theirs


def load_all(settings: Settings, benchmarks: Mapping[str, JudgedBy],
             linear: Mapping[str, Callable[[str], Linear | None]],
             withheld: Collection[str] = ()) -> dict[str, LoadedBaseline]:
    """Every benchmark's baseline and lines, read (and checked) once, before any request (head
    to head: the live model, no file); ``benchmarks``: what a judge decides of each
    (``LoadedBaseline.judged``); ``linear``: how each makes its metrics from lines, whose
    ranges every line's numbers are checked against; ``withheld``: those whose release has no
    answers, which no gate can need a baseline for."""
    loaded = {}
    if settings.baseline_endpoint is not None:
        return {name: LoadedBaseline.live(settings.baseline_endpoint, settings.confidence, judged)
                for name, judged in benchmarks.items()}
    for name, judged in benchmarks.items():
        path = baseline_path(settings, name)
        file = load(path)
        if file is None and name not in withheld:
            asked_for(settings, name, path)
        lines = load_samples(path)
        held_whole(path, file, lines, linear[name], whole=not settings.update_baseline)
        loaded[name] = LoadedBaseline.of(path, file, lines, settings.confidence,
                                         settings.calibration_share, judged)
    return loaded


def held_whole(path: Path, file: Baseline | None, lines: BaseLines,
               linear: Callable[[str], Linear | None], *, whole: bool = True) -> None:
    """The baseline at ``path`` with the per-sample file it was written with (unless not
    ``whole``: a run that replaces the baseline may replace a broken one), every number of its
    lines in its range; BaselineError (the file closed) when not."""
    try:
        if whole:
            check_samples(path, file, lines)
        check_ranges(path, file, lines, linear)
    except BaselineError:
        lines.close()
        raise


def asked_for(settings: Settings, benchmark: str, path: Path) -> None:
    """A gate that was asked for (--audiobench-gate-against, --audiobench-require-baseline)
    and has no baseline at ``path`` is a BaselineError naming the baselines that exist, before
    any request; with neither, a missing baseline means no gate, and a run that writes one
    (--audiobench-update-baseline) needs none."""
    if settings.update_baseline or not (settings.gate_against or settings.require_baseline):
        return
    flag = (f"--audiobench-gate-against {settings.gate_against}" if settings.gate_against
            else "--audiobench-require-baseline")
    found = models_in(path.parent)
    there = (f"the baselines there are of: {', '.join(found)}" if found
             else "there are none there")
    if settings.data.get(benchmark) == MINI:
        theirs = bundled("baselines", MINI, benchmark)
        there += f"; the plugin bundles those of: {', '.join(models_in(theirs))} ({theirs})"
    elsewhere = baseline_path(settings, benchmark, full_release=True)
    if elsewhere != path and elsewhere.exists():
        there += (f" ({elsewhere} is that model's baseline for the full release; a run on "
                  "the mini data is gated by the baselines under mini/)")
    fix = "" if settings.gate_against else "; write the first one with --audiobench-update-baseline"
    raise BaselineError(f"{flag}: no baseline for {benchmark} at {path}; {there}{fix}")


def models_in(folder: Path) -> list[str]:
    """The models of the baseline files in ``folder``, sorted (a file's name where it names
    none)."""
    names = []
    for path in sorted(folder.glob("*.json")):
        try:
            names.append(str(json.loads(path.read_text(encoding="utf-8"))["model"]))
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
            names.append(path.stem)
    return sorted(names)
