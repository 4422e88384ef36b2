"""The paired gate against a judge as noisy as a real one: its single-pass scores wobble by
-2..+2 around the true score (standard deviation about 0.9), a new draw per request. An
unchanged model must not fail the gate for the judge's noise, a real drop must fail it, and
the items must name the samples that dropped."""

from __future__ import annotations

import hashlib
import random
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import JUDGE, MODEL, Servers, fenced_answers
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.made_records import many_chat_records
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer

RECORDS = many_chat_records(25)  # 200 samples over the 8 tasks, some sharing a clip
NOISE = (-2, -1, 0, 1, 2)
WEIGHTS = (0.05, 0.2, 0.5, 0.2, 0.05)  # standard deviation sqrt(0.8), about 0.9


def true_score(answer: str) -> int:
    """3..9 for the model's answer to a question (by a hash of it), 2 less for a worse one;
    6 for anything else (the reference)."""
    for prefix, drop in ((ANSWER, 0), (WORSE, 2)):
        if answer.startswith(prefix):
            question = answer.removeprefix(prefix)
            return 3 + int(hashlib.sha256(question.encode()).hexdigest(), 16) % 7 - drop
    return 6


class NoisyJudge:
    """Scores each fenced answer as its true score plus seeded noise, clipped to 0-10, a new
    draw for each request, even for the same prompt asked again (as at temperature 1); a new
    snapshot of it moves every score by ``shift`` points."""

    def __init__(self) -> None:
        self.seed = 0
        self.shift = 0
        self.asked: Counter[str] = Counter()
        """How often each prompt was asked: its next request is its next draw."""
        self._lock = threading.Lock()

    def __call__(self, request: ChatRequest) -> str:
        with self._lock:
            self.asked[request.text] += 1
            nth = self.asked[request.text]
        rng = random.Random(f"{self.seed}|{nth}|{request.text}")
        first, second = fenced_answers(request.text)
        scores = [min(10, max(0, true_score(a) + self.shift + rng.choices(NOISE, WEIGHTS)[0]))
                  for a in (first, second)]
        return f"{scores[0]} {scores[1]}"


ANSWER, WORSE = "MODEL ANSWER to: ", "WORSE ANSWER to: "


class Model:
    """Answers each question (the request is the question alone); the questions in ``worse``
    get a worse answer."""

    def __init__(self) -> None:
        self.worse: set[str] = set()

    def __call__(self, request: ChatRequest) -> str:
        question = request.text
        return (WORSE if question in self.worse else ANSWER) + question


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_air_bench_chat(tmp_path_factory.mktemp("noisy"), RECORDS)


@pytest.fixture(scope="module")
def servers() -> Iterator[Servers]:
    """The model and judge servers of the whole module, as conftest's are of one test: the
    baseline below is written once, and it names their URLs (the judge's is part of the
    judge's identity), so every run held against it meets the same two."""
    model = FakeOpenAIServer(Model(), models=[MODEL])
    judge = FakeOpenAIServer(NoisyJudge(), models=[JUDGE])
    with model, judge:
        yield Servers(model, judge)


