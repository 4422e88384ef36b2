"""Shared fixtures: scripted model and judge servers on 127.0.0.1, generated benchmark data,
and a helper that runs the plugin through pytester the way a user would."""

from __future__ import annotations

import atexit
import contextlib
import importlib
import json
import os
import pkgutil
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import pytest_audiobench
from pytest_audiobench.errors import DownloadError
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.hf_hub import PARQUET_AS_LFS, FakeHfHub
from tests.fakes.made_records import made_chat_records
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, Scripted

# pytester's in-process runs restore sys.modules afterwards, but the package object keeps its
# submodule attributes: a module imported for the first time inside a run would exist twice
# in the next one. Importing every module here, before any run, keeps one copy of each.
for _module in pkgutil.walk_packages(pytest_audiobench.__path__, "pytest_audiobench."):
    importlib.import_module(_module.name)
# The same for what the plugin imports lazily (openai alone takes a second to import), and for
# the HTTP stack under it, some of which loads on first use: a second copy of an exception
# class would escape the except clauses written for the first.
for _name in ("openai", "soundfile", "numpy", "anyio", "h11", "httpx", "httpcore", "httpx2",
              "httpcore2", "httpcore2._async.http11", "httpcore._async.http11"):
    with contextlib.suppress(ImportError):
        importlib.import_module(_name)



