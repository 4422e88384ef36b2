"""A benchmark and a judge from outside the plugin (``tests/toy``) run end to end: its own
option, collection, inference, judging, the gate, the JSON report. Registered from a conftest
(``pytest_audiobench_register``, in process), and installed as a package would install them,
through the entry-point groups (shards and their merge, which reads no conftest)."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL, Servers
from tests.fakes.datasets import _write_audio
from tests.fakes.openai_server import ChatRequest, Scripted

REPO = Path(__file__).resolve().parents[1]
ITEMS = [("c1", "colours", "What colour is named?", "red"),
         ("c2", "colours", "Which colour comes next?", "blue"),
         ("n1", "numbers", "How many beeps?", "three"),
         ("n2", "numbers", "How many claps?", "two")]


@pytest.fixture
def toy_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution whose metadata registers the toy benchmark, on the subprocess's path."""
    site = tmp_path / "site"
    dist = site / "toy_benchmark-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-benchmark\nVersion: 0.1\n",
                                   encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        "[pytest_audiobench.benchmarks]\ntoy = tests.toy:SPEC\n"
        "toy_choice = tests.toy:CHOICE_SPEC\n\n"
        "[pytest_audiobench.providers]\ntoy-judge = tests.toy:JUDGE\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(REPO)]))
    return site


TOY_CONFTEST = """
from tests.toy import CHOICE_SPEC, JUDGE, SPEC


def pytest_audiobench_register():
    return [SPEC, CHOICE_SPEC, JUDGE]
"""


@pytest.fixture
def toy_conftest(pytester: pytest.Pytester) -> None:
    """The toy benchmark and judge, registered by the repository's conftest."""
    pytester.makeconftest(TOY_CONFTEST)


@pytest.fixture
def toy_data(tmp_path: Path) -> Path:
    root = tmp_path / "toy-release"
    root.mkdir()
    items = [{"id": i, "task": t, "question": q, "answer": a, "audio": f"{i}.wav"}
             for i, t, q, a in ITEMS]
    (root / "toy.json").write_text(json.dumps(items), encoding="utf-8")
    for item in items:
        _write_audio(root / item["audio"], item["id"], 0.05, 16000)
    return root


def yes_when_same(request: ChatRequest) -> str:
    match = re.search(r"Reference: (.*)\nAnswer: (.*)\n", request.text)
    return "yes" if match and match.group(1) == match.group(2) else "no"


def answering(*wrong: str) -> Scripted:
    """A model that answers every question right but those of ``wrong`` (sample ids)."""
    script = Scripted("no idea")
    for sample_id, _, question, answer in ITEMS:
        script = script.when(contains=question,
                             replies="something else" if sample_id in wrong else answer)
    return script


def toy_run(pytester: pytest.Pytester, servers: Servers, data: Path, *args: str,
            installed: bool = False, benchmark: str = "toy", judge: bool = True
            ) -> tuple[pytest.RunResult, dict[str, Any]]:
    """A run of the toy (or ``benchmark``, another of its folder; with the judge server unless
    not ``judge``): in this process (its conftest registers it), or ``installed`` in a
    subprocess (its entry points do)."""
    report = pytester.path / "report.json"
    start = pytester.runpytest_subprocess if installed else pytester.runpytest
    judged = ("--audiobench-judge-model", "judge-model", "--audiobench-judge-api-url",
              servers.judge.url) if judge else ()
    result = start(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL,
        "--audiobench-api-url", servers.model.url, *judged, "--audiobench-benchmark", benchmark,
        f"--audiobench-data={data}", f"--audiobench-report={report}", "--audiobench-no-cache",
        *args)
    data_out = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    return result, data_out


@pytest.fixture
def toy_servers(servers: Servers) -> Servers:
    servers.judge.script = yes_when_same
    servers.model.script = answering("n2")
    return servers


