"""docs/configuration.md as a user follows it: its team block holds only real ini keys with
values their flags accept, and its offline block configures a whole gated run by itself, a
flag overriding it."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.config import declarations, options
from pytest_audiobench.config.names import bundled
from tests.conftest import ONE_WORKER

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "configuration.md"


def blocks() -> list[dict[str, Any]]:
    """The page's TOML blocks, parsed, in order."""
    found = re.findall(r"```toml\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    return [tomllib.loads(block)["tool"]["pytest"]["ini_options"] for block in found]


def test_the_team_block_holds_real_keys_with_values_their_flags_accept() -> None:
    catalog = registry.catalog()
    declared = {o.dest: o for g in options.groups(catalog) for o in declarations.declared(g)}
    team = blocks()[0]
    assert len(team) >= 10
    for key, value in team.items():
        assert key in declared, f"{key} is no ini key of the plugin"
        option = declared[key]
        if option.switch:
            assert value is True, key
        else:
            convert = option.converter
            assert convert is not None and convert(str(value)) is not None, key
    # What the page says belongs on the command line is not in the file.
    assert not {"audiobench_model", "audiobench_api_url", "audiobench_model_revision",
                "audiobench_shard", "audiobench_update_baseline"} & set(team)


def _pyproject(pytester: pytest.Pytester) -> None:
    offline = blocks()[1]
    lines = ["[tool.pytest.ini_options]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in offline.items()]
    pytester.makefile(".toml", pyproject="\n".join(lines) + "\n")


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_the_offline_block_configures_a_gated_run_by_itself(pytester: pytest.Pytester,
                                                             xdist: list[str]) -> None:
    _pyproject(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model",
                                           "random", *xdist)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()[-2000:]
    base = bundled("baselines", "mini")  # the project has none of its own: the plugin's
    # MMAR's mini metrics are too small to gate; AIR-Bench Chat's average regressed.
    result.stdout.fnmatch_lines([f"gate: FAILED against {base}/air_bench_chat/cascade.json: "
                                 "air_bench_chat.average.score regressed *",
                                 f"gate: held (*) against {base}/mmar/cascade.json"])
    report = json.loads((pytester.path / "audiobench-report.json").read_text())
    assert report["settings"]["gate_against"] == "cascade"
    assert report["settings"]["confidence"] == 0.95
    assert [b["benchmark"] for b in report["benchmarks"]] == ["air_bench_chat", "mmar"]


def test_a_flag_overrides_the_file_for_that_run(pytester: pytest.Pytester) -> None:
    _pyproject(pytester)
    pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model", "random",
                                  "--audiobench-confidence", "0.99",
                                  "--audiobench-benchmark", "mmar")
    report = json.loads((pytester.path / "audiobench-report.json").read_text())
    assert report["settings"]["confidence"] == 0.99
    assert [b["benchmark"] for b in report["benchmarks"]] == ["mmar"]


def test_a_misspelt_audiobench_key_is_one_line_naming_the_nearest_real_one(
        pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject='[tool.pytest.ini_options]\n'
                      'audiobench_confidance = "0.9"\naudiobench_zzz = "1"\n'
                      'audiobench_benchmark = "mmar"\n')
    pytester.makepyfile(test_team="def test_unit():\n    pass\n")
    # Whether or not a benchmark run is asked: the team's own tests would run with a default
    # nobody chose.
    for args in ([], ["--audiobench-model", "random", "--audiobench-data", "mini"]):
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        assert [line for line in result.stderr.lines if line.strip()] == [
            "ERROR: ini keys are not options of pytest-audiobench: audiobench_confidance (did "
            "you mean audiobench_confidence?), audiobench_zzz; `pytest --help` lists them under "
            "audiobench"]


def test_other_unknown_keys_are_left_to_pytest(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", pyproject='[tool.pytest.ini_options]\nsome_other_key = "x"\n')
    pytester.makepyfile(test_team="def test_unit():\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "Unknown config option: some_other_key" in result.stdout.str()


@pytest.mark.parametrize(("table", "value", "said"), [
    ("tool.pytest.ini_options", '"ture"',
     "ini option audiobench_require_baseline: invalid truth value 'ture'; expected true or "
     "false"),
    ("tool.pytest", '"yes please"',
     "ini option audiobench_require_baseline: {ini}: config option "
     "'audiobench_require_baseline' expects a bool, got str: 'yes please'; expected true or "
     "false"),
])
def test_a_bad_boolean_in_the_file_is_one_line_naming_its_key(
        pytester: pytest.Pytester, table: str, value: str, said: str) -> None:
    ini = pytester.makefile(".toml", pyproject=f"[{table}]\naudiobench_require_baseline = "
                            f"{value}\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model",
                                           "random", "--audiobench-data", "mini")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [line for line in result.stderr.lines if line.strip()] == [
        "ERROR: " + said.format(ini=ini)]


def test_numbers_in_pytests_toml_table_are_numbers(pytester: pytest.Pytester) -> None:
    """pytest's own TOML table (``[tool.pytest]``) types its values: a timeout written as a
    number is a number (an ini key typed as a string refused it)."""
    pytester.makefile(".toml", pyproject="[tool.pytest]\naudiobench_timeout = 30\n"
                      "audiobench_confidence = 0.9\naudiobench_limit = 1\n"
                      'audiobench_benchmark = "mmar"\n')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--audiobench-model",
                                           "random", "--audiobench-data", "mini",
                                           "--audiobench-report=report.json")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stderr.str()
    settings = json.loads((pytester.path / "report.json").read_text())["settings"]
    assert (settings["endpoint"]["timeout"], settings["confidence"], settings["limit"]) == (
        30.0, 0.9, 1)
