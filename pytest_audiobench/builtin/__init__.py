"""Models and a judge that run in this process, behind the same ``Endpoint`` (and response
cache) as a served model: ``cascade``, ``random`` and the offline judge ``overlap``."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_audiobench.config.settings import BuiltinModel
    from pytest_audiobench.transport.cache import ResponseCache
    from pytest_audiobench.transport.ledger import Ledger
    from pytest_audiobench.transport.pacing import Pacer
    from pytest_audiobench.transport.types import InProcess


def build(spec: BuiltinModel, pacer: Pacer, cache: ResponseCache | None,
          ledger: Ledger) -> InProcess:
    """The in-process model ``spec`` names; the cascade's text model shares the run's pacer,
    cache and ledger."""
    from pytest_audiobench.builtin.cascade import Cascade
    from pytest_audiobench.builtin.random_choice import RandomChoice
    from pytest_audiobench.builtin.speech import Transcriber
    from pytest_audiobench.transport.endpoint import Endpoint

    if spec.name == "random":
        return RandomChoice()
    llm = None if spec.llm is None else Endpoint(spec.llm, pacer, cache, ledger=ledger)
    return Cascade(Transcriber(spec.whisper), llm)


def offline_judge(name: str) -> InProcess:
    """The offline judge called ``name`` (the names are ``config.names.OFFLINE_JUDGES``)."""
    from pytest_audiobench.builtin.overlap import OverlapJudge

    if name != OverlapJudge.name:
        raise ValueError(f"no offline judge is called {name!r}")
    return OverlapJudge()
