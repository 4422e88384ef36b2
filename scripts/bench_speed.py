#!/usr/bin/env python
"""Measure and print the speed figures of issue 5 (see scripts/README.md).

    python scripts/bench_speed.py [--delay 0.1] [--quick]

A fake OpenAI-compatible server runs in its own process and answers every request after a
fixed delay; the plugin runs in ``pytest`` subprocesses over the 2,200 real AIR-Bench Chat
records with generated audio. Every figure is printed with its target and PASS/FAIL. The
machine is small and noisy: read the ratios, which compare runs made minutes apart in the
same invocation, rather than absolute seconds.

Not a test: nothing in the test suite imports or runs it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import textwrap
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL = "audio-model"
JUDGE = "judge-model"
MODEL_REPLY = "The audio is a short tone."
JUDGE_REPLY = "8 6"
# evalscope's judge contract asks for a JSON object with these keys; our prompt never has them.
EVALSCOPE_JUDGE_KEY = '"assistant1"'
EVALSCOPE_JUDGE_REPLY = '{"assistant1": 8, "assistant2": 6}'
CALLS_PER_SAMPLE = 3  # the model, then the judge in both orders
QUICK_SAMPLES = 550
EVALSCOPE_VENV = Path("/tmp/evalscope-venv")

# Targets of issue 5.
WALL_RATIO_TARGET = 1.3
XDIST_RATIO_TARGET = 1.0
CPU_MS_TARGET = 5.0
PEAK_MB_TARGET = 300.0
# Not in the issue: "does not grow with the number of samples", read as within 10 %.
PEAK_GROWTH_TARGET = 1.10
COLLECT_SECONDS_TARGET = 3.0
# Targets of issue 13: ten times the samples in at most 11 times the time, memory flat.
SCALE_TIMES = 10
SCALE_RATIO_TARGET = 11.0
SCALE_PEAK_MB_TARGET = 300.0
# Issue 39: the peak at ten times the samples within 1.5 times the small run's.
SCALE_PEAK_RATIO_TARGET = 1.5
PACKAGE = "pytest-audiobench"
FLOOR_CONFTEST = """
import os, pytest

SHARE = float(os.environ.get("BENCH_FLOOR_FAILING", "0"))

def check():
    pass

def fall_short():
    pytest.fail("model score 3 is below the bar 5", pytrace=False)

class Many(pytest.File):
    def collect(self):
        for i in range(int(os.environ["BENCH_FLOOR_ITEMS"])):
            fails = int((i + 1) * SHARE) > int(i * SHARE)
            yield pytest.Function.from_parent(self, name=f"sample {i}",
                                              callobj=fall_short if fails else check)

def pytest_collect_file(file_path, parent):
    if file_path.name == "items.floor":
        return Many.from_parent(parent, path=file_path)
"""
"""pytest's own cost of an item: a file of N ``pytest.Function`` items made as this plugin makes
its samples (one shared function, no parameters), each passing at once, or with
``BENCH_FLOOR_FAILING`` that share of them, spread evenly, failing as this plugin's samples fail
(``pytest.fail`` without a traceback)."""
SMALL_REPEATS = 3  # the 2,200-sample runs take seconds: the median of three counts
COLLECT_REPEATS = 5  # --collect-only at both sizes: the median of five of each counts
TIMER_MODULE = "bench_session_timer"
TIMER_CODE = """
import os, time, pytest

started = None

@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    global started
    started = time.perf_counter()

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    with open(os.environ["BENCH_SESSION_SECONDS"], "w") as out:
        out.write(repr(time.perf_counter() - started))
"""
"""pytest prints a session's seconds to two decimals, which is a tenth of a collection of a few
thousand items: this plugin (``-p``) times the same span, from the end of sessionstart to
sessionfinish, to the microsecond, for the --collect-only figures."""
FAILING_JUDGE_REPLY = "3 3"  # the model scores 3 in both orders, under the bar 5: all fail
# Issue 53: the memory runs make this share of the Chat samples fail, as a real model's do. The
# server's model gives this answer to the samples whose question and clip hash under the share
# (the same ones at every size), and the judge scores it 3 in both orders.
MEMORY_FAILING_SHARE = 0.45
MEMORY_WRONG_REPLY = "A made answer that misses the point."
OWN_KB_TARGET = 2.0  # the plugin's own cost a sample over pytest's floor, rerunfailures or not
RERUNFAILURES = "rerunfailures"  # pytest-rerunfailures (its pytest11 entry point's name)
# AIR-Bench Foundation at scale: about 19,000 items (the paper) over its 25 folders, against
# a tenth of them. Every made record's answer is option A: the model and the align judge
# answer "A" (all right) or "B" (all wrong).
FOUNDATION_PER_FOLDER = 76
FOUNDATION_RIGHT, FOUNDATION_WRONG = "A", "B"
# MMAU at scale: the test split's 9,000 questions against 900, made with answers (the real
# test split withholds them) over its tasks and difficulties; every answer is the first
# option, which the model names (all right) or the second (all wrong). No judge grades them.
MMAU_SMALL = 900
MMAU_OPTIONS = ("the first sound", "a second noise", "some third tone", "another fourth beat")
# LibriSpeech at scale: both test splits' 5,559 utterances (their sizes and speakers) against
# ten times as many, every transcript the same words, which the model repeats (all pass) or
# replaces (all fail, every word an error). No judge grades them.
LIBRISPEECH_TEXT = "A MADE UTTERANCE OF SIX WORDS"
LIBRISPEECH_RIGHT, LIBRISPEECH_WRONG = "a made utterance of six words", "nothing was heard"
# MMSU at scale: its 5,000 questions in the converted layout against ten times as many,
# two categories and twelve tasks in turn, two to four options, each answer option B, which
# the model names (all right) or not (all wrong, each read as option A). No judge.
MMSU_SMALL = 5_000
MMSU_RIGHT, MMSU_WRONG = "B", "A"
# WenetSpeech at scale (issue 55): TEST_NET's 24,774 segments in the release's layout (a
# WenetSpeech.json of made recordings, 100 segments each), cut once into the cache before the
# runs (the cut is timed on its own), against ten times as many; every reference the same ten
# characters, which the model repeats (all pass) or replaces (all fail). No judge.
WENETSPEECH_TEXT = "今天天气很好我们去散步"
WENETSPEECH_RIGHT, WENETSPEECH_WRONG = WENETSPEECH_TEXT, "听不清楚"
WENETSPEECH_PER_RECORDING = 100
# VoiceBench at scale (issue 56): sd-qa, its largest subset (the same 553 questions read in
# each of eleven accents, 6,083 items), in the converted layout, against ten times as many
# questions an accent. Every reference the same answer, which the model's reply holds; the
# judge, asked the reference's three draws an item, says Yes (all pass) or No (all fail).
VOICEBENCH_PER_ACCENT = 553
VOICEBENCH_REFERENCE = "Ottawa"
VOICEBENCH_RIGHT, VOICEBENCH_WRONG = "The capital of Canada is Ottawa.", "I did not catch that."
VOICEBENCH_YES, VOICEBENCH_NO = "Yes", "No"
# A run during which other processes used more than this share of one core is flagged.
NOISE_SHARE = 0.1

# The server process: FakeOpenAIServer from tests/fakes, one port for the model and the
# judge, a fixed delay on every reply. It prints its URL, then answers one line per
# "stats" line on stdin (counters since the previous one) and stops at end of input.
SERVER_CODE = textwrap.dedent("""
    import json, sys, threading, time, zlib
    sys.path.insert(0, sys.argv[1])
    from tests.fakes import openai_server
    from tests.fakes.openai_server import FakeOpenAIServer
    if hasattr(openai_server, "_Server"):  # never queue (the kernel may cap it)
        openai_server._Server.request_queue_size = 4096
    delay = float(sys.argv[2])
    model_id, judge_id, answer, judged, json_key, json_judged = sys.argv[3:9]
    failing, wrong, wrong_judged = float(sys.argv[9]), sys.argv[10], sys.argv[11]
    lock = threading.Lock()
    counts = {"requests": 0, "in_flight": 0, "max_in_flight": 0}

    def script(request):
        # The delay is spent here rather than in Reply(delay=...), so that the requests
        # held at once can be counted without reading the server's internals.
        with lock:
            counts["requests"] += 1
            counts["in_flight"] += 1
            counts["max_in_flight"] = max(counts["max_in_flight"], counts["in_flight"])
        try:
            time.sleep(delay)
        finally:
            with lock:
                counts["in_flight"] -= 1
        if request.model != judge_id:
            return wrong if failing and falls_short(request) else answer
        if failing and wrong in request.text:
            return wrong_judged
        return json_judged if json_key in request.text else judged

    def falls_short(request):
        # Decided by the sample's question and clip, never by the order of the requests: the
        # same samples fail in every run, and each copy of a record as its original does.
        seed = request.text + json.dumps(request.audio_parts, sort_keys=True)
        return zlib.crc32(seed.encode("utf-8")) % 1000 < failing * 1000

    server = FakeOpenAIServer(script, models=[model_id, judge_id]).start()
    print(server.url, flush=True)
    cpu = time.process_time()
    for line in sys.stdin:
        server.requests.clear()  # the server keeps every request; a long session adds up
        with lock:
            stats = {"requests": counts["requests"], "max_in_flight": counts["max_in_flight"]}
            counts["requests"], counts["max_in_flight"] = 0, counts["in_flight"]
        now = time.process_time()
        print(json.dumps({**stats, "cpu": now - cpu}), flush=True)
        cpu = now
    server.stop()
