"""A soak of the plugin under faults, restarts and kills: a measurement, not a test.

    python scripts/soak.py                      # 100,000 requests a run, every benchmark
    python scripts/soak.py --small              # a quick look: about 1,000 requests a run
    python scripts/soak.py --requests 20000 --outage-wait 20 --json figures.json

Every benchmark the plugin ships (the registry's ``built_in()``: AIR-Bench Chat and Foundation,
MMAR, MMAU, MMSU, Big Bench Audio, LibriSpeech, FLEURS, Common Voice, AISHELL-1, AISHELL-2,
WenetSpeech, VoiceBench) runs at once on
records made here (scripts/soak_records.py, with short clips; the soak stops before it starts
when a built-in benchmark has no records maker there), over pytest-xdist workers, against
scripted model and judge servers (tests/fakes/openai_server.py): the model answers each sample
by a fixed rule (an option, its letter, the official answer, a transcript with some word
errors, a reply to a spoken instruction), one sample in ``--empty-every`` always with an empty
answer (Chat's aside); the judge answers each protocol's prompt (Chat's two scores,
Foundation's align letter, MMAR's rubric list, Big Bench Audio's CORRECT or INCORRECT,
VoiceBench's rating of 1 to 5 or its Yes or No) from what it is shown. First a clean run (no
proxy, no cache); then the same selection through fault proxies (tests/fakes/fault_proxy.py)
that answer about ``--rate`` of the requests with a fault. While it runs, by the share of the
clean run's requests done: the model's server and its proxy are stopped and started again on
the same ports, once for less than the plugin's outage allowance (``--audiobench-outage-wait``)
and once for longer; one xdist worker is killed; the controller is killed (SIGKILL to its
process group). Then ``--audiobench-resume`` until the run is done (at most ``--max-resumes``
times). The figures, against the clean run, are printed and written as JSON (``--json``):
requests by role at the servers and the proxies, faults by kind, restarts, kills, resumes, lost
samples, differing samples and metrics, always-empty samples and what they cost, paid twice
against the in-flight bound, each benchmark's own counts and headline metrics, wall time per
phase and the peak memory of the pytest process tree.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scripts.soak_records import (  # noqa: E402
    Plan,
    Scripts,
    build,
    makers,
    plan,
    sample_label,
)
from tests.fakes import fault_proxy  # noqa: E402
from tests.fakes.fault_proxy import FaultProxy  # noqa: E402
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer  # noqa: E402

FAULTS = ("reset", "truncate", "invalid_json", "empty_choices", "null_content", "trickle",
          "throttle", "server_error")
MODEL, JUDGE = "soak-model", "soak-judge"
KILL_WINDOW = 3.0
"""Seconds before a kill within which a reply taken whole counts as in flight at the kill."""
RETRIES = 4
"""--audiobench-retries of every run: a request has RETRIES + 1 attempts (more when an outage
gives some back)."""
HEADLINE_SHOWN = 6
"""Headline metrics printed per benchmark (Foundation has 23; the JSON holds them all)."""
SMALL = {"requests": 1000, "outage_wait": 6.0, "short_outage": 3.0, "long_outage": 12.0}
"""What --small sets, unless given: a quick look of about two minutes on a quiet machine."""


# ---------------------------------------------------------------------------------------------
# The servers, what they count, and the proxies in front of them.


def body_key(body: dict[str, Any]) -> bytes:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()[:16]


@dataclass
class Tally:
    """Chat requests by phase (the clean run, each faulty run) and role: those the servers
    received, and those whose reply a proxy forwarded whole, each by the request's body (one
    key per distinct request)."""

    phase: str = "clean"
    received: dict[tuple[str, str], Counter[bytes]] = field(default_factory=dict)
    whole: dict[tuple[str, str], Counter[bytes]] = field(default_factory=dict)
    late: dict[tuple[str, str], Counter[bytes]] = field(default_factory=dict)
    """Replies forwarded unspoiled but written after the client's timeout had passed: it had
    given up on them (a server slowed down by the machine's load)."""
    empty_keys: set[bytes] = field(default_factory=set)
    """The model requests of always-empty samples."""
    nulled: Counter[bytes] = field(default_factory=Counter)
    """How often a proxy answered each model request with null content (over all runs)."""
    labels: dict[bytes, str] = field(default_factory=dict)
    """Each request's sample, as its text names it."""
    times: dict[tuple[str, bytes], list[float]] = field(default_factory=dict)
    """When each reply was forwarded whole in the faulty runs (time.monotonic), by role and
    request."""
    sent: dict[tuple[str, bytes], list[float]] = field(default_factory=dict)
    """When each attempt of a request reached a proxy in the faulty runs (time.monotonic), by
    role and request, faulted or not."""
    forwarded_whole: int = 0
    """Replies forwarded whole in the faulty runs so far (what the events wait for)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, table: dict[tuple[str, str], Counter[bytes]], role: str, key: bytes) -> None:
        with self.lock:
            table.setdefault((self.phase, role), Counter())[key] += 1

    def counts(self, table: dict[tuple[str, str], Counter[bytes]], role: str,
               phase: str | None = None) -> Counter[bytes]:
        """One phase's counts, or (None) the faulty runs' together."""
        summed: Counter[bytes] = Counter()
        with self.lock:
            for (p, r), counter in table.items():
                if r == role and _within(p, phase):
                    summed.update(counter)
        return summed

    def total(self, table: dict[tuple[str, str], Counter[bytes]],
              phase: str | None = None) -> int:
        with self.lock:
            return sum(c.total() for (p, _), c in table.items()
                       if _within(p, phase))


def _within(counted: str, phase: str | None) -> bool:
    return counted == phase if phase is not None else counted != "clean"


class SoakServer(FakeOpenAIServer):
    """A fake server that counts what it receives (started again after ``stop()``, it
    listens on the port it had, as every fake server does)."""

    def __init__(self, script: Callable[[ChatRequest], str], role: str, tally: Tally,
                 label: Callable[[ChatRequest], str]) -> None:
        super().__init__(self._counted, models=[MODEL if role == "model" else JUDGE])
        self.answer, self.role, self.tally, self.label = script, role, tally, label

    def _counted(self, request: ChatRequest) -> str:
        self.requests.clear()  # counted here instead: 100,000 bodies would hold memory
        key = body_key(request.body)
        self.tally.add(self.tally.received, self.role, key)
        with self.tally.lock:
            known = key in self.tally.labels
        if not known:  # a clip's mark is read once per request body, not on every retry
            label = self.label(request)
            with self.tally.lock:
                self.tally.labels.setdefault(key, label)
        reply = self.answer(request)
        if self.role == "model" and not reply:
            with self.tally.lock:
                self.tally.empty_keys.add(key)
        return reply


class CountingProxy(FaultProxy):
    """A fault proxy that also counts, by request body, the replies it forwarded whole (and
    those it wrote after ``timeout`` seconds, when the client had given up)."""

    def __init__(self, upstream: str, choose: fault_proxy.Chooser, role: str,
                 tally: Tally, timeout: float) -> None:
        self.role, self.tally, self.timeout = role, tally, timeout
        self._current = threading.local()  # a handler thread's request, from choose to count

        def keyed(body: dict[str, Any]) -> str | None:
            self._current.key = key = body_key(body)
            self._current.started = now = time.monotonic()
            with tally.lock:
                tally.sent.setdefault((role, key), []).append(now)
            return choose(body)

        super().__init__(upstream, keyed, trickle_interval=0.05)

    def _count(self, fault: str | None, held: float | None = None) -> None:
        super()._count(fault, held)
        key = getattr(self._current, "key", None)
        if fault is None and key is not None:
            now = time.monotonic()
            late = now - self._current.started > self.timeout
            self.tally.add(self.tally.late if late else self.tally.whole, self.role, key)
            if not late:
                with self.tally.lock:
                    self.tally.times.setdefault((self.role, key), []).append(now)
                    self.tally.forwarded_whole += 1
        elif fault == "null_content" and key is not None and self.role == "model":
            with self.tally.lock:
                self.tally.nulled[key] += 1


# ---------------------------------------------------------------------------------------------
# The pytest process tree: its memory, its workers, one run of it.


def parents() -> dict[int, int]:
    """Every process's parent, from /proc/<pid>/stat (the kernel here has no
    /proc/<pid>/task/<tid>/children)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            found[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return found


def children(pid: int, table: dict[int, int] | None = None) -> list[int]:
    return sorted(child for child, parent in (table or parents()).items() if parent == pid)


def tree(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    table = parents()
    pids, stack = [], [pid]
    while stack:
        current = stack.pop()
        if current not in pids:
            pids.append(current)
            stack += children(current, table)
    return pids


def rss(pid: int) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    found = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    return int(found.group(1)) * 1024 if found else 0


@dataclass
class Attempt:
    name: str
    status: int = 0
    began: float = 0.0
    """When it started (time.monotonic)."""
    seconds: float = 0.0
    peak_bytes: int = 0
    finished: bool = False
    report: str | None = None
    log: str = ""
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: dict[str, dict[str, int]] = field(default_factory=dict)
    """The attempts that gave no answer, by role and reason, as the plugin counted them."""
    notes: list[str] = field(default_factory=list)
    """What its report says of endpoints taken for gone and workers whose counts are missing."""

    def read(self, report: dict[str, Any] | None, whole: bool) -> None:
        self.finished = bool(report and report["run"]["finished"] and self.status != -9)
        if report is None:
            return
        self.report = "whole" if whole else "partial"
        self.outcomes = dict(Counter(s["outcome"] for s in report["samples"]))
        traffic = report.get("traffic") or {}
        endpoints = traffic.get("endpoints") or {}
        self.notes = [str(e["stopped"]) for e in endpoints.values() if e.get("stopped")]
        for label, counts in endpoints.items():
            role = "judge" if label.startswith(JUDGE) else "model"
            for reason, n in (counts.get("failures") or {}).items():
                mine = self.failures.setdefault(role, {})
                mine[reason] = mine.get(reason, 0) + n
        if traffic.get("missing"):
            self.notes.append(f"counts missing from {traffic['missing']}")


class Runner:
    """Runs pytest one process at a time, sampling its tree's memory every half second."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env, self.folder = env, folder
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0.0

    def stop(self) -> None:
        """Kill the pytest process running now, with its workers (the soak is interrupted)."""
        pid = self.running()
        if pid is not None:
            os.killpg(pid, signal.SIGKILL)

    def running(self) -> int | None:
        """The pytest pid, while one runs."""
        process = self.process
        return process.pid if process is not None and process.poll() is None else None

    def run(self, argv: list[str], attempt: Attempt) -> Attempt:
        log = self.folder / "logs" / f"{attempt.name}.txt"
        log.parent.mkdir(exist_ok=True)
        attempt.log = str(log)
        started = time.monotonic()
        with log.open("wb") as out:
            process = subprocess.Popen(argv, env=self.env, cwd=self.folder, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True)
            self.process, self.started = process, started
            attempt.began = started
            try:
                while process.poll() is None:
                    attempt.peak_bytes = max(attempt.peak_bytes,
                                             sum(rss(p) for p in tree(process.pid)))
                    time.sleep(0.5)
            finally:
                self.stop()
                process.wait()
                self.process = None
        attempt.status = process.returncode
        attempt.seconds = time.monotonic() - started
        return attempt


# ---------------------------------------------------------------------------------------------
# What happens during the faulty runs, by the share of the clean run's requests done.


@dataclass
class Event:
    kind: str
    at_share: float
    seconds: float = 0.0
    """An outage's planned length."""
    fired: bool = False
    at: float = 0.0
    """When it fired (time.monotonic)."""
    attempt: str | None = None
    at_requests: int = 0
    detail: dict[str, Any] = field(default_factory=dict)


class Director(threading.Thread):
    """Fires the events in order once the proxies have forwarded their share of the clean
    run's requests whole, each while a pytest process runs."""

    def __init__(self, events: list[Event], clean_total: int, tally: Tally, runner: Runner,
                 model: SoakServer, model_proxy: CountingProxy,
                 attempt: Callable[[], str]) -> None:
        super().__init__(name="soak-director", daemon=True)
        self.events, self.clean_total, self.tally, self.runner = (events, clean_total, tally,
                                                                  runner)
        self.model, self.model_proxy, self.attempt = model, model_proxy, attempt
        self.up = threading.Event()
        self.up.set()
        self.done = threading.Event()

    def run(self) -> None:
        for event in self.events:
            while not self.done.is_set():
                pid = self.runner.running()
                progress = self.tally.forwarded_whole
                if (pid is not None and progress >= event.at_share * self.clean_total
                        and time.monotonic() - self.runner.started > 1.0
                        and (event.kind != "worker_kill" or self._workers(pid))):
                    event.at_requests, event.attempt = progress, self.attempt()
                    try:
                        self._fire(event, pid)
                    except ProcessLookupError:  # it ended meanwhile: the next one, then
                        time.sleep(0.1)
                        continue
                    event.fired, event.at = True, time.monotonic()
                    break
                time.sleep(0.1)

    @staticmethod
    def _workers(pid: int) -> list[int]:
        """The xdist workers: the pytest process's Python children."""
        found = []
        for child in children(pid):
            try:
                command = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"python" in command.split(b"\0")[0]:
                found.append(child)
        return sorted(found)

    def _fire(self, event: Event, pid: int) -> None:
        if event.kind == "controller_kill":
            event.detail = {"pid": pid, "tree": len(tree(pid))}
            os.killpg(pid, signal.SIGKILL)
        elif event.kind == "worker_kill":
            workers = self._workers(pid)
            if not workers:
                raise ProcessLookupError(pid)
            event.detail = {"pid": workers[-1], "workers": len(workers)}
            os.kill(workers[-1], signal.SIGKILL)
        else:
            self._outage(event)

    def _outage(self, event: Event) -> None:
        """The model's server and its proxy stopped, then started again on their ports."""
        ports = (self.model.port, self.model_proxy.port)
        self.up.clear()
        began = time.monotonic()
        self.model_proxy.stop()
        self.model.stop()
        self.done.wait(event.seconds)
        self.model.start()
        self.model_proxy.start()
        self.up.set()
        event.detail = {"down_seconds": round(time.monotonic() - began, 2),
                        "same_ports": ports == (self.model.port, self.model_proxy.port)}


# ---------------------------------------------------------------------------------------------
# Reading the reports.


def read_report(path: Path) -> dict[str, Any] | None:
    for candidate in (path, path.with_name(f"{path.stem}.partial.json")):
        if candidate.exists():
            data: dict[str, Any] = json.loads(candidate.read_text(encoding="utf-8"))
            return data
    return None


VOLATILE = {"cached", "usage", "sent_usage", "seconds", "attempts", "replaced", "reused_from",
            "url"}
"""What may differ between a clean run and a faulty one for the same scores."""


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def signature(sample: dict[str, Any]) -> str:
    """What a sample was answered and scored: its outcome, each answer's text, reasoning,
    finish reason and emptiness, and its grades, without what may differ between runs
    (whether from the cache, attempts, tokens sent, the URL)."""
    answers = [[a.get("run"), *((a.get("completion") or {}).get(k) for k in
                                ("text", "reasoning", "finish_reason")), a.get("empty")]
               for a in sample.get("answers") or []]
    return json.dumps({"outcome": sample.get("outcome"), "answers": answers,
                       "grades": _strip(sample.get("grades"))}, sort_keys=True)


def metrics(report: dict[str, Any]) -> dict[str, Any]:
    return {k: m["value"] for b in report["benchmarks"] for k, m in b["metrics"].items()}


def _attempts(sample: dict[str, Any]) -> int:
    """The attempts the sample's first answer took (the ask and its empty answer's retry)."""
    answers = sample.get("answers") or [{}]
    return int((answers[0].get("completion") or {}).get("attempts") or 0)


def _answer(sample: dict[str, Any]) -> str | None:
    answers = sample.get("answers") or [{}]
    text = (answers[0].get("completion") or {}).get("text")
    return text if isinstance(text, str) or text is None else str(text)


def _same(a: Any, b: Any) -> bool:
    """Equal, floats within rounding (the samples are summed in another order)."""
    if isinstance(a, float | int) and isinstance(b, float | int):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return bool(a == b)


def compare(clean: dict[str, Any], final: dict[str, Any]) -> dict[str, Any]:
    """Lost samples, differing samples and metrics of ``final`` against ``clean``."""
    by_id = {s["nodeid"]: s for s in final["samples"]}
    clean_by_id = {s["nodeid"]: s for s in clean["samples"]}
    selected = final["selected"]
    lost = [n for n in selected
            if n not in by_id or by_id[n]["outcome"] in ("error", "not_run")]
    differing = [n for n in selected if n not in lost and n in clean_by_id
                 and signature(by_id[n]) != signature(clean_by_id[n])]
    emptied = {n: (sample_label(by_id[n]), _attempts(by_id[n])) for n in differing
               if not _answer(by_id[n]) and _answer(clean_by_id[n])}
    clean_metrics, final_metrics = metrics(clean), metrics(final)
    metric_diff = {k: [v, final_metrics.get(k)] for k, v in clean_metrics.items()
                   if not _same(v, final_metrics.get(k))}
    metric_diff.update({k: [None, v] for k, v in final_metrics.items()
                        if k not in clean_metrics})
    return {"selected": len(selected), "clean_selected": len(clean["selected"]),
            "lost": lost, "differing": differing, "differing_emptied": emptied,
            "metrics": len(final_metrics), "differing_metrics": metric_diff,
            "selection_differs": sorted(set(selected) ^ set(clean["selected"]))[:20]}


def by_benchmark(clean: dict[str, Any], final: dict[str, Any],
                 compared: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per benchmark of the clean run: its samples selected in the final run, the lost and
    differing ones, its metrics compared and those that differ, and its headline metrics in
    the clean run and the final one."""
    final_metrics = metrics(final)
    out = {}
    for bench in clean["benchmarks"]:
        name, own = bench["benchmark"], bench["metrics"]
        prefix = f"audiobench::{name}::"

        def of(nodeids: list[str], prefix: str = prefix) -> int:
            return sum(1 for n in nodeids if n.startswith(prefix))

        out[name] = {
            "samples": of(final["selected"]), "lost": of(compared["lost"]),
            "differing": of(compared["differing"]),
            "metrics": sum(1 for k in own if k in final_metrics),
            "differing_metrics": sum(1 for k in compared["differing_metrics"] if k in own),
            "headline": {k: [own[k]["value"], final_metrics.get(k)]
                         for k in bench["headline"] if k in own}}
    return out


# ---------------------------------------------------------------------------------------------


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, help="requests a clean run sends, at least "
                        "(made into samples per benchmark); default 100,000, --small 1,000")
    parser.add_argument("--small", action="store_true", help="a quick look: 1,000 requests, "
                        "outage allowance 6 s, outages of 3 and 12 s")
    parser.add_argument("--rate", type=float, default=0.2, help="share of requests faulted")
    parser.add_argument("--faults", type=lambda v: tuple(v.split(",")), default=FAULTS,
                        help="the kinds, comma-separated, drawn evenly (default: "
                        f"{','.join(FAULTS)}; tests/fakes/fault_proxy.py has more)")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (-n)")
    parser.add_argument("--concurrency", type=int, default=16,
                        help="--audiobench-concurrency: requests in flight per process")
    parser.add_argument("--timeout", type=float, default=5.0, help="--audiobench-timeout of "
                        "the faulty runs, which ends a trickling reply (the clean run's is at "
                        "least 30)")
    parser.add_argument("--outage-wait", type=float, help="--audiobench-outage-wait, passed "
                        "when the plugin has it; default 20, --small 6")
    parser.add_argument("--short-outage", type=float, help="seconds the model's server is down "
                        "the first time, under the allowance; default 6, --small 3")
    parser.add_argument("--long-outage", type=float, help="seconds it is down the second time, "
                        "beyond the allowance; default the allowance + 15, --small 12")
    parser.add_argument("--max-connection-failures", type=int,
                        help="--audiobench-max-connection-failures (default: the plugin's)")
    parser.add_argument("--empty-every", type=int, default=6,
                        help="one multiple-choice sample in N always gets an empty answer")
    parser.add_argument("--max-resumes", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7, help="seed of the faults' draw")
    parser.add_argument("--folder", type=Path, help="where data, cache, reports and logs go "
                        "(default: a new temporary folder, kept)")
    parser.add_argument("--json", type=Path, help="the figures as JSON (default: "
                        "soak-figures.json in the folder)")
    args = parser.parse_args()
    defaults = SMALL if args.small else {"requests": 100_000, "outage_wait": 20.0,
                                         "short_outage": 6.0, "long_outage": None}
    for name, value in defaults.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.long_outage is None:
        args.long_outage = args.outage_wait + 15.0
    if not args.short_outage < args.outage_wait < args.long_outage:
        parser.error("expected --short-outage < --outage-wait < --long-outage")
    unknown = set(args.faults) - set(fault_proxy.FAULTS)
    if unknown:
        parser.error(f"unknown faults {sorted(unknown)}; known: {', '.join(fault_proxy.FAULTS)}")
    return args


def outage_flag(env: dict[str, str], folder: Path) -> bool:
    """Whether this plugin takes --audiobench-outage-wait (its --help lists it)."""
    help_text = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                                "--help"], env=env, cwd=folder, capture_output=True,
                               text=True, check=False).stdout
    return "--audiobench-outage-wait" in help_text


def mb(value: int) -> float:
    return round(value / 2**20, 1)


def main() -> None:
    args = parse()
    # Interrupted (Ctrl-C, or SIGTERM from a timeout), the soak takes its pytest run down too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    runners: list[Runner] = []
    try:
        soak(args, runners)
    finally:
        for runner in runners:
            runner.stop()


def soak(args: argparse.Namespace, runners: list[Runner]) -> None:
    began = time.monotonic()
    walls: dict[str, float] = {}
    args.commit = _commit()  # the code the runs import, read before a commit can land meanwhile
    chosen = makers()  # before anything is made: a benchmark without records stops the soak
    folder = args.folder or Path(tempfile.mkdtemp(prefix="audiobench-soak-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env.update(XDG_CACHE_HOME=str(folder / "xdg"), PYTHONPATH=str(REPO))
    with_outage_wait = outage_flag(env, folder)
    print(f"soak in {folder}; --audiobench-outage-wait "
          + (f"{args.outage_wait:g}" if with_outage_wait else
             "NOT accepted by this plugin: the runs go without it (the plugin's breaker, "
             "--audiobench-max-connection-failures, decides alone)"), flush=True)

    the_plan = plan(args.requests, args.empty_every, chosen)
    started = time.monotonic()
    data = build(folder / "data", the_plan.samples, chosen)
    walls["build data"] = time.monotonic() - started
    print("samples: " + ", ".join(f"{n} {c:,}" for n, c in the_plan.samples.items())
          + f"; about {sum(the_plan.expected.values()):,.0f} requests a clean run "
          f"(target {args.requests:,}); data made in {walls['build data']:.1f} s", flush=True)

    tally = Tally()
    scripts = Scripts(data, chosen, args.empty_every)
    model = SoakServer(scripts.model, "model", tally, scripts.label).start()
    judge = SoakServer(scripts.judge, "judge", tally, scripts.label).start()
    runner = Runner(env, folder)
    runners.append(runner)

    def argv(model_url: str, judge_url: str, report: Path, timeout: float,
             *more: str) -> list[str]:
        flags = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q",
                 "-n", str(args.workers), "--audiobench-model", MODEL,
                 "--audiobench-api-url", model_url, "--audiobench-judge-model", JUDGE,
                 "--audiobench-judge-api-url", judge_url,
                 "--audiobench-benchmark", ",".join(chosen),
                 f"--audiobench-data={data.flag()}", f"--audiobench-report={report}",
                 f"--audiobench-cache-dir={folder / 'cache'}",
                 "--audiobench-concurrency", str(args.concurrency),
                 "--audiobench-timeout", f"{timeout:g}", "--audiobench-retries", str(RETRIES),
                 "--audiobench-retry-wait", "0.05", "--audiobench-progress", "0"]
        if args.max_connection_failures:
            flags += ["--audiobench-max-connection-failures", str(args.max_connection_failures)]
        if with_outage_wait:
            flags += ["--audiobench-outage-wait", f"{args.outage_wait:g}"]
        return [*flags, *more]

    clean_path = folder / "clean.json"
    clean_run = runner.run(argv(model.url, judge.url, clean_path, max(args.timeout, 30.0),
                                "--audiobench-no-cache"), Attempt("clean"))
    clean = read_report(clean_path)
    if clean is None:
        raise SystemExit(f"the clean run wrote no report (exit {clean_run.status}): see "
                         f"{clean_run.log}")
    clean_run.read(clean, True)
    clean_total = tally.total(tally.received, "clean")
    print(f"clean run: exit {clean_run.status}, {clean_run.seconds:.1f} s, "
          f"{tally.counts(tally.received, 'model', 'clean').total():,} model and "
          f"{tally.counts(tally.received, 'judge', 'clean').total():,} judge requests, peak "
          f"{mb(clean_run.peak_bytes)} MB", flush=True)

    choose = fault_proxy.mixed(args.rate, args.faults, seed=args.seed)
    model_proxy = CountingProxy(model.url, choose, "model", tally, args.timeout).start()
    judge_proxy = CountingProxy(judge.url, choose, "judge", tally, args.timeout).start()
    events = [Event("short_outage", 0.15, args.short_outage), Event("worker_kill", 0.30),
              Event("long_outage", 0.45, args.long_outage), Event("controller_kill", 0.65)]
    attempts: list[Attempt] = []
    director = Director(events, clean_total, tally, runner, model, model_proxy,
                        lambda: attempts[-1].name if attempts else "")
    director.start()
    report_path = folder / "faulty.json"
    for number in range(args.max_resumes + 1):
        director.up.wait()
        attempt = Attempt("faulty run" if number == 0 else f"resume {number}")
        attempts.append(attempt)
        tally.phase = attempt.name
        for stale in (report_path, report_path.with_name(f"{report_path.stem}.partial.json")):
            stale.unlink(missing_ok=True)
        runner.run(argv(model_proxy.url, judge_proxy.url, report_path, args.timeout,
                        *(["--audiobench-resume"] if number else [])), attempt)
        report = read_report(report_path)
        attempt.read(report, report_path.exists())
        if report is not None:  # kept for a look later: the next run writes over it
            (folder / "reports").mkdir(exist_ok=True)
            (folder / "reports" / f"{attempt.name.replace(' ', '-')}.json").write_text(
                json.dumps(report), encoding="utf-8")
        print(f"{attempt.name}: exit {attempt.status} after {attempt.seconds:.1f} s"
              + (" (killed)" if attempt.status == -9 else "")
              + ("" if attempt.finished else ", not done") + f", peak "
              f"{mb(attempt.peak_bytes)} MB; outcomes {attempt.outcomes or 'none: no report'}"
              + "".join(f"; {note}" for note in attempt.notes), flush=True)
        if attempt.finished:
            break
    director.done.set()
    director.join(timeout=max(args.long_outage, 5) + 5)
    walls["total"] = time.monotonic() - began

    final = read_report(report_path)
    figures = measure(args, with_outage_wait, clean, final, clean_run, attempts, events, tally,
                      (model_proxy, judge_proxy), walls, folder, the_plan)
    path = args.json or folder / "soak-figures.json"
    path.write_text(json.dumps(figures, indent=1), encoding="utf-8")
    print_figures(figures)
    print(f"figures as JSON: {path}")
    for stopped in (model_proxy, judge_proxy, model, judge):
        stopped.stop()


def taken_at_kills(whole: list[float], sent: list[float],
                   kills: list[tuple[float, float]]) -> tuple[int, int]:
    """Of one request's replies forwarded whole in the faulty runs (``whole``, their times),
    those a kill may have taken from the process that held them: (near, held).

    Near: forwarded up to KILL_WINDOW seconds before a kill (taken, not yet kept) or up to a
    second after it (written to a process as it died). Held, of the others: forwarded earlier
    in the run the kill ended (``kills``: each kill's time and its run's start), while the same
    request was sent again after it (``sent``: every attempt's time at the proxy, faulted or
    not) and its latest such attempt had no reply forwarded whole by the kill. That is a model's
    empty answer whose one retry was still being asked at the kill (met a fault, or trickled
    to the timeout): the plugin keeps an empty answer, in its cache and its sample's record,
    only once the retry is done (transport/retrying.py, ``_asked_again``), so the kill takes
    both, however long before it the empty answer came."""
    is_near = [any(-1.0 <= kill - t <= KILL_WINDOW for kill, _ in kills) for t in whole]
    held = 0
    for t, near in zip(whole, is_near, strict=True):
        if near:
            continue
        for kill, run_began in kills:
            if not run_began <= t < kill:
                continue
            again = [s for s in sent if t < s <= kill]
            if again and not any(max(again) < w <= kill for w in whole):
                held += 1
                break
    return sum(is_near), held


def measure(args: argparse.Namespace, with_outage_wait: bool, clean: dict[str, Any],
            final: dict[str, Any] | None, clean_run: Attempt, attempts: list[Attempt],
            events: list[Event], tally: Tally, proxies: tuple[CountingProxy, CountingProxy],
            walls: dict[str, float], folder: Path, the_plan: Plan) -> dict[str, Any]:
    """Every figure, as JSON."""
    roles = ("model", "judge")
    names = [a.name for a in attempts]
    servers = {"clean": {r: tally.counts(tally.received, r, "clean").total() for r in roles},
               "faulty": {r: tally.counts(tally.received, r).total() for r in roles}}
    whole_by_run = {name: {r: tally.counts(tally.whole, r, name).total() for r in roles}
                    for name in names}
    at_proxies = {}
    faults = Counter[str]()
    for proxy in proxies:
        faulted = dict(sorted(proxy.injected.items()))
        faults.update(proxy.injected)
        late = tally.counts(tally.late, proxy.role).total()
        at_proxies[proxy.role] = {
            "all": proxy.forwarded + proxy.undelivered + sum(faulted.values()),
            "whole": proxy.forwarded - late, "late": late, "undelivered": proxy.undelivered,
            "faulted": sum(faulted.values()), "faults": faulted}
    # Paid twice: replies received whole beyond the clean run's count of the same request,
    # put down to the run in which the excess arose.
    # A request the clean run never sent (a judge shown an answer the clean run did not get)
    # is counted apart.
    paid_twice: dict[str, int] = {}
    paid_by_run: dict[str, dict[str, int]] = {name: {} for name in names}
    paid_examples: dict[str, list[str]] = {}
    unasked: dict[str, int] = {}
    for role in roles:
        clean_keys = tally.counts(tally.received, role, "clean")
        so_far: Counter[bytes] = Counter()
        excess = 0
        for name in names:
            so_far.update(tally.counts(tally.whole, role, name))
            now = sum(max(0, n - clean_keys[k]) for k, n in so_far.items() if clean_keys[k])
            paid_by_run[name][role], excess = now - excess, now
        paid_twice[role] = excess
        unasked[role] = sum(n for k, n in so_far.items() if not clean_keys[k])
        paid_examples[role] = sorted(f"{tally.labels.get(k, '?')} x{n}/{clean_keys[k]}"
                                     for k, n in so_far.items() if n > clean_keys[k])[:12]
    # Paid twice at a kill (``taken_at_kills``): a reply taken whole by a process killed before
    # it kept it, near the kill or held by a request still being asked at it. A request's
    # excess over the clean run is put down to kills as far as those replies go; the rest are
    # replies the plugin lost otherwise.
    began = {a.name: a.began for a in attempts}
    kills = [(e.at, began.get(e.attempt or "", 0.0)) for e in events
             if e.fired and e.kind.endswith("_kill")]
    kill_times = [kill for kill, _ in kills]
    at_kill: dict[str, int] = {}
    at_kill_held: dict[str, int] = {}
    elsewhere: dict[str, list[str]] = {}
    for role in roles:
        clean_keys = tally.counts(tally.received, role, "clean")
        by_run = {name: tally.counts(tally.whole, role, name) for name in names}
        at_kill[role], at_kill_held[role], elsewhere[role] = 0, 0, []
        for (r, key), times in tally.times.items():
            excess = len(times) - clean_keys[key]
            if r != role or not clean_keys[key] or excess <= 0:
                continue
            near, held = taken_at_kills(times, tally.sent.get((role, key), []), kills)
            at_kill[role] += min(excess, near + held)
            at_kill_held[role] += min(excess, near + held) - min(excess, near)
            for _ in range(excess - min(excess, near + held)):
                runs = {name: n for name, counts in by_run.items() if (n := counts[key])}
                since = [[round(t - kill, 1) for kill in kill_times] for t in sorted(times)]
                asked = [[round(t - kill, 1) for kill in kill_times]
                         for t in sorted(tally.sent.get((role, key), []))]
                elsewhere[role].append(f"{tally.labels.get(key, '?')} (whole {runs}, clean "
                                       f"{clean_keys[key]}; each reply's seconds after each "
                                       f"kill: {since}; each attempt's: {asked})")
    fired = {e.kind for e in events if e.fired}
    bound = args.concurrency * ((args.workers if "controller_kill" in fired else 0)
                                + (1 if "worker_kill" in fired else 0))
    empty_keys = sorted(tally.empty_keys)
    clean_model = tally.counts(tally.received, "model", "clean")
    whole_model = tally.counts(tally.whole, "model")
    per_run = [tally.counts(tally.whole, "model", name) for name in names]
    empties = {
        "samples": len(empty_keys),
        "clean_requests": sum(clean_model[k] for k in empty_keys),
        "clean_max_per_sample": max((clean_model[k] for k in empty_keys), default=0),
        "faulty_requests_at_server": sum(tally.counts(tally.received, "model")[k]
                                         for k in empty_keys),
        "whole_max_per_sample_in_one_run": max((c[k] for c in per_run for k in empty_keys),
                                               default=0),
        "whole_max_per_sample_all_runs": max((whole_model[k] for k in empty_keys), default=0),
        "over_two_in_one_run": sum(1 for k in empty_keys if any(c[k] > 2 for c in per_run)),
        "final_report_empty_answers": None if final is None else sum(
            1 for s in final["samples"] for a in s.get("answers") or [] if a.get("empty"))}
    compared = compare(clean, final) if final is not None else None
    benches = None if compared is None or final is None else by_benchmark(clean, final,
                                                                           compared)
    # A sample the clean run answered that ends with an empty answer is explained when a proxy
    # made its model's answer null, a well-formed empty answer the plugin must score as the
    # model's (PROTOCOLS.md: "an empty answer is an answer"), and the one immediate retry
    # brought no other: it was null too, or it met transport faults until the request's
    # attempts ran out (issue 43: a failed retry never discards the empty answer received
    # whole; the record's attempts show it). One null and a retry that got a reply cannot end
    # empty: not explained.
    model_keys: dict[str, set[bytes]] = {}
    for key in tally.counts(tally.received, "model") | clean_model:
        model_keys.setdefault(tally.labels.get(key, "?"), set()).add(key)
    emptied = {} if compared is None else compared["differing_emptied"]
    nulls = {n: sum(tally.nulled[k] for k in model_keys.get(label, set()))
             for n, (label, _) in emptied.items()}
    twice = [n for n in emptied if nulls[n] >= 2]
    out_of_attempts = [n for n, (_, attempts) in emptied.items()
                       if nulls[n] == 1 and attempts >= RETRIES + 1]
    after_null = twice + out_of_attempts
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": args.commit,
        "folder": str(folder),
        "settings": {"requests_target": args.requests, "rate": args.rate,
                     "workers": args.workers, "concurrency": args.concurrency,
                     "timeout": args.timeout, "outage_wait": args.outage_wait,
                     "outage_wait_passed": with_outage_wait, "short_outage": args.short_outage,
                     "long_outage": args.long_outage, "empty_every": args.empty_every,
                     "seed": args.seed, "max_connection_failures":
                     args.max_connection_failures, "faults": list(args.faults)},
        "samples": the_plan.samples,
        "expected_requests": {k: round(v) for k, v in the_plan.expected.items()},
        "requests_at_servers": servers,
        "requests_at_proxies": at_proxies,
        "whole_replies_by_run": whole_by_run,
        "faults": dict(sorted(faults.items())),
        "trickle_held_max_seconds": round(max(proxies[0].held + proxies[1].held, default=0), 2),
        "events": [{"kind": e.kind, "at_share": e.at_share, "fired": e.fired,
                    "attempt": e.attempt, "at_requests": e.at_requests,
                    "planned_seconds": e.seconds or None, **e.detail} for e in events],
        "restarts": {"short": sum(1 for e in events if e.kind == "short_outage" and e.fired),
                     "long": sum(1 for e in events if e.kind == "long_outage" and e.fired)},
        "runs": [{"name": a.name, "exit": a.status, "seconds": round(a.seconds, 1),
                  "peak_mb": mb(a.peak_bytes), "finished": a.finished, "report": a.report,
                  "outcomes": a.outcomes, "failures": a.failures, "notes": a.notes}
                 for a in [clean_run, *attempts]],
        "resumes": len(attempts) - 1,
        "done": bool(attempts and attempts[-1].finished),
        "final_report": None if final is None else {
            "finished": final["run"]["finished"], "samples": len(final["samples"]),
            "outcomes": dict(Counter(s["outcome"] for s in final["samples"])),
            "traffic": final.get("traffic")},
        "lost": None if compared is None else len(compared["lost"]),
        "differing_samples": None if compared is None else len(compared["differing"]),
        "differing_samples_emptied": None if compared is None else len(emptied),
        "differing_samples_emptied_after_null": None if compared is None else len(after_null),
        "differing_samples_emptied_after_two_nulls": None if compared is None else len(twice),
        "differing_samples_emptied_after_null_and_failed_retry":
            None if compared is None else len(out_of_attempts),
        "emptied_samples": {n: {"nulls": nulls[n], "attempts": attempts}
                            for n, (_, attempts) in emptied.items()},
        "differing_metrics": None if compared is None else compared["differing_metrics"],
        "metrics_compared": None if compared is None else compared["metrics"],
        "examples": None if compared is None else {
            "lost": compared["lost"][:10], "differing": compared["differing"][:10],
            "selection_differs": compared["selection_differs"]},
        "always_empty": empties,
        "paid_twice": paid_twice,
        "paid_twice_by_run": paid_by_run,
        "paid_twice_examples": paid_examples,
        "paid_twice_at_a_kill": at_kill,
        "paid_twice_at_a_kill_held_by_a_request_still_asked": at_kill_held,
        "paid_twice_elsewhere": {role: len(v) for role, v in elsewhere.items()},
        "paid_twice_elsewhere_examples": {role: v[:12] for role, v in elsewhere.items()},
        "whole_replies_the_clean_run_never_asked": unasked,
        "paid_twice_bound": bound,
        "by_benchmark": benches,
        "targets": None if compared is None else {
            "lost_is_0": not compared["lost"],
            "benchmarks_without_metrics_compared": sorted(
                set(the_plan.samples) - {n for n, b in (benches or {}).items() if b["metrics"]}),
            "differing_unexplained": len(compared["differing"]) - len(after_null),
            "paid_twice_within_bound": sum(paid_twice.values()) <= bound,
            "paid_twice_away_from_kills": sum(len(v) for v in elsewhere.values())},
        "wall_seconds": {**{k: round(v, 1) for k, v in walls.items()},
                         **{a.name: round(a.seconds, 1) for a in [clean_run, *attempts]}},
        "peak_memory_mb": {"clean": mb(clean_run.peak_bytes),
                           "faulty": mb(max((a.peak_bytes for a in attempts), default=0))},
    }


def _shown(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _commit() -> str:
    """The tree's commit (``-dirty`` with changes not committed)."""
    done = subprocess.run(["git", "-C", str(REPO), "describe", "--always", "--dirty"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def print_figures(f: dict[str, Any]) -> None:
    s, servers, proxies = f["settings"], f["requests_at_servers"], f["requests_at_proxies"]
    print(f"\n== soak figures ({f['commit']}, {f['date']}) ==")
    print("samples: " + ", ".join(f"{k} {v:,}" for k, v in f["samples"].items())
          + f" ({sum(f['samples'].values()):,}); {s['workers']} xdist workers, "
          f"{s['concurrency']} in flight each, {s['rate']:.0%} faults")
    for phase in ("clean", "faulty"):
        print(f"requests at the servers, {phase}: model {servers[phase]['model']:,}, judge "
              f"{servers[phase]['judge']:,}")
    for role, p in proxies.items():
        print(f"requests at the {role} proxy: {p['all']:,} ({p['whole']:,} forwarded whole, "
              f"{p['late']} written after the client's timeout, {p['undelivered']} to a closed "
              f"connection, {p['faulted']:,} faulted: "
              + ", ".join(f"{k} {v}" for k, v in p["faults"].items()) + ")")
    print("faults by kind: " + ", ".join(f"{k} {v:,}" for k, v in f["faults"].items())
          + f"; {sum(f['faults'].values()):,} in all; longest trickle held "
          f"{f['trickle_held_max_seconds']} s (timeout {s['timeout']:g} s)")
    allowance = (f"--audiobench-outage-wait {s['outage_wait']:g}" if s["outage_wait_passed"]
                 else "no --audiobench-outage-wait (the plugin lacks it)")
    print(f"restarts: {f['restarts']['short']} short, {f['restarts']['long']} long "
          f"({allowance})")
    for e in f["events"]:
        what = {k: v for k, v in e.items()
                if k not in ("kind", "at_share", "fired", "attempt", "at_requests")}
        print(f"  {e['kind']}: " + (f"in {e['attempt']} at {e['at_requests']:,} whole requests "
                                    f"{what}" if e["fired"] else "NOT fired"))
    for run in f["runs"]:
        print(f"  {run['name']}: exit {run['exit']}, {run['seconds']} s, peak {run['peak_mb']} "
              f"MB, " + ("finished" if run["finished"] else "not done") + f"; outcomes "
              f"{run['outcomes'] or 'none: no report'}"
              + "".join(f"; {role} failures {v}" for role, v in run["failures"].items())
              + "".join(f"; {n}" for n in run["notes"]))
    print(f"resumes: {f['resumes']}; done: {f['done']}")
    if f["lost"] is None:
        print("lost: unknown, the faulty run wrote no report")
    else:
        print(f"lost: {f['lost']} of {f['final_report']['samples']:,} samples; differing "
              f"samples: {f['differing_samples']} ({f['differing_samples_emptied']} of them end "
              f"with an empty answer where the clean run had one, "
              f"{f['differing_samples_emptied_after_null']} of those after a proxy made their "
              f"answer null: {f['differing_samples_emptied_after_two_nulls']} null on the ask "
              f"and its retry, {f['differing_samples_emptied_after_null_and_failed_retry']} "
              f"null on the ask, the retry out of attempts); differing metrics: "
              f"{len(f['differing_metrics'])} of {f['metrics_compared']}")
        if f["differing_metrics"]:
            print(f"  {dict(list(f['differing_metrics'].items())[:8])}")
        if f["examples"]["lost"] or f["examples"]["differing"]:
            print(f"  examples: {f['examples']}")
    e = f["always_empty"]
    print(f"always-empty samples: {e['samples']:,} (the final report holds "
          f"{e['final_report_empty_answers']} empty answers); clean run: "
          f"{e['clean_requests']:,} requests, at most {e['clean_max_per_sample']} a sample; "
          f"faulty runs: {e['faulty_requests_at_server']:,} requests at the server, at most "
          f"{e['whole_max_per_sample_in_one_run']} empty answers received whole a sample in one "
          f"run ({e['over_two_in_one_run']} samples over two), "
          f"{e['whole_max_per_sample_all_runs']} over all runs")
    print(f"paid twice: model answers {f['paid_twice']['model']}, judge replies "
          f"{f['paid_twice']['judge']} (in flight at the kills: at most "
          f"{f['paid_twice_bound']}); by run: " + ", ".join(
              f"{name} {v['model']}+{v['judge']}" for name, v in f["paid_twice_by_run"].items()))
    held = f["paid_twice_at_a_kill_held_by_a_request_still_asked"]
    print(f"  of which taken at a kill (up to {KILL_WINDOW:g} s before it, or 1 s after, or "
          f"earlier in its run while the same request, asked again, had no reply by the kill): "
          f"model {f['paid_twice_at_a_kill']['model']} ({held['model']} of them held by a "
          f"request still asked), judge {f['paid_twice_at_a_kill']['judge']} ({held['judge']}); "
          f"elsewhere: model "
          f"{f['paid_twice_elsewhere']['model']}, judge {f['paid_twice_elsewhere']['judge']}")
    for role, examples in f["paid_twice_elsewhere_examples"].items():
        if examples:
            print(f"  {role}, paid twice away from a kill: {'; '.join(examples)}")
    print(f"replies received whole to requests the clean run never sent (a judge shown another "
          f"answer): model {f['whole_replies_the_clean_run_never_asked']['model']}, judge "
          f"{f['whole_replies_the_clean_run_never_asked']['judge']}")
    for role, examples in f["paid_twice_examples"].items():
        if examples:
            print(f"  {role} requests received whole more often than the clean run asked them "
                  f"(whole/clean): {', '.join(examples)}")
    for name, b in (f["by_benchmark"] or {}).items():
        shown = list(b["headline"].items())[:HEADLINE_SHOWN]
        more = len(b["headline"]) - len(shown)
        print(f"  {name}: {b['samples']:,} samples, {b['lost']} lost, {b['differing']} "
              f"differing; {b['differing_metrics']} of {b['metrics']} metrics differ; "
              + ", ".join(f"{k.removeprefix(name + '.')} {_shown(v[0])}"
                          + ("" if _same(v[0], v[1]) else f" -> {_shown(v[1])}")
                          for k, v in shown) + (f" (+{more} in the JSON)" if more else ""))
    if f["targets"] is not None:
        print(f"targets: 0 lost {'met' if f['targets']['lost_is_0'] else 'MISSED'}; differing "
              f"samples not explained by an answer a proxy made null: "
              f"{f['targets']['differing_unexplained']}; paid twice within the in-flight bound: "
              f"{'yes' if f['targets']['paid_twice_within_bound'] else 'NO'}; away from a kill: "
              f"{f['targets']['paid_twice_away_from_kills']}; benchmarks without a metric "
              f"compared: {', '.join(f['targets']['benchmarks_without_metrics_compared']) or 0}")
    print("wall: " + ", ".join(f"{k} {v} s" for k, v in f["wall_seconds"].items()))
    print(f"peak memory of the pytest process tree: clean {f['peak_memory_mb']['clean']} MB, "
          f"faulty {f['peak_memory_mb']['faulty']} MB")


if __name__ == "__main__":
    main()
