"""The gate's rates measured through the plugin itself: a measurement, not a test.

    python scripts/bench_plugin_rates.py                  # every scenario, about 15 minutes
    python scripts/bench_plugin_rates.py --only mini --seeds 40

Each run is ``python -m pytest`` with the plugin, as a user runs it, in a temporary folder,
against the scripted servers of the test suite (``tests/fakes``) started in this process.
Scenarios (each prints how many runs failed the gate, and what the items did):

- ``mini``: the built-in ``random`` model on the mini benchmark (AIR-Bench Chat and MMAR), each
  seed the same model drawn again: seeds held against the committed baseline of ``random``
  (written over 20 runs), with and without xdist; and pairs of a baseline written from one seed
  and another seed held against it (the promise is over both runs).
- ``noisy``: 200 AIR-Bench Chat samples of ours under a judge as noisy as a real one (-2..+2
  per pass, standard deviation 0.9): an unchanged model against its baseline, seed after
  seed; a drop of 2 points on 30 % of the samples; head to head against a live unchanged model,
  with and without xdist.
- ``full``: the 2,200 AIR-Bench Chat records of the reference metadata (``../shared``), a drop
  on 10 % of them: how many runs fail, and the share of unchanged and dropped samples whose
  items fail.

The tests keep single, deterministic runs of each behaviour; the rates live here
(scripts/README.md has the figures).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pytest_audiobench.config.names import bundled  # noqa: E402
from tests.fakes.datasets import (  # noqa: E402
    build_air_bench_chat,
    load_chat_reference,
    reference_available,
)
from tests.fakes.openai_server import FakeOpenAIServer  # noqa: E402
from tests.test_noisy_judge import RECORDS, WORSE, Model, NoisyJudge, keys  # noqa: E402

MINI_BASELINES = bundled("baselines")


class Runner:
    """Runs the plugin in a folder of its own, the model and judge servers given."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    def run(self, *args: str) -> tuple[int, dict[str, Any]]:
        self.count += 1
        report = self.folder / f"report-{self.count}.json"
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
        env["XDG_CACHE_HOME"] = str(self.folder / "xdg")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-p",
             "no:terminalprogress", f"--audiobench-report={report}",
             f"--audiobench-cache-dir={self.folder / 'cache'}", "--audiobench-retry-wait", "0",
             *args], cwd=self.folder, env=env, capture_output=True, text=True, check=False)
        if done.returncode not in (0, 1) or not report.exists():
            raise SystemExit(f"run failed ({done.returncode}): {' '.join(args)}\n"
                             f"{done.stdout[-3000:]}{done.stderr[-2000:]}")
        return done.returncode, json.loads(report.read_text(encoding="utf-8"))


def upper(failed: int, runs: int) -> float:
    """The one-sided 95 % upper bound of a share (Clopper-Pearson, by bisection)."""
    if failed >= runs:
        return 1.0
    low, high = failed / runs, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        tail = sum(math.comb(runs, k) * mid ** k * (1 - mid) ** (runs - k)
                   for k in range(failed + 1))
        low, high = (mid, high) if tail > 0.05 else (low, mid)
    return high


def say(label: str, failed: int, runs: int, extra: str = "") -> None:
    print(f"{label}: {failed} of {runs} runs failed the gate ({100 * failed / runs:.1f} %, 95 % "
          f"upper bound {100 * upper(failed, runs):.1f} %){extra}", flush=True)


def served_args(model_url: str, judge_url: str, data: Path) -> list[str]:
    """The options of a run of the served model, graded by the served judge, on ``data``."""
    return ["--audiobench-model", "audio-model", "--audiobench-api-url", model_url,
            "--audiobench-judge-model", "judge-model", "--audiobench-judge-api-url", judge_url,
            f"--audiobench-data={data}", "--audiobench-no-cache", "--audiobench-concurrency",
            "32"]


def mini(folder: Path, seeds: Sequence[int]) -> None:
    runner = Runner(folder)
    common = ["--audiobench-model", "random", "--audiobench-judge-model", "overlap",
              "--audiobench-benchmark", "air_bench_chat,mmar", "--audiobench-data", "mini"]
    for xdist in ([], ["-n", "2"]):
        failed = sum(runner.run(*common, f"--audiobench-baselines={MINI_BASELINES}",
                                "--audiobench-seed", str(seed), *xdist)[0] for seed in seeds)
        say(f"mini, random against its committed 20-run baseline{' -n 2' if xdist else ''}",
            failed, len(seeds))
    failed = 0
    for seed in seeds:
        own = folder / f"baselines-{seed}"
        runner.run(*common, f"--audiobench-baselines={own}", "--audiobench-seed", str(seed),
                   "--audiobench-update-baseline")
        failed += runner.run(*common, f"--audiobench-baselines={own}", "--audiobench-seed",
                             str(100 + seed))[0]
    say("mini, random against a baseline of one other seed", failed, len(seeds))


