"""What every benchmark implements, and what it is given to ask and grade with.

A benchmark is a ``Benchmark`` subclass in a folder of its own, found through its
``BenchmarkSpec`` (``registry.py``). It is built with the run's settings and reads its own
from them; it never changes them afterwards. The run does the rest the same way for every
benchmark: locating the data, selecting tasks and limits, asking the model, the items, the
gate and the reports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pytest_audiobench.errors import DataError

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.sample import Sample
    from pytest_audiobench.config.settings import Settings
    from pytest_audiobench.outcome.lines import JudgedBy, Linear, SampleLine
    from pytest_audiobench.outcome.metrics import Metric
    from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord
    from pytest_audiobench.outcome.view import SampleView
    from pytest_audiobench.transport.endpoint import Endpoint


def export(benchmarks: Mapping[str, Benchmark], records: Iterable[SampleRecord]
           ) -> dict[str, tuple[list[str], str | None]]:
    """Every benchmark's export written from ``records`` (``Benchmark.finish``), each with what
    it says and why it could not be written (None when it was): for the session's end and the
    merge, which write; the report only holds what this returns."""
    done: dict[str, tuple[list[str], str | None]] = {}
    for name, bench in benchmarks.items():
        try:
            done[name] = (bench.finish(r for r in records if r.benchmark == name), None)
        except OSError as exc:
            done[name] = ([], f"{name}: its export could not be written ({exc.strerror or exc})")
    return done


def unexported(benchmarks: Mapping[str, Benchmark], why: str
               ) -> dict[str, tuple[list[str], str | None]]:
    """What a run that is no release verdict (``why``) says of the exports it does not write:
    a partial submission never replaces a whole one."""
    return {name: ([f"{flag} {path}: not written: {why} (--audiobench-partial-report replace "
                    "writes it)" for flag, path in bench.outputs().items()], None)
            for name, bench in benchmarks.items()}


@dataclass(frozen=True, slots=True)
class Release:
    """A benchmark's data as loaded: every sample in the release's own order, and what the
    data decides about the numbers (which metrics are the headline, what is unavailable)."""

    samples: list[Sample]
    headline: tuple[str, ...]
    """Metrics shown in the summary and written by --audiobench-update-baseline (but those
    ``beside`` names)."""
    notes: tuple[str, ...] = ()
    """What this release implies for the numbers (e.g. a metric it cannot give)."""
    withheld: bool = False
    """The release withholds its answers (a test split): its samples are asked, not scored,
    and it has no numbers and no gate."""
    beside: tuple[str, ...] = ()
    """Headline metrics shown beside the gated ones and never written into a baseline: a
    leaderboard's mean of numbers the paired gate holds one by one (VoiceBench's Overall),
    which no sample line makes, so that a baseline could hold it only by a threshold blind to
    the judge's noise and the sample size."""
    folder: Path | None = None
    """The folder its files were read from, which every sample's audio must lie inside: the
    data root the run located, a folder below it, or the copy in the cache that a reader
    converted a local snapshot into (MMSU's parquet files, FLEURS's archive). None: the
    located root."""

    def inside(self, located: Path) -> Path:
        """The folder every sample's audio must lie inside: ``folder``, else `located`."""
        return located if self.folder is None else self.folder


class Runtime:
    """The endpoints a benchmark asks: the model, and the judge with whatever sampling its
    protocol sets (each variant shares the run's pacing and response cache)."""

    def __init__(self, settings: Settings, model: Endpoint, judge: Endpoint | None) -> None:
        self.settings = settings
        self.model = model
        self.judge = judge
        self._variants: dict[tuple[Any, ...], Endpoint] = {}

    def for_sample(self, sample: Sample) -> Runtime:
        """The endpoints one sample asks through: its requests are its own in the cache."""
        return Runtime(self.settings, self.model.scoped(sample.nodeid),
                       None if self.judge is None else self.judge.scoped(sample.nodeid))

    def with_fresh_replies(self, run_id: str | None) -> Runtime:
        """This runtime with a judge whose replies are run ``run_id``'s own in the cache:
        today's judge, never an earlier run's reply (the calibration of ``gate/drift.py``)."""
        return Runtime(self.settings, self.model,
                       None if self.judge is None else self.judge.owned_by(run_id))

    def judge_sampled(self, **sampling: Any) -> Endpoint | None:
        """The judge with these sampling settings changed (e.g. ``temperature=0, seed=42``);
        None without a judge."""
        if self.judge is None:
            return None
        key = tuple(sorted(sampling.items()))
        if key not in self._variants:
            self._variants[key] = self.judge.resampled(sampling)
        return self._variants[key]

    def endpoints(self) -> list[Endpoint]:
        """The endpoints to close at the end of the run (views of them close nothing)."""
        return [e for e in (self.model, self.judge) if e is not None]


