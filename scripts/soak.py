"""A soak of the plugin under faults: a measurement, not a test.

    python scripts/soak.py                       # 3,200 samples, 20 % faults, a kill, resumes
    python scripts/soak.py --samples 800 --rate 0.3 --kill-after 0

Scripted model and judge servers (tests/fakes/openai_server.py) stand behind fault proxies
(tests/fakes/fault_proxy.py) that answer about ``--rate`` of the requests with a fault: a reset
connection, a truncated body, a body that is not JSON, ``choices: []``, null content, a reply
that trickles past the timeout, HTTP 429 or HTTP 500. AIR-Bench Chat runs on records written
for the tests (short tones), first cleanly with no proxy and no cache, then through the
proxies: killed with SIGKILL after ``--kill-after`` seconds, resumed with
``--audiobench-resume`` until the run leaves nothing undone. It prints what the servers
received, what the proxies injected, and against the clean run:

- lost: selected samples without an outcome of their own in the last report (error, not run,
  no record);
- mis-scored: samples whose score differs from the clean run's, and metrics that differ;
- duplicate-paid: answers the model server gave that reached the plugin whole, beyond one per
  sample (those in flight at the kill may be paid again: at most the concurrency).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import fenced_answers  # noqa: E402
from tests.fakes import fault_proxy  # noqa: E402
from tests.fakes.datasets import build_air_bench_chat  # noqa: E402
from tests.fakes.fault_proxy import FaultProxy  # noqa: E402
from tests.fakes.made_records import many_chat_records  # noqa: E402
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer  # noqa: E402

FAULTS = ("reset", "truncate", "invalid_json", "empty_choices", "null_content", "trickle",
          "throttle", "server_error")
MODEL, JUDGE = "soak-model", "soak-judge"


def answer(request: ChatRequest) -> str:
    return "An answer to: " + request.text.splitlines()[0][:60]


def judge(request: ChatRequest) -> str:
    """A deterministic judge: the model's answer scores by its hash, the reference 6."""
    first, second = fenced_answers(request.text)
    return " ".join(str(_score(a)) for a in (first, second))


def _score(text: str) -> int:
    if not text.startswith("An answer to: "):
        return 6
    return 3 + int(hashlib.sha256(text.encode()).hexdigest(), 16) % 7


