"""A new built-in multiple-choice benchmark with a mini part takes its folder, one registration
line and its mini data, and nothing else: every list of benchmarks the plugin, the mini maker
and the run read comes from the registry.

The toy multiple-choice benchmark (``tests/toy/choice.py``, on the public ``ChoiceBenchmark``)
is made a built-in one here: a folder of its own, ``pytest_audiobench.benchmarks.toy_choice``
(put into the benchmarks package's path for the test), with its spec and its mini part, and
its line added to ``registry.BUILT_IN``."""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import pytest_audiobench.benchmarks as benchmarks_package
from pytest_audiobench.benchmarks import registry
from tests.conftest import MODEL, Servers
from tests.fakes.openai_server import Scripted

REPO = Path(__file__).resolve().parents[1]
NAME = "toy_choice"

FOLDER_INIT = '''"""The toy multiple-choice benchmark as a built-in one: its spec is the toy's."""

from tests.toy import CHOICE_SPEC as SPEC

__all__ = ["SPEC"]
'''

FOLDER_MINI = '''"""The toy multiple-choice benchmark's mini part: two questions, a tone each."""

from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.mini_making import tone, write_json, write_wav

README = """{count} toy multiple-choice questions (`toy_choice.json`), a tone each."""

ITEMS = (("a1", "animals", "Which animal barks?", ["dog", "cat"], "dog", 440.0),
         ("i1", "instruments", "Which one is bowed?", ["violin", "drum"], "violin", 660.0))


def write(out: Path, tts: Any) -> int:
    """The release layout the toy reads: ``toy_choice.json`` and its clips."""
    records = [{"id": i, "task": t, "audio": f"{i}.wav", "question": q, "choices": c,
                "answer": a} for i, t, q, c, a, _ in ITEMS]
    for (i, *_, hz) in ITEMS:
        write_wav(out / f"{i}.wav", tone(hz, 1.5))
    write_json(out / "toy_choice.json", records)
    return len(ITEMS)
'''


@pytest.fixture
def built_in_toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``toy_choice`` in a folder of the benchmarks package, registered by one more line."""
    folder = tmp_path / "extra" / NAME
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(FOLDER_INIT, encoding="utf-8")
    (folder / "mini.py").write_text(FOLDER_MINI, encoding="utf-8")
    monkeypatch.setattr(benchmarks_package, "__path__",
                        [*benchmarks_package.__path__, str(folder.parent)])
    monkeypatch.setattr(registry, "BUILT_IN",
                        (*registry.BUILT_IN, f"pytest_audiobench.benchmarks.{NAME}:SPEC"))
    registry._installed.cache_clear()
    yield
    for module in [m for m in sys.modules if m.startswith(f"pytest_audiobench.benchmarks.{NAME}")]:
        del sys.modules[module]
    monkeypatch.undo()
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
        built_in_toy: None, tmp_path: Path) -> None:
    assert registry.built_in()[-1] == NAME
    maker = _make_mini()
    assert list(maker.PARTS) == list(registry.built_in())
    assert NAME in maker.OWNED
    out = tmp_path / "mini"
    counts = {NAME: maker.PARTS[NAME].write(out / NAME, None)}
    assert counts == {NAME: 2}
    assert sorted(p.name for p in (out / NAME).iterdir()) == ["a1.wav", "i1.wav",
                                                              "toy_choice.json"]
    assert f"- `{NAME}/`: 2 toy multiple-choice questions (`toy_choice.json`), a tone each." \
        in maker.readme(counts)


def test_the_new_benchmark_runs_on_its_mini_part_as_the_built_in_ones_do(
        built_in_toy: None, pytester: pytest.Pytester, servers: Servers,
        tmp_path: Path) -> None:
    data = tmp_path / "mini" / NAME
    _make_mini().PARTS[NAME].write(data, None)
    servers.model.script = Scripted("no idea").when(
        contains="Which animal barks?", replies="dog").when(
        contains="Which one is bowed?", replies="drum")
    report = pytester.path / "report.json"
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "--audiobench-model", MODEL,
        "--audiobench-api-url", servers.model.url, "--audiobench-benchmark", NAME,
        f"--audiobench-data={data}", f"--audiobench-report={report}", "--audiobench-no-cache",
        "--audiobench-retry-wait=0", "-v")
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    result.stdout.fnmatch_lines(["*audiobench::toy_choice::animals::a1 PASSED*",
                                 "*audiobench::toy_choice::instruments::i1 FAILED*"])
    (summary,) = json.loads(report.read_text(encoding="utf-8"))["benchmarks"]
    assert (summary["benchmark"], summary["metrics"]["toy_choice.avg"]["value"]) == (NAME, 50.0)
    # Its own options come with it, from its spec.
    assert "--audiobench-toy-choice-matcher" in pytester.runpytest("--help").stdout.str()
