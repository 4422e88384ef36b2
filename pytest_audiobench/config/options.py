"""The run's own ``--audiobench-*`` options, each declared once with its type, default and
help (a benchmark's own are in its folder). The groups a run keeps as given are fields of
``Settings`` (it inherits them); ``resolve.py`` turns the others into the settings they imply.
Nothing else reads options."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Annotated, Any, ClassVar

import pytest

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import (
    Catalog,
    Concern,
    Flag,
    OptionGroup,
    declared,
    option,
)
from pytest_audiobench.config.names import (
    AUDIO_MODES,
    PARTIAL_REPORT,
    REJUDGE,
    AudioMode,
    PartialReport,
    Rejudge,
)
from pytest_audiobench.config.prices import EXAMPLE as PRICE_EXAMPLE
from pytest_audiobench.config.prices import Price, prices


class ModelOptions(OptionGroup):
    """The model asked and how its endpoint is reached; resolved into the run's endpoint (and its
    built-in model)."""

    concern: ClassVar[Concern] = "model"

    model: Annotated[str | None, Flag(
        "model to evaluate: the model id served at --audiobench-api-url, or one that runs "
        "here: {models}; setting it turns the benchmark run on", str, "NAME",
        unset="none: the plugin stays off")] = None
    api_url: Annotated[str | None, Flag(
        "base URL of the OpenAI-compatible model endpoint, e.g. http://gpu-box:8000/v1",
        str, "URL", unset="none; a served model needs one")] = None
    api_key_env: Annotated[str, Flag(
        "environment variable holding the model endpoint's API key (default: {default}; unset:"
        " no key is sent, and an HTTPS server not on this machine is an error)",
        convert.env_name, "VAR")] = "AUDIOBENCH_API_KEY"
    temperature: Annotated[float, Flag(
        "model sampling temperature", convert.non_negative_float, "T")] = 0.0
    max_tokens: Annotated[int, Flag(
        "model completion token limit", convert.positive_int, "N")] = 1024
    seed: Annotated[int | None, Flag(
        "model sampling seed", convert.whole_number, "N",
        unset="none, omitted from requests")] = None
    extra_body: Annotated[dict[str, Any] | None, Flag(
        "a JSON object merged into every model request's body, for what a server takes beyond "
        "OpenAI's parameters, e.g. vLLM's "
        '\'{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}\'; recorded in '
        "the report and part of the response cache's key", convert.json_body(""),
        "JSON", unset="none")] = None
    headers_env: Annotated[str, Flag(
        "environment variable holding extra HTTP headers for the model endpoint: a JSON object "
        "of names and values, or the path of a file holding one (default: {default}; never "
        "printed; their names and a hash of them are recorded)", convert.env_name,
        "VAR")] = "AUDIOBENCH_HEADERS"
    baseline_model: Annotated[str | None, Flag(
        "a second model, served at --audiobench-baseline-api-url, that answers every sample in "
        "the same run: the model is held against it head to head, with no baseline file",
        str, "NAME", concern="gate",
        unset="none: the run is held against its baseline file")] = None
    baseline_api_url: Annotated[str | None, Flag(
        "base URL of the OpenAI-compatible endpoint of --audiobench-baseline-model",
        str, "URL", concern="gate", unset="none; a served baseline model needs one")] = None
    baseline_api_key_env: Annotated[str, Flag(
        "environment variable holding the baseline model endpoint's API key (default: "
        "{default}; unset: no key is sent, and an HTTPS server not on this machine is an "
        "error)", convert.env_name, "VAR", concern="gate")] = "AUDIOBENCH_BASELINE_API_KEY"
    baseline_extra_body: Annotated[dict[str, Any] | None, Flag(
        "a JSON object merged into every request of --audiobench-baseline-model (default: "
        "--audiobench-extra-body's)", convert.json_body(""), "JSON", concern="gate",
        unset="none")] = None
    baseline_headers_env: Annotated[str, Flag(
        "environment variable holding extra HTTP headers for the baseline model's endpoint, "
        "as --audiobench-headers-env's (default: {default})", convert.env_name,
        "VAR", concern="gate")] = "AUDIOBENCH_BASELINE_HEADERS"


class RequestOptions(OptionGroup):
    """How every request (to the model and to the judge) is timed and retried; kept in each
    endpoint's settings as given."""

    concern: ClassVar[Concern] = "run"

    timeout: Annotated[float, Flag(
        "seconds one request may take, from sending it to the last byte of its reply, before it"
        " is abandoned (and retried)", convert.positive_float, "S")] = 120.0
    retries: Annotated[int, Flag(
        "retries of a failed request (429, 5xx, dropped connection, timeout)",
        convert.non_negative_int, "N")] = 4
    retry_wait: Annotated[float, Flag(
        "base of the exponential backoff between retries, in seconds (a server's Retry-After "
        "wins)", convert.non_negative_float, "S")] = 1.0
    max_connection_failures: Annotated[int, Flag(
        "connection failures in a row after which an endpoint is taken for away: nothing more "
        "is sent to it until it answers again (--audiobench-outage-wait)",
        convert.positive_int, "N")] = 10
    outage_wait: Annotated[float, Flag(
        "seconds an endpoint taken for away is waited for (its models listing asked now and "
        "then) before it is taken for gone and the samples still waiting for it end as not "
        "run; 0 ends them at once", convert.non_negative_float, "S")] = 60.0


