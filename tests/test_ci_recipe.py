"""docs/ci.md's workflows as GitHub would take them: each valid against the GitHub Actions
workflow schema (the one check-jsonschema ships, no download), and every command of this
package they run, with every flag they give it, a real one."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "ci.md"

pytest.importorskip("check_jsonschema", reason="the dev extra's check-jsonschema validates "
                    "the workflows")


def workflows() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


@pytest.mark.parametrize("index", [0, 1], ids=["gate", "release"])
def test_the_workflow_is_valid_against_the_github_actions_schema(
        index: int, tmp_path: Path) -> None:
    path = tmp_path / "workflow.yml"
    path.write_text(workflows()[index], encoding="utf-8")
    checked = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                              "vendor.github-workflows", str(path)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_workflow_that_breaks_the_schema_is_caught(tmp_path: Path) -> None:
    # The check can fail: a step with both ``uses`` and ``run`` is not a step.
    broken = workflows()[0].replace("      - uses: actions/checkout@v4",
                                    "      - uses: actions/checkout@v4\n        run: ls", 1)
    path = tmp_path / "workflow.yml"
    path.write_text(broken, encoding="utf-8")
    checked = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                              "vendor.github-workflows", str(path)], capture_output=True,
                             text=True, check=False)
    assert checked.returncode == 1


def commands(workflow: str) -> Iterator[list[str]]:
    """Every shell command of the workflow's ``run`` steps, as words (an expression ``${{ }}``
    is one word standing for its value)."""
    from ruamel.yaml import YAML

    loaded: dict[str, Any] = YAML(typ="safe").load(workflow)
    for job in loaded["jobs"].values():
        for step in job["steps"]:
            script = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step.get("run", ""))
            script = script.replace("\\\n", " ")
            for line in script.splitlines():
                for part in re.split(r"&&|\|\||\||;", line):
                    words = shlex.split(part, comments=True)
                    if words:
                        yield words


def _flags_of_help(args: list[str]) -> set[str]:
    shown = subprocess.run([sys.executable, *args, "--help"], capture_output=True, text=True,
                           check=True, cwd=REPO)
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", shown.stdout))


OURS = {("python", "-m", "pytest"): ["-m", "pytest"],
        ("audiobench-merge",): ["-m", "pytest_audiobench.commands.merge"],
        ("audiobench-compare",): ["-m", "pytest_audiobench.commands.compare"],
        ("python", "-m", "build"): ["-m", "build"],
        ("python", "-m", "twine", "check"): ["-m", "twine", "check"]}


def test_every_command_of_this_package_exists_with_the_flags_given() -> None:
    known: dict[tuple[str, ...], set[str]] = {}
    seen = set()
    for workflow in workflows():
        for words in commands(workflow):
            command = next((c for c in OURS if tuple(words[:len(c)]) == c), None)
            if command is None:
                continue
            seen.add(command)
            if command not in known:
                known[command] = _flags_of_help(OURS[command])
            given = {w.split("=", 1)[0] for w in words[len(command):] if w.startswith("-")}
            assert given <= known[command], (command, given - known[command])
    assert {("python", "-m", "pytest"), ("audiobench-merge",), ("python", "-m", "build"),
            ("python", "-m", "twine", "check")} <= seen


def test_the_flag_check_can_fail() -> None:
    words = next(commands("jobs:\n  a:\n    steps:\n      - run: audiobench-merge s.json "
                          "--htlm=page.html\n"))
    assert "--htlm" not in _flags_of_help(OURS[("audiobench-merge",)])
    assert words == ["audiobench-merge", "s.json", "--htlm=page.html"]


def _gate() -> dict[str, Any]:
    from ruamel.yaml import YAML

    loaded: dict[str, Any] = YAML(typ="safe").load(workflows()[0])
    return loaded


def test_vllm_is_installed_with_its_audio_extra_and_the_plugin_at_one_commit() -> None:
    installs = [w for words in commands(workflows()[0]) if words[:4] == [
        "python", "-m", "pip", "install"] for w in words[4:]]
    assert "vllm[audio]" in installs and "vllm" not in installs
    plugin = _gate()["env"]["PLUGIN"]
    assert re.search(r"@[0-9a-f]{40}$", plugin), plugin  # never a branch that moves


def test_every_shard_serves_on_its_own_port_and_gpu_and_asks_its_own_server() -> None:
    shard = _gate()["jobs"]["shard"]
    entries = shard["strategy"]["matrix"]["include"]
    assert len({e["port"] for e in entries}) == len({e["gpu"] for e in entries}) == len(
        entries) == 4
    assert shard["env"] == {"PORT": "${{ matrix.port }}",
                            "CUDA_VISIBLE_DEVICES": "${{ matrix.gpu }}"}
    steps = "\n".join(step.get("run", "") for step in shard["steps"])
    assert '--port "$PORT"' in steps and "localhost:$PORT/v1/models" in steps
    assert "--audiobench-api-url=http://localhost:${{ matrix.port }}/v1" in steps


def test_every_job_has_a_timeout_and_every_served_run_a_deadline_inside_it() -> None:
    jobs = _gate()["jobs"]
    for name, job in jobs.items():
        assert isinstance(job.get("timeout-minutes"), int), name
        for step in job["steps"]:
            words = shlex.split(re.sub(r"\$\{\{[^}]*\}\}", "EXPR", step.get("run", "")))
            if words[:3] != ["python", "-m", "pytest"]:
                continue
            deadline = float(words[words.index("--audiobench-deadline") + 1])
            assert deadline < job["timeout-minutes"] * 60, name


def test_a_forks_pull_request_runs_the_offline_job_and_no_job_with_secrets() -> None:
    jobs = _gate()["jobs"]
    fork = "github.event.pull_request.head.repo.full_name != github.repository"
    own = "github.event.pull_request.head.repo.full_name == github.repository"
    assert own in jobs["shard"]["if"] and fork in jobs["offline"]["if"]
    assert "needs.shard.result != 'skipped'" in jobs["gate"]["if"]
    assert "secrets." not in str(jobs["offline"])
    (offline,) = [s["run"] for s in jobs["offline"]["steps"] if "pytest" in s.get("run", "")]
    assert "--audiobench-data mini" in offline and "--audiobench-judge-model overlap" in offline


def test_the_page_that_becomes_an_artifact_embeds_its_clips() -> None:
    merge = next(words for words in commands(workflows()[0]) if words[0] == "audiobench-merge")
    assert "--html-audio-mb" in merge and float(merge[merge.index("--html-audio-mb") + 1]) > 20
