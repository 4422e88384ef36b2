"""VoiceBench's ifeval subset scored as the reference scores it: Google's IFEval checker, each
instruction of an item checked strictly and loosely, and four figures with their mean.

The checker is not ours: it is lm-eval 0.4.13's copy of Google's (``lm_eval/tasks/ifeval``:
``instructions_registry``, ``instructions``, ``instructions_util``), the copy the reference
vendors but for its logger and for checkers neither registers (tests/test_voicebench_checkers.py
holds the two equal). What is ours is the reference's procedure around it
(``src/evaluator/ifeval.py``, MatthewCYM/VoiceBench): the reply's cleaning, the kwargs kept,
the eight loose variants and the figures. Where the reference leaves a result to chance, it is
fixed here: langdetect is seeded (it draws a seed at each call when none is set, and a short
reply's language can change with it), and a falsy value of an argument a checker takes is
refused (the reference drops it, and the checker then draws that argument at random).

lm-eval is installed without its dependencies (torch, datasets: its task manager's, which
the checker does not use), with the checker's own: ``pip install --no-deps lm-eval==0.4.13``
and the ``voicebench`` extra (langdetect, immutabledict, nltk). Everything is imported on first
use.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import sys
import threading
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.voicebench.punkt import punkt_data
from pytest_audiobench.errors import AudiobenchError, DataError

INSTALL = "pip install 'pytest-audiobench[voicebench]' && pip install --no-deps lm-eval==0.4.13"
REQUIRED: dict[str, str] = {"lm-eval": "==0.4.13", "nltk": ">=3.9.1", "langdetect": "",
                            "immutabledict": ""}
"""The checker's distributions and the versions taken: lm-eval's exactly, since a new release
may check otherwise; nltk from the release lm-eval asks for (older ones load pickles)."""
CHECKER = "lm_eval.tasks.ifeval"
_PARENTS = ("lm_eval", "lm_eval.tasks", CHECKER)
PUNKT_USERS = frozenset({"length_constraints:number_sentences",
                         "change_case:capital_word_frequency"})
"""The instructions whose checks read nltk's Punkt model: sentence counts, and
``nltk.word_tokenize``, which splits sentences first. No other needs it, so a run without
them (the mini benchmark's) needs no download."""
_LOADING = threading.Lock()
_REPLY_PREFIXES = ("<1>", "<2>", "<3>")
_REPLY_SUFFIX = "<|user|>"


@dataclass(frozen=True)
class Following:
    """Whether a reply follows each of its item's instructions, in the item's order."""

    strict: tuple[bool, ...]
    """Checked on the reply as it is (once cleaned)."""
    loose: tuple[bool, ...]
    """Followed by any of eight variants: the reply, without its first line, its last line,
    or both, each also without ``*``."""

    def __post_init__(self) -> None:
        if len(self.strict) != len(self.loose):
            raise ValueError(f"{len(self.strict)} strict and {len(self.loose)} loose results; "
                             "expected one of each per instruction")


def cleaned(reply: str) -> str:
    """The reply as the reference checks it: a leading ``<1>``, ``<2>`` or ``<3>`` and a
    trailing ``<|user|>`` removed, with the spaces each leaves (a marker some of the models it
    evaluated write)."""
    if reply.startswith(_REPLY_PREFIXES):
        reply = reply[3:].strip()
    if reply.endswith(_REPLY_SUFFIX):
        reply = reply[: -len(_REPLY_SUFFIX)].strip()
    return reply


def following(reply: str, prompt: str, instruction_ids: Sequence[str],
              kwargs: Sequence[Mapping[str, Any]], cache_dir: Path) -> Following:
    """Which of the item's instructions (`instruction_ids`, each with its `kwargs`) the
    cleaned `reply` follows, strictly and loosely; a blank reply follows none.

    Each instruction's kwargs keep only their truthy values, as the reference's do (its
    records list every key, None where an instruction has no use for it). DataError, naming
    the instruction and its position, for an id the checker does not know (the reference
    stops on a KeyError there), kwargs the checker refuses, and a falsy value of an argument
    the checker takes: dropped, the checker would draw that argument at random.

    The first call loads the checker; the first that checks an instruction of PUNKT_USERS
    makes nltk's Punkt model ready in `cache_dir` (``punkt.punkt_data``, downloading it once).
    AudiobenchError naming the pip command when a package is missing."""
    if len(kwargs) != len(instruction_ids):
        raise DataError(f"IFEval item with {len(instruction_ids)} instructions and "
                        f"{len(kwargs)} kwargs; expected one kwargs mapping per instruction")
    cache_dir = Path(cache_dir).expanduser().resolve()
    registry = _checkers()
    if PUNKT_USERS.intersection(instruction_ids):
        _punkt(cache_dir)
    reply = cleaned(reply)
    variants = _loose_variants(reply)
    strict: list[bool] = []
    loose: list[bool] = []
    pairs = zip(instruction_ids, kwargs, strict=True)
    for position, (instruction_id, given) in enumerate(pairs, 1):
        checker = _checker(registry, position, instruction_id, given, prompt)
        strict.append(_follows(checker, reply))
        loose.append(any(_follows(checker, variant) for variant in variants))
    return Following(tuple(strict), tuple(loose))


def figures(items: Iterable[Following]) -> dict[str, float]:
    """The reference's four figures in percent: the share of items that follow every one of
    their instructions (``-prompt``) and of all instructions followed (``-instruction``),
    strict and loose, and ``final``, their mean. ValueError when there is no instruction."""
    items = list(items)
    instructions = sum(len(item.strict) for item in items)
    if not instructions:
        raise ValueError("no IFEval instruction to score; expected at least one item with "
                         "at least one instruction")
    shares: dict[str, float] = {}
    for level in ("strict", "loose"):
        results = [getattr(item, level) for item in items]
        shares[f"{level}-prompt"] = sum(all(r) for r in results) / len(results)
        shares[f"{level}-instruction"] = sum(sum(r) for r in results) / instructions
    shares["final"] = sum(shares.values()) / len(shares)
    return {name: 100 * share for name, share in shares.items()}


def _loose_variants(reply: str) -> tuple[str, ...]:
    lines = reply.split("\n")
    trimmed = ("\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(),
               "\n".join(lines[1:-1]).strip())
    return (reply, reply.replace("*", ""), *trimmed, *(t.replace("*", "") for t in trimmed))


def _follows(checker: Any, text: str) -> bool:
    return bool(text.strip()) and bool(checker.check_following(text))


def _checker(registry: Mapping[str, Any], position: int, instruction_id: str,
             given: Mapping[str, Any], prompt: str) -> Any:
    where = f"IFEval instruction {position} ({instruction_id!r})"
    try:
        checker_class = registry[instruction_id]
    except KeyError as exc:
        raise DataError(f"{where}: no such instruction in lm-eval 0.4.13's IFEval checker; "
                        f"expected one of its {len(registry)} ids, such as "
                        "'punctuation:no_comma'") from exc
    checker = checker_class(instruction_id)
    kept = {name: value for name, value in given.items() if value}
    try:
        checker.build_description(**kept)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{where}: its checker refuses the kwargs {kept!r}: {exc}") from exc
    args = checker.get_instruction_args() or {}
    drawn = [name for name, value in given.items() if not value and name in args]
    if drawn:
        raise DataError(f"{where}: {', '.join(f'{n}={given[n]!r}' for n in drawn)}: the "
                        "reference drops a falsy kwarg, and this checker then draws the "
                        "argument at random; expected a value")
    if "prompt" in args:
        checker.build_description(prompt=prompt)
    return checker


@functools.cache
def _checkers() -> Mapping[str, Any]:
    """The checker's registry, once the packages are there; once per process."""
    _require()
    return _registry()


@functools.cache
def _punkt(cache_dir: Path) -> Path:
    """nltk's Punkt model found first in `cache_dir`; once per process and cache folder."""
    return punkt_data(cache_dir)


def _require() -> None:
    from packaging.specifiers import SpecifierSet

    for name, wanted in REQUIRED.items():
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError as exc:
            raise AudiobenchError(f"VoiceBench's ifeval needs {name}{wanted}, which is not "
                                  f"installed: {INSTALL}") from exc
        if found not in SpecifierSet(wanted):
            raise AudiobenchError(f"VoiceBench's ifeval needs {name}{wanted}, and {name} "
                                  f"{found} is installed: {INSTALL}")


def _registry() -> Mapping[str, Any]:
    with _LOADING:
        registry = sys.modules.get(f"{CHECKER}.instructions_registry") or _load_alone()
    return seeded(registry).INSTRUCTION_DICT  # type: ignore[no-any-return]


def seeded(registry: Any) -> Any:
    """`registry` (a checker's ``instructions_registry`` module), its language detection
    seeded. langdetect draws a fresh random seed at each call unless one is set, so a short
    reply could be English in one run and not in the next; the reference sets none. The seed
    is set on the langdetect module the checker imported, which need not be the one
    ``sys.modules`` holds now (pytest's in-process runs put back the modules they found)."""
    factory = registry.instructions.langdetect.DetectorFactory
    if factory.seed is None:
        factory.seed = 0
    return registry


def _load_alone() -> Any:
    """lm-eval's checker modules, imported without ``lm_eval/__init__.py`` and
    ``lm_eval/tasks/__init__.py``: the second builds lm-eval's task manager, which imports
    ``datasets`` and torch (not installed: only the checker is used), and the first sets
    Hugging Face variables in ``os.environ``. The three modules import one another by their
    full names, so bare packages stand in for their parents while they load; then every name
    added is taken out of ``sys.modules`` again, so that a later ``import lm_eval.tasks`` (a
    user's own) gets the real packages."""
    spec = importlib.util.find_spec("lm_eval")
    if spec is None or not spec.submodule_search_locations:
        raise AudiobenchError(f"VoiceBench's ifeval needs lm-eval, which is not installed: "
                              f"{INSTALL}")
    root = Path(next(iter(spec.submodule_search_locations)))
    added = [name for name in _PARENTS if name not in sys.modules]
    for name in added:
        package = types.ModuleType(name)
        package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
        sys.modules[name] = package
    before = set(sys.modules)
    try:
        with _no_import_time_download():
            return importlib.import_module(f"{CHECKER}.instructions_registry")
    finally:
        loaded = {name for name in set(sys.modules) - before if name.startswith(f"{CHECKER}.")}
        for name in [*added, *(loaded if CHECKER in added else ())]:
            del sys.modules[name]


@contextlib.contextmanager
def _no_import_time_download() -> Iterator[None]:
    """lm-eval's ``instructions_util`` calls ``nltk.download("punkt_tab")`` at import when nltk
    finds no punkt_tab: a download into the user's home, whose failure is printed and passed
    over, and a line printed to stdout. Neither happens while it loads: the model is fetched
    into the cache when an instruction needs it (``_punkt``)."""
    import nltk

    download = nltk.download
    nltk.download = _not_downloaded
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield
    finally:
        nltk.download = download


def _not_downloaded(*args: object, **kwargs: object) -> bool:
    return False
