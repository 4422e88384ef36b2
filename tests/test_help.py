"""``pytest --help`` as a user reads it: every option with a default says it, choices are
listed, and the environment variables the plugin reads are in pytest's own list."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config import declarations, options


def _bare_env() -> dict[str, str]:
    """The environment of a user's shell, bare but for where the session keeps its bytecode
    (``tests/conftest.py``): without it, the plugin's modules were compiled into the source
    tree, where no test is to write."""
    kept = {name: os.environ[name] for name in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE")
            if name in os.environ}
    return {"COLUMNS": "1000", "PATH": "/usr/bin:/bin", **kept}


@pytest.fixture(scope="module")
def help_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    done = subprocess.run([sys.executable, "-m", "pytest", "--help", "-p", "no:randomly"],
                          cwd=tmp_path_factory.mktemp("help"), capture_output=True, text=True,
                          check=True, env=_bare_env())
    return done.stdout


def test_the_bare_environment_keeps_bytecode_where_the_session_does() -> None:
    asked = subprocess.run([sys.executable, "-c", "import sys; print(sys.pycache_prefix, "
                            "sys.dont_write_bytecode)"], capture_output=True, text=True,
                           check=True, env=_bare_env())
    # As every other process this session starts has it (from os.environ).
    expected = [os.environ.get("PYTHONPYCACHEPREFIX", "None"),
                str(bool(os.environ.get("PYTHONDONTWRITEBYTECODE")))]
    assert asked.stdout.split() == expected


def helps(text: str) -> dict[str, str]:
    """Each --audiobench-* option's help, its wrapped lines joined."""
    found: dict[str, str] = {}
    current = None
    for line in text.splitlines():
        start = re.match(r"\s{2}(--audiobench-[a-z0-9-]+)(?:=\S+)?\s*(.*)$", line)
        if start:
            current = start.group(1)
            found[current] = start.group(2).strip()
        elif current and line.startswith(" " * 10) and line.strip():
            found[current] = (found[current] + " " + line.strip()).strip()
        else:
            current = None
    return found


def test_every_option_says_its_default(help_text: str) -> None:
    catalog = registry.catalog()
    shown = helps(help_text)
    declared = [o for g in options.groups(catalog) for o in declarations.declared(g)]
    formers = {o.former.flag: o.flag for o in declared if o.former is not None}
    assert set(shown) == {o.flag for o in declared} | set(formers)
    assert formers == {"--audiobench-matcher": "--audiobench-mmar-matcher"}
    assert shown["--audiobench-matcher"] == "deprecated name of --audiobench-mmar-matcher"
    for option in declared:
        default = declarations._shown(option.default)
        if default is not None:
            assert f"default: {default}" in shown[option.flag], option.flag
        elif "(default" not in option.how.help:
            # A switch is off, and an option not given says what that means (issue 53).
            said = "off" if option.switch else option.how.unset
            assert shown[option.flag].endswith(f"(default: {said})"), option.flag
        assert "(default: " in shown[option.flag], option.flag
    assert shown["--audiobench-concurrency"] == "requests in flight per process (default: 8)"
    assert shown["--audiobench-timeout"].endswith("(and retried) (default: 120)")
    assert shown["--audiobench-benchmark"] == (
        f"benchmarks to run, comma-separated, of: {', '.join(catalog.names)}; or 'all', every "
        f"one registered (default: {','.join(catalog.defaults)})")
    assert shown["--audiobench-rubric-seed"] == (
        "MMAR rubric judge seed (default: 42, the official one)")
    assert shown["--audiobench-deadline"].endswith("(default: none: no deadline)")
    assert shown["--audiobench-gate-small"].endswith("(default: off)")


