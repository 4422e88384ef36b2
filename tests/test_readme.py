"""The README as a newcomer reads it: short; its two first lines the main job the tests run and
the test command CI runs; every link of it and of docs/ leading somewhere; every flag a real
one; its quick start and its command against a served model run as written (the servers and
the data the test's own), and its example output the lines such a run prints."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config import declarations, options
from tests.conftest import Servers, on_two_workers
from tests.test_offline_run import MAIN_JOB, offline_run

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")
WORDS = 1200


def _command(line: str) -> str:
    """A command line without the comment that says what it is for."""
    return line.split("  # ")[0]


def _bash() -> list[list[str]]:
    """Every command line of the README's bash blocks, split into words at ``&&``."""
    found = []
    for block in re.findall(r"```bash\n(.*?)```", TEXT, re.S):
        for line in block.splitlines():
            found += [shlex.split(part) for part in _command(line).split("&&") if part.strip()]
    return found


def _pytest_runs() -> list[list[str]]:
    """The README's pytest commands, each as its arguments after ``python -m pytest``."""
    runs = []
    for words in _bash():
        while words and "=" in words[0] and not words[0].startswith("-"):
            words = words[1:]  # a variable set for the command
        if words[:3] == ["python", "-m", "pytest"]:
            runs.append(words[3:])
    return runs


def test_the_readme_is_a_short_landing_page() -> None:
    prose = re.sub(r"```.*?```", "", TEXT, flags=re.S)
    assert len(prose.split()) < WORDS
    headings = re.findall(r"^## (.+)$", TEXT, re.M)
    assert headings[:5] == ["What it is", "Install", "Quick start", "Against your own model",
                            "What the output means"]


def test_its_two_first_lines_are_the_main_job_and_the_test_command_ci_runs() -> None:
    first = re.search(r"```bash\n(.*?)\n(.*?)\n```", TEXT)
    assert first is not None and TEXT.index(first.group(0)) < TEXT.index("\n## ")
    # Each says what it is: the plugin's main job, and the project's own tests.
    assert first.group(1).endswith("  # the main job")
    assert first.group(2).endswith("  # this project's own tests")
    install, checker, main = _command(first.group(1)).split(" && ")
    assert install == "pip install -e '.[cascade,voicebench]'"
    # VoiceBench's IFEval checker, without lm-eval's own dependencies (torch, datasets).
    assert checker == "pip install --no-deps lm-eval==0.4.13"
    assert shlex.split(main) == ["python", "-m", "pytest", *MAIN_JOB]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    packages, install_dev, reference, tests = _command(first.group(2)).split(" && ")
    assert set(packages.split()[3:]) == {"espeak-ng", "chromium", "chromium-driver"}
    assert all(name in ci for name in ("espeak-ng", "chromium", "chromium-driver"))
    extras = "-e '.[dev,cascade,hub,voicebench]'"
    assert install_dev == f"pip install {extras}" and extras in ci
    # The reference's WER steps, for the parity tests, without torch (tests/test_wer.py and
    # tests/test_cer.py): openai-whisper's normalisers, lmms-eval's remove_sp and the
    # editdistance it imports, and evalscope's copy of cn_tn; and lm-eval's IFEval checker.
    steps = ("openai-whisper==20250625 lmms-eval==0.7.3 editdistance==0.8.1 evalscope==1.14.1 "
             "lm-eval==0.4.13")
    assert reference == f"pip install --no-deps {steps}"
    assert f"pip install --quiet --no-deps {steps}" in ci
    assert f"{tests}          # the README test command, verbatim" in ci


def test_every_extra_it_installs_exists() -> None:
    extras = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"]["optional-dependencies"]
    named = re.findall(r"\.\[([a-z,]+)\]", TEXT)
    assert named and all(extra in extras for group in named for extra in group.split(","))


def test_every_flag_it_gives_is_an_option() -> None:
    catalog = registry.catalog()
    known = {o.flag for g in options.groups(catalog) for o in declarations.declared(g)}
    given = set(re.findall(r"--audiobench-[a-z0-9-]+", TEXT))
    assert given and given <= known, given - known


LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")


@pytest.mark.parametrize("page", [README, *sorted((REPO / "docs").glob("*.md"))],
                         ids=lambda p: p.name)
def test_every_link_leads_to_a_file_that_is_there(page: Path) -> None:
    targets = [m.group(1) for m in LINK.finditer(page.read_text(encoding="utf-8"))
               if not m.group(1).startswith(("http://", "https://", "mailto:"))]
    missing = [t for t in targets if not (page.parent / t).exists()]
    assert not missing, missing


def test_the_link_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("see [this](docs/nowhere.md)\n", encoding="utf-8")
    assert [m.group(1) for m in LINK.finditer(page.read_text())] == ["docs/nowhere.md"]
    assert not (page.parent / "docs/nowhere.md").exists()


def test_the_quick_start_regression_prints_the_readmes_example(
        pytester: pytest.Pytester) -> None:
    (quick,) = [run for run in _pytest_runs() if "--audiobench-gate-against" in run]
    result, _ = offline_run(pytester, *quick)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counted = result.parseoutcomes()
    said = re.search(r"It fails (\d+) items", TEXT)
    assert said is not None and counted["failed"] == int(said.group(1))
    example = re.search(r"## What the output means\n.*?```\n(.*?)```", TEXT, re.S)
    assert example is not None
    printed = result.stdout.str().splitlines()
    for line in example.group(1).splitlines():
        assert line in printed, line


def test_the_command_against_a_served_model_runs_as_written(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    (served,) = [run for run in _pytest_runs() if any(a.startswith("--audiobench-api-url")
                                                       for a in run)]
    swapped: dict[str, Any] = {
        "--audiobench-api-url=http://localhost:8000/v1":
            f"--audiobench-api-url={servers.model.url}",
        "--audiobench-judge-api-url=https://api.openai.com/v1":
            f"--audiobench-judge-api-url={servers.judge.url}",
        "--audiobench-data=/data/AIR-Bench-Dataset": f"--audiobench-data={chat_data}"}
    servers.model.models[:] = ["qwen2-audio"]
    servers.judge.models[:] = ["gpt-4o"]
    monkeypatch.setenv("AUDIOBENCH_JUDGE_API_KEY", "a-judge-key")
    assert served[served.index("-n") + 1] == "8"
    result = pytester.runpytest_subprocess(*(swapped.get(a, a) for a in on_two_workers(served)))
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    result.assert_outcomes(passed=16)
    assert "gate: no baseline at" in result.stdout.str()  # the first run: write one
    assert servers.model.count() == 16 and servers.judge.count() == 32


def test_the_docs_are_whole_without_the_folder_beside_the_repository() -> None:
    """A user's clone has no ../shared: no document of the package sends a reader there for
    its facts (issue 53); the tests and the CI may use what lies there."""
    docs = [README, *sorted((REPO / "docs").glob("*.md")), REPO / "scripts" / "README.md"]
    pointing = {str(path.relative_to(REPO)): n for path in docs
                if (n := path.read_text(encoding="utf-8").count("../shared"))}
    assert pointing == {}
