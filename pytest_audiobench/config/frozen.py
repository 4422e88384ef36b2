"""The frozen pydantic bases of every settings model: the run's, and the own settings of a
benchmark or a provider (kept apart from ``settings.py`` so that the option declarations can
name them without a cycle)."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class OwnSettings(Frozen):
    """The settings a benchmark's or a provider's own options resolve into: the base of its
    own model."""


class UnreadSettings(OwnSettings):
    """Own settings read back from a report, their fields as extras, until their benchmark
    reads them into its own model (``read_own``)."""

    model_config = ConfigDict(extra="allow")


OwnT = TypeVar("OwnT", bound=OwnSettings)


def read_own(own: OwnSettings | None, model: type[OwnT]) -> OwnT:
    """``own`` as ``model``: itself when it is one, else its fields read into it (its defaults
    when there are none)."""
    if isinstance(own, model):
        return own
    return model.model_validate({} if own is None else own.model_dump())


def unread(value: object) -> object:
    """A field validator's step: own settings that come as a JSON object (from a report)
    become ``UnreadSettings``."""
    return UnreadSettings(**value) if isinstance(value, dict) else value
