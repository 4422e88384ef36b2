"""The frozen settings of one run, resolved once from the options (``resolve.py``).

A setting is stated once: the options a run keeps as given are ``Settings``' fields because it
inherits their groups (``options.KEPT``: type, default and help in ``options.py``); the fields
written here are what ``resolve.py`` makes of the other options (the endpoints, the judge, the
data, the folders). A benchmark's own settings are its own model, a ``OwnSettings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    Field,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from pytest_audiobench.config.declarations import option
from pytest_audiobench.config.frozen import Frozen, OwnSettings, OwnT, read_own, unread
from pytest_audiobench.config.options import (
    AskOptions,
    CacheOptions,
    GateOptions,
    JudgeOptions,
    ModelOptions,
    OutputOptions,
    PacingOptions,
    RequestOptions,
)
from pytest_audiobench.config.prices import Price


class Sampling(Frozen):
    """Sampling settings sent with every request of one endpoint; None means not sent."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    top_p: float | None = None
    """Nucleus sampling; only a protocol that asks for it sets it (VoiceBench's judge)."""

    @model_serializer(mode="wrap")
    def _unset_top_p_unsaid(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # Records, baselines and reports written before top_p existed stay byte for byte.
        dumped: dict[str, Any] = handler(self)
        if dumped.get("top_p") is None:
            dumped.pop("top_p", None)
        return dumped

    def drawn(self, offset: int) -> Sampling:
        """The sampling of draw ``offset`` (an inference run, a judge's retry or fresh draw):
        the seed, when one is set, moved on by the offset. The one place that says so."""
        return self if self.seed is None else self.model_copy(update={"seed": self.seed + offset})

    def sent(self) -> dict[str, Any]:
        """The request body's sampling fields (those set)."""
        return self.model_dump(exclude_none=True)


EndpointRole = Literal["model", "judge", "baseline model"]


class Headers(Frozen):
    """The extra HTTP headers an endpoint sends, described, never held: the environment
    variable that gives them (``config/headers.py``), their names and a hash of their values."""

    env: str
    names: tuple[str, ...] = ()
    sha256: str | None = None
    """None when the variable gives none."""


class EndpointSettings(Frozen, RequestOptions):
    """One OpenAI-compatible endpoint and the model asked there, with the request options
    (timeout, retries, backoff, connection failures) of the group it inherits."""

    url: str
    model: str
    role: EndpointRole = "model"
    """Whom the run asks there: a model's empty answer is its answer, a judge's a failure."""
    api_key_env: str
    """Name of the environment variable holding the key; the key itself is never stored here."""
    api_key_required: bool
    """When the variable must be set: it was named explicitly, or the server is a hosted one
    (HTTPS away from this machine), which asks for a key; a local server needs none."""
    sampling: Sampling
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Merged into every request's body (--audiobench-extra-body and its judge's and
    baseline model's): what vLLM takes beyond OpenAI's parameters."""
    headers: Headers | None = None
    """None for a model or judge that runs in this process."""

    @property
    def named(self) -> str:
        """How a message names it: whom the run asks there, and the flag of its URL."""
        return f"the {self.role} {self.model} at {self.url} ({URL_FLAGS[self.role]})"


URL_FLAGS: dict[EndpointRole, str] = {
    "model": option(ModelOptions, "api_url").flag,
    "judge": option(JudgeOptions, "judge_api_url").flag,
    "baseline model": option(ModelOptions, "baseline_api_url").flag}
"""The flag that gives each role's URL, for the messages that name an endpoint."""


class ProviderChoice(Frozen):
    """A model or judge that answers in this process: its provider (by the name its spec
    gives it) and what the provider's own options resolved into."""

    name: str
    own: SerializeAsAny[OwnSettings] | None
    """None when the provider declares no options."""
    served: EndpointSettings | None
    """The model at ``--audiobench-api-url`` that it asks (the cascade's text model)."""

    _unread = field_validator("own", mode="before")(unread)


class JudgeSettings(Frozen):
    """The judge: an endpoint, or a judge that runs in this process."""

    endpoint: EndpointSettings
    provider: ProviderChoice | None
    """Set for an offline judge (one that runs in this process, e.g. ``overlap``)."""
    max_answer_chars: int
    """A model's answer longer than this is cut there before the judge sees it (noted)."""
    repeats: int
    """Draws of each judge pass, averaged (1: the official protocol)."""

    @property
    def offline(self) -> bool:
        """Judged in this process: no server, no key, no retries needed."""
        return self.provider is not None


class Settings(Frozen, AskOptions, CacheOptions, PacingOptions, GateOptions, OutputOptions):
    """Everything one benchmark run depends on: the options of the groups it inherits as they
    were given (paths made absolute), and what the others resolve into."""

    model: str
    """The model as the summary names it (a cascade with its text model: ``cascade+NAME``)."""
    endpoint: EndpointSettings
    model_provider: ProviderChoice | None
    """Set when the model runs in this process; ``endpoint`` then names it only."""
    baseline_endpoint: EndpointSettings | None = None
    """The live baseline model the model is held against head to head
    (--audiobench-baseline-model): asked like the model, with its sampling and limits."""
    judge: JudgeSettings | None
    """None when no judge was given (allowed when no selected benchmark needs one)."""
    benchmarks: tuple[str, ...]
    benchmark_settings: dict[str, SerializeAsAny[OwnSettings]]
    """Per selected benchmark that declares options, its own settings."""
    data: dict[str, str]
    """Per benchmark: a release root, 'mini', or a download source it names."""
    cache_dir: Path
    """Where downloads, the response cache and the run records are kept."""
    baselines_dir: Path

    @field_validator("benchmark_settings", mode="before")
    @classmethod
    def _read_back(cls, value: object) -> object:
        if not isinstance(value, dict):
            return value
        return {name: unread(own) for name, own in value.items()}

    @property
    def cache(self) -> bool:
        """The response cache (and the run records) are in use: not ``--audiobench-no-cache``."""
        return not self.no_cache

    def asked_models(self) -> dict[str, str]:
        """The model ids whose tokens the run counts, and their role: the model (as the summary
        names it), the live baseline model, the judge (one id may have two roles)."""
        live = self.baseline_endpoint
        roles = [("model", self.model), ("baseline model", live.model if live else None),
                 ("judge", self.judge.endpoint.model if self.judge else None)]
        asked: dict[str, str] = {}
        for role, name in roles:
            if name is not None:
                asked[name] = f"{asked[name]} and {role}" if name in asked else role
        return asked

    def free_models(self) -> set[str]:
        """The model ids that run in this process and ask no server: they cost nothing."""
        free = set()
        if self.model_provider is not None and self.model_provider.served is None:
            free.add(self.model)
        if self.judge is not None and self.judge.offline:
            free.add(self.judge.endpoint.model)
        return free

    def price_of(self, model: str) -> Price | None:
        """``model``'s price (--audiobench-price), None when none was given."""
        return next((price for price in self.price if price.model == model), None)

    def of(self, benchmark: str, model: type[OwnT]) -> OwnT:
        """``benchmark``'s own settings as its ``model`` (its defaults when it has none)."""
        return read_own(self.benchmark_settings.get(benchmark), model)