def test_a_registered_benchmark_runs_with_its_own_option_and_writes_its_baseline(
        pytester: pytest.Pytester, toy_conftest: None, toy_data: Path,
        toy_servers: Servers) -> None:
    result, report = toy_run(pytester, toy_servers, toy_data, "--audiobench-toy-prefix=Say:",
                             "--audiobench-update-baseline")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    assert {s["nodeid"]: s["outcome"] for s in report["samples"]} == {
        "audiobench::toy::colours::c1": "passed", "audiobench::toy::colours::c2": "passed",
        # Under its bar: the baseline this run writes records it so (xfailed, not a failure).
        "audiobench::toy::numbers::n1": "passed", "audiobench::toy::numbers::n2": "xfailed"}
    assert all(r.text.startswith("Say: ") for r in toy_servers.model.requests)
    assert toy_servers.judge.count() == 4
    (n2,) = [s for s in report["samples"] if s["nodeid"].endswith("n2")]
    assert n2["message"] == ("under its bar, recorded so in the baseline this run writes: toy "
                             "n2: judged wrong: ['something else']")
    metrics = report["benchmarks"][0]["metrics"]
    assert metrics["toy.accuracy"]["value"] == 75.0
    assert metrics["toy.numbers.accuracy"]["value"] == 50.0
    assert report["usage"]["judge_requests"] == 4
    baseline = json.loads((pytester.path / "baselines/toy/audio-model.json").read_text("utf-8"))
    assert baseline["metrics"] == {"toy.accuracy": {"threshold": 75.0, "tolerance": 0.2}}


def test_a_registered_judge_provider_judges_in_process_with_its_own_option(
        pytester: pytest.Pytester, toy_conftest: None, toy_data: Path,
        toy_servers: Servers) -> None:
    script = Scripted("no idea")
    for sample_id, _, question, answer in ITEMS:  # n1 in capitals, n2 wrong
        script = script.when(contains=question, replies={"n1": answer.title(),
                                                         "n2": "something else"}.get(sample_id,
                                                                                     answer))
    toy_servers.model.script = script
    report_path = pytester.path / "report.json"
    base = ("-p", "no:cacheprovider", "--audiobench-model", MODEL, "--audiobench-api-url",
            toy_servers.model.url, "--audiobench-judge-model", "toy-judge",
            "--audiobench-benchmark", "toy", f"--audiobench-data={toy_data}",
            f"--audiobench-report={report_path}", "--audiobench-no-cache")
    lenient = pytester.runpytest(*base)
    outcomes = {s["sample_id"]: s["outcome"]
                for s in json.loads(report_path.read_text("utf-8"))["samples"]}
    strict = pytester.runpytest(*base, "--audiobench-toy-judge-case")
    strict_outcomes = {s["sample_id"]: s["outcome"]
                       for s in json.loads(report_path.read_text("utf-8"))["samples"]}
    assert lenient.ret == strict.ret == pytest.ExitCode.TESTS_FAILED
    assert outcomes == {"c1": "passed", "c2": "passed", "n1": "passed", "n2": "failed"}
    assert strict_outcomes == {"c1": "passed", "c2": "passed", "n1": "failed", "n2": "failed"}
    assert toy_servers.judge.count() == 0  # no server was asked
    assert "offline judge toy-judge" in lenient.stdout.str()


def test_a_providers_option_for_another_judge_is_one_usage_error(
        pytester: pytest.Pytester, toy_conftest: None, toy_data: Path) -> None:
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--audiobench-model", "random", "--audiobench-judge-model",
        "overlap", "--audiobench-benchmark", "toy", f"--audiobench-data={toy_data}",
        "--audiobench-toy-judge-case")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--audiobench-toy-judge-case applies only to --audiobench-judge-model toy-judge, "
            "not to overlap") in result.stderr.str()


