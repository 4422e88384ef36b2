"""A new built-in benchmark of each kind (multiple choice, judged, transcription) with a mini
part takes its folder, one registration line and its mini data, and nothing else: every list
of benchmarks the plugin, the mini maker and the run read comes from the registry, and the
offline judge replies to a judged one as its folder says.

Each kind's folder is written as a built-in one would be, in ``tests/built_in/<name>/``: its
spec (``__init__.py``), its benchmark (the multiple-choice one is ``tests/toy/choice.py``, on
the public ``ChoiceBenchmark``; the judged one has its ``JudgeUse`` and offline reply; the
transcription one is on ``TranscriptionBenchmark``) and its mini part (``mini.py``). The
fixture copies it into a folder on the benchmarks package's path, so that it is
``pytest_audiobench.benchmarks.<name>``, and adds its line to ``registry.BUILT_IN``: those two
changes are all it makes, and no file of the package changes."""

from __future__ import annotations

import base64
import importlib.util
import io
import json
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

import pytest_audiobench.benchmarks as benchmarks_package
from pytest_audiobench.benchmarks import registry
from tests.conftest import MODEL, Servers
from tests.fakes.openai_server import ChatRequest, Script, Scripted

REPO = Path(__file__).resolve().parents[1]
FOLDERS = Path(__file__).resolve().parent / "built_in"
"""Each kind's folder, as it would be in ``pytest_audiobench/benchmarks/``."""
PACKAGE = Path(benchmarks_package.__file__).resolve().parents[1]
"""The package the tests import (this checkout's)."""


def pitch(request: ChatRequest) -> float:
    """The frequency, in Hz, of the tone in the clip ``request`` sent."""
    part = request.audio_parts[0]
    data = part["input_audio"]["data"] if "input_audio" in part else \
        part["audio_url"]["url"].partition(",")[2]
    samples, rate = sf.read(io.BytesIO(base64.b64decode(data)), dtype="float64")
    return float(np.argmax(np.abs(np.fft.rfft(samples))) * rate / len(samples))


def transcriber(replies: Mapping[float, str]) -> Script:
    """A model that transcribes each clip as ``replies`` says for the pitch nearest its tone's."""
    def answer(request: ChatRequest) -> str:
        heard = pitch(request)
        return replies[min(replies, key=lambda hz: abs(hz - heard))]

    return answer


@dataclass(frozen=True)
class Kind:
    """A kind of benchmark: its toy's folder, what its mini part writes, and a run of it."""

    name: str
    """Its name, its folder's (``tests/built_in/<name>/``)."""
    files: tuple[str, ...]
    """What its folder holds."""
    options: tuple[str, ...]
    """Its own flags, from its spec."""
    items: int
    """How many items its mini part writes."""
    mini: tuple[str, ...]
    """The files its mini part writes."""
    readme: str
    """Its item in the mini data's README."""
    model: Script
    """How the fake model answers its mini part's samples."""
    outcomes: tuple[str, ...]
    """The run's items (``<task>::<id> <OUTCOME>``), in the release's order."""
    metrics: Mapping[str, float]
    """Some of the run's numbers."""
    flags: tuple[str, ...] = ()
    """What its run needs besides the model and the data."""
    judge_replies: Mapping[str, list[str]] = field(default_factory=dict)
    """The judge's replies each sample's grade holds."""


KINDS = [
    # On the public ChoiceBenchmark (tests/toy/choice.py): the official matcher decides.
    pytest.param(Kind(
        name="toy_choice",
        files=("__init__.py", "mini.py"),
        options=("--audiobench-toy-choice-matcher", "--audiobench-toy-choice-export"),
        items=2,
        mini=("a1.wav", "i1.wav", "toy_choice.json"),
        readme="2 toy multiple-choice questions (`toy_choice.json`), a tone each.",
        model=Scripted("no idea").when(contains="Which animal barks?", replies="dog")
                                 .when(contains="Which one is bowed?", replies="drum"),
        outcomes=("animals::a1 PASSED", "instruments::i1 FAILED"),
        metrics={"toy_choice.avg": 50.0, "toy_choice.task.animals.avg": 100.0}),
        id="multiple-choice"),
    # Judged offline: the overlap judge replies as the folder's JudgeUse.offline says (yes
    # when the reference's words are all in the answer).
    pytest.param(Kind(
        name="toy_judged",
        files=("__init__.py", "benchmark.py", "mini.py"),
        options=("--audiobench-toy-judged-attempts",),
        items=2,
        mini=("c1.wav", "n1.wav", "toy_judged.json"),
        readme="2 toy judged questions (`toy_judged.json`), a tone each.",
        model=Scripted("no idea").when(contains="What colour is the sky?",
                                       replies="The sky is BLUE.")
                                 .when(contains="How many legs has a dog?", replies="Three."),
        outcomes=("colours::c1 PASSED", "numbers::n1 FAILED"),
        metrics={"toy_judged.accuracy": 50.0, "toy_judged.colours.accuracy": 100.0,
                 "toy_judged.numbers.accuracy": 0.0},
        flags=("--audiobench-judge-model", "overlap"),
        judge_replies={"c1": ["yes"], "n1": ["no"]}),
        id="judged"),
    # Per split: clean 1 substitution in 9 words, other 2 deletions in 10.
    pytest.param(Kind(
        name="toy_speech",
        files=("__init__.py", "benchmark.py", "mini.py"),
        options=("--audiobench-toy-speech-prompt", "--audiobench-toy-speech-system"),
        items=4,
        mini=("clean/c1.wav", "clean/c2.wav", "other/o1.wav", "other/o2.wav",
              "toy_speech.json"),
        readme="4 toy utterances (`toy_speech.json`, audio in `<split>/`), a tone each.",
        model=transcriber({330.0: "The low tone hums.", 440.0: "a middle tone rang out",
                           550.0: "the high tone whistles", 660.0: "the last tone ends"}),
        outcomes=("clean::c1 PASSED", "clean::c2 FAILED", "other::o1 PASSED",
                  "other::o2 FAILED"),
        metrics={"toy_speech.clean.wer": 100 / 9, "toy_speech.clean.substitutions": 1.0,
                 "toy_speech.other.wer": 20.0, "toy_speech.other.deletions": 2.0,
                 "toy_speech.other.english.wer": 20.0}),
        id="transcription"),
]


