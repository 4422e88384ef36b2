"""The options of one run, read once, resolved into the frozen ``Settings``.

Bad combinations are ``pytest.UsageError`` naming the flags and the fix. Paths are taken
relative to the directory pytest was invoked in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from pytest_audiobench.config import declarations
from pytest_audiobench.config.declarations import BenchmarkOptions, Catalog, OptionGroup
from pytest_audiobench.config.frozen import BenchmarkSettings
from pytest_audiobench.config.names import BUILTIN_MODELS, IN_PROCESS, MINI, OFFLINE_JUDGES
from pytest_audiobench.config.options import (
    KEPT,
    JudgeOptions,
    ModelOptions,
    RequestOptions,
    SourceOptions,
)
from pytest_audiobench.config.settings import (
    BuiltinModel,
    EndpointSettings,
    JudgeSettings,
    Sampling,
    Settings,
)
from pytest_audiobench.errors import AudiobenchError

G = TypeVar("G", bound=OptionGroup)


class Reader(Protocol):
    """How one group's values are had: read from pytest, or built from a test's values."""

    def __call__(self, group: type[G]) -> G: ...


@dataclass(frozen=True)
class Given:
    """Every option of one start, by group: those ``resolve`` turns into other settings, the
    ones ``Settings`` keeps as they are, and each benchmark's own."""

    model: ModelOptions
    requests: RequestOptions
    judge: JudgeOptions
    source: SourceOptions
    kept: tuple[OptionGroup, ...]
    own: Mapping[str, BenchmarkOptions]

    @classmethod
    def of(cls, catalog: Catalog, get: Reader) -> Given:
        own = {name: get(spec.options) for name, spec in catalog.specs.items() if spec.options}
        return cls(get(ModelOptions), get(RequestOptions), get(JudgeOptions), get(SourceOptions),
                   tuple(get(group) for group in KEPT), own)

    def kept_values(self) -> dict[str, Any]:
        return {k: v for group in self.kept for k, v in declarations.values_of(group).items()}


def read_settings(config: pytest.Config, catalog: Catalog) -> Settings:
    """Read every option of the run (the core ones and each benchmark's) and resolve them."""
    given = Given.of(catalog, lambda group: declarations.read(group, config, catalog))
    here = config.invocation_params.dir
    # Not config.rootpath: pytest guesses it before plugin options are known, from path
    # arguments that may be our flags' values (pytest-dev/pytest#8846).
    project = config.inipath.parent if config.inipath else here
    return resolve(given, catalog, here=here, project=project)


def resolve(given: Given, catalog: Catalog, *, here: Path, project: Path) -> Settings:
    """Every option of the run into the frozen Settings. A data path is taken from ``here``
    (where pytest was invoked); the default baselines folder is ``project/baselines`` (the ini
    file's folder, else ``here``). Bad combinations are UsageErrors."""
    benchmarks = given.source.benchmark or catalog.defaults
    endpoint, builtin = _model(given.model, given.requests)
    settings = Settings(
        **given.kept_values(),
        model=endpoint.model, endpoint=endpoint, builtin=builtin,
        data=_data(given.source.data, benchmarks, catalog, here),
        judge=_judge(given.judge, endpoint, benchmarks, catalog),
        benchmarks=benchmarks,
        benchmark_settings=_own_settings(given.own, benchmarks),
        cache_dir=given.source.cache_dir or _default_cache_dir(),
        baselines_dir=given.source.baselines or project / "baselines")
    _tasks(settings.tasks, benchmarks, catalog)
    _combinations(settings)
    return settings


def _model(options: ModelOptions,
           requests: RequestOptions) -> tuple[EndpointSettings, BuiltinModel | None]:
    """The model's endpoint, and the built-in model it is when it runs in this process (its
    endpoint then names it: ``cascade+LLM`` when the cascade asks a text model)."""
    endpoint = _endpoint(options, requests)
    builtin = _builtin(options, endpoint)
    if builtin is None:
        return endpoint, None
    shown = endpoint.model if builtin.llm is None else f"{endpoint.model}+{builtin.llm.model}"
    return endpoint.model_copy(update={"url": IN_PROCESS, "model": shown}), builtin


def _endpoint(options: ModelOptions, requests: RequestOptions) -> EndpointSettings:
    model = options.model or ""
    # The random baseline is seeded always: the same picks on every run.
    seed = 0 if model == "random" and options.seed is None else options.seed
    return EndpointSettings(
        **declarations.values_of(requests),
        url=options.api_url or IN_PROCESS, model=model, api_key_env=options.api_key_env,
        api_key_required=declarations.was_given(options, "api_key_env"),
        sampling=Sampling(temperature=options.temperature, max_tokens=options.max_tokens,
                          seed=seed))