@pytest.fixture
def noisy(servers: Servers) -> tuple[Model, NoisyJudge]:
    model, judge = Model(), NoisyJudge()
    servers.model.script = model
    servers.judge.script = judge
    return model, judge


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The unchanged model's baseline, once it is written: its folder and the judge's count
    of each prompt after writing it."""
    return {"folder": tmp_path_factory.mktemp("noisy-baseline") / "baselines"}


@pytest.fixture
def baseline(run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge],
             pytester: pytest.Pytester, written: dict[str, Any]) -> None:
    """The baseline of the unchanged model under the judge's seed 0, as if this test had
    written it with its own run: the module's first test that asks writes it, the others get
    its files and the judge's count of each prompt (the draws after it are the same). Every
    such run writes the same baseline: the same answers, graded by a new judge of seed 0."""
    _, judge = noisy
    if "asked" not in written:
        run = noisy_run(run_bench, data, "--audiobench-update-baseline")
        assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-2000:]
        shutil.copytree(pytester.path / "baselines", written["folder"])
        written["asked"] = Counter(judge.asked)
        return
    shutil.copytree(written["folder"], pytester.path / "baselines")
    judge.asked.update(written["asked"])


def keys(fraction: float, salt: str, records: list[dict[str, Any]] = RECORDS) -> set[str]:
    """The questions of a fixed share of the samples, by a hash."""
    return {r["question"] for r in records
            if int(hashlib.sha256(f"{salt}{r['question']}".encode()).hexdigest(), 16) % 1000
            < 1000 * fraction}


def noisy_run(run_bench: Any, data: Path, *args: str) -> Any:
    # No cache: every run draws the judge anew, as a judge at temperature 1 does.
    return run_bench("--audiobench-no-cache", "--audiobench-concurrency", "32", "-q",
                     "-p", "no:terminalprogress", *args, data=data)


def test_an_unchanged_model_holds_under_a_noisy_judge_and_few_items_fail(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge], baseline: None) -> None:
    # One run of a fixed seed; the rate over many is scripts/bench_plugin_rates.py's (the
    # gate fails about 1 run in 20 at most, items about 2 % of the samples).
    _, judge = noisy
    judge.seed = 1
    run = noisy_run(run_bench, data)
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-2000:]
    assert run.report["benchmarks"][0]["counts"]["failed"] <= 0.075 * len(RECORDS)


def test_a_drop_of_2_points_on_30_percent_of_the_samples_fails(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge],
        baseline: None) -> None:
    model, judge = noisy
    model.worse = keys(0.3, salt="1")
    judge.seed = 1
    run = noisy_run(run_bench, data)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    rows = {r["metric"]: r for r in run.report["benchmarks"][0]["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["status"] == "regressed"
    assert rows["air_bench_chat.average.score"]["test"] == "paired"


def test_a_judge_one_point_harsher_leaves_an_unchanged_model_passing_and_says_so(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge], servers: Servers,
        baseline: None) -> None:
    _, judge = noisy
    judge.seed, judge.shift = 5, -1
    run = noisy_run(run_bench, data)
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-3000:]
    summary = run.report["benchmarks"][0]
    drift = summary["judge_drift"]
    # The 50 of the calibration share told the drift; then all 200 answers were graded
    # again, and the drift is measured on them all: -1, less what the clipping takes back.
    assert drift["asked"] == 200 and drift["changed"] is True
    assert -1.3 < drift["difference"] < -0.7 and drift["low"] < drift["difference"]
    assert summary["judge_comparison"]["rejudged"] is True
    assert summary["counts"]["failed"] <= 0.05 * len(RECORDS)


def test_a_lenient_judge_does_not_hide_a_drop_of_2_points_on_30_percent(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge],
        baseline: None) -> None:
    model, judge = noisy
    model.worse = keys(0.3, salt="lenient")
    judge.seed, judge.shift = 6, 1
    run = noisy_run(run_bench, data)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    summary = run.report["benchmarks"][0]
    assert summary["judge_comparison"]["rejudged"] is True
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["status"] == "regressed"
    # Against the recorded scores the judge's point would have covered most of the drop.
    never = noisy_run(run_bench, data, "--audiobench-rejudge-baseline=never")
    rows = {r["metric"]: r for r in never.report["benchmarks"][0]["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["difference"] > -0.3


def test_a_steady_judge_costs_a_quarter_more_judge_requests_at_most(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge], servers: Servers,
        baseline: None) -> None:
    _, judge = noisy
    judge.seed = 8
    before = servers.judge.count()
    bare = noisy_run(run_bench, data, "--audiobench-calibration-share=0")
    plain = servers.judge.count() - before
    calibrated = noisy_run(run_bench, data)
    assert bare.result.ret == calibrated.result.ret == pytest.ExitCode.OK
    assert calibrated.report["benchmarks"][0]["judge_comparison"]["rejudged"] is False
    assert servers.judge.count() - before - plain <= 1.25 * plain


def test_fresh_draws_decide_items_and_never_move_the_metrics(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge], servers: Servers,
        baseline: None) -> None:
    model, _ = noisy
    model.worse = keys(0.1, salt="fresh")
    reports, out = {}, ""
    for rounds in ("0", "2"):
        servers.judge.script = judge = NoisyJudge()  # the same planned draws in both runs
        judge.seed = 9
        run = noisy_run(run_bench, data, f"--audiobench-confirm-draws={rounds}")
        reports[rounds], out = run.report, run.result.stdout.str()  # one report file: read now
    plain, confirmed = (reports[r]["benchmarks"][0] for r in ("0", "2"))
    # The metrics and the gate read the planned draws only: the same to the last digit.
    assert plain["metrics"] == confirmed["metrics"]
    assert plain["gate"]["rows"] == confirmed["gate"]["rows"]
    assert plain["counts"]["confirmed"] == 0 < confirmed["counts"]["confirmed"]
    samples = reports["2"]["samples"]
    redrawn = [s for s in samples if s["confirmation"]]
    assert len(redrawn) == confirmed["counts"]["confirmed"]
    assert all(len(s["confirmation"]) == len(s["confirmation_of_baseline"]) <= 2
               for s in redrawn)
    regressed = [s for s in redrawn if s["outcome"] == "failed"]
    assert regressed and all("fresh round(s)" in s["message"] for s in regressed)
    counts = confirmed["counts"]
    assert (f"items: {counts['confirmed']} sample(s) whose first draws suggested a drop got "
            f"{counts['confirmation_rounds']} round(s) of fresh draws before their item was "
            f"decided; {counts['confirmed_failed']} of them regressed (the metrics use the "
            "planned draws only)") in out
    # The fresh draws are paid for and counted.
    usage = [r["usage"]["judge_requests"] for r in reports.values()]
    assert usage[1] - usage[0] == 4 * counts["confirmation_rounds"]


def test_items_name_the_samples_that_dropped_and_spare_the_rest(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge],
        baseline: None) -> None:
    model, judge = noisy
    model.worse = keys(0.1, salt="items")
    judge.seed = 7
    run = noisy_run(run_bench, data)
    outcomes = {s["nodeid"]: s["outcome"] for s in run.report["samples"]}
    dropped = {s["nodeid"] for s in run.report["samples"]
               if s["answers"][0]["completion"]["text"].startswith(WORSE)}
    assert len(dropped) >= 10
    unchanged_failed = sum(outcomes[n] == "failed" for n in outcomes if n not in dropped)
    dropped_failed = sum(outcomes[n] == "failed" for n in dropped)
    assert unchanged_failed <= 0.05 * (len(outcomes) - len(dropped))
    assert dropped_failed >= 0.5 * len(dropped)
    # A regression's report shows both answers and both judges' replies.
    stdout = run.result.stdout.str()
    assert "regressed: score " in stdout and f"baseline:  {ANSWER}" in stdout
    assert f"now:       {WORSE}" in stdout and "judge then: '" in stdout


@pytest.fixture
def live(servers: Servers) -> Any:
    """A second model server answering as the unchanged model does, for head to head."""
    from tests.fakes.openai_server import FakeOpenAIServer

    with FakeOpenAIServer(Model(), models=["prod"]) as server:
        yield ["--audiobench-baseline-model", "prod", "--audiobench-baseline-api-url",
               server.url]


def test_head_to_head_an_unchanged_model_holds_and_a_drop_on_30_percent_fails(
        run_bench: Any, data: Path, noisy: tuple[Model, NoisyJudge], live: list[str]) -> None:
    # One seed each way; under xdist, and over many seeds, in tests/test_head_to_head.py and
    # scripts/bench_plugin_rates.py.
    model, judge = noisy
    judge.seed = 11
    run = noisy_run(run_bench, data, *live)
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-2000:]
    summary = run.report["benchmarks"][0]
    assert summary["counts"]["failed"] <= 0.075 * len(RECORDS)
    # The judge's noise is measured on the quarter run before the items: about 0.9.
    comparison = summary["judge_comparison"]
    assert comparison["baseline_model"].startswith("prod at ")
    assert 0.7 < comparison["noise"] < 1.1
    model.worse = keys(0.3, salt="live")
    judge.seed = 14
    run = noisy_run(run_bench, data, *live)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    rows = {r["metric"]: r for r in run.report["benchmarks"][0]["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["status"] == "regressed"
    failed = {s["question"] for s in run.report["samples"] if s["outcome"] == "failed"}
    # Most items that fail are samples that dropped.
    assert len(failed & model.worse) >= 0.8 * len(failed) > 0