def test_a_registered_benchmark_is_gated_against_its_baseline(
        pytester: pytest.Pytester, toy_conftest: None, toy_data: Path,
        toy_servers: Servers) -> None:
    written, _ = toy_run(pytester, toy_servers, toy_data, "--audiobench-update-baseline")
    assert written.ret == pytest.ExitCode.OK, written.stdout.str()
    toy_servers.model.script = answering("n2", "c1")
    result, report = toy_run(pytester, toy_servers, toy_data)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert report["gate_held"] is False
    assert "gate: FAILED (by thresholds, not paired) against" in result.stdout.str()
    assert "toy.accuracy below (50.000 < 75 - 0.2)" in result.stdout.str()


def test_shards_of_a_registered_benchmark_merge_into_the_one_run(
        pytester: pytest.Pytester, toy_installed: Path, toy_data: Path,
        toy_servers: Servers) -> None:
    _, single = toy_run(pytester, toy_servers, toy_data, installed=True)
    paths = []
    for k, xdist in ((1, ()), (2, ("-n", "2"))):
        path = pytester.path / f"shard-{k}.json"
        result, _ = toy_run(pytester, toy_servers, toy_data, "--audiobench-shard", f"{k}/2",
                            f"--audiobench-report={path}", *xdist, installed=True)
        assert result.ret == pytest.ExitCode.OK, result.stdout.str()
        paths.append(path)
    export = pytester.path / "answers.tsv"
    merged_path = pytester.path / "merged.json"
    merged = subprocess.run(
        [sys.executable, "-m", "pytest_audiobench.commands.merge", *map(str, paths),
         "--report", str(merged_path), "--toy-export", str(export)],
        capture_output=True, text=True, timeout=120, cwd=pytester.path)
    assert merged.returncode == 1, merged.stdout + merged.stderr  # a failed sample, no gate
    report = json.loads(merged_path.read_text(encoding="utf-8"))
    assert report["benchmarks"][0]["metrics"] == single["benchmarks"][0]["metrics"]
    assert report["benchmarks"][0]["counts"] == single["benchmarks"][0]["counts"]
    assert f"toy answers: 4 lines written to {export}" in merged.stdout
    assert sorted(export.read_text(encoding="utf-8").splitlines()) == [
        "c1\tred", "c2\tblue", "n1\tthree", "n2\tsomething else"]


def test_a_broken_registration_is_one_warning_and_leaves_the_other_benchmarks_running(
        pytester: pytest.Pytester, toy_installed: Path) -> None:
    entry = toy_installed / "toy_benchmark-0.1.dist-info" / "entry_points.txt"
    entry.write_text("[pytest_audiobench.benchmarks]\ntoy = tests.toy:NOPE\n", encoding="utf-8")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    problem = ("pytest-audiobench: entry point tests.toy:NOPE of toy-benchmark 0.1: cannot load "
               "tests.toy:NOPE (AttributeError: module 'tests.toy' has no attribute 'NOPE'); "
               "that benchmark is left out")
    plain = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    plain.assert_outcomes(passed=1, warnings=1)
    assert problem in plain.stdout.str()
    asked = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model", "m",
                                          "--audiobench-benchmark", "toy")
    assert asked.ret == pytest.ExitCode.USAGE_ERROR
    assert "argument --audiobench-benchmark: unknown benchmark toy; expected a comma-separated " \
           "list of: air_bench_chat, mmar, air_bench_foundation" in asked.stderr.str()


def test_a_conftest_registers_under_xdist_too_and_leaves_no_trace_for_the_next_run(
        pytester: pytest.Pytester, toy_conftest: None, toy_data: Path,
        toy_servers: Servers) -> None:
    result, report = toy_run(pytester, toy_servers, toy_data, "-n", "2")
    result.assert_outcomes(passed=3, failed=1)
    assert report["benchmarks"][0]["metrics"]["toy.accuracy"]["value"] == 75.0
    # The registration ends with its start: another repository's run in this process knows
    # no toy.
    from pytest_audiobench.benchmarks import registry

    assert "toy" not in registry.catalog().specs