class JudgeOptions(OptionGroup):
    """The judge; resolved into the run's judge settings."""

    concern: ClassVar[Concern] = "judge"

    judge_model: Annotated[str | None, Flag(
        "judge model id served at --audiobench-judge-api-url, or an offline judge that runs "
        "here: {judges}", str, "NAME", unset="none: no judge")] = None
    judge_api_url: Annotated[str | None, Flag(
        "base URL of the OpenAI-compatible judge endpoint", str, "URL",
        unset="none; a served judge needs one")] = None
    judge_api_key_env: Annotated[str, Flag(
        "environment variable holding the judge's API key (default: {default}; unset: no "
        "key is sent, and an HTTPS server not on this machine is an error)",
        convert.env_name, "VAR")] = "AUDIOBENCH_JUDGE_API_KEY"
    judge_temperature: Annotated[float, Flag(
        "judge sampling temperature", convert.non_negative_float, "T")] = 1.0
    judge_seed: Annotated[int | None, Flag(
        "judge sampling seed", convert.whole_number, "N",
        unset="none, omitted from requests")] = None
    judge_max_tokens: Annotated[int, Flag(
        "judge completion token limit", convert.positive_int, "N")] = 1024
    judge_extra_body: Annotated[dict[str, Any] | None, Flag(
        "a JSON object merged into every judge request's body, as --audiobench-extra-body is "
        "into the model's", convert.json_body("judge-"), "JSON", unset="none")] = None
    judge_headers_env: Annotated[str, Flag(
        "environment variable holding extra HTTP headers for the judge endpoint, as "
        "--audiobench-headers-env's (default: {default})", convert.env_name,
        "VAR")] = "AUDIOBENCH_JUDGE_HEADERS"
    judge_repeats: Annotated[int, Flag(
        "ask a scoring judge K times per pass and average (steadier scores, K times the judge "
        "calls; the official protocols ask once; a rubric judge has --audiobench-rubric-raters "
        "instead)", convert.positive_int, "K")] = 1
    judge_max_answer_chars: Annotated[int, Flag(
        "characters of a model's answer (or reasoning) the judge is shown; a longer one is cut "
        "there, with a note in its record", convert.positive_int, "N")] = 10000


class SourceOptions(OptionGroup):
    """What is run and where things are kept; resolved (names checked, defaults found)."""

    concern: ClassVar[Concern] = "data"

    benchmark: Annotated[tuple[str, ...] | None, Flag(
        "benchmarks to run, comma-separated, of: {benchmarks}; or 'all', every one registered "
        "(default: {default_benchmarks})",
        convert.names, "LIST")] = None
    data: Annotated[str | None, Flag(
        "release root of the benchmark data, 'mini' (the small benchmark bundled with the "
        "plugin, offline), or a download source of the benchmark (see its docs) into "
        "--audiobench-cache-dir; per benchmark: NAME=PATH,NAME=PATH", str, "PATH",
        unset="none; a benchmark run needs it")] = None
    cache_dir: Annotated[Path | None, Flag(
        "where downloads and the response cache are kept (default: ~/.cache/pytest-audiobench)",
        convert.path, "DIR", concern="run")] = None
    baselines: Annotated[Path | None, Flag(
        "folder of baseline files <benchmark>/<model>.json (default: baselines/ beside the "
        "pytest ini file, else in the folder pytest runs in)", convert.path, "DIR",
        concern="gate")] = None


