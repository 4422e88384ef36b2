"""The frozen pydantic bases of every settings model: the run's, and a benchmark's own (kept
apart from ``settings.py`` so that the option declarations can name them without a cycle)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class BenchmarkSettings(Frozen):
    """A benchmark's own settings: the base of the model its options resolve into."""


class UnreadSettings(BenchmarkSettings):
    """A benchmark's settings read back from a report, its fields as extras, until the
    benchmark reads them into its own model (``Settings.of``)."""

    model_config = ConfigDict(extra="allow")
