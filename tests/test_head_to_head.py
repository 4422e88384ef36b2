"""Head to head in one run (--audiobench-baseline-model): a second, live model answers every
sample beside the model, the same judge grades both in the run, and the paired gate holds the
model against it with no baseline file; the items show the two answers side by side."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import XDIST_MODES, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Scripted

RIVAL = "prod-model"


@pytest.fixture
def rival() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Scripted("a good answer"), models=[RIVAL]) as server:
        yield server


def _against(rival: FakeOpenAIServer) -> list[str]:
    return ["--audiobench-baseline-model", RIVAL, "--audiobench-baseline-api-url", rival.url]


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_an_unchanged_model_holds_against_the_live_baseline_model(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer, xdist: list[str]) -> None:
    run = run_bench(*_against(rival), *xdist)
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()
    summary = run.report["benchmarks"][0]
    assert summary["baseline"] == "applied"
    assert summary["baseline_path"] == f"{RIVAL} at {rival.url}"
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    head = rows["air_bench_chat.average.score"]
    assert (head["test"], head["n"], head["difference"]) == ("paired", 16, pytest.approx(0.0))
    # Every sample asked of both models once, nothing asked twice (the share run before the
    # items serves them).
    assert rival.count() == 16 and servers.model.count() == 16
    out = run.result.stdout.str()
    assert f"gate: held (" in out and f"against {RIVAL} at {rival.url}" in out
    print(out)


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_regressed_model_fails_against_the_live_baseline_model_and_its_items_show_both(
        run_bench: Any, servers: Servers, rival: FakeOpenAIServer, xdist: list[str]) -> None:
    servers.model.script = Scripted("a poor answer")
    run = run_bench(*_against(rival), *xdist)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    out = run.result.stdout.str()
    print(out)
    summary = run.report["benchmarks"][0]
    rows = {r["metric"]: r for r in summary["gate"]["rows"]}
    assert rows["air_bench_chat.average.score"]["difference"] == pytest.approx(-6.0)
    assert set(run.outcomes().values()) == {"failed"}
    assert "baseline: 'a good answer'" in out and "now:      'a poor answer'" in out