class AskOptions(OptionGroup):
    """Which samples are asked, how often and how; kept in the settings as given."""

    concern: ClassVar[Concern] = "data"

    model_revision: Annotated[str | None, Flag(
        "a tag for the model's weights (a checkpoint, a commit), recorded in the report and the"
        " baseline; the summary says when the baseline was written for another tag", str,
        "TAG", concern="model", unset="none")] = None
    tasks: Annotated[tuple[str, ...], Flag(
        "only these tasks, comma-separated", convert.names, "LIST",
        unset="every task of the selected benchmarks")] = ()
    limit: Annotated[int | None, Flag(
        "at most N samples per task, the same N on every run (the release's first ones)",
        convert.positive_int, "N", unset="every sample")] = None
    runs: Annotated[int, Flag(
        "ask the model N times per sample; metrics are the mean of the middle runs (5 runs: "
        "middle 3), every run is reported", convert.positive_int, "N", concern="run")] = 1
    audio_mode: Annotated[AudioMode, Flag(
        "how audio is sent: input_audio (raw base64, OpenAI and vLLM), data-uri (data: URI "
        "inside input_audio, DashScope), audio-url (vLLM audio_url)",
        convert.choice(AUDIO_MODES), "MODE", concern="model")] = "input_audio"
    max_audio_seconds: Annotated[float, Flag(
        "warn for clips longer than this (many models hear only 30 s)",
        convert.non_negative_float, "S", concern="model")] = 30.0
    shard: Annotated[tuple[int, int] | None, Flag(
        "run only slice K of N (a deterministic split of the selected samples); each shard "
        "writes its --audiobench-report and audiobench-merge gates on the union",
        convert.shard, "K/N", concern="run", unset="none: the whole selection")] = None


class CacheOptions(OptionGroup):
    """The response cache and earlier runs; kept in the settings as given."""

    concern: ClassVar[Concern] = "run"

    no_cache: Annotated[bool, Flag(
        "send every request, ignoring and not filling the response cache")] = False
    clear_cache: Annotated[bool, Flag("empty the response cache before the run")] = False
    resume: Annotated[bool, Flag(
        "continue the latest run with the same settings that left samples undone (killed, or "
        "ended with errors or samples not run): its answers are reused and only what they lack "
        "is asked")] = False
    reuse: Annotated[str | None, Flag(
        "let the cached answers of an earlier run (its id, or 'last') serve this one, when it "
        "asked the same model; the summary counts them", str, "RUN", unset="none")] = None


class PacingOptions(OptionGroup):
    """How fast and how much is sent; kept in the settings as given."""

    concern: ClassVar[Concern] = "run"

    concurrency: Annotated[int, Flag(
        "requests in flight per process", convert.positive_int, "N")] = 8
    progress: Annotated[float, Flag(
        "print a progress line (done, in flight, errors, cached) every S seconds; 0 turns it "
        "off", convert.non_negative_float, "S")] = 30.0
    dry_run: Annotated[bool, Flag(
        "send nothing: say how many model and judge calls the run would make, the cached ones "
        "subtracted")] = False
    deadline: Annotated[float | None, Flag(
        "seconds after the start past which no request is sent and those in flight are "
        "abandoned; the samples still waiting are then not run, so a run never hangs",
        convert.positive_float, "S", unset="none: no deadline")] = None
    budget_requests: Annotated[int | None, Flag(
        "send at most N requests in the whole run (split over xdist workers; cached replies are"
        " free); the rest is reported as not run", convert.positive_int, "N",
        unset="none: no budget")] = None
    budget_tokens: Annotated[int | None, Flag(
        "stop sending once N prompt+completion tokens were used (split over xdist workers)",
        convert.positive_int, "N", unset="none: no budget")] = None
    price: Annotated[tuple[Price, ...], Flag(
        "what tokens cost, in dollars per million prompt (audio included) and completion "
        "tokens, per model id (the model's, the judge's, the baseline model's), comma-separated"
        f", e.g. {PRICE_EXAMPLE}: the dry run, the summary, the JSON report and the page then "
        "say what the run costs", prices, "MODEL=IN/OUT,...", concern="reports",
        unset="none: no cost said")] = ()