def run(argv: list[str], env: dict[str, str], kill_after: float | None) -> tuple[int, float]:
    """One pytest run; SIGKILL to its whole process group after ``kill_after`` seconds."""
    started = time.monotonic()
    with subprocess.Popen(argv, env=env, cwd=env["SOAK_DIR"], start_new_session=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as process:
        try:
            status = process.wait(timeout=kill_after)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            status = -9
    return status, time.monotonic() - started


def scores(report: Path) -> tuple[dict[str, Any], dict[str, float], dict[str, float | None]]:
    """The report, its metrics, and each sample's model score (None without one)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    metrics = {k: m["value"] for b in data["benchmarks"] for k, m in b["metrics"].items()}
    per_sample = {s["nodeid"]: s["verdicts"][0]["model_score"] if s["verdicts"] else None
                  for s in data["samples"]}
    return data, metrics, per_sample


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3200, help="AIR-Bench Chat samples "
                        "(rounded to a multiple of 8: as many per task)")
    parser.add_argument("--rate", type=float, default=0.2, help="share of requests faulted")
    parser.add_argument("--kill-after", type=float, default=30.0,
                        help="seconds before the faulty run is killed (0: never)")
    parser.add_argument("--timeout", type=float, default=2.0, help="--audiobench-timeout")
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="audiobench-soak-"))
    # The release's id ranges hold 100 samples of some tasks; beyond that, number them anew.
    records = many_chat_records(max(1, args.samples // 8))
    for number, record in enumerate(records):
        record["uniq_id"] = number
    data = build_air_bench_chat(folder / "data", records)
    model = FakeOpenAIServer(answer, models=[MODEL]).start()
    judged = FakeOpenAIServer(judge, models=[JUDGE]).start()
    choose = fault_proxy.mixed(args.rate, FAULTS, seed=7)
    model_proxy = FaultProxy(model.url, choose, trickle_interval=0.05).start()
    judge_proxy = FaultProxy(judged.url, choose, trickle_interval=0.05).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env.update(SOAK_DIR=str(folder), XDG_CACHE_HOME=str(folder / "xdg"))

    def argv(model_url: str, judge_url: str, report: Path, *more: str) -> list[str]:
        return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                "--audiobench-model", MODEL, "--audiobench-api-url", model_url,
                "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url", judge_url,
                f"--audiobench-data={data}", f"--audiobench-report={report}",
                f"--audiobench-cache-dir={folder / 'cache'}",
                "--audiobench-concurrency", str(args.concurrency),
                "--audiobench-timeout", str(args.timeout), "--audiobench-retries", "4",
                "--audiobench-retry-wait", "0.05", "--audiobench-max-connection-failures",
                "100000", "--audiobench-progress", "0", *more]

    clean_report = folder / "clean.json"
    status, took = run(argv(model.url, judged.url, clean_report, "--audiobench-no-cache"),
                       env, None)
    if not clean_report.exists():
        raise SystemExit(f"the clean run wrote no report (exit {status}); run it by hand: "
                         + " ".join(argv(model.url, judged.url, clean_report)))
    _, clean_metrics, clean = scores(clean_report)
    clean_model, clean_judge = model.count(), judged.count()
    print(f"clean run: exit {status}, {took:.1f} s, {clean_model} model and {clean_judge} "
          "judge requests")
    model.requests.clear()
    judged.requests.clear()

    report = folder / "faulty.json"
    kill = args.kill_after or None
    status, took = run(argv(model_proxy.url, judge_proxy.url, report), env, kill)
    print(f"faulty run: exit {status} after {took:.1f} s" + (" (killed)" if status == -9 else ""))
    for attempt in range(1, 8):
        data_now = json.loads(report.read_text()) if report.exists() else None
        if data_now is not None and data_now["run"]["finished"] and status != -9:
            break
        status, took = run(argv(model_proxy.url, judge_proxy.url, report, "--audiobench-resume"),
                           env, None)
        print(f"resume {attempt}: exit {status} after {took:.1f} s")
    final, final_metrics, scored = scores(report)
    selected = final["selected"]
    done = {s["nodeid"] for s in final["samples"] if s["outcome"] not in ("error", "not_run")}
    lost = [n for n in selected if n not in done]
    misscored = [n for n in selected if n in done and scored.get(n) != clean.get(n)]
    differing = {k: (v, final_metrics.get(k)) for k, v in clean_metrics.items()
                 if final_metrics.get(k) != v}
    for name, proxy in (("model", model_proxy), ("judge", judge_proxy)):
        faulted = sum(proxy.injected.values())
        print(f"{name} requests at its proxy over all runs: {proxy.forwarded + faulted} "
              f"({proxy.forwarded} forwarded whole, {faulted} faulted)")
    injected = model_proxy.injected + judge_proxy.injected
    print("faults injected: " + ", ".join(f"{k} {v}" for k, v in sorted(injected.items()))
          + f"; {sum(injected.values())} in all")
    print(f"trickled requests held before the client gave up: at most "
          f"{max(model_proxy.held + judge_proxy.held, default=0):.2f} s "
          f"(--audiobench-timeout {args.timeout:g})")
    print(f"samples: {len(selected)}; lost: {len(lost)}; mis-scored: {len(misscored)}; metrics "
          f"differing from the clean run: {len(differing)}" + (f" {differing}" if differing
                                                               else ""))
    print(f"duplicate-paid: model answers {model_proxy.forwarded - clean_model}, judge replies "
          f"{judge_proxy.forwarded - clean_judge} (those in flight at the kill may be paid "
          f"again: at most {args.concurrency}); the clean run asked {clean_model} model and "
          f"{clean_judge} judge requests")
    for stopped in (model, judged, model_proxy, judge_proxy):
        stopped.stop()


if __name__ == "__main__":
    main()