def _builtin(options: ModelOptions, endpoint: EndpointSettings) -> BuiltinModel | None:
    """The built-in model the options name, or None for a served model (which needs a URL)."""
    model, api_url = options.model, options.api_url
    llm, whisper = options.cascade_llm, options.whisper
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
        name=model, llm=endpoint.model_copy(update={"model": llm}) if llm else None,
        whisper=whisper)


def _tasks(tasks: tuple[str, ...], benchmarks: tuple[str, ...], catalog: Catalog) -> None:
    theirs = [t for name in benchmarks for t in catalog.specs[name].tasks]
    for task in tasks:
        if task not in theirs:
            raise pytest.UsageError(
                f"--audiobench-tasks {task} is not a task of --audiobench-benchmark "
                f"{','.join(benchmarks)}; its tasks are: " + ", ".join(theirs))


def _judge(options: JudgeOptions, model: EndpointSettings, benchmarks: tuple[str, ...],
           catalog: Catalog) -> JudgeSettings | None:
    """The judge the options name (asked with the model's request limits), or None when no
    selected benchmark needs one."""
    judge_model, judge_url = options.judge_model, options.judge_api_url
    offline = judge_model in OFFLINE_JUDGES and not judge_url
    graded = [name for name in benchmarks if catalog.specs[name].needs_judge]
    if (bool(judge_model) != bool(judge_url) and not offline) or (not judge_model and graded):
        needs = (f"{', '.join(graded)} {'is' if len(graded) == 1 else 'are'} graded by an LLM "
                 "judge" if graded else "a judge is given by both")
        raise pytest.UsageError(
            "give both --audiobench-judge-model NAME and --audiobench-judge-api-url URL (an "
            f"OpenAI-compatible server): {needs}; --audiobench-judge-model "
            f"{' or '.join(OFFLINE_JUDGES)} alone is the offline judge")
    if not judge_model:
        return None
    endpoint = model.model_copy(update={
        "url": IN_PROCESS if offline else str(judge_url), "model": judge_model,
        "api_key_env": options.judge_api_key_env,
        "api_key_required": not offline and declarations.was_given(options, "judge_api_key_env"),
        "sampling": Sampling(temperature=options.judge_temperature,
                             max_tokens=options.judge_max_tokens, seed=options.judge_seed)})
    return JudgeSettings(endpoint=endpoint, offline=offline,
                         max_answer_chars=options.judge_max_answer_chars,
                         repeats=options.judge_repeats)


def _own_settings(own: Mapping[str, BenchmarkOptions],
                  benchmarks: tuple[str, ...]) -> dict[str, BenchmarkSettings]:
    try:
        return {name: own[name].settings() for name in benchmarks if name in own}
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _combinations(settings: Settings) -> None:
    """Options that cannot go together, each a UsageError naming both."""
    if settings.no_cache and (settings.resume or settings.reuse):
        flag = "--audiobench-resume" if settings.resume else "--audiobench-reuse"
        raise pytest.UsageError(f"{flag} takes answers from the response cache, which "
                                "--audiobench-no-cache turns off: give one of them")
    if settings.gate_against and settings.update_baseline:
        raise pytest.UsageError(
            f"--audiobench-gate-against {settings.gate_against} reads another model's baseline; "
            "--audiobench-update-baseline writes the evaluated model's own: give one of them")
    if settings.shard is not None and settings.report is None:
        raise pytest.UsageError("--audiobench-shard needs --audiobench-report PATH: the shard's "
                                "report is what audiobench-merge combines")
    if settings.shard is not None and settings.update_baseline:
        raise pytest.UsageError("--audiobench-update-baseline cannot run on a shard: write the "
                                "baseline from the merge (audiobench-merge --update-baseline)")


def _data(raw: str | None, benchmarks: tuple[str, ...], catalog: Catalog,
          here: Path) -> dict[str, str]:
    """``PATH`` for every benchmark, or ``name=PATH`` pairs; 'mini' and sources stay names."""
    if not raw:
        layouts = "; ".join(f"for {name} {catalog.specs[name].layout}" for name in benchmarks
                            if catalog.specs[name].layout)
        raise pytest.UsageError(
            "--audiobench-data is required: the release root of the benchmark"
            + (f" ({layouts})" if layouts else "") + ", 'mini', a download source, or "
            "name=PATH pairs")
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
    names = (MINI, *catalog.sources)
    return {name: value if value in names else str(here / value)
            for name, value in pairs.items()}


def _default_cache_dir() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(root) / "pytest-audiobench"
