"""The options of one run, read once, resolved into the frozen ``Settings``.

Bad combinations are ``pytest.UsageError`` naming the flags and the fix. Paths are taken
relative to the directory pytest was invoked in.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.config.declarations import BenchmarkOptions, Catalog
from pytest_audiobench.config.names import BUILTIN_MODELS, IN_PROCESS, MINI, OFFLINE_JUDGES
from pytest_audiobench.config.options import CoreOptions
from pytest_audiobench.config.settings import (
    BuiltinModel,
    EndpointSettings,
    JudgeSettings,
    Sampling,
    Settings,
)
from pytest_audiobench.errors import AudiobenchError


def read_settings(config: pytest.Config, catalog: Catalog) -> Settings:
    """Read every option of the run (the core ones and each benchmark's) and resolve them."""
    core = CoreOptions.read(config, catalog)
    own = {name: spec.options.read(config, catalog) for name, spec in catalog.specs.items()
           if spec.options is not None}
    here = config.invocation_params.dir
    # Not config.rootpath: pytest guesses it before plugin options are known, from path
    # arguments that may be our flags' values (pytest-dev/pytest#8846).
    project = config.inipath.parent if config.inipath else here
    return resolve(core, own, catalog, here=here, project=project)


def resolve(core: CoreOptions, own: Mapping[str, BenchmarkOptions], catalog: Catalog, *,
            here: Path, project: Path) -> Settings:
    """Every option of the run into the frozen Settings; ``own`` holds each benchmark's own
    options. Relative paths are taken from ``here`` (where pytest was invoked); the default
    baselines folder is ``project/baselines`` (the ini file's folder, else ``here``). Bad
    combinations are UsageErrors."""
    benchmarks = core.benchmark
    model = core.model or ""
    endpoint = EndpointSettings(
        url=core.api_url or IN_PROCESS,
        model=model,
        api_key_env=core.api_key_env,
        api_key_required=core.given(CoreOptions.api_key_env),
        timeout=core.timeout,
        retries=core.retries,
        retry_wait=core.retry_wait,
        max_connection_failures=core.max_connection_failures,
        sampling=Sampling(temperature=core.temperature, max_tokens=core.max_tokens,
                          # The random baseline is seeded always: the same picks on every run.
                          seed=0 if model == "random" and core.seed is None else core.seed),
    )
    builtin = _builtin(core, endpoint, here)
    if builtin is not None:
        shown = model if builtin.llm is None else f"{model}+{builtin.llm.model}"
        endpoint = endpoint.model_copy(update={"url": IN_PROCESS, "model": shown})
    data = _data(core.data, benchmarks, catalog, here)
    tasks = _tasks(core.tasks or (), benchmarks, catalog)
    judge = _judge(core, endpoint, benchmarks, catalog)
    report_path = here / core.report if core.report else None
    if core.no_cache and (core.resume or core.reuse):
        flag = "--audiobench-resume" if core.resume else "--audiobench-reuse"
        raise pytest.UsageError(f"{flag} takes answers from the response cache, which "
                                "--audiobench-no-cache turns off: give one of them")
    return Settings(
        model=endpoint.model,
        model_revision=core.model_revision,
        endpoint=endpoint,
        builtin=builtin,
        judge=judge,
        benchmarks=benchmarks,
        benchmark_settings=_own_settings(own, benchmarks, here),
        data=data,
        cache_dir=here / (core.cache_dir or _default_cache_dir()),
        cache=not core.no_cache,
        clear_cache=core.clear_cache,
        resume=core.resume,
        reuse=core.reuse,
        tasks=tasks,
        limit=core.limit,
        runs=core.runs,
        audio_mode=core.audio_mode,
        max_audio_seconds=core.max_audio_seconds,
        concurrency=core.concurrency,
        deadline=core.deadline,
        dry_run=core.dry_run,
        progress=core.progress,
        budget_requests=core.budget_requests,
        budget_tokens=core.budget_tokens,
        baselines_dir=here / core.baselines if core.baselines else project / "baselines",
        gate_against=_gate_against(core.gate_against, core.update_baseline),
        update_baseline=core.update_baseline,
        require_baseline=core.require_baseline,
        fail_on_samples=core.fail_on_samples,
        max_errors=core.max_errors,
        tolerance=core.tolerance,
        confidence=core.confidence,
        gate_small=core.gate_small,
        report_path=report_path,
        html_path=here / core.html if core.html else None,
        html_audio_mb=core.html_audio_mb,
        shard=_sharding(core.shard, report_path, core.update_baseline),
    )


def _builtin(core: CoreOptions, endpoint: EndpointSettings, here: Path) -> BuiltinModel | None:
    """The built-in model the options name, or None for a served model (which needs a URL)."""
    model, api_url, llm, whisper = core.model, core.api_url, core.cascade_llm, core.whisper
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
        whisper=here / whisper if whisper else None)


def _tasks(tasks: tuple[str, ...], benchmarks: tuple[str, ...],
           catalog: Catalog) -> tuple[str, ...]:
    theirs = [t for name in benchmarks for t in catalog.specs[name].tasks]
    for task in tasks:
        if task not in theirs:
            raise pytest.UsageError(
                f"--audiobench-tasks {task} is not a task of --audiobench-benchmark "
                f"{','.join(benchmarks)}; its tasks are: " + ", ".join(theirs))
    return tasks


def _judge(core: CoreOptions, model_endpoint: EndpointSettings, benchmarks: tuple[str, ...],
           catalog: Catalog) -> JudgeSettings | None:
    judge_model, judge_url = core.judge_model, core.judge_api_url
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
    sampling = Sampling(temperature=core.judge_temperature, max_tokens=core.judge_max_tokens,
                        seed=core.judge_seed)
    return JudgeSettings(
        endpoint=EndpointSettings(
            url=IN_PROCESS if offline else str(judge_url),
            model=judge_model,
            api_key_env=core.judge_api_key_env,
            api_key_required=not offline and core.given(CoreOptions.judge_api_key_env),
            timeout=model_endpoint.timeout,
            retries=model_endpoint.retries,
            retry_wait=model_endpoint.retry_wait,
            max_connection_failures=model_endpoint.max_connection_failures,
            sampling=sampling),
        offline=offline, max_answer_chars=core.judge_max_answer_chars,
        repeats=core.judge_repeats)


def _own_settings(own: Mapping[str, BenchmarkOptions], benchmarks: tuple[str, ...],
                  here: Path) -> dict[str, dict[str, Any]]:
    try:
        return {name: own[name].settings(here) for name in benchmarks if name in own}
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _gate_against(model: str | None, update: bool) -> str | None:
    if model and update:
        raise pytest.UsageError(
            f"--audiobench-gate-against {model} reads another model's baseline; "
            "--audiobench-update-baseline writes the evaluated model's own: give one of them")
    return model


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