def _shared_bytecode() -> None:
    """Where bytecode may not be written (PYTHONDONTWRITEBYTECODE), every process the suite
    starts (an xdist worker of a run a test makes, a subprocess run) compiled the plugin and
    rewrote pytest-xdist's modules and the tests' conftests again: a tenth of the suite's CPU.
    They share one folder of bytecode instead, outside the source tree, for this session only;
    a worker of the suite's own xdist finds it set."""
    if not sys.dont_write_bytecode or "PYTHONPYCACHEPREFIX" in os.environ:
        return
    folder = tempfile.mkdtemp(prefix="audiobench-tests-bytecode-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = folder


_shared_bytecode()

def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests marked ``first`` ahead of the rest, in their order otherwise. pytest-xdist
    hands the items out in this order, and a worker runs what it was handed in turn: the main
    job's test, two and a half minutes alone, handed out late can keep the suite waiting on it
    at the end; started first, the other worker runs the rest beside it."""
    items.sort(key=lambda item: item.get_closest_marker("first") is None)


def on_two_workers(args: Sequence[str]) -> list[str]:
    """A documented pytest command's arguments with its xdist workers (``-n N``) made two:
    each worker is a whole Python start, about two seconds of the suite's CPU, and how many
    there are is pytest-xdist's, not the plugin's."""
    args = list(args)
    if "-n" in args:
        args[args.index("-n") + 1] = "2"
    return args


MODEL = "audio-model"
JUDGE = "judge-model"
XDIST_MODES = [pytest.param([], id="no-xdist"),
               pytest.param(["-n2"], id="n2")]
"""For what workers share: the cache, the budget, the outage, the ledger, the judge's draws,
a crash, the samples merged back into one gate; two of them, each handed part of the run."""
ONE_WORKER = [pytest.param([], id="no-xdist"),
              pytest.param(["-n1"], id="n1")]
"""For what a run prints or writes from its items' reports and records: with one worker they
cross to the controller as with several (serialised by execnet, printed and written by the
controller), and the run costs one Python start rather than two. Each start imports the SDK,
a second of CPU: the suite's runs under xdist start about 300 workers."""


class ScoringJudge:
    """A judge that reads both answers out of our built-in prompt and scores each by its text:
    ``scores`` maps a phrase an answer contains to its score; the reference gets
    ``reference``. ``replies`` overrides the reply for prompts that contain a phrase."""

    def __init__(self, scores: dict[str, int] | None = None, reference: int = 6,
                 replies: dict[str, Reply | str] | None = None) -> None:
        self.scores = scores or {"good answer": 8, "poor answer": 2}
        self.reference = reference
        self.replies = replies or {}

    def __call__(self, request: ChatRequest) -> Reply | str:
        for phrase, reply in self.replies.items():
            if phrase in request.text:
                return reply
        first, second = fenced_answers(request.text)
        return f"{self._score(first)} {self._score(second)}"

    def _score(self, answer: str) -> int:
        for phrase, score in self.scores.items():
            if phrase in answer:
                return score
        return self.reference


def fenced_answers(prompt: str) -> tuple[str, str]:
    """The two answers of our built-in judge prompt, read as a judge would: between the lines
    that the instructions name as the fence."""
    fence = re.search(r"between two lines that read (\S+)\.", prompt)
    if fence is None:
        return "", ""
    line = re.escape(fence.group(1))
    found = re.findall(rf"\n{line}\n(.*?)\n{line}\n", prompt, re.S)
    padded = [*found, "", ""]
    return padded[0], padded[1]


def the_judged(prompt: str) -> tuple[str, str, str]:
    """The question, official answer and answer of Big Bench Audio's built-in judge prompt, as
    a judge reads them (the answer between the fence lines its instructions name)."""
    fence = re.search(r"between two lines that read (\S+)\.", prompt)
    assert fence is not None, prompt
    question = prompt.split("[Question]\n", 1)[1].split("\n", 1)[0]
    official = prompt.split("[Official answer]\n", 1)[1].split("\n", 1)[0]
    marker = re.escape(fence.group(1))
    answer = re.search(rf"\n{marker}\n(.*?)\n?{marker}\n", prompt, re.S)
    assert answer is not None, prompt
    return question, official, answer.group(1)


def voicebench_response(prompt: str) -> str:
    """The response (or candidate answer) of one of VoiceBench's built-in judge prompts, as a
    judge reads it: between the fence lines its instructions name."""
    fence = re.search(r"between the two lines (\S+?)[;.]", prompt)
    assert fence is not None, prompt
    line = re.escape(fence.group(1))
    found = re.search(rf"\n{line}\n(.*?)\n{line}\n", prompt + "\n", re.S)
    assert found is not None, prompt
    return found.group(1)


@pytest.fixture(autouse=True)
def _own_cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs that name no --audiobench-cache-dir keep their downloads and responses here, never
    in the real ~/.cache, and never see another test's cached replies."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


@pytest.fixture(autouse=True)
def _same_terminal_everywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pytest runs the tests start print as on an 80-column terminal outside CI, whatever
    the shell or the CI service says: pytest sizes its separators by COLUMNS and leaves the
    -r summary's lines whole when CI or BUILD_NUMBER is set, and the snapshots are of one
    width."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)


LEAN = "-p no:html -p no:metadata -p no:rerunfailures -p no:syrupy -p no:anyio"
"""pytest-metadata reads the metadata of every installed distribution at each start (half a
second), and pytest-html needs it: the runs the tests start load neither, unless a test is
marked ``pytest_html``. Nor pytest-rerunfailures, unless a test asks for it: installed, it
keeps every failed call's exception (and the frames under it) on its item, --reruns or not.
Nor syrupy and anyio's plugin, which no run a test starts uses: importing them (anyio's
imports trio) takes 0.45 s of CPU in every process that starts pytest, each xdist worker and
subprocess of the runs the tests start, a few hundred of them in the suite."""


@pytest.fixture(autouse=True)
def _lean_inner_runs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("pytest_html") is not None:
        return
    if "pytester" in request.fixturenames:
        # Pytester removes PYTEST_ADDOPTS when it is made: made first, it keeps this one.
        request.getfixturevalue("pytester")
    monkeypatch.setenv("PYTEST_ADDOPTS", LEAN)


@dataclass
class Servers:
    model: FakeOpenAIServer
    judge: FakeOpenAIServer


@pytest.fixture
def servers() -> Iterator[Servers]:
    model = FakeOpenAIServer(Scripted("a good answer"), models=[MODEL])
    judge = FakeOpenAIServer(ScoringJudge(), models=[JUDGE])
    with model, judge:
        yield Servers(model, judge)


@pytest.fixture(scope="session")
def small_records() -> list[dict[str, Any]]:
    """Two records of each of the 8 tasks (16 samples), written for the tests: the end-to-end
    tests run in a clone without the reference metadata."""
    return made_chat_records(2)


@pytest.fixture(scope="session")
def chat_data(tmp_path_factory: pytest.TempPathFactory,
              small_records: list[dict[str, Any]]) -> Path:
    return build_air_bench_chat(tmp_path_factory.mktemp("air-bench"), small_records)


@dataclass
class Run:
    result: pytest.RunResult
    report_path: Path

    @property
    def report(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.report_path.read_text(encoding="utf-8"))
        return data

    @property
    def partial(self) -> dict[str, Any]:
        """The report of a run that is no release verdict (a rerun, stopped early), written
        beside the whole run's."""
        beside = self.report_path.with_name(f"{self.report_path.stem}.partial.json")
        data: dict[str, Any] = json.loads(beside.read_text(encoding="utf-8"))
        return data

    @property
    def metrics(self) -> dict[str, float]:
        return {name: m["value"] for b in self.report["benchmarks"]
                for name, m in b["metrics"].items()}

    def outcomes(self) -> dict[str, str]:
        return {s["nodeid"]: s["outcome"] for s in self.report["samples"]}

    @property
    def gate_rows(self) -> dict[str, dict[str, Any]]:
        """The gate's row of each metric, by the metric's name."""
        return {r["metric"]: r for b in self.report["benchmarks"] for r in b["gate"]["rows"]}


@pytest.fixture
def run_bench(pytester: pytest.Pytester, servers: Servers, chat_data: Path) -> Any:
    """Run the plugin in a subprocess with the standard flags plus ``args``."""

    def run(*args: str, data: Path | str | None = None, judge: bool = True,
            xdist: Sequence[str] = (), benchmark: str | None = None,
            subprocess: bool = False) -> Run:
        report = pytester.path / "report.json"
        # Path values use the --flag=value form: a separate value would steer pytest's rootdir
        # (pytest-dev/pytest#8846), and with it the default baselines/ folder.
        flags = ["-p", "no:cacheprovider", "--audiobench-model", MODEL,
                 "--audiobench-api-url", servers.model.url,
                 f"--audiobench-data={data or chat_data}",
                 f"--audiobench-report={report}", "--audiobench-retry-wait", "0",
                 f"--audiobench-cache-dir={pytester.path / 'cache'}"]
        if benchmark:
            flags += ["--audiobench-benchmark", benchmark]
        if judge:
            flags += ["--audiobench-judge-model", JUDGE,
                      "--audiobench-judge-api-url", servers.judge.url]
        start = pytester.runpytest_subprocess if subprocess else pytester.runpytest
        return Run(start(*flags, *xdist, *args), report)

    return run


def written_then_held(run_bench: Any, folder: Path, *args: str, **kw: Any) -> Run:
    """A run that writes its baselines into `folder`, then the same run held against them:
    the gate applied every one of them and held (``kw`` as ``run_bench`` takes them). The
    small made releases' metrics are gated all the same (``--audiobench-gate-small``), so
    the gate tests them rather than leaving the verdict to the items.

    The held run is in this process whatever ``kw["xdist"]`` says: the written run has the
    workers (the first to meet a cold cache, so two of them race to convert a release), and
    the held one finds every sample where they left it, by the numbers they wrote. Each xdist
    run costs two interpreters that import the SDK, a second of CPU each."""
    args = ("--audiobench-gate-small", *args)
    written = run_bench(*args, "--audiobench-update-baseline",
                        f"--audiobench-baselines={folder}", **kw)
    assert written.result.ret == pytest.ExitCode.OK, written.result.stdout.str()[-3000:]
    held: Run = run_bench(*args, f"--audiobench-baselines={folder}", **{**kw, "xdist": ()})
    assert held.result.ret == pytest.ExitCode.OK, held.result.stdout.str()[-3000:]
    assert {b["baseline_status"] for b in held.report["benchmarks"]} == {"applied"}
    assert held.report["verdict"]["kind"] == "held"
    return held


def regressed_once_worse(run: Callable[..., Run], folder: Path,
                         worsen: Callable[[], None]) -> Run:
    """A run (``run(*args)``) that writes its baselines into `folder`, the same run held
    against them, then, once `worsen` made the model worse, the run the gate fails: returned,
    for its rows."""
    written = run("--audiobench-update-baseline", f"--audiobench-baselines={folder}")
    assert written.result.ret == pytest.ExitCode.OK, written.result.stdout.str()[-3000:]
    same = run(f"--audiobench-baselines={folder}")
    assert same.result.ret == pytest.ExitCode.OK, same.result.stdout.str()[-3000:]
    worsen()
    worse = run(f"--audiobench-baselines={folder}")
    assert worse.result.ret == pytest.ExitCode.TESTS_FAILED, worse.result.stdout.str()[-3000:]
    return worse


def write_baseline(folder: Path, metrics: dict[str, tuple[float, float]], *,
                   max_errors: int = 0, judge_model: str | None = JUDGE,
                   model: str = MODEL) -> Path:
    path = folder / "baselines" / "air_bench_chat" / f"{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "benchmark": "air_bench_chat", "model": model, "judge_model": judge_model,
        "max_errors": max_errors,
        "metrics": {k: {"threshold": t, "tolerance": tol} for k, (t, tol) in metrics.items()},
    }), encoding="utf-8")
    return path