class Tally(ABC):
    """A benchmark's numbers, folded over its records one at a time: a run of tens of
    thousands of samples never holds them all."""

    @abstractmethod
    def add(self, record: SampleRecord) -> None:
        """Take one sample's record (any outcome; one without grades adds nothing)."""

    @abstractmethod
    def metrics(self, run: int) -> dict[str, Metric]:
        """The numbers of inference run ``run`` from the records added."""


class KeptRecords(Tally):
    """Every record kept, and the benchmark's ``metrics`` asked at the end."""

    def __init__(self, bench: Benchmark) -> None:
        self._bench = bench
        self._records: list[SampleRecord] = []

    def add(self, record: SampleRecord) -> None:
        self._records.append(record)

    def metrics(self, run: int) -> dict[str, Metric]:
        return self._bench.metrics(self._records, run)


class Benchmark(ABC):
    """One benchmark: its samples, how they are asked and graded, and its numbers.

    Required: ``load``, ``prompt``, ``grade``, ``failure`` (abstract), and one of ``metrics``
    or ``tally``. Every other method has a default (docs/extending.md says what each is for).
    Built once per process with the run's ``Settings``; never changes itself afterwards."""

    name: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A multiple-choice or transcription benchmark names its grade's class ``grade_type``;
        # one written before names it ``verdict``, the old name, which is taken as it.
        old = cls.__dict__.get("verdict")
        if isinstance(old, type) and "grade_type" not in cls.__dict__:
            cls.grade_type = old  # type: ignore[attr-defined]  # declared by those bases

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def download(self, source: str) -> Path:
        """Fetch the release from ``source`` (one its spec declares) and return its root;
        DownloadError in one line when it cannot (the run names the flag and the source)."""
        raise DataError(f"--audiobench-data {source}: {self.name} is not downloaded from there")

    @abstractmethod
    def load(self, root: Path) -> Release:
        """Every sample of the release at ``root``, validated, in the release's order;
        DataError names the file, the record and what was expected."""

    @abstractmethod
    def prompt(self, sample: Sample) -> str:
        """The text sent with the sample's audio."""

    def system(self, sample: Sample) -> str | None:
        """A system message sent before the sample's audio; None (the default): none."""
        return None

    @abstractmethod
    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> Grade:
        """Grade one answer; JudgeError when no grade can be had."""

    async def redraw(self, sample: Sample, answer: ModelAnswer, runtime: Runtime,
                     draw: int) -> Grade | None:
        """Fresh draws of the judge on one answer, round ``draw`` (1, 2, ...), each its own
        requests beside ``grade``'s: a suggested drop is confirmed on them before the item
        fails (``gate/sample_change.py``). None when nothing drawn varies (a rule grades it); by
        default None. JudgeError when no grade can be had."""
        return None

    @abstractmethod
    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                grades: Sequence[Grade]) -> str | None:
        """The report of a sample that fails its item, or None when it passes."""

    def compared(self, sample: Sample, baseline: str, now: str) -> list[str]:
        """What a regressed item's report shows beside the baseline's answer and the new one
        (for a transcript, each one's words aligned with the reference's); none by default."""
        return []

    def metrics(self, records: Iterable[SampleRecord], run: int) -> dict[str, Metric]:
        """The numbers of inference run ``run`` from the graded samples. A benchmark defines
        this or ``tally``; by default they are folded with ``tally``."""
        if type(self).tally is Benchmark.tally:
            raise NotImplementedError(f"benchmark {self.name} defines neither metrics nor tally")
        tally = self.tally(run + 1)
        for record in records:
            tally.add(record)
        return tally.metrics(run)

    def tally(self, runs: int) -> Tally:
        """The numbers of ``runs`` inference runs, folded over the records one at a time (the
        report reads them back from disk once). The default keeps every record and asks
        ``metrics`` at the end; a benchmark keeps only what its numbers need by defining its
        own."""
        return KeptRecords(self)

    def judge_use(self) -> JudgeUse:
        """How it uses a judge, for the dry run, the reports and the judge's drift; by
        default it uses none."""
        return JudgeUse(self)

    def gating(self) -> Gating:
        """What the paired gate reads of it; by default nothing, and its numbers are held
        against thresholds only."""
        return Gating(self)

    def properties(self, grades: Sequence[Grade]) -> list[tuple[str, object]]:
        """Per-sample properties for ``--junitxml``."""
        return []

    def failed_means(self) -> str:
        """What a failed sample item means, for the summary's counts."""
        return "failed"

    def notes(self, release: Release) -> list[str]:
        """How the numbers were made, for the summary and the JSON report."""
        return list(release.notes)

    def outputs(self) -> dict[str, Path]:
        """The files ``finish`` will write, by the flag that names each: the run checks that
        they can be written before it sends anything."""
        return {}

    def finish(self, records: Iterable[SampleRecord]) -> list[str]:
        """Write what the benchmark exports at the end of a run; say what was written. The
        records are read back from disk as they are iterated."""
        return []

    def view(self, record: SampleRecord) -> SampleView:
        """The sample's score and grading details as the HTML report shows them."""
        from pytest_audiobench.outcome.view import SampleView

        return SampleView()


