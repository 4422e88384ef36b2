"""pytest-audiobench: audio-language-model benchmarks as a pytest release gate (the built-in ones
are listed by ``benchmarks.registry.built_in()``).

The package root is the public API a third-party benchmark or provider is written against
(docs/extending.md shows both); every name in ``__all__`` is kept across minor releases, and
nothing else is promised. A benchmark package needs, in its cheap spec module:
``BenchmarkSpec`` (registered in the ``pytest_audiobench.benchmarks`` entry-point group),
``BenchmarkOptions`` and ``Flag`` for its own flags, ``convert`` for their converters. In its
benchmark module: ``Benchmark`` (its abstract methods are required, the rest have defaults),
the ``Release`` it loads (``read_json_array`` reads a meta file that is one JSON array,
``validated`` checks a record against a pydantic model in one line, ``inside_root`` an audio
path;
``fetch_dataset`` downloads from ModelScope), the ``Sample``, ``Grade`` (with the ``Usage``
of its judge calls), ``ModelAnswer`` and ``SampleRecord`` it reads and returns, the ``Runtime``
it asks through, ``ask_until_parsed`` for a judge (``fence_for`` and ``shown`` to show it a
model's answer as data, cut when too long), ``Metric`` for its numbers (``Tally`` to fold them
record by record), ``SampleLine`` and ``Linear`` for the paired gate (``choice_line`` and
``choice_linear`` make them for a multiple-choice benchmark, ``percent`` its accuracies),
``SampleView``, ``Detail`` and ``Choice`` for the page, ``Settings`` and the base of its own
settings ``OwnSettings`` (``read_own`` reads them back), and the errors. A multiple-choice
benchmark subclasses ``ChoiceBenchmark`` instead, with a ``MatchedGrade`` (the official
token-set rule and the strict one) or a ``ChoiceGrade`` of its own, and gets the grading,
numbers, gate lines, failure report, page and export from it; its spec offers the matchers
by their names, ``MATCHERS``; ``official_letter`` and ``strict_choice`` read a lettered
option from a reply. ``Verdict``, ``ChoiceVerdict`` and ``MatchedVerdict`` are the old names
of ``Grade``, ``ChoiceGrade`` and ``MatchedGrade`` (the same classes), kept for the
benchmarks written against them. A provider (a model or judge
that answers in this process) needs, in its cheap spec module: ``ProviderSpec`` (registered in
the ``pytest_audiobench.providers`` entry-point group) and ``ProviderOptions`` for its own
flags; in its module: the ``ProviderSetup`` it is built with, the ``Completion`` it answers
with (it is a ``Provider``), ``OwnSettings`` and ``read_own``.

Names are imported on first use, so that ``import pytest_audiobench`` (which pytest does at
every start) loads nothing but the errors.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pytest_audiobench.errors import (
    AudiobenchError,
    AudiobenchWarning,
    AudioError,
    BaselineError,
    DataError,
    DownloadError,
    EmptyAudio,
    EndpointError,
    JudgeError,
    NotRun,
)

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.base import (
        Benchmark,
        Gating,
        JudgeUse,
        Release,
        Runtime,
        Tally,
    )
    from pytest_audiobench.benchmarks.choice.base import (
        ChoiceBenchmark,
        ChoiceGrade,
        ChoiceVerdict,
        MatchedGrade,
        MatchedVerdict,
    )
    from pytest_audiobench.benchmarks.choice.gating import choice_line, choice_linear, percent
    from pytest_audiobench.benchmarks.choice.letters import official_letter, strict_choice
    from pytest_audiobench.benchmarks.choice.names import MATCHERS
    from pytest_audiobench.benchmarks.judging import ask_until_parsed, fence_for, shown
    from pytest_audiobench.benchmarks.metafile import inside_root, read_json_array, validated
    from pytest_audiobench.benchmarks.sample import Sample
    from pytest_audiobench.builtin.words import overlap_f1
    from pytest_audiobench.config import convert
    from pytest_audiobench.config.declarations import (
        BenchmarkOptions,
        BenchmarkSpec,
        Flag,
        ProviderOptions,
        ProviderSpec,
    )
    from pytest_audiobench.config.frozen import OwnSettings, read_own
    from pytest_audiobench.config.settings import Settings
    from pytest_audiobench.hub.modelscope import fetch_dataset
    from pytest_audiobench.outcome.lines import Linear, SampleLine
    from pytest_audiobench.outcome.metrics import Metric
    from pytest_audiobench.outcome.records import Grade, ModelAnswer, SampleRecord, Verdict
    from pytest_audiobench.outcome.view import Choice, Detail, SampleView
    from pytest_audiobench.transport.endpoint import ProviderSetup
    from pytest_audiobench.transport.types import Completion, Provider, Usage

__version__ = "0.1.0"

_LAZY = {
    "Benchmark": "pytest_audiobench.benchmarks.base",
    "Release": "pytest_audiobench.benchmarks.base",
    "Runtime": "pytest_audiobench.benchmarks.base",
    "Tally": "pytest_audiobench.benchmarks.base",
    "overlap_f1": "pytest_audiobench.builtin.words",
    "JudgeUse": "pytest_audiobench.benchmarks.base",
    "Gating": "pytest_audiobench.benchmarks.base",
    "choice_line": "pytest_audiobench.benchmarks.choice.gating",
    "choice_linear": "pytest_audiobench.benchmarks.choice.gating",
    "official_letter": "pytest_audiobench.benchmarks.choice.letters",
    "strict_choice": "pytest_audiobench.benchmarks.choice.letters",
    "percent": "pytest_audiobench.benchmarks.choice.gating",
    "ask_until_parsed": "pytest_audiobench.benchmarks.judging",
    "fence_for": "pytest_audiobench.benchmarks.judging",
    "shown": "pytest_audiobench.benchmarks.judging",
    "read_json_array": "pytest_audiobench.benchmarks.metafile",
    "validated": "pytest_audiobench.benchmarks.metafile",
    "inside_root": "pytest_audiobench.benchmarks.metafile",
    "MATCHERS": "pytest_audiobench.benchmarks.choice.names",
    "ChoiceBenchmark": "pytest_audiobench.benchmarks.choice.base",
    "ChoiceGrade": "pytest_audiobench.benchmarks.choice.base",
    "MatchedGrade": "pytest_audiobench.benchmarks.choice.base",
    "ChoiceVerdict": "pytest_audiobench.benchmarks.choice.base",
    "MatchedVerdict": "pytest_audiobench.benchmarks.choice.base",
    "Sample": "pytest_audiobench.benchmarks.sample",
    "BenchmarkOptions": "pytest_audiobench.config.declarations",
    "BenchmarkSpec": "pytest_audiobench.config.declarations",
    "Flag": "pytest_audiobench.config.declarations",
    "ProviderOptions": "pytest_audiobench.config.declarations",
    "ProviderSpec": "pytest_audiobench.config.declarations",
    "read_own": "pytest_audiobench.config.frozen",
    "ProviderSetup": "pytest_audiobench.transport.endpoint",
    "Completion": "pytest_audiobench.transport.types",
    "Provider": "pytest_audiobench.transport.types",
    "Usage": "pytest_audiobench.transport.types",
    "OwnSettings": "pytest_audiobench.config.frozen",
    "Settings": "pytest_audiobench.config.settings",
    "fetch_dataset": "pytest_audiobench.hub.modelscope",
    "Linear": "pytest_audiobench.outcome.lines",
    "SampleLine": "pytest_audiobench.outcome.lines",
    "Metric": "pytest_audiobench.outcome.metrics",
    "ModelAnswer": "pytest_audiobench.outcome.records",
    "SampleRecord": "pytest_audiobench.outcome.records",
    "Grade": "pytest_audiobench.outcome.records",
    "Verdict": "pytest_audiobench.outcome.records",
    "Choice": "pytest_audiobench.outcome.view",
    "Detail": "pytest_audiobench.outcome.view",
    "SampleView": "pytest_audiobench.outcome.view",
}
"""Each public name that is not an error, and the module that defines it."""


def __getattr__(name: str) -> Any:
    if name == "convert":
        return importlib.import_module("pytest_audiobench.config.convert")
    if name not in _LAZY:
        raise AttributeError(f"module 'pytest_audiobench' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "MATCHERS",
    "AudioError",
    "AudiobenchError",
    "AudiobenchWarning",
    "BaselineError",
    "Benchmark",
    "BenchmarkOptions",
    "BenchmarkSpec",
    "Choice",
    "ChoiceBenchmark",
    "ChoiceGrade",
    "ChoiceVerdict",
    "Completion",
    "DataError",
    "Detail",
    "DownloadError",
    "EmptyAudio",
    "EndpointError",
    "Flag",
    "Gating",
    "Grade",
    "JudgeError",
    "JudgeUse",
    "Linear",
    "MatchedGrade",
    "MatchedVerdict",
    "Metric",
    "ModelAnswer",
    "NotRun",
    "OwnSettings",
    "Provider",
    "ProviderOptions",
    "ProviderSetup",
    "ProviderSpec",
    "Release",
    "Runtime",
    "Sample",
    "SampleLine",
    "SampleRecord",
    "SampleView",
    "Settings",
    "Tally",
    "Usage",
    "Verdict",
    "__version__",
    "ask_until_parsed",
    "choice_line",
    "choice_linear",
    "convert",
    "fence_for",
    "fetch_dataset",
    "inside_root",
    "official_letter",
    "overlap_f1",
    "percent",
    "read_json_array",
    "read_own",
    "shown",
    "strict_choice",
    "validated",
]