@pytest.mark.parametrize(("returned", "said"), [
    ("SPEC", "pytest_audiobench_register returned BenchmarkSpec; expected a list"),
    ("[SPEC, 'toy']", "pytest_audiobench_register returned a str; expected a BenchmarkSpec"),
    ("[SPEC, SPEC]", "'toy' is registered twice"),
])
def test_a_bad_registration_is_one_usage_error(
        pytester: pytest.Pytester, returned: str, said: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    pytester.makeconftest(f"from tests.toy import SPEC\n\n\ndef pytest_audiobench_register():\n"
                          f"    return {returned}\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    assert said in result.stderr.str()


def test_a_benchmark_whose_class_states_another_name_than_its_spec_is_one_usage_error(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    pytester.makeconftest("from dataclasses import replace\nfrom tests.toy import SPEC\n\n\n"
                          "def pytest_audiobench_register():\n"
                          "    return [replace(SPEC, name='renamed')]\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model", "m",
                                           "--audiobench-api-url", "http://127.0.0.1:9/v1",
                                           "--audiobench-judge-model", "j",
                                           "--audiobench-judge-api-url", "http://127.0.0.1:9/v1",
                                           "--audiobench-benchmark", "renamed",
                                           "--audiobench-data", str(pytester.path))
    assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str() + result.stderr.str()
    assert "benchmark 'renamed': tests.toy.benchmark:Toy states its name as 'toy'; set its " \
           "class attribute name to the spec's" in result.stderr.str()


CHOICE_ITEMS = [  # id, task, question, choices, answer, the model's reply
    ("a1", "animals", "Which animal barks?", ["dog", "cat", "cow"], "dog", "The answer is dog."),
    ("a2", "animals", "Which bird calls?", ["small bird", "big bird", "owl"], "big bird",
     "a big bird, or maybe a small bird"),
    ("i1", "instruments", "Which one is bowed?", ["piano", "violin", "flute"], "violin", "B"),
    ("i2", "instruments", "Which one is plucked?", ["harp", "drum", "organ"], "harp", ""),
]


@pytest.fixture
def choice_data(tmp_path: Path) -> Path:
    root = tmp_path / "toy-choice-release"
    root.mkdir()
    items: list[dict[str, Any]] = [
        {"id": i, "task": t, "audio": f"{i}.wav", "question": q, "choices": c, "answer": a}
        for i, t, q, c, a, _ in CHOICE_ITEMS]
    (root / "toy_choice.json").write_text(json.dumps(items), encoding="utf-8")
    for item in items:
        _write_audio(root / item["audio"], item["id"], 0.05, 16000)
    return root


@pytest.fixture
def choice_servers(servers: Servers) -> Servers:
    """A model that gives each toy_choice question its reply in ``CHOICE_ITEMS``."""
    script = Scripted("no idea")
    for _, _, question, _, _, reply in CHOICE_ITEMS:
        script = script.when(contains=question, replies=reply)
    servers.model.script = script
    return servers


def choice_run(pytester: pytest.Pytester, servers: Servers, data: Path,
               *args: str) -> tuple[pytest.RunResult, dict[str, Any]]:
    """A run of toy_choice, which needs no judge (its empty answer is asked again at once)."""
    return toy_run(pytester, servers, data, "--audiobench-retry-wait=0", *args,
                   benchmark="toy_choice", judge=False)


def test_a_multiple_choice_benchmark_on_the_public_base_is_graded_counted_and_exported(
        pytester: pytest.Pytester, toy_conftest: None, choice_data: Path,
        choice_servers: Servers) -> None:
    export = pytester.path / "predictions.jsonl"
    result, report = choice_run(pytester, choice_servers, choice_data,
                                f"--audiobench-toy-choice-export={export}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    samples = {s["sample_id"]: s for s in report["samples"]}
    # a1 names the answer; a2 holds "small", a word of another option (the token-set rule);
    # i1 is a bare letter, which only the strict rule reads; i2 is empty, wrong by both.
    assert {i: s["outcome"] for i, s in samples.items()} == {
        "a1": "passed", "a2": "failed", "i1": "failed", "i2": "failed"}
    assert {i: (s["grades"][0]["official"]["correct"], s["grades"][0]["strict"]["correct"])
            for i, s in samples.items()} == {"a1": (True, True), "a2": (False, False),
                                             "i1": (False, True), "i2": (False, False)}
    assert samples["a2"]["answers"][0]["request"]["prompt"] == \
        "Which bird calls?\nOptions:\nsmall bird\nbig bird\nowl"
    (bench,) = report["benchmarks"]
    assert bench["headline"] == ["toy_choice.avg", "toy_choice.task.animals.avg",
                                 "toy_choice.task.instruments.avg"]
    # The official matcher decides: a1 of the four right; by the strict one, a1 and i1.
    assert {name: (m["value"], m["n"]) for name, m in bench["metrics"].items()} == {
        "toy_choice.avg": (25.0, 4), "toy_choice.official.avg": (25.0, 4),
        "toy_choice.strict.avg": (50.0, 4),
        "toy_choice.task.animals.avg": (50.0, 2),
        "toy_choice.task.animals.official.avg": (50.0, 2),
        "toy_choice.task.animals.strict.avg": (50.0, 2),
        "toy_choice.task.instruments.avg": (0.0, 2),
        "toy_choice.task.instruments.official.avg": (0.0, 2),
        "toy_choice.task.instruments.strict.avg": (50.0, 2)}
    assert samples["a2"]["message"] == "\n".join([
        "wrong answer (official matcher)",
        "question:  Which bird calls?",
        "choices:   small bird | big bird | owl",
        "correct:   big bird",
        "answer:    a big bird, or maybe a small bird",
        "extracted: a big bird, or maybe a small bird",
        "official:  wrong: also contains 'small' from choice 'small bird'",
        "strict:    wrong: also contains 'small' from choice 'small bird'",
        f"audio: {choice_data / 'a2.wav'}"])
    assert ("official:  wrong: the prediction has no word: an empty prediction is wrong"
            in samples["i2"]["message"])
    assert f"toy_choice submission: 4 lines written to {export}" in result.stdout.str()
    assert [json.loads(line) for line in export.read_text("utf-8").splitlines()] == [
        {"id": i, "prediction": reply} for i, _, _, _, _, reply in CHOICE_ITEMS]


def test_a_multiple_choice_benchmarks_own_option_picks_the_matcher_that_decides(
        pytester: pytest.Pytester, toy_conftest: None, choice_data: Path,
        choice_servers: Servers) -> None:
    result, report = choice_run(pytester, choice_servers, choice_data,
                                "--audiobench-toy-choice-matcher=strict")
    assert {s["sample_id"]: s["outcome"] for s in report["samples"]} == {
        "a1": "passed", "a2": "failed", "i1": "passed", "i2": "failed"}
    metrics = {name: m["value"] for name, m in report["benchmarks"][0]["metrics"].items()}
    assert (metrics["toy_choice.avg"], metrics["toy_choice.official.avg"],
            metrics["toy_choice.task.instruments.avg"]) == (50.0, 25.0, 50.0)
    assert "wrong answer (strict matcher)" in result.stdout.str()


def test_the_multiple_choice_toy_imports_nothing_but_the_package_root() -> None:
    for module in ("choice.py", "__init__.py"):
        tree = ast.parse((REPO / "tests" / "toy" / module).read_text(encoding="utf-8"))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                    for alias in node.names} | {
            node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module}
        assert {name for name in imported if name.split(".")[0] == "pytest_audiobench"} == {
            "pytest_audiobench"}, module