""")


# -- the server process ----------------------------------------------------------------


@dataclass
class ServerStats:
    requests: int
    max_in_flight: int
    cpu: float


class ServerProcess:
    """The fake endpoint in a child process that is waited for only at the very end, so its
    CPU time never lands in the RUSAGE_CHILDREN deltas of the measured runs."""

    def __init__(self, delay: float, judged: str = JUDGE_REPLY,
                 answer: str = MODEL_REPLY, failing: float = 0.0) -> None:
        """``failing``: the share of samples given ``MEMORY_WRONG_REPLY``, which the judge
        scores with ``FAILING_JUDGE_REPLY``."""
        args = [sys.executable, "-c", SERVER_CODE, str(REPO), str(delay), MODEL, JUDGE,
                answer, judged, EVALSCOPE_JUDGE_KEY, EVALSCOPE_JUDGE_REPLY, str(failing),
                MEMORY_WRONG_REPLY, FAILING_JUDGE_REPLY]
        self._proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1)
        self.url = self._line()

    def _line(self) -> str:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            raise RuntimeError("the fake server process exited before answering")
        return line.strip()

    def stats(self) -> ServerStats:
        """Requests received, peak in flight and server CPU seconds since the last call."""
        assert self._proc.stdin is not None
        self._proc.stdin.write("stats\n")
        self._proc.stdin.flush()
        data = json.loads(self._line())
        return ServerStats(int(data["requests"]), int(data["max_in_flight"]), float(data["cpu"]))

    def close(self) -> None:
        if self._proc.stdin is not None:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


# -- data --------------------------------------------------------------------------------


@dataclass
class Data:
    chat: Path
    mmar: Path
    task_counts: dict[str, int]
    mmar_count: int


def build_data(root: Path) -> Data:
    sys.path.insert(0, str(REPO))
    from tests.fakes.datasets import (
        build_air_bench_chat,
        build_mmar,
        load_chat_reference,
        load_mmar_reference,
        reference_available,
    )

    if not reference_available():
        raise SystemExit("../shared/reference is absent: the benchmark uses the real metadata")
    chat_records = load_chat_reference()
    mmar_records = load_mmar_reference()
    chat = build_air_bench_chat(root / "air-bench", chat_records, seconds=0.05)
    mmar = build_mmar(root / "mmar", mmar_records, seconds=0.05)
    counts = Counter(str(r["task_name"]) for r in chat_records)
    return Data(chat, mmar, dict(counts), len(mmar_records))


def per_task_limit(task_counts: dict[str, int], wanted: int) -> tuple[int | None, int]:
    """The --audiobench-limit whose selection is closest to ``wanted`` samples (None: all)."""
    total = sum(task_counts.values())
    if wanted >= total:
        return None, total
    best = min(range(1, max(task_counts.values()) + 1),
               key=lambda n: (abs(sum(min(n, c) for c in task_counts.values()) - wanted), -n))
    return best, sum(min(best, c) for c in task_counts.values())


# -- pytest runs -------------------------------------------------------------------------


@dataclass
class Run:
    label: str
    expected: int
    session: float | None
    wall: float
    user: float
    system: float
    peak_mb: float
    returncode: int
    last_line: str
    counted: int | None
    server: ServerStats | None = None
    problems: list[str] = field(default_factory=list)
    others: float | None = None  # CPU seconds of processes other than the run and the server

    def note_others(self, machine_busy: float | None) -> None:
        if machine_busy is not None:
            server = self.server.cpu if self.server is not None else 0.0
            self.others = max(0.0, machine_busy - self.cpu - server)

    @property
    def disturbed(self) -> bool:
        """Other processes took more than a tenth of a core while this run was measured."""
        return self.others is not None and self.others > NOISE_SHARE * self.wall

    @property
    def cpu(self) -> float:
        return self.user + self.system

    @property
    def ok(self) -> bool:
        return not self.problems


def _session_seconds(line: str) -> float | None:
    match = re.search(r"\bin (\d+(?:\.\d+)?)s\b", line)
    return float(match.group(1)) if match else None


def _counted(line: str, word: str) -> int | None:
    match = re.search(rf"(\d+) {word}\b", line)
    return int(match.group(1)) if match else None


@dataclass
class Measured:
    wall: float
    user: float
    system: float
    peak_mb: float
    returncode: int
    output: str
    machine_busy: float | None  # CPU seconds every process on the machine used meanwhile


def machine_busy_seconds() -> float | None:
    """CPU seconds spent so far by every process on the machine (/proc/stat), or None."""
    try:
        fields = Path("/proc/stat").read_text(encoding="ascii").split("\n", 1)[0].split()
    except OSError:
        return None
    ticks = [int(value) for value in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


PEAK_MODULE = "bench_peak"
PEAK_CODE = """
import os

def pytest_unconfigure(config):
    with open("/proc/self/status", encoding="ascii") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(os.environ["BENCH_PEAK_FILE"], "a", encoding="ascii") as out:
        out.write(peak + "\\n")
"""
"""Loaded into every pytest process of a measured run (``PYTEST_PLUGINS``, so xdist's workers
too): each writes its own peak RSS, VmHWM, which exec starts afresh. wait4's ru_maxrss does
not: Linux carries it over exec from the forked copy of this script, so a child of a script
that had built 22,000 records reported the script's size, not its own."""


