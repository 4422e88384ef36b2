"""Paid work is never lost: a cache on a full or read-only file system, outputs that cannot be
written, runs that ended with errors, two processes resuming one run, a worker that crashed.
Each costs neither a verdict nor a paid answer, and each is said in one line."""

from __future__ import annotations

import fcntl
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL, Servers
from tests.fakes import filesystems
from tests.fakes.openai_server import Reply, Scripted


def _flags(pytester: pytest.Pytester, servers: Servers, data: Path, cache: Path,
           *args: str) -> list[str]:
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
            "--audiobench-model", MODEL, "--audiobench-api-url", servers.model.url,
            "--audiobench-judge-model", "judge-model",
            "--audiobench-judge-api-url", servers.judge.url, f"--audiobench-data={data}",
            f"--audiobench-report={pytester.path / 'report.json'}",
            f"--audiobench-cache-dir={cache}", "--audiobench-retry-wait", "0", *args]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}


@pytest.mark.parametrize("options", ["size=48k", "ro"], ids=["fills-up", "read-only"])
def test_a_cache_that_refuses_writes_loses_no_answer_and_the_report_is_written(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path, options: str) -> None:
    reason = filesystems.why_not()
    if reason is not None:
        pytest.skip(reason)
    cache = pytester.path / "cache"
    done = filesystems.run_with_tmpfs(cache, options,
                                      _flags(pytester, servers, chat_data, cache),
                                      cwd=pytester.path, env=_env())
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    assert "16 passed" in out and "INTERNALERROR" not in out and "Traceback" not in out
    # Every request paid once, and every answer judged: nothing was asked twice for lack of
    # a place to keep it.
    assert (servers.model.count(), servers.judge.count()) == (16, 32)
    report = json.loads((pytester.path / "report.json").read_text(encoding="utf-8"))
    assert len(report["samples"]) == 16
    assert report["traffic"]["cache_unwritable"] > 0
    assert "could not be kept on disk" in out and "a resume will ask for them again" in out
    assert f"its record could not be saved in {cache / 'runs'}" in out
    if options == "ro":
        assert (f"audiobench: cache: {cache} cannot be written (Read-only file system): "
                "replies are kept in memory for this run only") in out


def test_a_report_the_disk_has_no_room_for_at_the_end_is_said_and_a_resume_writes_it(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path) -> None:
    reason = filesystems.why_not()
    if reason is not None:
        pytest.skip(reason)
    # The report's folder takes the start's few bytes, not the report's hundred kilobytes.
    small = pytester.path / "small"
    report = small / "report.json"
    flags = _flags(pytester, servers, chat_data, pytester.path / "cache")
    flags = [f for f in flags if not f.startswith("--audiobench-report")]
    done = filesystems.run_with_tmpfs(small, "size=16k", [*flags, f"--audiobench-report={report}"],
                                      cwd=pytester.path, env=_env())
    out = done.stdout + done.stderr
    assert done.returncode == pytest.ExitCode.INTERNAL_ERROR, out[-3000:]
    assert f"JSON report: NOT written to {report} (No space left on device)" in out
    assert "audiobench summary" in out and "answers: model 16" in out
    assert "Traceback" not in out and "INTERNALERROR" not in out
    assert servers.model.count() == 16
    # The run is not finished: a resume serves its answers again and writes the report.
    again = subprocess_run([*flags, "--audiobench-resume",
                            f"--audiobench-report={pytester.path / 'report.json'}"],
                           pytester.path)
    assert again.returncode == 0, again.stdout[-3000:]
    assert "it could not write all its outputs; its answers serve again" in again.stdout
    assert servers.model.count() == 16 and (pytester.path / "report.json").exists()


def subprocess_run(argv: list[str], cwd: Path) -> Any:
    import subprocess

    return subprocess.run(argv, cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=300, check=False)


@pytest.mark.parametrize("flag", ["--audiobench-report", "--audiobench-html", "--junitxml",
                                  "--audiobench-export-mmar"])
def test_an_output_that_cannot_be_written_stops_the_run_before_anything_is_paid(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, flag: str) -> None:
    (pytester.path / "blocker").write_text("a file where a folder should be")
    target = pytester.path / "blocker" / "out.json"
    benchmark = "air_bench_chat,mmar" if flag == "--audiobench-export-mmar" else None
    data = "air_bench_chat=mini,mmar=mini" if benchmark else None
    run = run_bench(f"{flag}={target}", benchmark=benchmark, data=data)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [f"ERROR: {flag} {target}: cannot be written ({pytester.path / 'blocker'} "
                      "is a file, not a folder); nothing was sent"]
    assert servers.model.count() == 0 and servers.judge.count() == 0


def test_a_baseline_folder_that_cannot_be_written_stops_an_update_before_it_is_paid(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    (pytester.path / "baselines").write_text("not a folder")
    run = run_bench("--audiobench-update-baseline")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--audiobench-update-baseline" in run.result.stderr.str()
    assert "is a file, not a folder); nothing was sent" in run.result.stderr.str()
    assert servers.model.count() == 0


def test_resume_after_errors_pays_only_for_the_samples_that_errored(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    broken = Scripted("a good answer")
    for record in small_records[:4]:
        broken.when(contains=record["question"], replies=Reply(status=500))
    servers.model.script = broken
    first = run_bench("--audiobench-retries", "0")
    first.result.assert_outcomes(passed=12, errors=4)
    assert first.report["run"]["finished"] is False
    paid = servers.model.count()
    servers.model.script = Scripted("a good answer")
    again = run_bench("--audiobench-resume")
    again.result.assert_outcomes(passed=16)
    assert servers.model.count() - paid == 4  # the four that had no answer, nothing else
    assert again.report["run"]["id"] == first.report["run"]["id"]
    assert (f"run: resuming run {first.report['run']['id']}: it left 4 samples undone (errors, "
            "not run); only what they lack is asked") in again.result.stdout.str()
    assert again.report["run"]["finished"] is True
    # Finished now: a further resume has nothing to continue.
    third = run_bench("--audiobench-resume")
    assert "no run with these settings left samples undone" in third.result.stdout.str()


def test_a_run_being_resumed_elsewhere_is_refused_before_anything_is_paid(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"], replies=Reply(status=500))
    first = run_bench("--audiobench-retries", "0")
    run_id = first.report["run"]["id"]
    paid = servers.model.count()
    lock = pytester.path / "cache" / "runs" / f"{run_id}.lock"
    with lock.open("ab") as held:  # another process resuming it holds this
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        again = run_bench("--audiobench-resume")
    assert again.result.ret == pytest.ExitCode.USAGE_ERROR
    assert (f"run {run_id} is being run by another process right now (it holds {lock})"
            in again.result.stderr.str())
    assert servers.model.count() == paid
    # Once that process is done, the resume goes ahead.
    servers.model.script = Scripted("a good answer")
    run_bench("--audiobench-resume").result.assert_outcomes(passed=16)
    assert servers.model.count() == paid + 1


def test_a_crashed_workers_counts_are_said_to_be_missing(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    # The worker that runs the first sample of sound_QA dies on its teardown.
    pytester.makeconftest("""
import os

def pytest_runtest_teardown(item):
    if item.nodeid.endswith("sound_QA::800") and os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(1)
""")
    run = run_bench("-n", "2", "--max-worker-restart", "1")
    traffic = run.report["traffic"]
    assert len(traffic["missing"]) == 1
    assert (f"traffic: the counts of {traffic['missing'][0]} are missing (the worker ended "
            "without handing them over): its requests are not counted") in run.result.stdout.str()
