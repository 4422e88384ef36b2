"""The package as a user installs it: ``python -m build`` makes an sdist and a wheel (the wheel
from the sdist, so the sdist must hold all it needs), twine finds their metadata valid, the
wheel holds the mini benchmark, the page's assets and the prompts, and installed into a new
virtual environment it runs the README's main job.

Nothing is downloaded: the build runs without an isolated environment (on this
environment's setuptools), and the new environment installs the wheel alone, seeing this
environment's dependencies through a ``.pth`` file (tests never touch the internet)."""

from __future__ import annotations

import email
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from tests.test_offline_run import main_job

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "pytest_audiobench"
KINDS = ("mmsu", "big_bench_audio", "librispeech")
"""A built-in benchmark of each kind: multiple choice, judged, transcribed."""


def _sources(into: Path) -> Path:
    """A copy of the working tree's files that git does not ignore (a build writes into its
    source tree); new files not yet added count, as they will once committed."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True, check=False)
    names = [n for n in listed.stdout.decode().split("\0") if n] if listed.returncode == 0 \
        else None
    if names is None:  # not a git checkout: the tree without what builds and runs leave
        shutil.copytree(REPO, into, ignore=shutil.ignore_patterns(
            ".git", "*.egg-info", "__pycache__", ".ci", "build", "dist", ".*_cache"))
        return into
    for name in names:
        if (REPO / name).is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, into / name)
    return into


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("build", reason="the dev extra's build makes the distributions")
    source = _sources(tmp_path_factory.mktemp("source"))
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out),
                    str(source)], check=True, capture_output=True)
    return out


def _one(dist: Path, pattern: str) -> Path:
    found = sorted(dist.glob(pattern))
    assert len(found) == 1, found
    return found[0]


def _tracked_mini() -> set[str]:
    mini = REPO / PACKAGE / "data" / "mini"
    return {p.relative_to(REPO).as_posix() for p in mini.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def test_the_sdist_and_the_wheel_have_valid_metadata(dist: Path) -> None:
    pytest.importorskip("twine", reason="the dev extra's twine checks the metadata")
    files = [str(_one(dist, "*.tar.gz")), str(_one(dist, "*.whl"))]
    checked = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", *files],
                             capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("PASSED") == 2


def test_the_metadata_says_what_it_is_and_asks_only_for_what_a_run_needs(dist: Path) -> None:
    """The Summary says what the plugin is without a list of benchmarks that the next one
    would make stale; syrupy, which only the tests use, is no dependency of a user's run (it
    would load as a plugin into every pytest start); each extra is named for what it brings
    (issue 53)."""
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        meta = email.message_from_bytes(wheel.read(name))
    summary = meta["Summary"]
    assert "pytest release gate" in summary
    assert not [word for word in ("AIR-Bench", "MMAR", "MMAU", "MMSU", "LibriSpeech", "FLEURS",
                                  *registry.built_in()) if word in summary], summary
    required = meta.get_all("Requires-Dist") or []
    assert [r for r in required if r.startswith("syrupy")] == [
        r for r in required if r.startswith("syrupy") and 'extra == "dev"' in r] != []
    assert set(meta.get_all("Provides-Extra") or []) == {"dev", "cascade", "hub", "voicebench",
                                                            "pedant"}
    assert any(r.startswith("pyarrow") and 'extra == "hub"' in r for r in required)


def test_the_wheel_holds_the_mini_benchmark_the_assets_the_prompts_and_the_entry_points(
        dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as wheel:
        names = set(wheel.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(wheel.read(info))
        entry_points = wheel.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert _tracked_mini() <= names and len(_tracked_mini()) > 40
    baselines = {p.relative_to(REPO).as_posix()
                 for p in (REPO / PACKAGE / "data" / "baselines").rglob("*.json*")}
    # Each built-in benchmark's mini baselines: the cascade's and random's, each a threshold
    # file and its per-sample lines.
    assert len(baselines) == 2 * 2 * len(registry.built_in()) and baselines <= names
    assert {f"{PACKAGE}/report/assets/{n.name}" for n in
            (REPO / PACKAGE / "report" / "assets").iterdir() if n.suffix in (".css", ".js")
            } <= names
    prompts = {p.relative_to(REPO).as_posix()
               for p in (REPO / PACKAGE / "benchmarks").glob("*/*.txt")}
    assert prompts and prompts <= names
    assert f"{PACKAGE}/py.typed" in names
    assert not any(n.startswith(("tests/", "scripts/", "baselines/")) for n in names)
    assert metadata["Name"] == "pytest-audiobench"
    assert metadata["License-Expression"] == "Apache-2.0"
    requires = metadata.get_all("Requires-Dist") or []
    assert any(r.startswith("openai[aiohttp]") for r in requires)
    assert "cascade" in (metadata.get_all("Provides-Extra") or [])
    assert "[pytest11]\naudiobench = pytest_audiobench.plugin" in entry_points
    assert "audiobench-merge = pytest_audiobench.commands.merge:main" in entry_points
    assert "audiobench-history = pytest_audiobench.commands.history:main" in entry_points


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment with the wheel installed, and nothing else of ours."""
    where = tmp_path_factory.mktemp("venv") / "env"
    # Without a pip of its own (ensurepip takes seconds): this environment's pip installs
    # into it (--python runs pip under the new interpreter, as its own pip would run).
    venv.EnvBuilder(with_pip=False).create(where)
    python = where / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-deps", "--no-index", str(_one(dist, "*.whl"))],
                   check=True, capture_output=True)
    theirs = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                             "['purelib'])"], capture_output=True, text=True, check=True)
    ours = sysconfig.get_paths()["purelib"]
    # This environment's packages, after the new one's own (the wheel comes first); a .pth
    # line adds the folder without running that folder's own .pth files, so the editable
    # install of the checkout is not seen.
    Path(theirs.stdout.strip(), "zz_test_dependencies.pth").write_text(ours + "\n")
    return python