def run_measured(args: Sequence[str], cwd: Path, log: Path, env: dict[str, str]) -> Measured:
    """Run a child to completion and measure it.

    CPU is the RUSAGE_CHILDREN delta around the run: the child and every descendant it
    waited for (xdist workers). The peak is the largest VmHWM that any pytest process of the
    run wrote (``PEAK_CODE``); for a child that is not pytest, wait4's ru_maxrss, which may
    hold this script's own size (see ``PEAK_CODE``).
    """
    helpers = log.parent / "peak-plugin"
    helpers.mkdir(exist_ok=True)
    (helpers / f"{PEAK_MODULE}.py").write_text(PEAK_CODE, encoding="utf-8")
    peaks = log.with_suffix(".peaks")
    peaks.unlink(missing_ok=True)
    env = {**env, "BENCH_PEAK_FILE": str(peaks),
           "PYTEST_PLUGINS": ",".join(p for p in (env.get("PYTEST_PLUGINS"), PEAK_MODULE) if p),
           "PYTHONPATH": os.pathsep.join(p for p in (str(helpers), env.get("PYTHONPATH")) if p)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy_before = machine_busy_seconds()
    start = time.perf_counter()
    with log.open("wb") as out:
        proc = subprocess.Popen(list(args), cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    busy_after = machine_busy_seconds()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    busy = None if busy_before is None or busy_after is None else busy_after - busy_before
    written = peaks.read_text(encoding="ascii").split() if peaks.exists() else []
    peak_kb = max((int(kb) for kb in written), default=usage.ru_maxrss)
    return Measured(wall, after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime,
                    peak_kb / 1024, proc.returncode,
                    log.read_text(encoding="utf-8", errors="replace"), busy)


class Bench:
    def __init__(self, server: ServerProcess, data: Data, work: Path) -> None:
        self.server = server
        self.data = data
        self.work = work
        self.cwd = work / "rootdir"  # an empty rootdir: only the benchmark items are collected
        self.cwd.mkdir()
        self.logs = work / "logs"
        self.logs.mkdir()
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
        self.env["XDG_CACHE_HOME"] = str(work / "xdg-cache")
        self.env["PYTHONDONTWRITEBYTECODE"] = "1"
        self.runs: list[Run] = []

    def flags(self, concurrency: int, limit: int | None, *, mmar: bool = False) -> list[str]:
        data = f"--audiobench-data={self.data.chat}"
        benchmark = "air_bench_chat"
        if mmar:
            benchmark = "air_bench_chat,mmar"
            data = f"--audiobench-data=air_bench_chat={self.data.chat},mmar={self.data.mmar}"
        flags = ["-p", "no:cacheprovider", "-q",
                 "--audiobench-model", MODEL, "--audiobench-api-url", self.server.url,
                 "--audiobench-judge-model", JUDGE,
                 "--audiobench-judge-api-url", self.server.url,
                 "--audiobench-benchmark", benchmark, data,
                 "--audiobench-no-cache", f"--audiobench-cache-dir={self.work / 'cache'}",
                 "--audiobench-concurrency", str(concurrency)]
        if limit is not None:
            flags += ["--audiobench-limit", str(limit)]
        return flags

    def pytest(self, label: str, flags: Sequence[str], expected: int, *,
               collect_only: bool = False) -> Run:
        self.server.stats()  # reset the server's counters
        args = [sys.executable, "-m", "pytest", *flags]
        if collect_only:
            args.append("--collect-only")
        log = self.logs / (re.sub(r"\W+", "-", label).strip("-") + ".log")
        m = run_measured(args, self.cwd, log, self.env)
        lines = [line for line in m.output.splitlines() if line.strip()]
        last = lines[-1].strip() if lines else ""
        word = "tests? collected" if collect_only else "passed"
        server = self.server.stats()
        run = Run(label, expected, _session_seconds(last), m.wall, m.user, m.system, m.peak_mb,
                  m.returncode, last, _counted(last, word), server)
        run.note_others(m.machine_busy)
        if m.returncode != 0:
            run.problems.append(f"exit status {m.returncode} (log: {log})")
        if run.counted != expected:
            run.problems.append(f"expected {expected} {word}, the last line says {last!r}")
        if run.session is None:
            run.problems.append(f"no session time in the last line {last!r}")
        calls = 0 if collect_only else expected * CALLS_PER_SAMPLE
        if not collect_only and server.requests != calls:
            run.problems.append(f"the server saw {server.requests} requests, not {calls}")
        self.runs.append(run)
        print(describe(run), flush=True)
        return run


def describe(run: Run) -> str:
    session = f"{run.session:7.2f} s" if run.session is not None else "      ? s"
    text = (f"  {run.label:<34} {run.expected:>5} items  session {session}  "
            f"process {run.wall:7.2f} s  cpu {run.cpu:6.2f} s (user {run.user:.2f} + sys "
            f"{run.system:.2f})  peak {run.peak_mb:6.1f} MB")
    if run.server is not None and run.server.requests:
        text += (f"  | server: {run.server.requests} requests, max {run.server.max_in_flight} "
                 f"in flight, cpu {run.server.cpu:.2f} s")
    if run.others is not None:
        text += f"  | others {run.others:.1f} s"
    if run.disturbed:
        text += (f"\n      NOISY: other processes used {run.others:.1f} s of CPU during this "
                 "run: the machine was not idle")
    for problem in run.problems:
        text += f"\n      PROBLEM: {problem}"
    return text


# -- evalscope ---------------------------------------------------------------------------

EVALSCOPE_RUNNER = textwrap.dedent("""
    import sys, time
    from evalscope import TaskConfig, run_task
    from evalscope.version import __version__
    url, root, work, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    limit = None if sys.argv[5] == "all" else int(sys.argv[5])
    model, judge = sys.argv[6], sys.argv[7]
    start = time.perf_counter()
    config = TaskConfig(
        model=model, api_url=url, api_key="EMPTY", eval_type="openai_api",
        datasets=["air_bench_chat"],
        dataset_args={"air_bench_chat": {"local_path": root}},
        judge={"models": [{"model_id": judge, "api_url": url, "api_key": "EMPTY",
                           "eval_type": "openai_api"}]},
        eval_batch_size=batch, limit=limit, work_dir=work, no_timestamp=True,
        generation_config={"temperature": 0.0, "max_tokens": 1024},
    )
    run_task(config)
    print("EVALSCOPE_VERSION", __version__)
    print("EVALSCOPE_SECONDS", round(time.perf_counter() - start, 3))
""")


@dataclass
class EvalscopeResult:
    measured: Run | None
    note: str
    version: str | None = None


def run_evalscope(bench: Bench, python: Path, concurrency: int,
                  limit: int | None, expected: int) -> EvalscopeResult:
    if not python.is_file():
        return EvalscopeResult(None, f"no evalscope interpreter at {python}; create it with "
                               f"`python -m venv {EVALSCOPE_VENV} && {EVALSCOPE_VENV}/bin/pip "
                               "install evalscope`")
    probe = subprocess.run([str(python), "-c", "from evalscope.version import __version__ as v;"
                            "print(v)"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        tail = (probe.stderr.strip().splitlines() or ["?"])[-1]
        return EvalscopeResult(None, f"evalscope does not import from {python}: {tail}")
    version = probe.stdout.strip()
    bench.server.stats()
    log = bench.logs / "evalscope.log"
    args = [str(python), "-c", EVALSCOPE_RUNNER, bench.server.url,
            str(bench.data.chat), str(bench.work / "evalscope-work"), str(concurrency),
            "all" if limit is None else str(limit), MODEL, JUDGE]
    env = dict(bench.env, HF_HUB_OFFLINE="1", MODELSCOPE_OFFLINE="1")
    m = run_measured(args, bench.cwd, log, env)
    seconds = re.search(r"EVALSCOPE_SECONDS (\d+(?:\.\d+)?)", m.output)
    run = Run(f"evalscope {version}, batch {concurrency}", expected,
              float(seconds.group(1)) if seconds else None, m.wall, m.user, m.system,
              m.peak_mb, m.returncode, "", None, bench.server.stats())
    run.note_others(m.machine_busy)
    if m.returncode != 0 or seconds is None:
        tail = " | ".join(m.output.strip().splitlines()[-3:])
        return EvalscopeResult(None, f"evalscope {version} failed (exit {m.returncode}, log "
                               f"{log}): {tail[-300:]}", version)
    calls = expected * CALLS_PER_SAMPLE
    if run.server is not None and run.server.requests != calls:
        run.problems.append(f"the server saw {run.server.requests} requests, not {calls}")
    print(describe(run), flush=True)
    return EvalscopeResult(run, "", version)


# -- where the CPU goes (--profile) ---------------------------------------------------------

# The first rule that matches a sampled stack names its share; the engine thread's rules
# come first because its stacks never contain the main thread's frames.
PROFILE_RULES: tuple[tuple[str, str], ...] = (
    ("async_maybe_transform", "engine: openai SDK transforming the request params"),
    ("BaseClient._build_request", "engine: openai SDK building the HTTP request (JSON, headers)"),
    ("AsyncClient.send", "engine: httpx/httpcore sending and receiving"),
    ("_process_response", "engine: openai SDK parsing the response into models"),
    ("AsyncCompletions.create", "engine: openai SDK, rest of create()"),
    ("load_audio", "engine: reading and encoding audio"),
    ("audiobench-engine", "engine: asyncio loop and the pipelines' own code"),
    ("pytest_runtestloop", "main: pytest running the items (hooks, fixtures, reports, output)"),
    ("pytest_sessionstart", "main: session start (data, endpoint checks, importing openai)"),
    ("pytest_collection", "main: collection"),
    ("asyncio_", "executor threads (getaddrinfo, blocking helpers)"),
    ("MainThread", "main: interpreter start, imports, plugins, config, finish"),
)


def _profile_share(stack: str) -> str:
    for marker, name in PROFILE_RULES:
        if marker in stack:
            return name
    return "other (interpreter shutdown, unnamed threads)"


def profile_run(bench: Bench, plan: Plan, concurrency: int) -> None:
    """One more run under py-spy (GIL samples only, so idle waits do not count); prints
    where the CPU per sample goes and the functions with the most own time."""
    spy = Path(sys.executable).with_name("py-spy")
    if not spy.is_file():
        print(f"\nProfile: not run (no py-spy next to {sys.executable}; pip install py-spy)")
        return
    raw = bench.work / "profile.txt"
    rate = 250
    args = [str(spy), "record", "--gil", "--threads", "-r", str(rate), "-f", "raw", "-o",
            str(raw), "--", sys.executable, "-m", "pytest",
            *bench.flags(concurrency, plan.limit)]
    bench.server.stats()
    log = bench.logs / "profile.log"
    m = run_measured(args, bench.cwd, log, bench.env)
    bench.server.stats()
    if m.returncode != 0 or not raw.is_file():
        print(f"\nProfile: py-spy failed (exit {m.returncode}, log {log})")
        return
    shares: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, hits = line.rpartition(" ")
        if not stack or not hits.isdigit():
            continue
        shares[_profile_share(stack)] += int(hits)
        own[stack.rsplit(";", 1)[-1]] += int(hits)
    total = sum(shares.values())
    n = plan.samples
    print(f"\nProfile: no xdist, concurrency {concurrency}, under py-spy --gil at {rate} Hz "
          f"(wall {m.wall:.1f} s, cpu {m.user + m.system:.1f} s incl. py-spy; {total / rate:.1f} s "
          f"of samples holding the GIL = {total / rate / n * 1000:.2f} ms per sample)")
    for name, count in shares.most_common():
        print(f"   {count / total * 100:5.1f}%  {count / rate / n * 1000:6.2f} ms/sample  {name}")
    print("   functions with the most own time:")
    for frame, count in own.most_common(12):
        print(f"   {count / total * 100:5.1f}%  {frame}")
    print(f"   raw stacks: {raw}")


# -- the figures -------------------------------------------------------------------------


def pass_or_fail(passed: bool) -> str:
    return "PASS" if passed else "FAIL"


def check(value: float | None, target: float, *, below: bool = False,
          valid: bool = True) -> str:
    if value is None or not valid:
        return "FAIL (run invalid)"
    return pass_or_fail(value < target if below else value <= target)


def fmt(value: float | None, digits: int = 2) -> str:
    return "?" if value is None else f"{value:.{digits}f}"


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


@dataclass
class Plan:
    samples: int
    limit: int | None
    half: int
    half_limit: int | None
    delay: float
    single: tuple[int, ...] = (32, 64)
    workers: int = 4


def print_figures(plan: Plan, bench: Bench, single: dict[int, Run], xdist: dict[int, Run],
                  collect: Run, half: Run, collect_all: Run, evalscope: EvalscopeResult) -> None:
    n = plan.samples
    requests = n * CALLS_PER_SAMPLE
    print()
    print("=" * 100)
    print(f"Figures (issue 5): {n} AIR-Bench Chat samples, {requests} requests, "
          f"server delay {plan.delay * 1000:.0f} ms, {os.cpu_count()} cores")
    print("=" * 100)

    print(f"1. Wall time without xdist (ideal = {requests} requests x {plan.delay} s / "
          "concurrency; ratio from the session time)")
    for c, run in single.items():
        ideal = requests * plan.delay / c
        r = ratio(run.session, ideal)
        print(f"   concurrency {c:>2}: session {fmt(run.session)} s, process {run.wall:.2f} s, "
              f"ideal {ideal:.2f} s -> wall/ideal {fmt(r)} (process/ideal "
              f"{run.wall / ideal:.2f})   target <= {WALL_RATIO_TARGET}   "
              f"{check(r, WALL_RATIO_TARGET, valid=run.ok)}")

    print(f"2. -n {plan.workers} with a quarter of the concurrency each, against the single "
          "process (ratio of session times)")
    for c, run in xdist.items():
        base = single[c * plan.workers]
        r = ratio(run.session, base.session)
        print(f"   -n {plan.workers} x concurrency {c:>2}: session {fmt(run.session)} s "
              f"(process {run.wall:.2f} s) vs single at {c * plan.workers}: "
              f"{fmt(base.session)} s (process {base.wall:.2f} s) -> ratio {fmt(r)}   "
              f"target <= {XDIST_RATIO_TARGET}   "
              f"{check(r, XDIST_RATIO_TARGET, valid=run.ok and base.ok)}")

    print("3. Client CPU per sample (user+sys of the pytest process tree / samples)")
    print(f"   --collect-only (start-up, data loading, collection, exit): {collect.cpu:.2f} s "
          f"(user {collect.user:.2f} + sys {collect.system:.2f}), "
          f"{collect.cpu / n * 1000:.2f} ms per sample")
    for label, run in [*((f"concurrency {c}", r) for c, r in single.items()),
                       *((f"-n {plan.workers} x {c}", r) for c, r in xdist.items())]:
        whole = run.cpu / n * 1000
        net = (run.cpu - collect.cpu) / n * 1000
        judged = run in single.values()
        tail = (f"   target <= {CPU_MS_TARGET} ms   with start-up "
                f"{check(whole, CPU_MS_TARGET, valid=run.ok)}, without "
                f"{check(net, CPU_MS_TARGET, valid=run.ok)}") if judged else "   (information)"
        print(f"   {label:<16}: {run.cpu:6.2f} s -> {whole:.2f} ms per sample with start-up, "
              f"{net:.2f} ms without{tail}")

    print(f"4. Peak RSS of any one process (target < {PEAK_MB_TARGET:.0f} MB each)")
    measured = [r for r in bench.runs if not r.label.startswith("warm-up")]
    for run in measured:
        print(f"   {run.label:<34} {run.peak_mb:6.1f} MB   "
              f"{check(run.peak_mb, PEAK_MB_TARGET, below=True)}")
    full = single[max(single)]
    growth = ratio(full.peak_mb, half.peak_mb)
    print(f"   growth with samples: {plan.samples} samples {full.peak_mb:.1f} MB vs "
          f"{plan.half} samples {half.peak_mb:.1f} MB (both at concurrency {max(single)}) -> "
          f"ratio {fmt(growth, 3)}   target <= {PEAK_GROWTH_TARGET} (our reading of 'does not "
          f"grow')   {check(growth, PEAK_GROWTH_TARGET, valid=full.ok and half.ok)}")

    total = sum(bench.data.task_counts.values()) + bench.data.mmar_count
    print(f"5. Collection of all {total} items (air_bench_chat + mmar, --collect-only -q)")
    print(f"   session {fmt(collect_all.session)} s, process {collect_all.wall:.2f} s, "
          f"cpu {collect_all.cpu:.2f} s   target < {COLLECT_SECONDS_TARGET} s (session)   "
          f"{check(collect_all.session, COLLECT_SECONDS_TARGET, below=True, valid=collect_all.ok)}"
          f"   (process wall: "
          f"{check(collect_all.wall, COLLECT_SECONDS_TARGET, below=True, valid=collect_all.ok)})")

    print("6. evalscope side by side (same server, same data)")
    theirs = evalscope.measured
    if theirs is None:
        print(f"   evalscope comparison: not measured ({evalscope.note})")
    else:
        c = max(single)
        ours = single[c]
        print(f"   evalscope {evalscope.version}, eval_batch_size {c}: run_task "
              f"{fmt(theirs.session)} s, "
              f"process {theirs.wall:.2f} s, cpu {theirs.cpu:.2f} s "
              f"({theirs.cpu / n * 1000:.2f} ms per sample), peak {theirs.peak_mb:.1f} MB")
        print(f"   pytest-audiobench, concurrency {c}: session {fmt(ours.session)} s, process "
              f"{ours.wall:.2f} s, cpu {ours.cpu:.2f} s ({ours.cpu / n * 1000:.2f} ms per "
              f"sample), peak {ours.peak_mb:.1f} MB")
        print(f"   ratios ours/evalscope: process wall {ours.wall / theirs.wall:.2f}, cpu "
              f"{fmt(ratio(ours.cpu, theirs.cpu))}, peak {ours.peak_mb / theirs.peak_mb:.2f}   "
              "(information; no target)")
        for problem in theirs.problems:
            print(f"   PROBLEM: {problem}")

    noisy = [r for r in [*bench.runs, *([theirs] if theirs else [])] if r.disturbed]
    if noisy:
        print(f"\n{len(noisy)} run(s) shared the machine with other busy processes; their "
              "figures are not to be trusted:")
        for run in noisy:
            print(f"   {run.label}: others used {fmt(run.others, 1)} s of CPU in "
                  f"{run.wall:.1f} s")
    invalid = [r for r in bench.runs if not r.ok]
    if invalid:
        print(f"\n{len(invalid)} run(s) had problems; their figures are marked FAIL:")
        for bad in invalid:
            print(f"   {bad.label}: {'; '.join(bad.problems)}")
    print(f"Logs: {bench.logs} (deleted at exit unless --keep)")


# -- main --------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--delay", type=float, default=0.1,
                        help="seconds the server waits before every reply (default 0.1)")
    parser.add_argument("--quick", action="store_true",
                        help=f"about {QUICK_SAMPLES} samples (a per-task limit) for a smoke check")
    parser.add_argument("--evalscope-python", type=Path,
                        default=EVALSCOPE_VENV / "bin" / "python",
                        help="interpreter of a separate venv with evalscope installed")
    parser.add_argument("--no-evalscope", action="store_true",
                        help="skip the evalscope comparison")
    parser.add_argument("--profile", action="store_true",
                        help="add one run under py-spy and print where the CPU per sample goes")
    parser.add_argument("--scale", action="store_true",
                        help=f"only the scale figures: AIR-Bench Chat's 2,200 against "
                             f"{SCALE_TIMES} x 2,200 samples, and AIR-Bench Foundation's "
                             f"{25 * FOUNDATION_PER_FOLDER:,} against {SCALE_TIMES} x as many, "
                             f"MMAU's {MMAU_SMALL} against {SCALE_TIMES * MMAU_SMALL:,} (the "
                             "test split's size), MMSU's 5,000, LibriSpeech's 5,559 test "
                             "utterances, WenetSpeech's 24,774 test_net segments and "
                             "VoiceBench's 6,083 sd-qa items (each judged three times) against "
                             f"{SCALE_TIMES} x as many, all passing and all failing, with and "
                             "without xdist")
    parser.add_argument("--scale-benchmark", default="all",
                        choices=["all", "air_bench_chat", "air_bench_foundation", "mmau",
                                 "mmsu", "librispeech", "wenetspeech", "voicebench"],
                        help="with --scale: only this benchmark (default all)")
    parser.add_argument("--scale-runs", default="all", choices=["all", "plain", "memory"],
                        help="with --scale: every configuration; only the plain one (every "
                             "item passing, no xdist, no baseline) and collection; or only the "
                             "memory runs (AIR-Bench Chat with "
                             # argparse formats help with %: the share's sign doubled.
                             f"{MEMORY_FAILING_SHARE * 100:.0f}%% of its samples failing, over "
                             "pytest's floor, without and with pytest-rerunfailures)")
    parser.add_argument("--plugins", default="bare", choices=["bare", "installed"],
                        help="with --scale: disable the installed pytest plugins that a user's "
                             f"install of {PACKAGE} does not bring (default), or run with "
                             "every installed one (the memory runs measure their own two "
                             "configurations)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the data and the logs of every run (their folder is printed)")
    return parser.parse_args(argv)


def idle_check(seconds: float = 2.0) -> str:
    """How busy the machine is before the runs: the load average lags by a minute, so the
    CPU that every process uses over a couple of seconds is measured too."""
    before = machine_busy_seconds()
    time.sleep(seconds)
    after = machine_busy_seconds()
    text = f"Load average (1 min) {os.getloadavg()[0]:.2f}"
    if before is None or after is None:
        return text
    cores = (after - before) / seconds
    text += f"; cores busy over the last {seconds:.0f} s: {cores:.2f}"
    if cores > NOISE_SHARE:
        text += "   WARNING: the machine is busy, the figures will be noisy"
    return text


def package_state() -> str:
    """The commit and uncommitted files the numbers come from (read-only git commands)."""
    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=False)
        return done.stdout.strip() if done.returncode == 0 else "?"

    changed = [line for line in git("status", "--porcelain").splitlines() if line.strip()]
    return (f"{git('rev-parse', '--short', 'HEAD')}"
            f"{f' + {len(changed)} uncommitted files' if changed else ''}, "
            f"python {sys.version.split()[0]}")


def _plan(args: argparse.Namespace, data: Data) -> Plan:
    total = sum(data.task_counts.values())
    limit, samples = per_task_limit(data.task_counts, QUICK_SAMPLES if args.quick else total)
    half_limit, half = per_task_limit(data.task_counts, samples // 2)
    return Plan(samples, limit, half, half_limit, args.delay)


def measure(args: argparse.Namespace, work: Path) -> None:
    started = time.perf_counter()
    print(f"Building the data in {work} ...", flush=True)
    data = build_data(work / "data")
    plan = _plan(args, data)
    print(f"  {plan.samples} samples (--audiobench-limit {plan.limit}), half run {plan.half} "
          f"(--audiobench-limit {plan.half_limit}); built in "
          f"{time.perf_counter() - started:.1f} s", flush=True)
    print(f"Package: {package_state()}")
    print(idle_check())
    server = ServerProcess(args.delay)
    try:
        bench = Bench(server, data, work)
        print(f"Fake endpoint (separate process) at {server.url}, delay {args.delay} s")
        print("Runs (session = pytest's own 'in N s'; process = wall time of the process):")
        c_max = max(plan.single)
        # Not measured: puts the package, pytest and the data in the page cache.
        bench.pytest("warm-up (collect-only)", bench.flags(c_max, plan.limit), plan.samples,
                     collect_only=True)
        collect = bench.pytest("collect-only (start-up)", bench.flags(c_max, plan.limit),
                               plan.samples, collect_only=True)
        single = {c: bench.pytest(f"no xdist, concurrency {c}", bench.flags(c, plan.limit),
                                  plan.samples) for c in plan.single}
        xdist: dict[int, Run] = {}
        for c in plan.single:
            each = c // plan.workers
            flags = [*bench.flags(each, plan.limit), "-n", str(plan.workers)]
            xdist[each] = bench.pytest(f"-n {plan.workers}, concurrency {each} each", flags,
                                       plan.samples)
        half = bench.pytest(f"half: {plan.half} samples, concurrency {c_max}",
                            bench.flags(c_max, plan.half_limit), plan.half)
        total = sum(data.task_counts.values()) + data.mmar_count
        collect_all = bench.pytest(f"collect-only, all {total} items",
                                   bench.flags(c_max, None, mmar=True), total,
                                   collect_only=True)
        if args.no_evalscope:
            evalscope = EvalscopeResult(None, "skipped with --no-evalscope")
        else:
            evalscope = run_evalscope(bench, args.evalscope_python, c_max, plan.limit,
                                      plan.samples)
        if args.profile:
            profile_run(bench, plan, min(plan.single))
    finally:
        server.close()
    print_figures(plan, bench, single, xdist, collect, half, collect_all, evalscope)
    print(f"Whole benchmark: {time.perf_counter() - started:.0f} s")


# -- scale (issue 13) -------------------------------------------------------------------


def build_scaled(root: Path, times: int) -> Path:
    """The 2,200 real records ``times`` over, each copy with ids of its own (the same clips)."""
    sys.path.insert(0, str(REPO))
    from tests.fakes.datasets import build_air_bench_chat, load_chat_reference

    records = load_chat_reference()
    scaled = [{**record, "uniq_id": int(record["uniq_id"]) + 100_000 * copy}
              for copy in range(times) for record in records]
    return build_air_bench_chat(root, scaled, seconds=0.05)


def build_foundation(root: Path, times: int) -> Path:
    """AIR-Bench Foundation in the official layout: ``FOUNDATION_PER_FOLDER`` made records in
    each of the 25 folders (every tenth with two options; Audio_Grounding's clips are FLAC
    under a .wav name, as released), ``times`` over with ids of their own (the same clips)."""
    sys.path.insert(0, str(REPO))
    from pytest_audiobench.benchmarks.air_bench_foundation.facts import FOLDER_TASK, FOLDERS
    from tests.fakes.datasets import build_air_bench_foundation

    records = []
    for copy in range(times):
        for f, folder in enumerate(FOLDERS):
            task = FOLDER_TASK[folder]
            for i in range(FOUNDATION_PER_FOLDER):
                options = [f"option {k} of question {i}" for k in "abcd"][:2 if i % 10 == 0
                                                                             else 4]
                records.append({
                    "path": f"clip_{i}.wav", "question": f"Which is heard in clip {i}?",
                    **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"), options,
                               strict=False)),
                    "answer_gt": options[0], "task_name": task,
                    "dataset_name": folder.removeprefix(task + "_"),
                    "uniq_id": copy * 1_000_000 + f * 10_000 + i})
    return build_air_bench_foundation(root, records, seconds=0.05)


def build_mmau_scaled(root: Path, n: int) -> Path:
    """``n`` made MMAU records in the published layout, tasks and difficulties in turn, two to
    four options (each answer the first)."""
    sys.path.insert(0, str(REPO))
    from tests.fakes.datasets import build_mmau

    records = [{"id": f"s{i:05d}", "audio_id": f"./test-mini-audios/s{i:05d}.wav",
                "question": f"What is heard first in clip {i}?",
                "choices": list(MMAU_OPTIONS[:2 + i % 3]), "answer": MMAU_OPTIONS[0],
                "dataset": "made", "task": ("sound", "music", "speech")[i % 3],
                "split": "test-mini", "category": "Reasoning", "sub-category": f"skill {i % 27}",
                "difficulty": ("easy", "medium", "hard")[i % 3 - 1]} for i in range(n)]
    return build_mmau(root, records, seconds=0.05)


def build_librispeech_scaled(root: Path, times: int) -> tuple[Path, int]:
    """LibriSpeech's two test splits in openslr's layout, each of its real size and speaker
    count, ``times`` over with speakers of their own; the root and its utterances."""
    sys.path.insert(0, str(REPO))
    from pytest_audiobench.benchmarks.librispeech.facts import SPEAKERS, SPLITS
    from tests.fakes.speech import Utterance, build_librispeech

    utterances = [Utterance(split, str(10_000 * (copy + 1) + 1_000 * s + i % SPEAKERS[split]),
                            LIBRISPEECH_TEXT, LIBRISPEECH_RIGHT)
                  for copy in range(times) for s, split in enumerate(SPLITS)
                  for i in range(SPLITS[split])]
    build_librispeech(root, utterances)
    return root, len(utterances)


def build_wenetspeech_scaled(root: Path, times: int) -> tuple[Path, int]:
    """WenetSpeech's test_net in the release's layout, ``times`` its real size, a hundred
    segments to a recording; the root and its segments."""
    sys.path.insert(0, str(REPO))
    from pytest_audiobench.benchmarks.wenetspeech.facts import SPLITS
    from tests.fakes.speech import Utterance, build_wenetspeech

    n = SPLITS["test_net"] * times
    utterances = [Utterance("test_net", "Y0000000000_scale", WENETSPEECH_TEXT,
                            WENETSPEECH_RIGHT)] * n
    build_wenetspeech(root, utterances, per_recording=WENETSPEECH_PER_RECORDING)
    return root, n


def cut_wenetspeech(root: Path, cache: Path) -> float:
    """Cut the release at `root` into `cache` as a run's first load would; its seconds."""
    from pytest_audiobench.benchmarks.wenetspeech.locating import release_folder

    started = time.perf_counter()
    release_folder(root, ("test_net",), cache)
    return time.perf_counter() - started


def build_mmsu_scaled(root: Path, n: int) -> Path:
    """``n`` made MMSU records in the converted layout (``mmsu.jsonl`` and ``audio/``)."""
    sys.path.insert(0, str(REPO))
    from tests.fakes.datasets import tiny_wav

    (root / "audio").mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        (root / "audio" / f"m{i}.wav").write_bytes(tiny_wav(i))
        options = ["the first", "the second", "a third", "a fourth"][:2 + i % 3]
        lines.append(json.dumps({
            "id": f"m{i}", "task_name": f"task_{i % 12}", "audio": f"audio/m{i}.wav",
            "question": f"Which is heard in clip {i}?", "choice_a": options[0],
            "choice_b": options[1], "choice_c": options[2] if len(options) > 2 else "",
            "choice_d": options[3] if len(options) > 3 else "", "answer_gt": options[1],
            "category": ("perception", "reasoning")[i % 2], "sub-category": "semantics"}))
    (root / "mmsu.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def build_voicebench_scaled(root: Path, times: int) -> tuple[Path, int]:
    """sd-qa in VoiceBench's converted layout (``sd-qa/voicebench.jsonl``, the clips in
    ``sd-qa/audio/``), ``times`` its 553 questions in each accent, the accents in the
    release's order and each numbered from 0 as the reader numbers a split's rows
    (``usa-0000``: ids stay unique past 553); the root and its items."""
    sys.path.insert(0, str(REPO))
    from pytest_audiobench.benchmarks.voicebench.facts import CONVERTED, SD_QA_ACCENTS
    from tests.fakes.datasets import tiny_wav

    folder = root / "sd-qa"
    (folder / "audio").mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for accent in SD_QA_ACCENTS:
        for i in range(VOICEBENCH_PER_ACCENT * times):
            name = f"{accent}-{i:04d}"
            (folder / "audio" / f"{name}.wav").write_bytes(tiny_wav(len(lines)))
            lines.append(json.dumps({
                "subset": "sd-qa", "split": accent, "id": name,
                "prompt": f"What is the capital of Canada? (question {i})",
                "reference": VOICEBENCH_REFERENCE, "audio": f"audio/{name}.wav"}))
    (folder / CONVERTED).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root, len(lines)


@dataclass
class ScaleRun:
    samples: int
    outcome: str
    xdist: bool
    measured: Measured
    session: float | None
    counted: int | None
    baseline: str = "no"
    """"no", "writes" (--audiobench-update-baseline) or "gated" (per-sample)."""

    @property
    def ok(self) -> bool:
        return self.counted == self.samples


@dataclass
class Scale:
    """One benchmark's pair of sizes, and the replies that make every item pass or fail."""

    benchmark: str
    sizes: tuple[tuple[Path, int], tuple[Path, int]]
    passing: tuple[str, str]
    """The model's answer and the judge's reply that make every item pass."""
    failing: tuple[str, str]
    extra: tuple[str, ...] = ()
    """Flags every run of it takes (WenetSpeech's made release holds test_net alone,
    VoiceBench's sd-qa alone)."""


def scale_run(work: Path, server: ServerProcess, data: Path, samples: int, outcome: str,
              xdist: bool, env: dict[str, str], benchmark: str, baselines: Path | None = None,
              update: bool = False, tag: str = "", extra: Sequence[str] = ()) -> ScaleRun:
    """One measured run; with ``baselines``, gated by (or, with ``update``, writing) the
    per-sample baseline in that folder. ``outcome`` "mixed": some pass and some fail (the
    server's ``failing`` share); ``tag`` names its log apart from another configuration's."""
    flags = ["-p", "no:cacheprovider", "-q", "--audiobench-model", MODEL,
             "--audiobench-api-url", server.url, "--audiobench-judge-model", JUDGE,
             "--audiobench-judge-api-url", server.url, f"--audiobench-data={data}",
             "--audiobench-benchmark", benchmark,
             "--audiobench-no-cache", f"--audiobench-cache-dir={work / 'cache'}",
             "--audiobench-concurrency", "64", *extra]
    if xdist:
        flags += ["-n", "2", "--audiobench-concurrency", "32"]
    if baselines is not None:
        flags.append(f"--audiobench-baselines={baselines}")
    if update:
        flags.append("--audiobench-update-baseline")
    label = (f"{benchmark}-{samples}-{outcome}-{'xdist' if xdist else 'single'}"
             f"{'-gated' if baselines else ''}{'-update' if update else ''}{tag}")
    server.stats()
    m = run_measured([sys.executable, "-m", "pytest", *flags], work / "rootdir",
                     work / "logs" / f"scale-{label}.log", env)
    lines = [line for line in m.output.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    what = "writes" if update else "gated" if baselines else "no"
    failed = _counted(last, "failed") or 0
    counted = (_counted(last, "passed") or 0) + failed if outcome == "mixed" else \
        _counted(last, outcome)
    run = ScaleRun(samples, outcome, xdist, m, _session_seconds(last), counted, what)
    said = f"{failed / samples:4.0%} failed" if outcome == "mixed" else f"all {outcome:<6}"
    print(f"  {samples:>6} samples, {said:<10} {'-n 2' if xdist else 'no xdist':<9}"
          f" {what + ' baseline':<16}"
          f" session {fmt(run.session):>8} s  process {m.wall:7.1f} s  peak "
          f"{m.peak_mb:6.1f} MB  {'' if run.ok else 'INVALID: ' + last}", flush=True)
    return run


def collect_run(work: Path, data: Path, samples: int, env: dict[str, str],
                benchmark: str, extra: Sequence[str] = ()) -> ScaleRun:
    """``--collect-only -q`` of one size: loading the release and making its items (nothing
    is asked, so no server is needed)."""
    flags = ["-p", "no:cacheprovider", "-q", "--collect-only", "--audiobench-model", MODEL,
             "--audiobench-api-url", "http://127.0.0.1:9/v1", "--audiobench-judge-model", JUDGE,
             "--audiobench-judge-api-url", "http://127.0.0.1:9/v1", f"--audiobench-data={data}",
             "--audiobench-benchmark", benchmark, "--audiobench-no-cache",
             f"--audiobench-cache-dir={work / 'cache'}", *extra]
    timer = work / "timer"
    timer.mkdir(exist_ok=True)
    (timer / f"{TIMER_MODULE}.py").write_text(TIMER_CODE, encoding="utf-8")
    seconds = timer / "seconds"
    seconds.unlink(missing_ok=True)
    env = {**env, "BENCH_SESSION_SECONDS": str(seconds),
           "PYTHONPATH": os.pathsep.join(p for p in (str(timer), env.get("PYTHONPATH")) if p)}
    m = run_measured([sys.executable, "-m", "pytest", "-p", TIMER_MODULE, *flags],
                     work / "rootdir", work / "logs" / f"collect-{benchmark}-{samples}.log", env)
    lines = [line for line in m.output.splitlines() if line.strip()]
    last = lines[-1].strip() if lines else ""
    timed = float(seconds.read_text(encoding="utf-8")) if seconds.exists() else None
    run = ScaleRun(samples, "collected", False, m, timed, _counted(last, "tests collected"),
                   "no")
    print(f"  {samples:>6} samples, collect-only             session {fmt(run.session, 3):>8} s  "
          f"process {m.wall:7.1f} s  peak {m.peak_mb:6.1f} MB  "
          f"{'' if run.ok else 'INVALID: ' + last}", flush=True)
    return run


def scale_pair(run: Callable[[Path, int], ScaleRun], sizes: Sequence[tuple[Path, int]],
               small_repeats: int = SMALL_REPEATS, large_repeats: int = 1
               ) -> tuple[ScaleRun, ScaleRun]:
    """The small size run ``small_repeats`` times, the one with the median session counting
    (its few seconds are the noisiest figure of all), then the large size ``large_repeats``
    times, its median counting too."""
    (small, n_small), (large, n_large) = sizes
    return (median_run([run(small, n_small) for _ in range(small_repeats)]),
            median_run([run(large, n_large) for _ in range(large_repeats)]))


def median_run(runs: list[ScaleRun]) -> ScaleRun:
    """The run with the median session (the upper one of an even count); unparsed last."""
    ordered = sorted(runs, key=lambda r: r.session if r.session is not None else float("inf"))
    return ordered[len(ordered) // 2]


def scale_gated(work: Path, server: ServerProcess, scale: Scale,
                env: dict[str, str]) -> list[tuple[ScaleRun, ScaleRun]]:
    """Each size writes its per-sample baseline, then runs gated by it (no xdist)."""
    def run(data: Path, n: int, update: bool) -> ScaleRun:
        return scale_run(work, server, data, n, "passed", False, env, scale.benchmark,
                         baselines=work / f"baselines-{scale.benchmark}-{n}", update=update,
                         extra=scale.extra)

    return [scale_pair(functools.partial(run, update=update), scale.sizes)
            for update in (True, False)]


def scales(work: Path, which: str) -> list[Scale]:
    """The benchmarks ``--scale`` measures (``which``: one name, or all), their data built."""
    out = []
    if which in ("all", "air_bench_chat"):
        small, large = build_data(work / "data").chat, build_scaled(work / "scaled", SCALE_TIMES)
        out.append(Scale("air_bench_chat", ((small, 2200), (large, 2200 * SCALE_TIMES)),
                         (MODEL_REPLY, JUDGE_REPLY), (MODEL_REPLY, FAILING_JUDGE_REPLY)))
    if which in ("all", "air_bench_foundation"):
        n = 25 * FOUNDATION_PER_FOLDER
        small = build_foundation(work / "foundation", 1)
        large = build_foundation(work / "foundation-scaled", SCALE_TIMES)
        out.append(Scale("air_bench_foundation", ((small, n), (large, n * SCALE_TIMES)),
                         (FOUNDATION_RIGHT,) * 2, (FOUNDATION_WRONG,) * 2))
    if which in ("all", "mmau"):
        n = MMAU_SMALL
        small = build_mmau_scaled(work / "mmau", n)
        large = build_mmau_scaled(work / "mmau-scaled", n * SCALE_TIMES)
        out.append(Scale("mmau", ((small, n), (large, n * SCALE_TIMES)),
                         (MMAU_OPTIONS[0], JUDGE_REPLY), (MMAU_OPTIONS[1], JUDGE_REPLY)))
    if which in ("all", "mmsu"):
        small_mmsu = build_mmsu_scaled(work / "mmsu-converted", MMSU_SMALL)
        large_mmsu = build_mmsu_scaled(work / "mmsu-converted-scaled", MMSU_SMALL * SCALE_TIMES)
        out.append(Scale("mmsu", ((small_mmsu, MMSU_SMALL),
                                  (large_mmsu, MMSU_SMALL * SCALE_TIMES)),
                         (MMSU_RIGHT, JUDGE_REPLY), (MMSU_WRONG, JUDGE_REPLY)))
    if which in ("all", "librispeech"):
        small_speech = build_librispeech_scaled(work / "librispeech", 1)
        large_speech = build_librispeech_scaled(work / "librispeech-scaled", SCALE_TIMES)
        out.append(Scale("librispeech", (small_speech, large_speech),
                         (LIBRISPEECH_RIGHT, JUDGE_REPLY), (LIBRISPEECH_WRONG, JUDGE_REPLY)))
    if which in ("all", "wenetspeech"):
        sizes = (build_wenetspeech_scaled(work / "wenetspeech", 1),
                 build_wenetspeech_scaled(work / "wenetspeech-scaled", SCALE_TIMES))
        for root, n in sizes:
            print(f"  wenetspeech: {n:,} segments cut into the cache in "
                  f"{cut_wenetspeech(root, work / 'cache'):.1f} s (once: every run reads the "
                  "cut)", flush=True)
        out.append(Scale("wenetspeech", sizes, (WENETSPEECH_RIGHT, JUDGE_REPLY),
                         (WENETSPEECH_WRONG, JUDGE_REPLY), ("--audiobench-tasks", "test_net")))
    if which in ("all", "voicebench"):
        sizes = (build_voicebench_scaled(work / "voicebench", 1),
                 build_voicebench_scaled(work / "voicebench-scaled", SCALE_TIMES))
        out.append(Scale("voicebench", sizes, (VOICEBENCH_RIGHT, VOICEBENCH_YES),
                         (VOICEBENCH_WRONG, VOICEBENCH_NO), ("--audiobench-tasks", "sd-qa")))
    return out


def installed_with(package: str) -> set[str]:
    """``package`` and every distribution it requires, as installed (extras left out): what a
    user's ``pip install`` of it brings."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: set[str] = set()
    todo = [package]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in found:
            continue
        found.add(name)
        try:
            required = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for line in required:
            wanted = Requirement(line)
            if wanted.marker is None or wanted.marker.evaluate({"extra": ""}):
                todo.append(wanted.name)
    return found


def not_brought() -> list[str]:
    """Every installed pytest plugin that a user's install of this package does not bring
    (pytest-rerunfailures keeps six dicts on every item, pytest-html a list on every report:
    the development tools' cost, not this plugin's)."""
    from importlib.metadata import entry_points

    from packaging.utils import canonicalize_name

    kept = installed_with(PACKAGE)
    return sorted({ep.name for ep in entry_points(group="pytest11")
                   if ep.dist is None or canonicalize_name(ep.dist.name) not in kept})


def bare_plugins(keep: str | None = None) -> str:
    """``-p no:NAME`` for every plugin of ``not_brought`` but ``keep``."""
    return " ".join(f"-p no:{name}" for name in not_brought() if name != keep)


def pytest_floor(work: Path, env: dict[str, str], sizes: Sequence[int], failing: float = 0.0,
                 tag: str = "") -> list[float]:
    """The peak of a plain pytest run of ``FLOOR_CONFTEST``'s items at each size (this plugin
    not loaded), ``failing`` that share of them: what pytest itself keeps per item (the item,
    its three phase reports, and what the plugins in ``env`` keep of a failure)."""
    folder = work / "floor"
    folder.mkdir(exist_ok=True)
    (folder / "conftest.py").write_text(FLOOR_CONFTEST, encoding="utf-8")
    (folder / "items.floor").write_text("", encoding="utf-8")
    peaks = []
    for n in sizes:
        fails = int(n * failing)
        # A line per failure at the end, rather than pytest's failure sections: they scan every
        # kept report for each failure (pytest-dev/pytest#13360), minutes at 22,000 items. What
        # pytest keeps is the same: a failure's text is made before any of it is printed.
        short = ["--tb=line"] if fails else []
        m = run_measured([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:audiobench", *short, "items.floor"], folder,
                         work / "logs" / f"floor-{n}{tag}.log",
                         {**env, "BENCH_FLOOR_ITEMS": str(n), "BENCH_FLOOR_FAILING": str(failing)})
        last = m.output.strip().splitlines()[-1] if m.output.strip() else ""
        if m.returncode != (1 if fails else 0) or f"{n - fails} passed" not in last or (
                fails and f"{fails} failed" not in last):
            raise SystemExit(f"pytest's floor run of {n} items failed: {last}")
        said = f", {failing:.0%} failing" if fails else ""
        print(f"  {n:>6} plain pytest items (pytest's floor{said})   peak {m.peak_mb:6.1f} MB",
              flush=True)
        peaks.append(m.peak_mb)
    return peaks


@dataclass
class MemoryFigure:
    """Issue 53: one plugin configuration's floor and the plugin's runs at both sizes."""

    configuration: str
    floor: tuple[float, float]
    small: ScaleRun
    large: ScaleRun

    @property
    def own_kb(self) -> float:
        """The plugin's own cost of a sample: its run's growth per sample over the floor's."""
        n = self.large.samples - self.small.samples
        ours = (self.large.measured.peak_mb - self.small.measured.peak_mb) * 1024 / n
        return ours - (self.floor[1] - self.floor[0]) * 1024 / n


def plugin_configurations() -> list[tuple[str, str | None]]:
    """The memory runs' configurations, with the ``PYTEST_ADDOPTS`` of each: the plugins a
    user's install brings, and those with pytest-rerunfailures as well (installed in many CI
    setups; it keeps every failed item's exception to the end of the run). None: that plugin
    is not installed here."""
    rerun = RERUNFAILURES in not_brought()
    return [("without pytest-rerunfailures", bare_plugins()),
            ("with pytest-rerunfailures", bare_plugins(keep=RERUNFAILURES) if rerun else None)]


def memory_runs(work: Path, scale: Scale, env: dict[str, str]) -> list[MemoryFigure]:
    """Each configuration's floor with ``MEMORY_FAILING_SHARE`` of its items failing, then the
    plugin's runs at both sizes with that share of the samples failing (no xdist)."""
    figures = []
    sizes = (scale.sizes[0][1], scale.sizes[1][1])
    print(f"{scale.benchmark}, {MEMORY_FAILING_SHARE:.0%} of the samples failing:", flush=True)
    for name, addopts in plugin_configurations():
        if addopts is None:
            print(f"  {name}: not measured (not installed)", flush=True)
            continue
        print(f"  {name} ({addopts}):", flush=True)
        configured = {**env, "PYTEST_ADDOPTS": addopts}
        tag = "-" + name.split()[0]
        floor = pytest_floor(work, configured, sizes, MEMORY_FAILING_SHARE, tag)
        server = ServerProcess(0.0, failing=MEMORY_FAILING_SHARE)
        try:
            small, large = scale_pair(functools.partial(
                scale_run, work, server, outcome="mixed", xdist=False, env=configured,
                benchmark=scale.benchmark, tag=tag), scale.sizes)
        finally:
            server.close()
        figures.append(MemoryFigure(name, (floor[0], floor[1]), small, large))
    return figures


def print_memory(figures: list[MemoryFigure]) -> None:
    print(f"Memory over pytest's floor (issue 53): {MEMORY_FAILING_SHARE:.0%} of the samples and "
          f"of the floor's items failing, no xdist; the plugin's own cost of a sample, target <= "
          f"{OWN_KB_TARGET:g} KB")
    for f in figures:
        n = f.large.samples - f.small.samples
        floor = (f.floor[1] - f.floor[0]) * 1024 / n
        low, high = f.small.measured.peak_mb, f.large.measured.peak_mb
        print(f"  {f.configuration:<29} {f.small.samples:>5} -> {f.large.samples:>6}: pytest's "
              f"floor {f.floor[0]:.0f} -> {f.floor[1]:.0f} MB ({floor:+.1f} KB an item), the "
              f"plugin's run {low:.0f} -> {high:.0f} MB ({(high - low) * 1024 / n:+.1f} KB a "
              f"sample): {f.own_kb:+.1f} KB a sample over the floor   "
              f"{check(f.own_kb, OWN_KB_TARGET, valid=f.small.ok and f.large.ok)}")


def scale_runs(work: Path, scale: Scale, env: dict[str, str], which: str
               ) -> list[tuple[Scale, ScaleRun, ScaleRun]]:
    """One benchmark's collection and runs at both sizes: every configuration, or with
    ``which`` "plain" only every item passing without xdist."""
    print(f"{scale.benchmark}:", flush=True)
    runs = [(scale, *scale_pair(functools.partial(
        collect_run, work, env=env, benchmark=scale.benchmark, extra=scale.extra), scale.sizes,
        COLLECT_REPEATS, COLLECT_REPEATS))]
    plain = which == "plain"
    outcomes = (("passed", scale.passing),) if plain else (
        ("passed", scale.passing), ("failed", scale.failing))
    for outcome, (answer, judged) in outcomes:
        server = ServerProcess(0.0, judged, answer)
        try:
            for xdist in (False,) if plain else (False, True):
                pair = scale_pair(functools.partial(
                    scale_run, work, server, outcome=outcome, xdist=xdist, env=env,
                    benchmark=scale.benchmark, extra=scale.extra), scale.sizes)
                runs.append((scale, *pair))
            if outcome == "passed" and not plain:
                runs += [(scale, *pair) for pair in scale_gated(work, server, scale, env)]
        finally:
            server.close()
    return runs


def print_scale(runs: list[tuple[Scale, ScaleRun, ScaleRun]],
                floors: dict[int, list[float]]) -> None:
    print(f"Scale: {SCALE_TIMES} x the samples, server without delay, default options")
    for n, (low, high) in floors.items():
        print(f"  pytest's floor, {n} -> {n * SCALE_TIMES} plain items: peak {low:.0f} -> "
              f"{high:.0f} MB ({(high - low) * 1024 / (n * (SCALE_TIMES - 1)):+.1f} KB an item)")
    for scale, a, b in runs:
        r = ratio(b.session, a.session)
        peak = max(a.measured.peak_mb, b.measured.peak_mb)
        per_sample = (b.measured.peak_mb - a.measured.peak_mb) * 1024 / (b.samples - a.samples)
        low, high = floors[scale.sizes[0][1]]
        floor = (high - low) * 1024 / (b.samples - a.samples)
        grown = ratio(b.measured.peak_mb, a.measured.peak_mb)
        least = ratio(a.measured.peak_mb + high - low, a.measured.peak_mb)
        what = "collect-only" if a.outcome == "collected" else (
            f"all {a.outcome:<6} {'-n 2' if a.xdist else 'no xdist':<9} "
            f"{a.baseline + ' baseline':<16}")
        print(f"  {scale.benchmark:<20} {a.samples:>5} -> {b.samples:>6} {what:<36} time ratio "
              f"{fmt(r)} (target <= {SCALE_RATIO_TARGET:g})   "
              f"{check(r, SCALE_RATIO_TARGET, valid=a.ok and b.ok)};  peak {a.measured.peak_mb:.0f}"
              f" -> {b.measured.peak_mb:.0f} MB ({per_sample:+.1f} KB per sample; target < "
              f"{SCALE_PEAK_MB_TARGET:.0f} MB)   "
              f"{check(peak, SCALE_PEAK_MB_TARGET, valid=a.ok and b.ok)}"
              + ("" if a.outcome == "collected" else
                 f";  peak ratio {fmt(grown)} (target <= {SCALE_PEAK_RATIO_TARGET:g}; pytest's "
                 f"floor alone {fmt(least)})   "
                 f"{check(grown, SCALE_PEAK_RATIO_TARGET, valid=a.ok and b.ok)};  "
                 f"{per_sample - floor:+.1f} KB a sample over pytest's {floor:.1f}"))


def measure_scale(args: argparse.Namespace, work: Path) -> None:
    started = time.perf_counter()
    print(f"Building the data in {work} ...", flush=True)
    measured = scales(work, args.scale_benchmark)
    print(f"  built in {time.perf_counter() - started:.1f} s; package {package_state()}")
    print(idle_check())
    (work / "rootdir").mkdir()
    (work / "logs").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env["XDG_CACHE_HOME"] = str(work / "xdg-cache")
    chat = [scale for scale in measured if scale.benchmark == "air_bench_chat"]
    wanted = chat and args.scale_runs in ("all", "memory")
    memory = memory_runs(work, chat[0], env) if wanted else []
    if args.scale_runs != "memory":
        if args.plugins == "bare":
            env["PYTEST_ADDOPTS"] = bare_plugins()
        print(f"plugins: {args.plugins} ({env.get('PYTEST_ADDOPTS') or 'every installed one'})")
        floors = {n: pytest_floor(work, env, (n, n * SCALE_TIMES))
                  for n in sorted({scale.sizes[0][1] for scale in measured})}
        runs = [pair for scale in measured for pair in scale_runs(work, scale, env,
                                                                   args.scale_runs)]
    print()
    if memory:
        print_memory(memory)
    elif args.scale_runs == "memory":
        print("Memory: not measured (the memory runs are AIR-Bench Chat's)")
    if args.scale_runs != "memory":
        print_scale(runs, floors)
    print(f"Whole scale benchmark: {time.perf_counter() - started:.0f} s")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    run = measure_scale if args.scale else measure
    if args.keep:
        run(args, Path(tempfile.mkdtemp(prefix="audiobench-speed-")))
    else:
        with tempfile.TemporaryDirectory(prefix="audiobench-speed-") as tmp:
            run(args, Path(tmp))
    return 0


if __name__ == "__main__":
    sys.exit(main())