def _package_files() -> dict[str, tuple[int, int]]:
    """Every file of the package (caches aside), its size and modification time."""
    return {p.relative_to(PACKAGE).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


@dataclass(frozen=True)
class Added:
    """A kind's folder, added to the benchmarks package, and the package's files before."""

    folder: Path
    before: dict[str, tuple[int, int]]

    def package_changes(self) -> list[str]:
        """The package's files added, removed or written since."""
        now = _package_files()
        return sorted(name for name in {*self.before, *now}
                      if self.before.get(name) != now.get(name))


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> Kind:
    made: Kind = request.param
    return made


@pytest.fixture
def built_in(kind: Kind, tmp_path: Path) -> Iterator[Added]:
    """``kind``'s folder in the benchmarks package, registered by one more line: nothing else."""
    before = _package_files()
    folder = tmp_path / "extra" / kind.name
    shutil.copytree(FOLDERS / kind.name, folder,
                    ignore=shutil.ignore_patterns("__pycache__"))
    module = f"pytest_audiobench.benchmarks.{kind.name}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(benchmarks_package, "__path__",
                      [*benchmarks_package.__path__, str(folder.parent)])
        patch.setattr(registry, "BUILT_IN", (*registry.BUILT_IN, f"{module}:SPEC"))
        # The two changes a new built-in benchmark makes to the package, and no third.
        assert [(target, name) for target, name, _ in patch._setattr] == [
            (benchmarks_package, "__path__"), (registry, "BUILT_IN")]
        registry._installed.cache_clear()
        try:
            yield Added(folder, before)
        finally:
            for name in [m for m in sys.modules if m == module or m.startswith(f"{module}.")]:
                del sys.modules[name]
            if hasattr(benchmarks_package, kind.name):
                delattr(benchmarks_package, kind.name)
    registry._installed.cache_clear()


def _make_mini() -> ModuleType:
    """scripts/make_mini.py, imported afresh (it finds the mini parts when imported)."""
    spec = importlib.util.spec_from_file_location("make_mini_under_test",
                                                  REPO / "scripts" / "make_mini.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_registry_and_the_mini_maker_know_the_new_benchmark_by_its_line(
        kind: Kind, built_in: Added, tmp_path: Path) -> None:
    assert registry.built_in()[-1] == kind.name
    assert registry.catalog().specs[kind.name].name == kind.name
    maker = _make_mini()
    assert list(maker.PARTS) == list(registry.built_in())
    assert kind.name in maker.OWNED
    out = tmp_path / "mini"
    counts = {kind.name: maker.PARTS[kind.name].write(out / kind.name, None)}
    assert counts == {kind.name: kind.items}
    assert sorted(p.relative_to(out / kind.name).as_posix()
                  for p in (out / kind.name).rglob("*") if p.is_file()) == list(kind.mini)
    assert f"- `{kind.name}/`: {kind.readme}" in maker.readme(counts)
    assert sorted(p.name for p in built_in.folder.iterdir() if p.is_file()) == list(kind.files)
    assert built_in.package_changes() == []


def test_its_own_options_come_with_it_from_its_spec(
        kind: Kind, built_in: Added, pytester: pytest.Pytester) -> None:
    shown = pytester.runpytest("--help").stdout.str()
    assert [flag for flag in kind.options if flag not in shown] == []


def test_the_new_benchmark_runs_on_its_mini_part_as_the_built_in_ones_do(
        kind: Kind, built_in: Added, pytester: pytest.Pytester, servers: Servers,
        tmp_path: Path) -> None:
    data = tmp_path / "mini" / kind.name
    _make_mini().PARTS[kind.name].write(data, None)
    servers.model.script = kind.model
    report = pytester.path / "report.json"
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL,
        "--audiobench-api-url", servers.model.url, "--audiobench-benchmark", kind.name,
        f"--audiobench-data={data}", f"--audiobench-report={report}", "--audiobench-no-cache",
        "--audiobench-retry-wait=0", *kind.flags, "-v")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines([f"*audiobench::{kind.name}::{item}*"
                                 for item in kind.outcomes])
    written = json.loads(report.read_text(encoding="utf-8"))
    (summary,) = written["benchmarks"]
    assert summary["benchmark"] == kind.name
    assert {name: summary["metrics"][name]["value"] for name in kind.metrics} == \
        pytest.approx(kind.metrics)
    assert {s["sample_id"]: v["outputs"] for s in written["samples"]
            for v in s["grades"] if "outputs" in v} == kind.judge_replies
    assert built_in.package_changes() == []
