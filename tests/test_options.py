"""The --audiobench-* options as a user meets them: one-line usage errors naming the flag or
ini key, and no trace of the plugin in a run that does not ask for a benchmark.

The tables run pytest in process (about 30 ms a run); a few cases are repeated in a real
subprocess (about 1 s each), where the plugin is loaded from its entry point as users get it."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.mmar.settings import MmarSettings
from pytest_audiobench.config import convert, declarations, options
from pytest_audiobench.config.options import OutputOptions
from pytest_audiobench.config.settings import Settings
from tests.settings import make_settings

USAGE_ERROR = 4
REQUIRED = ("--audiobench-model", "m", "--audiobench-api-url", "http://127.0.0.1:9/v1")
JUDGE_FLAGS = ("--audiobench-judge-model", "j", "--audiobench-judge-api-url",
               "http://127.0.0.1:9/v1")


def run(pytester: pytest.Pytester, *args: str, subprocess: bool = False) -> pytest.RunResult:
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    runner = pytester.runpytest_subprocess if subprocess else pytester.runpytest_inprocess
    return runner("-p", "no:cacheprovider", *args)


def data_flag(pytester: pytest.Pytester) -> str:
    # The --flag=value form: a separate value would steer pytest's rootdir (pytest-dev/pytest#8846).
    # Nothing is read from it here: every run below stops while the options are resolved.
    return f"--audiobench-data={pytester.path / 'release'}"


def assert_usage_error(result: pytest.RunResult, *expected: str) -> str:
    """The run stopped with a usage error whose message line holds every ``expected`` text."""
    assert result.ret == USAGE_ERROR, result.stderr.str()
    lines = [line for line in result.stderr.lines if all(text in line for text in expected)]
    assert len(lines) == 1, result.stderr.str()
    assert "Traceback" not in result.stderr.str()
    assert "passed" not in result.stdout.str()
    return lines[0]


# --- bad flag values: argparse's one-line error -------------------------------------------------

BAD_FLAGS = [
    pytest.param(("--audiobench-limit", "0"), "expected a whole number of at least 1, got '0'",
                 id="a_limit_of_zero"),
    pytest.param(("--audiobench-limit", "abc"), "expected a whole number of at least 1, got 'abc'",
                 id="a_limit_that_is_not_a_number"),
    pytest.param(("--audiobench-concurrency", "-1"),
                 "expected a whole number of at least 1, got '-1'",
                 id="a_negative_concurrency"),
    pytest.param(("--audiobench-audio-mode", "wav"),
                 "expected one of input_audio, data-uri, audio-url; got 'wav'",
                 id="an_unknown_audio_mode"),
    pytest.param(("--audiobench-api-key-env", "sk-abc123"),
                 "expected the NAME of an environment variable, like AUDIOBENCH_API_KEY (the key "
                 "itself is never a flag)",
                 id="a_key_where_a_variable_name_belongs"),
    pytest.param(("--audiobench-timeout", "inf"), "expected a finite number, got 'inf'",
                 id="an_infinite_timeout"),
    pytest.param(("--audiobench-timeout", "0"), "expected a number above 0, got '0'",
                 id="a_timeout_of_zero"),
    pytest.param(("--audiobench-tolerance", "nan"), "expected a finite number, got 'nan'",
                 id="a_nan_tolerance"),
]


@pytest.mark.parametrize(("args", "message"), BAD_FLAGS)
def test_a_bad_flag_value_is_a_one_line_usage_error_naming_the_flag(
        pytester: pytest.Pytester, args: tuple[str, ...], message: str) -> None:
    result = run(pytester, *args)
    line = assert_usage_error(result, message)
    assert f": error: argument {args[0]}: {message}" in line


# --- missing flags: pytest.UsageError from resolve ---------------------------------------------


def test_a_model_without_an_api_url_is_a_usage_error_naming_the_flag(
        pytester: pytest.Pytester) -> None:
    result = run(pytester, "--audiobench-model", "m", data_flag(pytester), *JUDGE_FLAGS)
    line = assert_usage_error(result, "--audiobench-api-url")
    assert line.startswith("ERROR: --audiobench-model m needs --audiobench-api-url URL")


def test_a_model_without_data_is_a_usage_error_naming_the_flag(
        pytester: pytest.Pytester) -> None:
    result = run(pytester, *REQUIRED, *JUDGE_FLAGS)
    line = assert_usage_error(result, "--audiobench-data")
    assert line.startswith("ERROR: --audiobench-data is required")


def test_a_model_without_a_judge_is_a_usage_error_naming_the_judge_flags(
        pytester: pytest.Pytester) -> None:
    result = run(pytester, *REQUIRED, data_flag(pytester))
    line = assert_usage_error(result, "--audiobench-judge-model")
    assert "--audiobench-judge-api-url" in line


def test_a_bad_ini_value_is_a_usage_error_naming_the_ini_key(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\naudiobench_limit = 0\n")
    result = run(pytester, *REQUIRED, data_flag(pytester), *JUDGE_FLAGS)
    line = assert_usage_error(result, "audiobench_limit")
    assert line == ("ERROR: ini option audiobench_limit: expected a whole number of at least 1, "
                    "got '0'")


# --- in a real pytest process ------------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(("--audiobench-api-key-env", "sk-abc123"),
                 "error: argument --audiobench-api-key-env: expected the NAME of an environment "
                 "variable, like AUDIOBENCH_API_KEY (the key itself is never a flag)",
                 id="a_bad_flag_value"),
    pytest.param(("--audiobench-model", "m"), "ERROR: --audiobench-model m needs "
                 "--audiobench-api-url URL", id="a_missing_flag"),
])
def test_a_pytest_process_exits_with_the_same_one_line_usage_error(
        pytester: pytest.Pytester, args: tuple[str, ...], message: str) -> None:
    assert_usage_error(run(pytester, *args, subprocess=True), message)


def test_without_a_model_a_plain_test_run_is_untouched(pytester: pytest.Pytester) -> None:
    result = run(pytester, subprocess=True)
    result.assert_outcomes(passed=1)
    assert result.ret == 0
    # pytest itself lists the installed plugin in its header; nothing else may mention it.
    mentions = [line for line in result.outlines + result.errlines
                if "audiobench" in line.lower() and not line.startswith("plugins:")]
    assert mentions == []


# --- the converters behind the flags (in process) ----------------------------------------------

CONVERTED = [
    pytest.param(convert.positive_int, "1", 1, id="a_positive_int_of_one"),
    pytest.param(convert.positive_int, " 12 ", 12, id="a_positive_int_with_spaces"),
    pytest.param(convert.non_negative_int, "0", 0, id="zero_retries"),
    pytest.param(convert.non_negative_float, "0", 0.0, id="a_zero_temperature"),
    pytest.param(convert.non_negative_float, "1.5", 1.5, id="a_fractional_temperature"),
    pytest.param(convert.whole_number, "-3", -3, id="a_negative_seed"),
    pytest.param(convert.env_name, "MY_API_KEY", "MY_API_KEY", id="a_variable_name"),
]


@pytest.mark.parametrize(("convert", "raw", "value"), CONVERTED)
def test_a_good_value_is_converted(convert: Callable[[str], Any], raw: str, value: Any) -> None:
    assert convert(raw) == value


REJECTED = [
    pytest.param(convert.non_negative_float, "nan", id="nan_is_not_a_number_of_at_least_0"),
    pytest.param(convert.non_negative_float, "inf", id="an_infinite_float"),
    pytest.param(convert.non_negative_float, "1e999", id="a_float_too_large_to_be_finite"),
    pytest.param(convert.positive_float, "0", id="a_timeout_of_zero"),
    pytest.param(convert.positive_float, "-inf", id="a_negative_infinity"),
    pytest.param(convert.non_negative_float, "-0.1", id="a_negative_float"),
    pytest.param(convert.non_negative_int, "1.5", id="a_fractional_count"),
    pytest.param(convert.whole_number, "4.2", id="a_fractional_seed"),
]


@pytest.mark.parametrize(("convert", "raw"), REJECTED)
def test_a_bad_value_is_an_argument_type_error(convert: Callable[[str], Any], raw: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match=repr(raw).replace(".", r"\.")):
        convert(raw)


@pytest.mark.parametrize("raw", ["", "MY KEY"])
def test_a_bad_variable_name_is_an_argument_type_error_that_does_not_repeat_it(raw: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected the NAME"):
        convert.env_name(raw)


def test_a_name_list_drops_blanks_and_duplicates_keeping_order() -> None:
    assert convert.names(" b, a,,b ,") == ("b", "a")


@pytest.mark.parametrize("raw", ["", " , ,"])
def test_an_empty_name_list_is_rejected(raw: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected a comma-separated list of"):
        convert.names(raw)


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(("--audiobench-benchmark", "nope"),
                 "unknown benchmark nope; expected a comma-separated list of: "
                 + ", ".join(registry.built_in()), id="an_unknown_benchmark"),
    pytest.param(("--audiobench-benchmark", "all,mmar"),
                 "'all' names every benchmark; give it alone or name each benchmark",
                 id="all_beside_a_name"),
])
def test_an_unknown_name_is_a_one_line_usage_error_naming_the_flag(
        pytester: pytest.Pytester, args: tuple[str, ...], message: str) -> None:
    # Checked once the run's settings are resolved, after every conftest had its say: a
    # conftest may register a benchmark (tests/test_third_party_benchmark.py).
    result = run(pytester, *REQUIRED, data_flag(pytester), *JUDGE_FLAGS, *args)
    line = assert_usage_error(result, message)
    assert line == f"ERROR: argument {args[0]}: {message}"


def test_all_benchmarks_is_every_one_registered_in_the_registry_s_order(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, benchmark=("all",), model="m", api_url="http://x",
                             judge_model="overlap", data="mini")
    assert settings.benchmarks == registry.catalog().names == registry.built_in()


def test_every_option_has_a_flag_and_an_ini_key_of_the_same_name() -> None:
    declared = [o for group in options.groups(registry.catalog())
                for o in declarations.declared(group)]
    dests = [option.dest for option in declared]
    assert len(set(dests)) == len(dests)
    assert all(o.flag == "--audiobench-" + o.dest.removeprefix("audiobench_").replace("_", "-")
               for o in declared)


def test_a_rejected_variable_name_that_looks_like_a_key_is_not_echoed() -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        convert.env_name("sk-abc123secret")
    assert "sk-abc123secret" not in str(caught.value)


def test_the_rootdir_hint_names_a_path_flag_given_as_two_arguments(
        pytester: pytest.Pytester) -> None:
    # In process: the hint reads only the invocation parameters and the ini path.
    (pytester.path / "release").mkdir()
    config = pytester.parseconfig("--audiobench-data", "release")
    hint = options.rootdir_hint(config)
    assert hint is not None
    assert "--audiobench-data=release" in hint
    assert options.rootdir_hint(pytester.parseconfig("--audiobench-data=release")) is None


def test_settings_keep_the_kept_options_and_state_no_option_again() -> None:
    kept = {o.attr for group in options.KEPT for o in declarations.declared(group)}
    own = set(Settings.__annotations__)  # the fields written in settings.py itself
    assert kept <= set(Settings.model_fields)
    assert own & kept == set()
    # What settings.py writes is what the other options resolve into (a resolved option may
    # keep its name: the data per benchmark, the cache folder with its default).
    assert own == {"model", "endpoint", "model_provider", "baseline_endpoint", "judge",
                   "benchmarks", "benchmark_settings", "data", "cache_dir", "baselines_dir"}
    assert set(Settings.model_fields) == kept | own
    assert Settings.model_fields["runs"].default == 1  # the default is the option's


def test_a_group_takes_its_defaults_makes_paths_absolute_and_cannot_be_changed(
        tmp_path: Path) -> None:
    group = declarations.build(OutputOptions, {"report": Path("r.json")}, tmp_path)
    assert (group.report, group.html, group.html_audio_mb) == (tmp_path / "r.json", None, 20.0)
    assert declarations.was_given(group, "report")
    assert not declarations.was_given(group, "html")
    with pytest.raises(AttributeError, match="is read once and not changed"):
        group.html = Path("x")  # type: ignore[misc]
    with pytest.raises(TypeError, match="OutputOptions has no option reprot"):
        declarations.build(OutputOptions, {"reprot": "x"}, tmp_path)


def test_an_option_needs_a_default_and_an_annotation_without_a_flag_is_no_option() -> None:
    class Some(declarations.OptionGroup):
        plain: int = 3
        knob: Annotated[int, declarations.Flag("a knob", int, "N")] = 1

    class Missing(declarations.OptionGroup):
        knob: Annotated[int, declarations.Flag("a knob", int, "N")]

    assert [(o.attr, o.default, o.flag) for o in declarations.declared(Some)] == [
        ("knob", 1, "--audiobench-knob")]
    with pytest.raises(TypeError, match=r"Missing\.knob: an option needs a default"):
        declarations.declared(Missing)


def test_a_benchmarks_settings_read_back_from_json_are_its_typed_model_again(
        tmp_path: Path) -> None:
    settings = make_settings(tmp_path, model="random", data="mini", benchmark=("mmar",),
                             judge_model="overlap", mmar_matcher="strict", mmar_template=None)
    again = Settings.model_validate_json(settings.model_dump_json())
    own = again.of("mmar", MmarSettings)
    assert isinstance(own, MmarSettings)
    assert own == settings.of("mmar", MmarSettings)
    assert own.matcher == "strict"  # the setting keeps its name: MMAR's own settings


def test_the_default_cache_folder_follows_xdg_cache_home_taken_from_where_pytest_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "relative-cache")
    settings = make_settings(tmp_path, model="random", data="mini", judge_model="overlap")
    assert settings.cache_dir == tmp_path / "relative-cache" / "pytest-audiobench"
    given = make_settings(tmp_path, model="random", data="mini", judge_model="overlap",
                          cache_dir=Path("mine"))
    assert given.cache_dir == tmp_path / "mine"


def test_a_head_to_head_baseline_model_is_a_served_model_asked_like_the_model(
        tmp_path: Path) -> None:
    base = {"model": "cand", "api_url": "http://c/v1", "data": "mini", "judge_model": "overlap",
            "temperature": 0.5, "seed": 3, "timeout": 9.0}
    settings = make_settings(tmp_path, **base, baseline_model="prod",
                             baseline_api_url="http://p/v1")
    live = settings.baseline_endpoint
    assert live is not None and (live.model, live.url) == ("prod", "http://p/v1")
    assert live.api_key_env == "AUDIOBENCH_BASELINE_API_KEY" and not live.api_key_required
    assert live.sampling == settings.endpoint.sampling and live.timeout == 9.0
    assert make_settings(tmp_path, **base).baseline_endpoint is None
    # Another run's answers are not this one's: the baseline model is part of what answers
    # depend on.
    from pytest_audiobench.run.runs import answer_fingerprint

    assert answer_fingerprint(settings) != answer_fingerprint(make_settings(tmp_path, **base))
    for extra, said in [
        ({"baseline_api_url": "http://p/v1"}, "--audiobench-baseline-api-url names the server"),
        ({"baseline_model": "prod"}, "--audiobench-baseline-model prod needs "
                                     "--audiobench-baseline-api-url URL"),
        ({"baseline_model": "random", "baseline_api_url": "http://p/v1"},
         "a head-to-head baseline is a served model"),
        ({"baseline_model": "prod", "baseline_api_url": "http://p/v1",
          "update_baseline": True}, "--audiobench-update-baseline is about a baseline file"),
    ]:
        with pytest.raises(pytest.UsageError, match=re.escape(said)):
            make_settings(tmp_path, **base, **extra)