class GateOptions(OptionGroup):
    """The gate and its baselines; kept in the settings as given."""

    concern: ClassVar[Concern] = "gate"

    gate_against: Annotated[str | None, Flag(
        "gate against the baseline of this model instead of the evaluated model's own, e.g. a "
        "published reference model in the repository's baselines/", str, "MODEL",
        unset="the evaluated model's own")] = None
    update_baseline: Annotated[bool, Flag(
        "write the baseline file from this run's metrics; over an existing one, the run is "
        "held against it first, the new file records what it replaced, and the run fails "
        "(exit 1) when it fell short of it (a metric failed or an item regressed)")] = False
    update_if_held: Annotated[bool, Flag(
        "with --audiobench-update-baseline, write a benchmark's baseline only over one this "
        "run held against: no metric failed, no item regressed, and some metric told (one too "
        "small to gate held nothing); else its files stay as they were and the run fails "
        "(for a job that updates baselines on a schedule)")] = False
    require_baseline: Annotated[bool, Flag("fail the run when no baseline file exists")] = False
    fail_on_samples: Annotated[bool, Flag(
        "fail the run when any sample fails, even if the gate holds")] = False
    max_errors: Annotated[int | None, Flag(
        "selected samples that may be without a score (errors, skips for missing or empty "
        "audio, not run) before the gate fails; overrides the baseline's max_errors, and "
        "--audiobench-update-baseline writes it there", convert.non_negative_int, "N",
        unset="the baseline's max_errors, else 0")] = None
    tolerance: Annotated[float, Flag(
        "tolerance --audiobench-update-baseline writes for a metric new to the baseline, in "
        "points of a 0-10 score and scaled to each metric's range (the default is 2 points of "
        "an accuracy in percent, 0.02 of a win rate)", convert.non_negative_float, "D")] = 0.2
    confidence: Annotated[float, Flag(
        "the paired gate's confidence: an unchanged model fails the gate in at most 1 - C of "
        "runs, all gated metrics together", convert.confidence, "C")] = 0.95
    gate_small: Annotated[bool, Flag(
        "gate the paired metrics that are too small to be gated by default too: fewer samples "
        "than their minimum n (min_n in the baseline file, else the default of "
        "docs/statistics.md), or too few to detect any drop in their range")] = False
    calibration_share: Annotated[float, Flag(
        "share of a per-sample baseline's answers judged again in every run with today's judge, "
        "to measure how far the judge drifted since the baseline was written (0: none)",
        convert.share, "S")] = 0.25
    confirm_draws: Annotated[int, Flag(
        "rounds of fresh judge draws (both orders, of the new answer and of the baseline's) "
        "a sample is given before its item fails when its first draws suggest a drop, one "
        "after the other, stopping once decided; the metric gate uses the planned draws only "
        "(0: none)", convert.non_negative_int, "N")] = 2
    rejudge_baseline: Annotated[Rejudge, Flag(
        "when today's judge grades every baseline answer again, the gate then pairing against "
        "those scores so that a changed judge cancels out: auto (when the judge is not the "
        "baseline's or its drift is beyond its noise), always, never",
        convert.choice(REJUDGE), "WHEN")] = "auto"


