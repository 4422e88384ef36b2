"""The options of one run, read once, resolved into the frozen ``Settings``.

Bad combinations are ``pytest.UsageError`` naming the flags and the fix. Paths are taken
relative to the directory pytest was invoked in.
"""

from __future__ import annotations

import ipaddress
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest

from pytest_audiobench.config import convert, declarations
from pytest_audiobench.config.declarations import (
    BenchmarkOptions,
    BenchmarkSpec,
    Catalog,
    OptionGroup,
    ProviderOptions,
    ProviderSpec,
    Role,
)
from pytest_audiobench.config.frozen import OwnSettings
from pytest_audiobench.config.headers import digest, read_headers
from pytest_audiobench.config.names import ALL_BENCHMARKS, IN_PROCESS, MINI
from pytest_audiobench.config.options import (
    KEPT,
    JudgeOptions,
    ModelOptions,
    RequestOptions,
    SourceOptions,
)
from pytest_audiobench.config.settings import (
    EndpointSettings,
    Headers,
    JudgeSettings,
    ProviderChoice,
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
    ones ``Settings`` keeps as they are, each benchmark's own and each provider's own."""

    model: ModelOptions
    requests: RequestOptions
    judge: JudgeOptions
    source: SourceOptions
    kept: tuple[OptionGroup, ...]
    own: Mapping[str, BenchmarkOptions]
    providers: Mapping[str, ProviderOptions]

    @classmethod
    def of(cls, catalog: Catalog, get: Reader) -> Given:
        own = {name: get(spec.options) for name, spec in catalog.specs.items() if spec.options}
        providers = {name: get(spec.options) for name, spec in catalog.providers.items()
                     if spec.options}
        return cls(get(ModelOptions), get(RequestOptions), get(JudgeOptions), get(SourceOptions),
                   tuple(get(group) for group in KEPT), own, providers)

    def kept_values(self) -> dict[str, Any]:
        return {k: v for group in self.kept for k, v in declarations.values_of(group).items()}


def read_settings(config: pytest.Config, catalog: Catalog) -> Settings:
    """Read every option of the run (the core ones and each benchmark's) and resolve them."""
    given = Given.of(catalog, lambda group: declarations.read(group, config))
    here = config.invocation_params.dir
    # Not config.rootpath: pytest guesses it before plugin options are known, from path
    # arguments that may be our flags' values (pytest-dev/pytest#8846).
    project = config.inipath.parent if config.inipath else here
    return resolve(given, catalog, here=here, project=project)


def resolve(given: Given, catalog: Catalog, *, here: Path, project: Path) -> Settings:
    """Every option of the run into the frozen Settings. A data path is taken from ``here``
    (where pytest was invoked); the default baselines folder is ``project/baselines`` (the ini
    file's folder, else ``here``). Bad combinations are UsageErrors."""
    benchmarks = _benchmarks(given.source.benchmark, catalog)
    endpoint, provider = _model(given, catalog)
    settings = Settings(
        **given.kept_values(),
        model=endpoint.model, endpoint=endpoint, model_provider=provider,
        baseline_endpoint=_baseline_endpoint(given.model, endpoint, catalog),
        data=_data(given.source.data, benchmarks, catalog, here),
        judge=_judge(given, endpoint, benchmarks, catalog),
        benchmarks=benchmarks,
        benchmark_settings=_own_settings(given.own, benchmarks),
        cache_dir=given.source.cache_dir or here / _default_cache_dir(),
        baselines_dir=given.source.baselines or project / "baselines")
    _tasks(settings.tasks, benchmarks, catalog)
    _combinations(settings)
    _priced(settings)
    return settings


def _model(given: Given, catalog: Catalog) -> tuple[EndpointSettings, ProviderChoice | None]:
    """The model's endpoint, and its provider when it runs in this process (the endpoint
    then names it: ``cascade+LLM`` when the cascade asks a text model at the URL)."""
    options = given.model
    name = options.model or ""
    spec = catalog.in_process("model").get(name)
    _others_unused(given, catalog, "model", spec, name)
    endpoint = _endpoint(options, given.requests, spec)
    if spec is not None and options.extra_body is not None and not options.api_url:
        raise pytest.UsageError(f"--audiobench-extra-body goes into the requests to a served "
                                f"model; --audiobench-model {name} runs in this process and "
                                "sends none")
    if spec is None:
        if not options.api_url:
            raise pytest.UsageError(
                f"--audiobench-model {name} needs --audiobench-api-url URL: the base URL of "
                "the OpenAI-compatible server that serves it (e.g. http://localhost:8000/v1); "
                f"the models that run here are: {', '.join(catalog.in_process('model'))}")
        return endpoint, None
    own_options = given.providers.get(spec.name)
    served = _served(options, spec, own_options)
    provider = ProviderChoice(
        name=spec.name, own=_provider_settings(own_options),
        served=None if served is None else endpoint.model_copy(update={"model": served}))
    shown = f"{name}+{served}" if served else name
    return endpoint.model_copy(update={"url": IN_PROCESS, "model": shown}), provider


def _served(options: ModelOptions, spec: ProviderSpec,
            own: ProviderOptions | None) -> str | None:
    """The model at ``--audiobench-api-url`` the provider asks (given with that URL only)."""
    attr = None if own is None else own.served_option
    if own is None or attr is None:
        if options.api_url:
            raise pytest.UsageError(f"--audiobench-model {spec.name} is {spec.about}: it takes "
                                    "no --audiobench-api-url (it runs in this process)")
        return None
    served: str | None = getattr(own, attr)
    if bool(served) != bool(options.api_url):
        raise pytest.UsageError(
            f"--audiobench-model {spec.name} asks a served model only when given both "
            f"{declarations.option(type(own), attr).flag} NAME and --audiobench-api-url URL (the "
            "server of that model); give both or neither")
    return served


def _endpoint(options: ModelOptions, requests: RequestOptions,
              spec: ProviderSpec | None) -> EndpointSettings:
    seed = spec.default_seed if spec and options.seed is None else options.seed
    return EndpointSettings(
        **declarations.values_of(requests),
        url=options.api_url or IN_PROCESS, model=options.model or "",
        api_key_env=options.api_key_env,
        api_key_required=_key_required(options, "api_key_env", options.api_url),
        sampling=Sampling(temperature=options.temperature, max_tokens=options.max_tokens,
                          seed=seed),
        extra_body=options.extra_body or {},
        headers=_headers(options.headers_env, options.api_url))


def _headers(env: str, url: str | None) -> Headers | None:
    """The extra headers the variable ``env`` gives an endpoint at ``url``, described (none
    for one that runs in this process); a UsageError naming the variable when they are
    unusable."""
    if not url:
        return None
    try:
        found = read_headers(env)
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc
    return Headers(env=env, names=tuple(sorted(found)), sha256=digest(found))


def _key_required(options: OptionGroup, attr: str, url: str | None) -> bool:
    """Whether the key in the variable that ``attr`` names must be set: when that variable
    was named, or ``url`` is a hosted server (HTTPS, not on this machine), so that an unset
    key is said before any request rather than by a refusal (or a reset connection)."""
    if declarations.was_given(options, attr):
        return True
    parts = urllib.parse.urlsplit(url or "")
    if parts.scheme != "https" or not parts.hostname:
        return False
    try:
        return not ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return parts.hostname != "localhost"


def _baseline_endpoint(options: ModelOptions, endpoint: EndpointSettings,
           catalog: Catalog) -> EndpointSettings | None:
    """The live baseline model of a head-to-head run: a served model, asked with the model's
    sampling and request limits at its own URL and key."""
    name, url = options.baseline_model, options.baseline_api_url
    if name is None:
        if url or options.baseline_extra_body is not None:
            flag = ("--audiobench-baseline-api-url names the server" if url else
                    "--audiobench-baseline-extra-body goes into the requests")
            raise pytest.UsageError(f"{flag} of --audiobench-baseline-model NAME, which is not "
                                    "given")
        return None
    if name in catalog.in_process("model"):
        raise pytest.UsageError(f"--audiobench-baseline-model {name}: a head-to-head baseline is "
                                "a served model; run it at a URL (--audiobench-baseline-api-url)")
    if not url:
        raise pytest.UsageError(f"--audiobench-baseline-model {name} needs "
                                "--audiobench-baseline-api-url URL: the base URL of the server "
                                "that serves it")
    body = endpoint.extra_body if options.baseline_extra_body is None \
        else options.baseline_extra_body
    return endpoint.model_copy(update={
        "url": url, "model": name, "role": "baseline model",
        "api_key_env": options.baseline_api_key_env,
        "api_key_required": _key_required(options, "baseline_api_key_env", url),
        "sampling": endpoint.sampling.model_copy(update={"seed": options.seed}),
        "extra_body": body, "headers": _headers(options.baseline_headers_env, url)})


def _provider_settings(options: ProviderOptions | None) -> OwnSettings | None:
    try:
        return None if options is None else options.settings()
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _others_unused(given: Given, catalog: Catalog, role: Role, chosen: ProviderSpec | None,
                   named: str | None) -> None:
    """A provider's own options given while another of its role (or a served model) was
    named: a UsageError naming the flag."""
    flag = _ROLE_FLAGS[role]
    for name, options in given.providers.items():
        spec = catalog.providers[name]
        given_here = [option.flag for option in declarations.declared(type(options))
                      if declarations.was_given(options, option.attr)]
        if spec is not chosen and spec.role == role and given_here:
            raise pytest.UsageError(f"{given_here[0]} applies only to {flag} {name}, not to "
                                    f"{named}")


_ROLE_FLAGS: dict[Role, str] = {"model": declarations.option(ModelOptions, "model").flag,
                                "judge": declarations.option(JudgeOptions, "judge_model").flag}


def _benchmarks(given: tuple[str, ...] | None, catalog: Catalog) -> tuple[str, ...]:
    """The benchmarks ``--audiobench-benchmark`` names; ``all`` alone is every one registered
    (built in, installed, or a conftest's), so that a job runs a new one without an edit."""
    if given is not None and ALL_BENCHMARKS in given:
        if len(given) > 1:
            raise pytest.UsageError(f"argument --audiobench-benchmark: '{ALL_BENCHMARKS}' names "
                                    "every benchmark; give it alone or name each benchmark")
        return catalog.names
    return _known(given, catalog.names, "benchmark", "--audiobench-benchmark") \
        or catalog.defaults


def _known(given: tuple[str, ...] | None, accepted: tuple[str, ...], what: str,
           flag: str) -> tuple[str, ...] | None:
    """``given``, when every name is one ``accepted`` has; else a UsageError naming the flag,
    as argparse words a bad value."""
    problem = None if given is None else convert.unknown_names(given, accepted, what)
    if problem is not None:
        raise pytest.UsageError(f"argument {flag}: {problem}")
    return given


def _tasks(tasks: tuple[str, ...], benchmarks: tuple[str, ...], catalog: Catalog) -> None:
    """Every task given is one of the selected benchmarks'; a benchmark whose release names
    its tasks takes any, checked once its data is read."""
    if any(not catalog.specs[name].tasks for name in benchmarks):
        return
    theirs = [t for name in benchmarks for t in catalog.specs[name].tasks]
    for task in tasks:
        if task not in theirs:
            raise pytest.UsageError(
                f"--audiobench-tasks {task} is not a task of --audiobench-benchmark "
                f"{','.join(benchmarks)}; its tasks are: " + ", ".join(theirs))


def _judged(spec: BenchmarkSpec, tasks: tuple[str, ...]) -> bool:
    """Whether a run of ``spec`` with ``tasks`` selected (none: every task) has answers a
    judge grades."""
    if not spec.needs_judge or not spec.judged_tasks:
        return spec.needs_judge
    return bool(set(declarations.selected(spec.tasks, tasks)) & set(spec.judged_tasks))


def _judge(given: Given, model: EndpointSettings, benchmarks: tuple[str, ...],
           catalog: Catalog) -> JudgeSettings | None:
    """The judge the options name (asked with the model's request limits), or None when no
    selected benchmark needs one."""
    options = given.judge
    judge_model, judge_url = options.judge_model, options.judge_api_url
    offline = catalog.in_process("judge")
    spec = None if judge_url else offline.get(judge_model or "")
    _others_unused(given, catalog, "judge", spec, judge_model)
    tasks = given.kept_values().get("tasks", ())
    graded = [name for name in benchmarks if _judged(catalog.specs[name], tasks)]
    if (bool(judge_model) != bool(judge_url) and not spec) or (not judge_model and graded):
        needs = (f"{', '.join(graded)} {'is' if len(graded) == 1 else 'are'} graded by an LLM "
                 "judge" if graded else "a judge is given by both")
        raise pytest.UsageError(
            "give both --audiobench-judge-model NAME and --audiobench-judge-api-url URL (an "
            f"OpenAI-compatible server): {needs}; --audiobench-judge-model "
            f"{' or '.join(offline)} alone is the offline judge")
    if options.judge_extra_body is not None and (not judge_model or spec is not None):
        said = (f"--audiobench-judge-model {judge_model} runs in this process and sends none"
                if judge_model else "no judge is given")
        raise pytest.UsageError("--audiobench-judge-extra-body goes into the requests to a "
                                f"served judge; {said}")
    if not judge_model:
        return None
    endpoint = model.model_copy(update={
        "url": IN_PROCESS if spec else str(judge_url), "model": judge_model, "role": "judge",
        "extra_body": options.judge_extra_body or {},
        "headers": None if spec else _headers(options.judge_headers_env, judge_url),
        "api_key_env": options.judge_api_key_env,
        "api_key_required": not spec and _key_required(options, "judge_api_key_env",
                                                       judge_url),
        "sampling": Sampling(temperature=options.judge_temperature,
                             max_tokens=options.judge_max_tokens, seed=options.judge_seed)})
    provider = None if spec is None else ProviderChoice(
        name=spec.name, own=_provider_settings(given.providers.get(spec.name)), served=None)
    return JudgeSettings(endpoint=endpoint, provider=provider,
                         max_answer_chars=options.judge_max_answer_chars,
                         repeats=options.judge_repeats)


def _own_settings(own: Mapping[str, BenchmarkOptions],
                  benchmarks: tuple[str, ...]) -> dict[str, OwnSettings]:
    try:
        return {name: own[name].settings() for name in benchmarks if name in own}
    except AudiobenchError as exc:
        raise pytest.UsageError(str(exc)) from exc


def _priced(settings: Settings) -> None:
    """Every price names a model this run asks: a misspelt id would leave it unpriced."""
    asked = settings.asked_models()
    stray = [price.model for price in settings.price if price.model not in asked]
    if stray:
        said = ", ".join(f"{role} {name}" for name, role in asked.items())
        raise pytest.UsageError(f"--audiobench-price: {', '.join(stray)} is not a model this run "
                                f"asks (it asks: {said})")


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
    live = settings.baseline_endpoint
    if live is not None and (settings.update_baseline or settings.gate_against):
        other = ("--audiobench-update-baseline" if settings.update_baseline
                 else f"--audiobench-gate-against {settings.gate_against}")
        raise pytest.UsageError(f"--audiobench-baseline-model {live.model} holds the model "
                                f"against a live model, with no baseline file; {other} is "
                                "about a baseline file: give one of them")


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