def test_the_installed_wheel_is_the_package_that_runs(installed: Path) -> None:
    found = subprocess.run([str(installed), "-c", f"import {PACKAGE}.plugin as p; "
                            "print(p.__file__)"], capture_output=True, text=True, check=True,
                           cwd=installed.parents[1])
    assert Path(found.stdout.strip()).is_relative_to(installed.parents[1])
    merge = installed.parent / "audiobench-merge"
    shown = subprocess.run([str(merge), "--help"], capture_output=True, text=True, check=False)
    assert shown.returncode == 0 and "usage: audiobench-merge" in shown.stdout


def test_the_installed_wheel_runs_the_main_job_from_an_empty_folder(
        installed: Path, tmp_path: Path) -> None:
    pytest.importorskip("faster_whisper", reason="the main job's cascade needs the [cascade] "
                        "extra")
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg-cache")  # the README's line, as it is
    # The first item of each task of a benchmark of each kind (multiple choice, judged,
    # transcribed): their bundled releases and baselines are found in the installed package
    # and gate, in 14 clips (test_offline_run runs all of them, and checks every answer, in
    # the repository; each clip Whisper hears is a second of the suite's CPU; the other
    # benchmarks are found the same way, and the test above finds their files in the wheel).
    ran = subprocess.run([str(installed), "-m", "pytest", *main_job(KINDS),
                          "--audiobench-limit", "1"], cwd=empty,
                         capture_output=True, text=True, env=env, check=False)
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-2000:]
    held = [line for line in ran.stdout.splitlines() if line.startswith("gate: held (")]
    # Gated by the baselines the wheel carries, found in the installed package.
    bundled = installed.parents[1]
    found = [Path(line.rsplit(" against ", 1)[1]) for line in held]
    assert [(path.is_relative_to(bundled), path.parts[-3:]) for path in found] == [
        (True, ("mini", benchmark, "cascade.json"))
        for benchmark in KINDS]
    assert not any(empty.iterdir()) or {p.name for p in empty.iterdir()} <= {".pytest_cache"}