def noisy(folder: Path, seeds: Sequence[int]) -> None:
    data = build_air_bench_chat(folder / "data", RECORDS)
    model, judge = Model(), NoisyJudge()
    with FakeOpenAIServer(model, models=["audio-model"]) as served, \
            FakeOpenAIServer(judge, models=["judge-model"]) as judging, \
            FakeOpenAIServer(Model(), models=["prod"]) as live:
        runner = Runner(folder)
        common = served_args(served.url, judging.url, data)
        runner.run(*common, "--audiobench-update-baseline")
        failed, items = 0, []
        for seed in seeds:
            judge.seed = seed
            code, report = runner.run(*common)
            failed += code
            items.append(report["benchmarks"][0]["counts"]["failed"])
        say("noisy judge, an unchanged model", failed, len(seeds),
            f"; items failed {100 * sum(items) / len(items) / len(RECORDS):.1f} % of samples "
            f"on average, {100 * max(items) / len(RECORDS):.1f} % at most")
        caught = 0
        for seed in seeds:
            model.worse, judge.seed = keys(0.3, salt=str(seed)), seed
            caught += runner.run(*common)[0]
        model.worse = set()
        print(f"noisy judge, a drop of 2 points on 30 % of the samples: {caught} of "
              f"{len(seeds)} runs failed the gate", flush=True)
        rival = ["--audiobench-baseline-model", "prod", "--audiobench-baseline-api-url",
                 live.url]
        for xdist in ([], ["-n", "2"]):
            failed = 0
            for seed in seeds:
                judge.seed = seed
                failed += runner.run(*common, *rival, *xdist)[0]
            say(f"head to head, an unchanged model{' -n 2' if xdist else ''}", failed,
                len(seeds))


def full(folder: Path, seeds: Sequence[int]) -> None:
    if not reference_available():
        print("full: skipped, ../shared/reference is absent", flush=True)
        return
    records = load_chat_reference()
    data = build_air_bench_chat(folder / "full", records)
    model, judge = Model(), NoisyJudge()
    with FakeOpenAIServer(model, models=["audio-model"]) as served, \
            FakeOpenAIServer(judge, models=["judge-model"]) as judging:
        runner = Runner(folder)
        common = served_args(served.url, judging.url, data)
        runner.run(*common, "--audiobench-update-baseline")
        caught, unchanged, dropped = 0, [], []
        for seed in seeds:
            model.worse = keys(0.1, salt=f"full{seed}", records=records)
            judge.seed = seed
            code, report = runner.run(*common)
            caught += code
            outcomes = {s["nodeid"]: s["outcome"] for s in report["samples"]}
            worse = {s["nodeid"] for s in report["samples"]
                     if s["answers"][0]["completion"]["text"].startswith(WORSE)}
            unchanged.append(sum(outcomes[n] == "failed" for n in outcomes if n not in worse)
                             / (len(outcomes) - len(worse)))
            dropped.append(sum(outcomes[n] == "failed" for n in worse) / len(worse))
        print(f"full release, a drop of 2 points on 10 %: {caught} of {len(seeds)} runs failed "
              f"the gate; items failed {100 * sum(unchanged) / len(seeds):.1f} % of the "
              f"unchanged samples and {100 * sum(dropped) / len(seeds):.1f} % of those that "
              "dropped", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=("mini", "noisy", "full"), action="append",
                        help="run only these scenarios (repeatable)")
    parser.add_argument("--seeds", type=int, default=20, help="runs per scenario (default 20)")
    args = parser.parse_args()
    chosen = args.only or ["mini", "noisy", "full"]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="audiobench-rates-") as tmp:
        for name, scenario, seeds in (("mini", mini, range(1, args.seeds + 1)),
                                      ("noisy", noisy, range(1, args.seeds + 1)),
                                      ("full", full, range(11, 14))):
            if name in chosen:
                (Path(tmp) / name).mkdir()
                scenario(Path(tmp) / name, list(seeds))
    print(f"whole measurement: {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    main()
