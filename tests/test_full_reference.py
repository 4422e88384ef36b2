"""The 2,200 real AIR-Bench Chat records with generated audio, end to end: counts per task and
the leaderboard's arithmetic."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers, fenced_answers
from tests.fakes.datasets import build_air_bench_chat, load_chat_reference, reference_available
from tests.fakes.openai_server import ChatRequest

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not reference_available(), reason="../shared/reference is absent"),
]

TASK_COUNTS = {"speech_QA": 400, "speech_dialogue_QA": 400, "sound_QA": 400,
               "sound_generation_QA": 100, "music_QA": 400, "music_generation_analysis_QA": 100,
               "speech_and_sound_QA": 200, "speech_and_music_QA": 200}
CATEGORY = {"speech_QA": "speech", "speech_dialogue_QA": "speech", "sound_QA": "sound",
            "sound_generation_QA": "sound", "music_QA": "music",
            "music_generation_analysis_QA": "music", "speech_and_sound_QA": "speech_and_sound",
            "speech_and_music_QA": "speech_and_music"}
# Qwen2-Audio's published Speech / Sound / Music, and two mixed categories whose mean is its
# published Mixed (6.77): the leaderboard's Average of these is 6.93.
TARGET = {"speech": 7.18, "sound": 6.99, "music": 6.79, "speech_and_sound": 6.70,
          "speech_and_music": 6.84}
ANSWER = "the model's answer"


def _scores(records: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    """Integer judge scores per (question, reference) whose category means hit TARGET."""
    keys: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for record in records:
        keys[CATEGORY[record["task_name"]]][(record["question"], record["answer_gt"])] += 1
    scores = {}
    for category, counter in keys.items():
        n = sum(counter.values())
        low = int(TARGET[category])
        high_needed = round(TARGET[category] * n) - low * n
        for key, count in counter.items():
            take = count <= high_needed
            high_needed -= count if take else 0
            scores[key] = low + 1 if take else low
        assert high_needed == 0
    return scores


class LeaderboardJudge:
    def __init__(self, scores: dict[tuple[str, str], int]) -> None:
        self.scores = scores

    def __call__(self, request: ChatRequest) -> str:
        text = request.text
        question = _between(text, "[Question]\n", "\n\n[Assistant 1's answer]")
        one, two = fenced_answers(text)
        reference = two if one == ANSWER else one
        model = self.scores[(question, reference)]
        return f"{model} 5" if one == ANSWER else f"5 {model}"


def _between(text: str, start: str, end: str) -> str:
    match = re.search(re.escape(start) + "(.*?)" + re.escape(end), text, re.S)
    assert match, text[:300]
    return match.group(1)


@pytest.fixture(scope="module")
def full_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_air_bench_chat(tmp_path_factory.mktemp("full"), load_chat_reference())


def test_the_full_release_gives_the_leaderboard_arithmetic(run_bench: Any, servers: Servers,
                                                           full_data: Path) -> None:
    # Under xdist: the same numbers on every size (tests/test_run.py); this is the arithmetic.
    records = load_chat_reference()
    servers.model.script = lambda request: ANSWER
    servers.judge.script = LeaderboardJudge(_scores(records))
    # Without the cache: two records of the release are the very same request, and a cached
    # reply would make the request count depend on timing.
    run = run_bench("--audiobench-concurrency", "32", "-q", "-p", "no:terminalprogress",
                    "--audiobench-no-cache", data=full_data)
    run.result.assert_outcomes(passed=2200)
    summary = run.report["benchmarks"][0]
    assert summary["counts"]["selected"] == 2200
    metrics = summary["metrics"]
    for task, n in TASK_COUNTS.items():
        assert metrics[f"air_bench_chat.{task}.score"]["n"] == n
    for category, value in TARGET.items():
        assert metrics[f"air_bench_chat.{category}.score"]["value"] == pytest.approx(value)
        assert metrics[f"air_bench_chat.{category}.reference"]["value"] == 5.0
        assert metrics[f"air_bench_chat.{category}.win_rate"]["value"] == 1.0
    assert metrics["air_bench_chat.mixed.score"]["value"] == pytest.approx(6.77)
    average = metrics["air_bench_chat.average.score"]["value"]
    assert round(average, 2) == 6.93 and average == pytest.approx((7.18 + 6.99 + 6.79 + 6.77) / 4)
    assert metrics["air_bench_chat.average.score"]["n"] == 2200
    assert servers.model.count() == 2200 and servers.judge.count() == 4400
    assert re.search(r"air_bench_chat\.average\.score\s+2200\s+6\.93", run.result.stdout.str())


MODALITY_COUNTS = {"speech": 294, "mix-sound-speech": 218, "music": 206, "sound": 165,
                   "mix-music-speech": 82, "mix-sound-music-speech": 24, "mix-sound-music": 11}
CATEGORY_COUNTS = {"semantic_layer": 412, "perception_layer": 404, "cultural_layer": 141,
                   "signal_layer": 43}


def test_the_full_mmar_release_counts_every_modality_and_category(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    from tests.fakes.datasets import build_mmar, load_mmar_reference

    records = load_mmar_reference()
    answers = {}
    for record in records:
        answers.setdefault(record["question"], set()).add(record["answer"])

    def model(request: ChatRequest) -> str:
        # A question asked of several items with different answers gets "?", which no
        # matcher takes; every other question gets its answer.
        known = answers.get(request.text.split("\n", 1)[0], set())
        return next(iter(known)) if len(known) == 1 else "?"

    servers.model.script = model
    data = build_mmar(tmp_path / "mmar", records)
    run = run_bench("--audiobench-concurrency", "32", "-q", data=data, benchmark="mmar",
                    judge=False)
    metrics = run.report["benchmarks"][0]["metrics"]
    for modality, n in MODALITY_COUNTS.items():
        assert metrics[f"mmar.modality.{modality}.avg"]["n"] == n
    for category, n in CATEGORY_COUNTS.items():
        assert metrics[f"mmar.category.{category}.avg"]["n"] == n
    subcategories = [name for name in metrics if name.startswith("mmar.subcategory.")
                     and name.endswith(".official.avg")]
    assert len(subcategories) == 16
    assert metrics["mmar.avg"]["n"] == 1000
    unique = sum(1 for r in records if len(answers[r["question"]]) == 1)
    passed = run.result.parseoutcomes()["passed"]
    assert passed <= unique and metrics["mmar.avg"]["value"] == pytest.approx(passed / 10)


def test_the_random_baseline_on_the_full_mmar_release_is_near_the_published_29_3(
        pytester: pytest.Pytester, tmp_path: Path) -> None:
    from tests.fakes.datasets import build_mmar, load_mmar_reference

    records = load_mmar_reference()
    # Uniform over the non-empty options: 29.37 % expected; the MMAR paper reports 29.3 %.
    expected = 100 * sum(1 / len([c for c in r["choices"] if c.strip()])
                         for r in records) / len(records)
    assert expected == pytest.approx(29.37, abs=0.01)
    data = build_mmar(tmp_path / "mmar", records)
    report = tmp_path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "-q", "--audiobench-model", "random",
                                "--audiobench-benchmark", "mmar", f"--audiobench-data={data}",
                                f"--audiobench-report={report}", "--audiobench-no-cache")
    metrics = json.loads(report.read_text("utf-8"))["benchmarks"][0]["metrics"]
    assert metrics["mmar.avg"]["n"] == 1000
    # Seeded, so always the same value; 3 standard deviations of 1,000 draws is 4.3 points.
    assert abs(metrics["mmar.strict.avg"]["value"] - expected) < 4.3
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # no baseline: pytest's own status