class OutputOptions(OptionGroup):
    """What the run writes besides the terminal summary; kept in the settings as given."""

    concern: ClassVar[Concern] = "reports"

    report: Annotated[Path | None, Flag(
        "write the JSON report of the whole run here", convert.path, "PATH",
        unset="none: not written")] = None
    html: Annotated[Path | None, Flag(
        "write the run as one self-contained HTML page here (charts, every sample, its audio)",
        convert.path, "PATH", unset="none: not written")] = None
    partial_report: Annotated[PartialReport, Flag(
        "where a run that is no release verdict (a rerun of earlier failures, --lf or --sw; "
        "a run stopped early, -x, --maxfail, Ctrl-C, the deadline) writes its JSON report, "
        "page and exports: beside the configured ones (REPORT.partial.json, PAGE.partial.html; "
        "exports not written) or replace them", convert.choice(PARTIAL_REPORT),
        "WHERE")] = "beside"
    html_audio_mb: Annotated[float, Flag(
        "megabytes of audio the HTML page embeds: every clip while they last, those of the "
        "samples that need attention first, then the rest in the page's order; a clip beyond "
        "them is linked by a path relative to the page and plays only beside the data",
        convert.non_negative_float, "MB")] = 20.0


KEPT: tuple[type[OptionGroup], ...] = (AskOptions, CacheOptions, PacingOptions, GateOptions,
                                        OutputOptions)
"""The groups ``Settings`` inherits: their values are settings as they were given."""
RESOLVED: tuple[type[OptionGroup], ...] = (ModelOptions, RequestOptions, JudgeOptions,
                                            SourceOptions)
"""The groups ``resolve.py`` turns into other settings (the endpoints, which inherit
``RequestOptions``, the judge, the data and folders)."""


def groups(catalog: Catalog) -> list[type[OptionGroup]]:
    """The option groups of a pytest start: the core ones, each provider's, each benchmark's."""
    return [*RESOLVED, *KEPT,
            *(spec.options for spec in catalog.providers.values() if spec.options),
            *(spec.options for spec in catalog.specs.values() if spec.options)]


_PATH_FLAGS = ("--audiobench-data", "--audiobench-report", "--audiobench-html",
               "--audiobench-baselines",
               "--audiobench-judge-template", "--audiobench-cache-dir")


def rootdir_hint(config: pytest.Config) -> str | None:
    """pytest picks its rootdir before plugin options are known, so the value of
    ``--audiobench-data PATH`` counts as a test path (pytest-dev/pytest#8846) and can move the
    rootdir, where pytest keeps its cache (``--lf``). Say so when it may have happened."""
    args = list(config.invocation_params.args)
    here = config.invocation_params.dir
    for flag, value in itertools.pairwise(args):
        if flag in _PATH_FLAGS and (here / value).exists() and config.inipath is None:
            return (f"{flag} {value}: pytest may take this path for a test path when choosing "
                    f"its rootdir ({config.rootpath}), where it keeps the --lf cache; write "
                    f"{flag}={value}, or run where a pytest ini file is")
    return None


def start_warnings(config: pytest.Config, catalog: Catalog) -> list[str]:
    """What a person should know at the start: benchmark registrations that could not be
    read (in any run), and a rootdir the path flags may have moved (in a benchmark run)."""
    warnings = [f"pytest-audiobench: {problem}; that benchmark is left out"
                for problem in catalog.problems]
    hint = rootdir_hint(config) if enabled(config) else None
    return [*warnings, hint] if hint else warnings


def refuse_unknown_ini_keys(keys: set[str], catalog: Catalog) -> None:
    """A UsageError naming the ``audiobench_*`` keys of the configuration file that no option
    has, each with the nearest one that does: a misspelt key would leave its default."""
    ours = sorted(key for key in keys if key.startswith("audiobench_"))
    if not ours:
        return
    import difflib

    prefix = "audiobench_"
    known = [option.attr for group in groups(catalog) for option in declared(group)]
    said = []
    for key in ours:
        near = difflib.get_close_matches(key.removeprefix(prefix), known, n=1, cutoff=0.75)
        said.append(f"{key} (did you mean {prefix}{near[0]}?)" if near else key)
    plural = "s are not options" if len(ours) > 1 else " is not an option"
    raise pytest.UsageError(f"ini key{plural} of pytest-audiobench: {', '.join(said)}; "
                            "`pytest --help` lists them under audiobench")


def enabled(config: pytest.Config) -> bool:
    """A benchmark run is requested when a model is named (by flag or ini key)."""
    dest = option(ModelOptions, "model").dest
    return bool(config.getoption(dest) or config.getini(dest))