@pytest.fixture
def isolated_modelscope(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep modelscope's config, session id and cache out of the real home directory."""
    from modelscope_hub.config import set_default_config

    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MODELSCOPE_HOME", str(home / ".modelscope"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(home / ".cache" / "modelscope"))
    for name in ("MODELSCOPE_ENDPOINT", "MODELSCOPE_DOMAIN", "MODELSCOPE_API_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    set_default_config(None)  # the process-wide config is built from the variables above
    yield
    set_default_config(None)


@pytest.fixture
def isolated_hf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """huggingface_hub's cache, token and settings kept out of the real home directory: the
    variables, and the copies huggingface_hub made of them when it was imported."""
    from huggingface_hub import constants

    hf_home = tmp_path / "home" / ".cache" / "huggingface"
    hf_home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HF_HOME", str(hf_home))
    monkeypatch.setenv("HF_HUB_CACHE", str(hf_home / "hub"))
    for name in ("HF_ENDPOINT", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HF_TOKEN_PATH",
                 "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_HUB_ETAG_TIMEOUT",
                 "HF_HUB_DOWNLOAD_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in (("HF_HOME", hf_home), ("HF_HUB_CACHE", hf_home / "hub"),
                        ("HF_TOKEN_PATH", hf_home / "token"),
                        ("HF_STORED_TOKENS_PATH", hf_home / "stored_tokens"),
                        ("HF_XET_CACHE", hf_home / "xet")):
        monkeypatch.setattr(constants, name, str(value))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)


def assert_one_line_naming(error: Exception, repo_id: str, endpoint: str) -> None:
    """What every failed hub download says (``DownloadError``): one line naming the repo and
    the hub, with the fix (``--audiobench-data DIR``), chained to what failed."""
    message = str(error)
    assert "\n" not in message, message
    assert repo_id in message and endpoint in message, message
    assert "--audiobench-data DIR" in message, message
    assert error.__cause__ is not None


def failed_download(download: Callable[[str], object], repo_id: str, folder: Path) -> str:
    """What ``download(endpoint)`` says when it fails against a fake hub serving `folder` as
    `repo_id` (its parquet files as LFS files): its DownloadError's message, checked to be
    one line naming the repo and the hub."""
    with (
        FakeHfHub({repo_id: folder}, lfs_patterns=PARQUET_AS_LFS) as server,
        pytest.raises(DownloadError) as raised,
    ):
        url = server.url
        download(url)
    assert_one_line_naming(raised.value, repo_id, url)
    return str(raised.value)
