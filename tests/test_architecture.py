"""The package's design, checked: the layers and folders of docs/architecture.md hold, no
folder has an import cycle, a benchmark is named only in its own folder, the plugin stays
cheap to import, and every module says what it is."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "pytest_audiobench"
BUILT_IN = registry.built_in()
# A benchmark's name as code writes it: mmar, MMAR, mmau, air_bench_chat, AIR-Bench, AirBenchChat.
NAMED = re.compile(r"(?<![a-z])(mmar|mmau|air[_-]?bench)(?![a-z])", re.IGNORECASE)


def test_the_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    """Layers, reports that cannot write a baseline, one module that talks HTTP, no cycle in
    any folder (pyproject.toml's contracts; the benchmarks' independence is held below, over
    the registry's list)."""
    pytest.importorskip("importlinter", reason="import-linter comes with the dev extra")
    from importlinter.cli import lint_imports

    status = lint_imports(config_filename=str(REPO / "pyproject.toml"), no_cache=True,
                          no_logo=True)
    out = capsys.readouterr().out
    assert status == 0, out
    assert "4 kept, 0 broken" in out


def _code_words(tree: ast.AST) -> list[tuple[int, str]]:
    """Identifiers and string literals of the code, docstrings left out."""
    docs = {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    words: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs:
            words.append((node.lineno, node.value))
        elif isinstance(node, ast.Name):
            words.append((node.lineno, node.id))
        elif isinstance(node, ast.Attribute):
            words.append((node.lineno, node.attr))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words.append((node.lineno, node.name))
        elif isinstance(node, ast.alias):
            words.append((0, node.name))
    return words


def test_each_built_in_benchmark_is_named_as_its_folder() -> None:
    """The registry's list is the one list: its names are the specs' and their folders'."""
    specs = registry.catalog().specs
    assert all(specs[name].benchmark.startswith(f"pytest_audiobench.benchmarks.{name}.")
               for name in BUILT_IN)
    assert all((PACKAGE / "benchmarks" / name / "__init__.py").is_file() for name in BUILT_IN)


def _chains_between(names: tuple[str, ...]) -> list[str]:
    """Each pair of the benchmarks ``names`` whose first imports the second, directly or
    through any module in between (import-linter's independence, over the registry's list,
    so that a new benchmark is kept apart by its registration line alone)."""
    grimp = pytest.importorskip("grimp", reason="grimp comes with import-linter (dev extra)")
    graph = grimp.build_graph("pytest_audiobench")
    folder = "pytest_audiobench.benchmarks."
    return [f"{a} -> {b}" for a in names for b in names if a != b
            and graph.chain_exists(importer=folder + a, imported=folder + b, as_packages=True)]


def test_no_built_in_benchmark_imports_another() -> None:
    assert _chains_between(BUILT_IN) == []


def test_the_check_above_sees_a_benchmark_that_imports_another() -> None:
    # MMAR and MMAU share the choice base, and AIR-Bench Foundation is built on the root
    # alone; the base folders are reached by every benchmark, so a pair with one sees it.
    assert "mmsu -> wer" not in _chains_between(("mmsu", "wer"))
    assert "librispeech -> wer" in _chains_between(("librispeech", "wer"))


def test_no_code_outside_a_benchmark_folder_names_a_benchmark() -> None:
    """Adding a benchmark is a new folder plus its registration (the registry's list)."""
    named = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        if any(where.startswith(f"benchmarks/{name}/") for name in BUILT_IN):
            continue
        for line, word in _code_words(ast.parse(path.read_text(encoding="utf-8"))):
            if NAMED.search(word) and not (where == "benchmarks/registry.py"
                                           and word.endswith(":SPEC")):
                named.append(f"{where}:{line}: {word[:60]!r}")
    assert named == []


def test_the_check_above_would_see_a_benchmark_named_in_code() -> None:
    tree = ast.parse('"""Docstrings may say MMAR."""\nif name == "mmar":\n    pass\n')
    assert [w for _, w in _code_words(tree) if NAMED.search(w)] == ["mmar"]
    assert not NAMED.search("summary") and not NAMED.search("BenchmarkSummary")


NODE_ID_BY_HAND = re.compile(r"""split\(\s*["']::|["']::["']\s*\.join|ROOT_NODE\s*\+|"""
                             r"""\{ROOT_NODE\}|startswith\(\s*f?["']audiobench::""")
"""A node id taken apart or put together with string operations."""


def test_node_ids_are_built_and_read_in_one_place() -> None:
    """``benchmarks/sample.py``'s NodeId builds and parses them; nothing else does by hand."""
    by_hand = [f"{path.relative_to(PACKAGE).as_posix()}:{number}: {line.strip()}"
               for path in sorted(PACKAGE.rglob("*.py"))
               if path.relative_to(PACKAGE).as_posix() != "benchmarks/sample.py"
               for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
               if NODE_ID_BY_HAND.search(line)]
    assert by_hand == []


def test_the_check_above_sees_a_node_id_taken_apart_by_hand() -> None:
    for line in ('task = nodeid.split("::")[2]', 'if n.startswith("audiobench::"):',
                 'n.startswith(ROOT_NODE + "::")', 'own = f"{ROOT_NODE}::{name}::"',
                 '"::".join(parts)'):
        assert NODE_ID_BY_HAND.search(line), line
    assert not NODE_ID_BY_HAND.search("task = NodeId.parse(nodeid).task")


DECIDING = {"decide", "run_verdict", "assess_all", "exit_status", "judge_drift",
            "judge_identity", "rule", "Pairing", "update_baseline"}
"""What decides a run (gate/ruling.py, gate/decision.py), and the setting that decides what
the gate keeps: report/ uses none of them."""


def test_the_report_renders_what_the_gate_ruled_and_decides_nothing() -> None:
    used = [f"{path.relative_to(PACKAGE).as_posix()}:{node.lineno}: {name}"
            for path in sorted((PACKAGE / "report").rglob("*.py"))
            for node in ast.walk(ast.parse(path.read_text("utf-8")))
            if (name := _used_name(node)) in DECIDING]
    assert used == []


def test_the_check_above_sees_a_decision_called_in_a_report() -> None:
    tree = ast.parse("from x import decide\nreport = decide(a)\nif settings.update_baseline: "
                     "pass\n")
    assert sorted({n for node in ast.walk(tree) if (n := _used_name(node)) in DECIDING}) == [
        "decide", "update_baseline"]


def _used_name(node: ast.AST) -> str | None:
    """The name ``node`` calls or imports, or the setting it reads (``update_baseline``): a
    report's own fields (its ``judge_drift``) are neither."""
    if isinstance(node, ast.Call):
        func = node.func
        return func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if isinstance(node, ast.alias):
        return node.name
    if isinstance(node, ast.Attribute) and node.attr == "update_baseline":
        return node.attr
    return None


def test_the_plugin_and_every_benchmark_spec_import_without_the_heavy_libraries() -> None:
    """pytest imports the plugin and reads the specs in every run of every project that has
    it installed; the HTTP client, pydantic and the audio stack load only for a benchmark run."""
    code = ("import sys, pytest_audiobench.plugin\n"
            "from pytest_audiobench.benchmarks import registry\n"
            "registry.catalog()\n"
            "print(sorted(m for m in ('openai', 'pydantic', 'numpy', 'soundfile', 'aiohttp') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


DOWNLOADS = sorted(f"pytest_audiobench.benchmarks.{path.parent.name}.download"
                   for path in PACKAGE.glob("benchmarks/*/download.py"))


SNAPSHOTS = ["pytest_audiobench.benchmarks.mmsu.data",
             "pytest_audiobench.benchmarks.big_bench_audio.data",
             "pytest_audiobench.benchmarks.mmau.parquet",
             "pytest_audiobench.benchmarks.librispeech.parquet",
             "pytest_audiobench.benchmarks.fleurs.archive",
             "pytest_audiobench.benchmarks.common_voice.parquet",
             "pytest_audiobench.benchmarks.aishell1.snapshots",
             "pytest_audiobench.benchmarks.wenetspeech.locating"]
"""The modules that convert a release's hub files, downloaded or a local snapshot."""


@pytest.mark.parametrize("module", [*DOWNLOADS, *SNAPSHOTS])
def test_a_download_module_imports_no_hub_client_nor_pyarrow(module: str) -> None:
    """A release's download (and the modules that convert a local snapshot of its hub repo)
    loads its hub client and pyarrow only when it fetches or converts: importing it costs
    none."""
    code = (f"import sys, {module}; print(sorted({{'huggingface_hub', 'pyarrow', "
            "'modelscope'} & set(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=60)
    assert done.stdout.strip() == "[]", done.stderr


def test_every_module_has_a_docstring() -> None:
    missing = [path.relative_to(PACKAGE).as_posix() for path in sorted(PACKAGE.rglob("*.py"))
               if ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) is None]
    assert missing == []


def _imports_of_a_holding_package(graph: object) -> list[tuple[str, str]]:
    """(module, package) where a module imports a package that holds it, the root aside."""
    found = []
    for module in sorted(graph.modules):  # type: ignore[attr-defined]
        parts = module.split(".")
        for depth in range(2, len(parts)):
            package = ".".join(parts[:depth])
            if graph.direct_import_exists(importer=module, imported=package):  # type: ignore[attr-defined]
                found.append((module, package))
    return found


def test_no_module_imports_a_package_that_holds_it() -> None:
    # A package's __init__ imports its modules to build its spec: a module that imports the
    # package back closes a cycle that acyclic_siblings does not see (it was mmar.data ->
    # mmar -> options -> prompts -> data). The facts they share live in a leaf module.
    grimp = pytest.importorskip("grimp")
    assert _imports_of_a_holding_package(grimp.build_graph("pytest_audiobench")) == []


def test_the_check_above_sees_a_module_importing_its_package() -> None:
    grimp = pytest.importorskip("grimp")
    graph = grimp.ImportGraph()
    graph.add_import(importer="pkg.sub.leaf", imported="pkg.sub")
    graph.add_import(importer="pkg.sub", imported="pkg.sub.leaf")
    assert _imports_of_a_holding_package(graph) == [("pkg.sub.leaf", "pkg.sub")]


def _package_imports(path: Path) -> set[str]:
    """The modules of the package that the module at ``path`` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pytest_"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("pytest_audiobench")}
    return found


def test_the_toy_benchmark_imports_only_the_public_api() -> None:
    """tests/toy is written as a third party would: from the package root and nothing else."""
    found = set().union(*(_package_imports(path)
                          for path in sorted((REPO / "tests" / "toy").rglob("*.py"))))
    assert found == {"pytest_audiobench"}


MAKER = "pytest_audiobench.benchmarks.mini_making"
"""The mini data's maker, which the benchmarks' mini modules write their mini part with."""


def test_air_bench_foundation_imports_only_the_public_api_and_its_own_folder() -> None:
    """The third built-in benchmark is written as a third party's would be: from the package
    root and its own modules (that nothing outside its folder names it is the test above); its
    mini part also from the mini maker, which no run imports (the test below)."""
    folder = REPO / "pytest_audiobench" / "benchmarks" / "air_bench_foundation"
    own = "pytest_audiobench.benchmarks.air_bench_foundation"
    found = {module for path in sorted(folder.rglob("*.py")) for module in _package_imports(path)
             if not module.startswith(own) and not (path.name == "mini.py" and module == MAKER)}
    assert found == {"pytest_audiobench"}


def test_only_the_mini_modules_reach_the_mini_maker() -> None:
    """Making the mini data needs espeak-ng and synthesis that a run has no use for: no module
    but a benchmark's mini module imports the maker, directly or through another."""
    grimp = pytest.importorskip("grimp")
    users = grimp.build_graph("pytest_audiobench").find_downstream_modules(MAKER)
    assert users and all(module.endswith(".mini") for module in users), sorted(users)


def test_every_public_name_resolves_and_the_root_stays_light() -> None:
    code = ("import sys, pytest_audiobench as api\n"
            "light = sorted(m for m in sys.modules if m.startswith('pytest_audiobench'))\n"
            "missing = [n for n in api.__all__ if getattr(api, n, None) is None]\n"
            "print(light, missing, sorted(dir(api)) == sorted(api.__all__))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO, timeout=60)
    assert done.stdout.split() == ["['pytest_audiobench',", "'pytest_audiobench.errors']",
                                   "[]", "True"], done.stdout + done.stderr


def _public_names(folder: Path) -> dict[str, list[str]]:
    """Each public top-level name of ``folder``'s modules, and the modules that define it."""
    found: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = [node.name] if isinstance(node, ast.FunctionDef | ast.ClassDef) else (
                [t.id for t in node.targets if isinstance(t, ast.Name)]
                if isinstance(node, ast.Assign) else
                [node.target.id] if isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name) else [])
            for name in targets:
                if not name.startswith("_"):
                    found.setdefault(name, []).append(path.name)
    return found


def test_the_gate_defines_each_public_name_once() -> None:
    # Two Decision classes and two decide functions once lived in gate/: a reader could not
    # tell which module decides.
    twice = {n: m for n, m in _public_names(PACKAGE / "gate").items() if len(m) > 1}
    assert twice == {}


def test_the_check_above_sees_a_name_defined_twice(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Decision:\n    pass\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("Decision = 1\n_private = 2\n", encoding="utf-8")
    assert _public_names(tmp_path) == {"Decision": ["a.py", "b.py"]}


WIDEST = 7
"""The most parameters a function on the gate's path takes (gate/, report/, ending.py): it is
passed values (the folded run, the evidence, the loaded baselines), not their fields."""


def _wide_functions(tree: ast.AST) -> list[tuple[str, int]]:
    """Each function of ``tree`` with more than ``WIDEST`` parameters (self and cls not
    counted), and how many it takes."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            given = node.args
            names = [a.arg for a in (*given.posonlyargs, *given.args, *given.kwonlyargs)]
            count = len(names) + bool(given.vararg) + bool(given.kwarg) \
                - (names[:1] in (["self"], ["cls"]))
            if count > WIDEST:
                found.append((node.name, count))
    return found


def test_no_function_on_the_gates_path_takes_more_than_seven_parameters() -> None:
    paths = [*(PACKAGE / "gate").glob("*.py"), *(PACKAGE / "report").glob("*.py"),
             PACKAGE / "ending.py"]
    wide = {f"{path.relative_to(REPO)}:{name}": count for path in paths
            for name, count in _wide_functions(ast.parse(path.read_text(encoding="utf-8")))}
    assert wide == {}


def test_the_check_above_counts_parameters_as_written() -> None:
    code = ("def wide(a, b, c, d, e, f, g, *, h): ...\n"
            "class C:\n    def narrow(self, a, b, c, d, e, f, g): ...\n"
            "    def wider(self, a, b, c, d, e, f, *rest, **named): ...\n")
    assert _wide_functions(ast.parse(code)) == [("wide", 8), ("wider", 8)]


MOST_METHODS = 20
"""The most methods a class of the package defines: past it a class holds several concerns,
and its hooks are grouped into companions (``Benchmark.gating``, ``Benchmark.judge_use``)."""


def _crowded_classes(tree: ast.AST) -> list[tuple[str, int]]:
    """Each class of ``tree`` that defines more than ``MOST_METHODS`` methods, and how many."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            count = sum(isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef) for f in node.body)
            if count > MOST_METHODS:
                found.append((node.name, count))
    return found


def test_no_class_defines_more_than_twenty_methods() -> None:
    crowded = {f"{path.relative_to(REPO)}:{name}": count for path in PACKAGE.rglob("*.py")
               for name, count in _crowded_classes(ast.parse(path.read_text(encoding="utf-8")))}
    assert crowded == {}


def test_the_check_above_counts_the_methods_a_class_defines() -> None:
    many = "".join(f"    def m{i}(self): ...\n" for i in range(MOST_METHODS + 1))
    code = f"class Many:\n{many}class Few:\n    async def one(self): ...\n"
    assert _crowded_classes(ast.parse(code)) == [("Many", MOST_METHODS + 1)]


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_benchmark_s_direction_is_declared_once_on_its_gating(name: str,
                                                                 tmp_path: Path) -> None:
    from pytest_audiobench.benchmarks.release import mini_root
    from tests.settings import make_settings

    settings = make_settings(tmp_path, data="mini", benchmark=(name,),
                             judge_model="overlap", model="cascade")
    bench = registry.create(name, settings)
    gating = bench.gating()
    release = bench.load(mini_root(name))
    made = [linear for metric in release.headline
            if (linear := gating.linear(metric)) is not None]
    assert made, f"{name}: no headline metric is paired"
    assert {linear.lower_is_better for linear in made} == {type(gating).lower_is_better}