def line_baseline_grades(bench: Benchmark, record: SampleRecord) -> SampleLine | None:
    """The line of the baseline's answer to ``record``'s sample as today's judge graded it
    (``record.baseline_grades``): its values and draws; None when it was not graded again. Head
    to head its answer is the live baseline model's; else this run's (the gate reads none; an
    item's report takes the baseline file's)."""
    if not record.baseline_grades:
        return None
    return line_graded(bench, record, record.baseline_grades, record.baseline_answers)


def line_graded(bench: Benchmark, record: SampleRecord, grades: list[Grade],
                answers: list[ModelAnswer] | None = None) -> SampleLine | None:
    """The line of ``record``'s sample, its first answer (or ``answers``, one per grade)
    graded by ``grades`` instead (today's judge on the baseline's answer, a round of fresh
    draws): its values and draws."""
    answers = answers or record.answers[:1]
    return bench.gating().line(record.model_copy(update={"grades": grades,
                                                       "answers": answers}))


def judged_by(bench: Benchmark, release: Release) -> JudgedBy:
    """What a judge decides of ``bench`` on ``release`` (``JudgeUse.decides``)."""
    from pytest_audiobench.outcome.lines import JudgedBy

    metrics = bench.judge_use().decides(release)
    return JudgedBy(metrics=frozenset(metrics),
                    values=frozenset(made.value for metric in metrics
                                     if (made := bench.gating().linear(metric)) is not None))


class JudgeUse:
    """How a benchmark uses its judge, for all but its grading: the calls grading takes, how
    the reports name its protocol, what identifies it, which metrics it decides, and the
    replies of the offline judge. The defaults say it uses none; a judged benchmark returns
    its own subclass from ``Benchmark.judge_use``."""

    def __init__(self, bench: Benchmark) -> None:
        self.bench = bench

    def calls(self, sample: Sample, answer: ModelAnswer | None,
              runtime: Runtime) -> tuple[int, int, bool]:
        """Judge calls grading ``answer`` takes (first attempts), how many of them are cached,
        and whether the count is only a maximum (the answer is unknown and decides it)."""
        return 0, 0, False

    def protocol(self) -> list[str]:
        """How it asks the judge, for the summary's first line (e.g. "both orders")."""
        return []

    def prompt_sha256(self) -> str | None:
        """A hash of how it asks the judge besides the sample (its prompt, its protocol): a
        baseline's judge asked otherwise is another judge (``gate/drift.py``); None when it
        asks none."""
        return None

    def decides(self, release: Release) -> tuple[str, ...]:
        """The metrics a judge decides, which measure its drift on the baseline's own answers
        graded again (``gate/drift.py``; the one that pairs the most of them); none when no
        judge decides any."""
        return ()

    @staticmethod
    def offline(inputs: Mapping[str, Any]) -> str | None:
        """The offline judge's reply (``--audiobench-judge-model overlap``) to one of this
        benchmark's judge requests, read from its fingerprint ``inputs``; None when the
        request is not one of its own. Deterministic, no network: the parsing, the passes
        and the gate are the ones an LLM judge's replies go through."""
        return None


class Gating:
    """What the paired gate reads of a benchmark: each sample as a line of values, how each
    metric is made from those lines, and the drop each lets pass. The defaults pair nothing;
    a benchmark with per-sample lines returns its own subclass from ``Benchmark.gating``."""

    lower_is_better: ClassVar[bool] = False
    """Its scores are better lower (word errors): declared here once, and given to each
    line and each linear metric it makes; the gate reads it from them."""

    def __init__(self, bench: Benchmark) -> None:
        self.bench = bench

    def line(self, record: SampleRecord) -> SampleLine | None:
        """The sample as a paired comparison reads it (its values, the judge's draws of its
        score, its answer); None when it has no score."""
        return None

    def linear(self, metric: str) -> Linear | None:
        """How ``metric`` is made from sample lines, when it is a weighted sum of group means
        (then it is gated paired); None for any other metric."""
        return None

    def margin(self, metric: str) -> float:
        """The drop of ``metric`` the paired gate lets pass when the baseline names none."""
        return 0.0
