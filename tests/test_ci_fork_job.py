"""docs/ci.md's job for a fork's pull request, run as GitHub runs it, in a team's repository made
as docs/configuration.md describes one (its team file as written, its own tests, the mini
baselines it committed): the checkout step puts the repository in the job's workspace, and each
``run`` step is run there in turn under ``bash -e``, until one fails. The unchanged repository
passes; a pull request that adds a failing test, or whose model regresses against the committed
baselines, fails the job.

What differs from GitHub, each for a reason: the plugin is this working tree's, which the test's
environment has installed, rather than the pinned one; Python's setup and the upload, actions
that change nothing of the verdict, are not run; and the ``random`` model answers in place of
the ``cascade``, whose Whisper costs about two minutes of CPU a run (tests/test_offline_run.py
runs the same command with the cascade, and tests/test_ci_recipe.py holds the job's command to
it word for word)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from tests.conftest import LEAN
from tests.test_ci_recipe import _gate
from tests.test_offline_run import MAIN_JOB
from tests.test_team_repository import UNIT_TESTS, _page_blocks

INSTALL = 'python -m pip install "$PLUGIN"'
CASCADE = "--audiobench-model cascade"
STANDS_IN = "--audiobench-model random"
FAILING = "\n\ndef test_a_change_that_breaks_it():\n    assert int('7') == 8\n"


@dataclass(frozen=True)
class Ran:
    """How the job ended: the name of the step that failed (None when none did), and what each
    step that ran printed, by name."""

    failed: str | None
    printed: dict[str, str]


def _job() -> dict[str, Any]:
    job: dict[str, Any] = _gate()["jobs"]["offline"]
    return job


def _script(step: dict[str, Any]) -> str | None:
    """The step's script as the test runs it, or None for the plugin's install."""
    script = str(step["run"])
    if script.split("#")[0].strip() == INSTALL:
        return None  # the working tree's plugin is installed here already
    if CASCADE in script:
        assert script.count(CASCADE) == 1, script
        script = script.replace(CASCADE, STANDS_IN)
    return script


def _env(home: Path) -> dict[str, str]:
    """The job's environment on a fork's runner: the workflow's and the job's variables, no
    secret of the team's, this Python first on PATH, and a home (with the plugin's response
    cache) of the test's own."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("AUDIOBENCH_") and name != "TEAM_JUDGE_KEY"}
    env.update({name: str(value) for name, value in
                {**_gate().get("env", {}), **_job().get("env", {})}.items()})
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}", HOME=str(home),
               XDG_CACHE_HOME=str(home / ".cache"))
    return env


def run_job(repository: Path, workspace: Path) -> Ran:
    """The fork's job over ``repository``, in ``workspace``: its checkout copies the repository
    there, its ``run`` steps run there; a step after a failure runs only when its condition
    says so, as on GitHub (the others here are actions this test has no need to run)."""
    workspace.mkdir()
    env = _env(workspace.parent / "home")
    failed, printed = None, {}
    for step in _job()["steps"]:
        name = str(step.get("name") or step.get("uses") or step["run"])
        if failed is not None and "!cancelled()" not in step.get("if", ""):
            continue
        if step.get("uses", "").startswith("actions/checkout@"):
            shutil.copytree(repository, workspace, dirs_exist_ok=True)
        script = _script(step) if "run" in step else None
        if script is None:
            continue
        done = subprocess.run(["bash", "-e", "-c", script], cwd=workspace, env=env, text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
        printed[name] = done.stdout
        if done.returncode != 0 and failed is None:
            failed = name
    return Ran(failed, printed)


def _gated_step() -> dict[str, Any]:
    """The step of the job that runs the plugin's gated mini run."""
    steps: list[dict[str, Any]] = [s for s in _job()["steps"] if CASCADE in s.get("run", "")]
    (step,) = steps
    return step


def _make_team(path: Path) -> Path:
    """docs/configuration.md's team file as written, and the team's own tests."""
    (path / "pyproject.toml").write_text(_page_blocks("toml")[0], encoding="utf-8")
    (path / "tests").mkdir()
    (path / "tests" / "test_units.py").write_text(UNIT_TESTS, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def committed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The team's repository as its main branch holds it: its file, its own tests, and the mini
    baselines it wrote once with the README's main job (the model the test runs in it)."""
    scratch = tmp_path_factory.mktemp("scratch")
    main_job = ["random" if word == "cascade" else word for word in MAIN_JOB]
    # Module-scoped, it starts before the fixture that keeps the tests' own runs lean.
    env = {**_env(tmp_path_factory.mktemp("home")), "PYTEST_ADDOPTS": LEAN}
    written = subprocess.run(
        [sys.executable, "-m", "pytest", *main_job, "--audiobench-update-baseline"],
        cwd=scratch, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        check=False)
    assert written.returncode == 0, written.stdout[-3000:]
    repository = _make_team(tmp_path_factory.mktemp("team"))
    shutil.copytree(scratch / "baselines", repository / "baselines")
    return repository


def _pull_request(committed: Path, pytester: pytest.Pytester) -> Path:
    """A copy of the committed repository, for a pull request to change."""
    return Path(shutil.copytree(committed, pytester.path / "repository"))


def test_the_unchanged_repository_passes_with_every_benchmark_gated_by_its_own_baselines(
        committed: Path, pytester: pytest.Pytester) -> None:
    workspace = pytester.path / "workspace"
    ran = run_job(_pull_request(committed, pytester), workspace)
    assert ran.failed is None, ran.printed
    assert "2 passed" in ran.printed["Your own tests"]
    report = json.loads((workspace / "offline.json").read_text(encoding="utf-8"))
    assert report["gate_held"] is True
    benchmarks = report["benchmarks"]
    assert [b["benchmark"] for b in benchmarks] == list(registry.built_in())
    assert all(Path(b["baseline_file"]).is_relative_to(workspace / "baselines" / "mini")
               and b["baseline_status"] == "applied" for b in benchmarks)


def test_a_failing_test_of_the_pull_request_fails_the_job(
        committed: Path, pytester: pytest.Pytester) -> None:
    repository = _pull_request(committed, pytester)
    with (repository / "tests" / "test_units.py").open("a", encoding="utf-8") as tests:
        tests.write(FAILING)
    ran = run_job(repository, pytester.path / "workspace")
    assert ran.failed == "Your own tests", ran.printed
    assert "1 failed, 2 passed" in ran.printed["Your own tests"]


def test_a_model_the_pull_request_regressed_fails_the_job(
        committed: Path, pytester: pytest.Pytester) -> None:
    # The pull request changes a setting of the model in the team's file (its sampling seed):
    # its answers change, and samples it got right in the committed baselines now fail.
    repository = _pull_request(committed, pytester)
    with (repository / "pyproject.toml").open("a", encoding="utf-8") as team_file:
        team_file.write('audiobench_seed = "1"\n')
    ran = run_job(repository, pytester.path / "workspace")
    name = str(_gated_step()["name"])
    assert ran.failed == name, ran.printed
    out = ran.printed[name]
    assert "regressed: score 100 in the baseline, 0 now" in out
    assert "2 passed" in ran.printed["Your own tests"]