def test_the_options_are_listed_by_concern_each_under_its_heading(help_text: str) -> None:
    """A hundred options in six groups (model, judge, data and benchmarks, gate and baselines,
    run and cache, reports), in that order, each option under its own (issue 53)."""
    headings = [line.rstrip(":") for line in help_text.splitlines()
                if line.startswith("audiobench: ")]
    assert headings == list(declarations.CONCERNS.values())
    under: dict[str, str] = {}
    heading = None
    for line in help_text.splitlines():
        if line and not line.startswith(" "):
            heading = line.rstrip(":")
        found = re.match(r"\s{2}(--audiobench-[a-z0-9-]+)", line)
        if found and heading is not None:
            under[found.group(1)] = heading
    for group in options.groups(registry.catalog()):
        for option in declarations.declared(group):
            assert under[option.flag] == declarations.CONCERNS[option.concern], option.flag
    assert under["--audiobench-baseline-model"] == declarations.CONCERNS["gate"]
    assert under["--audiobench-whisper"] == declarations.CONCERNS["model"]
    assert under["--audiobench-mmsu-matcher"] == declarations.CONCERNS["data"]
    assert under["--audiobench-html"] == declarations.CONCERNS["reports"]


def test_each_ini_key_has_the_type_of_its_value(pytester: pytest.Pytester) -> None:
    """A number is typed a number and a switch a bool, so that pytest's own help says so
    and its TOML table takes them unquoted; the rest are strings the flags' converters
    read (issue 53)."""
    declared = {o.dest: o for g in options.groups(registry.catalog())
                for o in declarations.declared(g)}
    config = pytester.parseconfig()
    typed = {dest: config._parser._inidict[dest][1] for dest in declared}
    assert typed["audiobench_timeout"] == "float" and typed["audiobench_retries"] == "int"
    assert typed["audiobench_limit"] == "int" and typed["audiobench_confidence"] == "float"
    assert typed["audiobench_require_baseline"] == "bool"
    assert typed["audiobench_data"] == typed["audiobench_price"] == "string"
    # Strings are the paths, names and lists (each speech benchmark's prompt and system files
    # among them): most keys, but not the numbers and switches checked above.
    assert sum(kind == "string" for kind in typed.values()) < 0.8 * len(typed)


def test_no_help_ends_mid_sentence(help_text: str) -> None:
    for flag, text in helps(help_text).items():
        assert not re.search(r"\b(for|of|the|a|an|to|with|another|and|or)$", text), flag
    assert helps(help_text)["--audiobench-model-revision"].endswith(
        "the summary says when the baseline was written for another tag (default: none)")


def test_the_variables_the_plugin_reads_are_in_pytests_list(help_text: str) -> None:
    section = help_text.split("Environment variables:\n", 1)[1].split("\n\n", 1)[0]
    names = [line.split()[0] for line in section.splitlines()]
    assert names[0] == "CI"  # pytest's own come first, ours after them, in the same list
    assert names[-10:] == ["AUDIOBENCH_API_KEY", "AUDIOBENCH_BASELINE_API_KEY",
                           "AUDIOBENCH_JUDGE_API_KEY", "AUDIOBENCH_HEADERS",
                           "AUDIOBENCH_BASELINE_HEADERS", "AUDIOBENCH_JUDGE_HEADERS",
                           "XDG_CACHE_HOME", "MODELSCOPE_ENDPOINT", "MODELSCOPE_DOMAIN",
                           "HF_ENDPOINT"]
    assert ("  AUDIOBENCH_JUDGE_API_KEY the API key --audiobench-judge-api-key-env names by "
            "default (unset: none is sent; a hosted HTTPS server needs one)") in section
    assert help_text.count("AUDIOBENCH_JUDGE_API_KEY the API key") == 1
    assert ("  AUDIOBENCH_HEADERS       extra HTTP headers --audiobench-headers-env names by "
            "default: a JSON object, or a file holding one (never printed)") in section


def test_without_pytests_section_the_variables_still_follow_under_their_own_heading() -> None:
    from pytest_audiobench.run.help import Inserting

    written: list[str] = []
    line = Inserting(lambda text="", **markup: written.append(text), [("A_KEY", "a key")])
    for text in ("usage: pytest", "", "Environment variables:", "  CI  ci", "", "done"):
        line(text)
    assert written == ["usage: pytest", "", "Environment variables:", "  CI  ci",
                       "  A_KEY                    a key", "", "done"]
    written.clear()
    other = Inserting(lambda text="", **markup: written.append(text), [("A_KEY", "a key")])
    other("usage: pytest")
    other.write_heading_and_lines()
    assert written == ["usage: pytest", "Environment variables: (pytest-audiobench)",
                       "  A_KEY                    a key"]
