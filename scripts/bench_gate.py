"""How often the paired gate fails an unchanged model, by simulation: a measurement, not a test.

    python scripts/bench_gate.py                 # every scenario, about two minutes on 2 cores
    python scripts/bench_gate.py --runs 200 --only mini

Each run draws a baseline and a new run of the same model, independently, and gates the new
one against the baseline with the plugin's own gate (``gate.evaluation.candidates`` and
``gate.family.plan``, the metrics of the committed baselines, the benchmarks' own ``linear``
and margins): a failure is any gated metric regressed. The models:

- MMAR: each item answered right with a fixed probability: ``random`` (1 / its options, the
  built-in model) or ``likely`` (a model near 60 %, each item's chance drawn once);
- AIR-Bench Chat: each sample has a true score of 3 to 9; a judge adds noise of -2..+2
  (standard deviation 0.9) to each of its two passes, clipped to 0-10, as the noisy-judge tests
  do.

Scenarios: the mini benchmark (both benchmarks in one family), ``--audiobench-limit`` 5 and
25 per task or modality, and the full releases (the reference metadata when ../shared is
beside the repository, else records written for the tests). Then the gate against one fixed
baseline: the committed ``random`` baseline of the mini MMAR (20 runs) held against fresh
draws, which is not the promise (that is over both runs) and shows why a lucky baseline fails
more fresh draws. Each line prints the share of runs that failed and its 95 % upper bound.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pytest_audiobench.benchmarks import registry  # noqa: E402
from pytest_audiobench.benchmarks.air_bench_chat import TASK_CATEGORY  # noqa: E402
from pytest_audiobench.benchmarks.base import Benchmark  # noqa: E402
from pytest_audiobench.gate.baseline import load, load_samples  # noqa: E402
from pytest_audiobench.gate.evaluation import Pairing, candidates  # noqa: E402
from pytest_audiobench.gate.family import plan  # noqa: E402
from pytest_audiobench.gate.paired import judge_noise  # noqa: E402
from pytest_audiobench.outcome.lines import SampleLine  # noqa: E402
from tests.fakes.datasets import (  # noqa: E402
    load_chat_reference,
    load_mmar_reference,
    reference_available,
)
from tests.fakes.made_records import many_chat_records  # noqa: E402
from tests.settings import make_settings  # noqa: E402

MINI = REPO / "pytest_audiobench" / "data" / "mini"
BASELINES = REPO / "pytest_audiobench" / "data" / "baselines" / "mini"
NOISE, WEIGHTS = (-2, -1, 0, 1, 2), (0.05, 0.2, 0.5, 0.2, 0.05)


@dataclass(frozen=True)
class Item:
    """One sample as the simulation needs it: its groups, its cluster, and what the model
    makes of it (an MMAR item's chance of being right, a Chat sample's true score)."""

    id: str
    cluster: str
    groups: dict[str, str]
    truth: float


def line(item: Item, values: dict[str, float], draws: list[float], judged: bool) -> SampleLine:
    return SampleLine.model_construct(
        id=item.id, cluster=item.cluster, groups=item.groups, values=values, draws=draws,
        judged=judged, failed=False, answer_sha256="", answer="", replies=[])


def mmar_run(items: Sequence[Item], rng: random.Random) -> dict[str, SampleLine]:
    out = {}
    for item in items:
        right = 100.0 if rng.random() < item.truth else 0.0
        out[item.id] = line(item, {"correct": right, "official": right, "strict": right},
                            [right], False)
    return out


def chat_run(items: Sequence[Item], rng: random.Random) -> dict[str, SampleLine]:
    out = {}
    for item in items:
        passes = [float(min(10, max(0, item.truth + rng.choices(NOISE, WEIGHTS)[0])))
                  for _ in range(2)]
        score = sum(passes) / 2
        out[item.id] = line(item, {"score": score, "reference": 6.0, "win": float(score > 6)},
                            passes, True)
    return out


def mmar_items(records: Sequence[Mapping[str, object]], chance: str,
               rng: random.Random) -> list[Item]:
    items = []
    for record in records:
        options = [c for c in record["choices"] if c]  # type: ignore[attr-defined]
        truth = 1 / len(options) if chance == "random" else rng.betavariate(3, 2)
        slug = str(record["category"]).lower().replace(" ", "_")
        items.append(Item(str(record["id"]), str(record["id"]),
                          {"all": "all", "task": str(record["modality"]), "category": slug,
                           "subcategory": "any"}, truth))
    return items


def chat_items(records: Sequence[Mapping[str, object]], categories: Mapping[str, str]
               ) -> list[Item]:
    return [Item(str(r["uniq_id"]), f"{r['task_name']}/{r['dataset_name']}/{r['path']}",
                 {"task": str(r["task_name"]), "category": categories[str(r["task_name"])]},
                 3 + int(r["uniq_id"]) * 2654435761 % 7)  # type: ignore[call-overload]
            for r in records]


def limited(records: Sequence[Mapping[str, object]], key: str, per: int | None
            ) -> list[Mapping[str, object]]:
    if per is None:
        return list(records)
    kept: dict[object, list[Mapping[str, object]]] = {}
    for record in records:
        kept.setdefault(record[key], []).append(record)
    return [r for group in kept.values() for r in group[:per]]


@dataclass(frozen=True)
class Side:
    """One benchmark of a scenario: its items, how a run of them is drawn, its metrics."""

    bench: Benchmark
    items: list[Item]
    draw: Callable[[Sequence[Item], random.Random], dict[str, SampleLine]]
    metrics: list[str]


def fails(sides: Sequence[Side], rng: random.Random,
          base: Mapping[str, Mapping[str, SampleLine]] | None = None) -> bool:
    found = {}
    for side in sides:
        name = side.bench.name
        old = base[name] if base is not None else side.draw(side.items, rng)
        gating = side.bench.gating()
        pairing = Pairing(base=old, new=side.draw(side.items, rng), linear=gating.linear,
                          margin=gating.margin, noise=judge_noise(old.values()))
        found.update({(name, m): c for m, c in
                      candidates(pairing, dict.fromkeys(side.metrics)).items()})
    return any(assessed.regressed for assessed in plan(found, 0.95).values())


def rate(label: str, runs: int, trial: Callable[[random.Random], bool]) -> None:
    rng = random.Random(label)
    start = time.perf_counter()
    failed = sum(trial(rng) for _ in range(runs))
    share = failed / runs
    seconds = time.perf_counter() - start
    print(f"{label:58s} {failed:4d} of {runs:5d} failed: {100 * share:5.2f} % "
          f"(95 % upper bound {100 * upper(failed, runs):5.2f} %; {seconds:5.1f} s)", flush=True)


def upper(failed: int, runs: int) -> float:
    """One-sided 95 % Clopper-Pearson upper bound, by bisection on the binomial tail."""
    low, high = failed / runs, 1.0
    for _ in range(60):
        p = (low + high) / 2
        tail = sum(math.comb(runs, k) * p ** k * (1 - p) ** (runs - k) for k in range(failed + 1))
        low, high = (p, high) if tail > 0.05 else (low, p)
    return high


def committed(benchmark: str) -> list[str]:
    baseline = load(BASELINES / benchmark / "random.json")
    assert baseline is not None
    return list(baseline.metrics)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs per scenario (the full "
                        "releases take a fifth of them)")
    parser.add_argument("--only", help="run the scenarios whose label contains this")
    args = parser.parse_args()
    settings = make_settings(REPO, model="random", judge_model="overlap", data="mini",
                             benchmark=("air_bench_chat", "mmar"))
    chat, mmar = (registry.create(n, settings) for n in ("air_bench_chat", "mmar"))
    categories = TASK_CATEGORY
    chat_metrics, mmar_metrics = committed("air_bench_chat"), committed("mmar")
    mini_chat = json.loads((MINI / "air_bench_chat" / "Chat" / "Chat_meta.json").read_text())
    mini_mmar = [json.loads(x) for x in (MINI / "mmar" / "MMAR-meta.jsonl").read_text()
                 .splitlines() if x.strip()]
    if reference_available():
        full_chat, full_mmar, source = load_chat_reference(), load_mmar_reference(), "reference"
    else:
        full_chat, full_mmar, source = many_chat_records(275), mini_mmar * 36, "made records"
    print(f"full releases from: {source}; {args.runs} runs per scenario")
    rng = random.Random(7)
    scenarios: list[tuple[str, int, list[Side]]] = []
    for chance in ("random", "likely"):
        scenarios.append((f"mini, both benchmarks, MMAR {chance}", args.runs, [
            Side(chat, chat_items(mini_chat, categories), chat_run, chat_metrics),
            Side(mmar, mmar_items(mini_mmar, chance, rng), mmar_run, mmar_metrics)]))
    for per in (5, 25, None):
        size = f"limit {per}" if per else "full releases"
        runs = args.runs if per else max(20, args.runs // 5)
        for chance in ("random", "likely"):
            scenarios.append((f"{size}, both benchmarks, MMAR {chance}", runs, [
                Side(chat, chat_items(limited(full_chat, "task_name", per), categories),
                     chat_run, chat_metrics),
                Side(mmar, mmar_items(limited(full_mmar, "modality", per), chance, rng),
                     mmar_run, mmar_metrics)]))
    for label, runs, sides in scenarios:
        if args.only is None or args.only in label:
            rate(label, runs, lambda r, s=sides: fails(s, r))  # type: ignore[misc]
    label = "against the committed mini MMAR random baseline (20 runs)"
    if args.only is None or args.only in label:
        lines = load_samples(BASELINES / "mmar" / "random.json")
        items = {i.id: i for i in mmar_items(mini_mmar, "random", rng)}
        fixed = [Item(nodeid, line.cluster, line.groups, items[nodeid.split("::")[-1]].truth)
                 for nodeid, line in lines.items()]
        side = Side(mmar, fixed, mmar_run, mmar_metrics)
        base = {"mmar": dict(lines)}
        share = sum(v.values["correct"] for v in lines.values()) / len(lines)
        print(f"(that baseline scored {share:.1f} %, the model's expectation "
              f"{100 * sum(i.truth for i in fixed) / len(fixed):.1f} %)")
        rate(label, args.runs, lambda r: fails([side], r, base))


if __name__ == "__main__":
    main()
