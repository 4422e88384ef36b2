"""What a run keeps in memory while its items run: no sample's record, answers or grades
(the records wait on disk), and of pytest's reports only what the outcome needs. The passed
setup and teardown reports of benchmark items are let go once counted (pytest rescans them for
every failure, which is quadratic in a run with thousands of failures), and the output stays
what it was."""

from __future__ import annotations

import gc
import json
import re
import sys
import weakref
from typing import Any

import pytest

from pytest_audiobench.run.keeping import freeze_kept, let_go_of_locals, unfreeze
from tests.conftest import ONE_WORKER, Servers
from tests.test_per_sample_gate import answering

RECORDER = """
import json, pytest

@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    kept = terminalreporter.stats.get("", [])
    ours = [r.nodeid for r in kept if r.nodeid.startswith("audiobench::")]
    theirs = sorted((r.nodeid.split("::")[-1], r.when) for r in kept
                    if not r.nodeid.startswith("audiobench::"))
    with open("kept.json", "w") as f:
        json.dump({"ours": len(ours), "theirs": theirs,
                   "passed": len(terminalreporter.stats.get("passed", [])),
                   "failed": len(terminalreporter.stats.get("failed", []))}, f)
"""

OWN_TESTS = """
import pytest

@pytest.fixture
def noisy():
    yield
    print("teardown says goodbye")

def test_own_passes():
    pass

def test_own_fails(noisy):
    assert False
"""


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_passed_setup_and_teardown_reports_of_items_are_not_kept(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], xdist: list[str]) -> None:
    pytester.makeconftest(RECORDER)
    pytester.makepyfile(test_own=OWN_TESTS)
    answering(servers, small_records, set(range(0, 16, 2)))  # 8 poor answers: 8 failures
    run = run_bench("test_own.py", "-rA", "--junitxml=junit.xml", xdist=xdist)
    kept = json.loads((pytester.path / "kept.json").read_text())
    # Every outcome is still counted; none of our 32 passed setup/teardown reports is kept.
    assert kept["ours"] == 0
    assert (kept["passed"], kept["failed"]) == (9, 9)
    # Other tests' phase reports stay, and with them a failure's teardown output.
    assert ("test_own_passes", "setup") in [tuple(t) for t in kept["theirs"]]
    out = run.result.stdout.str()
    assert "teardown says goodbye" in out and "Captured stdout teardown" in out
    # Our failure reports, the -r summary and junit XML are as before.
    lines = out.splitlines()
    reasons = [line for line in lines if line.startswith("model score ")
               and "is below the bar 5" in line]
    assert len(reasons) == 8
    assert sum(line.startswith("FAILED audiobench::") for line in lines) == 8
    assert "PASSED audiobench::air_bench_chat::" in out
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count("<testcase") == 18 and junit.count("<failure") == 9


# Counted in every process that runs items or receives their reports, before the report is
# built: the records are on disk by then, and nothing else holds a sample's payload.
HELD = """
import gc, json, pytest
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Grade
from pytest_audiobench.run.session import Controller
from pytest_audiobench.run.stash import SESSION_KEY

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    gc.collect()
    kinds = (SampleRecord, ModelAnswer, Grade)
    held = {k.__name__: 0 for k in kinds}
    for obj in gc.get_objects():
        for kind in kinds:
            if isinstance(obj, kind):
                held[kind.__name__] += 1
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    reports = [r for rs in (terminal.stats.values() if terminal else []) for r in rs
               if getattr(r, "nodeid", "").startswith("audiobench::")]
    run = session.config.stash.get(SESSION_KEY, None)
    worker = getattr(session.config, "workerinput", None)  # not the environment: the
    name = worker["workerid"] if worker else "controller"   # outer run's xdist sets it too
    with open(f"held-{name}.json", "w") as f:
        json.dump({"held": held, "reports": len(reports),
                   "with_record": sum(hasattr(r, "audiobench_record") for r in reports),
                   "spooled": len(run.collected.records) if isinstance(run, Controller) else 0}, f)
"""


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_no_process_holds_the_samples_records_answers_or_grades_while_items_run(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], xdist: list[str]) -> None:
    pytester.makeconftest(HELD)
    answering(servers, small_records, set(range(0, 16, 4)))  # 4 poor answers: 4 failures
    run = run_bench(*xdist, subprocess=True)
    run.result.assert_outcomes(passed=12, failed=4)
    found = {p.name: json.loads(p.read_text()) for p in pytester.path.glob("held-*.json")}
    # Each process for itself: one worker shows what a worker keeps as well as two would.
    workers = 1 if "-n1" in xdist else 0
    assert "held-controller.json" in found and len(found) == 1 + workers
    for name, held in found.items():
        assert held["held"] == {"SampleRecord": 0, "ModelAnswer": 0, "Grade": 0}, name
    controller = found["held-controller.json"]
    # One report per item (its call's), none still carrying its record: all 16 are spooled.
    assert controller["reports"] == 16 and controller["with_record"] == 0
    assert controller["spooled"] == 16
    assert len(run.report["samples"]) == 16


# At the end of a run, what each item reaches that no other item reaches (its own objects),
# not counting what the whole run shares: the config and its plugins, the session, collectors,
# modules, classes, functions, hooks and the frames still running.
OWN = """
import gc, json, sys, types, pluggy, pytest
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Grade
from pytest_audiobench.run.items import ItemState

SHARED = (types.ModuleType, type, types.FunctionType, types.CodeType, pytest.Collector,
          pluggy.HookCaller, pluggy.HookImpl)
MADE = (ModelAnswer, Grade, SampleRecord, ItemState, pytest.FixtureRequest)

def reached(item, shared):
    seen = {}
    todo = gc.get_referents(item)
    while todo:
        thing = todo.pop()
        if id(thing) in seen or id(thing) in shared or isinstance(thing, SHARED):
            continue
        seen[id(thing)] = thing
        todo.extend(gc.get_referents(thing))
    return seen

@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    gc.collect()
    config = session.config
    running = [sys._getframe()]
    while running[-1].f_back is not None:
        running.append(running[-1].f_back)
    shared = {id(thing) for thing in [session, config, *vars(config).values(), *session.items,
                                      *running]}
    reach = {item.nodeid: reached(item, shared) for item in session.items}
    times = {}
    for found in reach.values():
        for key in found:
            times[key] = times.get(key, 0) + 1
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    failed = {report.nodeid for report in terminal.stats.get("failed", [])}
    kept = {}
    for node, found in reach.items():
        own = [thing for key, thing in found.items() if times[key] == 1]
        kept[node] = {"failed": node in failed, "bytes": sum(map(sys.getsizeof, own)),
                      "made": sorted(type(t).__name__ for t in own if isinstance(t, MADE))}
    with open("own.json", "w") as f:
        json.dump(kept, f)
"""

PLAIN = """
import pytest

def test_plain_passes():
    pass

def test_plain_fails():
    pytest.fail("model score 2 is below the bar 5", pytrace=False)
"""


def test_a_failed_sample_keeps_what_any_failed_test_keeps_with_rerunfailures_installed(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # Installed, pytest-rerunfailures keeps every failed phase's exception on its item to the
    # end of the run (--reruns or not): its traceback, and the frames and their locals.
    pytest.importorskip("pytest_rerunfailures", reason="the dev extra installs it")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:html -p no:metadata")
    pytester.makeconftest(OWN)
    pytester.makepyfile(test_plain=PLAIN)
    answering(servers, small_records, set(range(0, 16, 2)))  # 8 poor answers: 8 failures
    run = run_bench("test_plain.py")
    run.result.assert_outcomes(passed=9, failed=9)
    kept = json.loads((pytester.path / "own.json").read_text())
    ours = {node: own for node, own in kept.items() if node.startswith("audiobench::")}
    # Nothing that a sample's run made (its answers, grades, state, record, fixture
    # request) stays with its item: the failed ones' frames kept them all.
    assert [own["made"] for own in ours.values()] == [[]] * 16
    # What a failure adds to what an item keeps: a plain test's exception, traceback and
    # frames (about 20 KB here); a sample's may add its longer failure text, not the frames'
    # locals (10.6 KB more than a plain test's before they were let go; 0.5 KB less after).
    def cost(owned: list[dict[str, Any]]) -> float:
        failed = [own["bytes"] for own in owned if own["failed"]]
        passed = [own["bytes"] for own in owned if not own["failed"]]
        return sum(failed) / len(failed) - sum(passed) / len(passed)

    plain = cost([own for node, own in kept.items() if node.startswith("test_plain.py")])
    assert cost(list(ours.values())) < plain + 1024, (cost(list(ours.values())), plain)


JOINING = """
import pytest
from pytest_audiobench.run.keeping import one_string_a_failure

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if report.failed:
        entry = report.longrepr.reprtraceback.reprentries[-1]
        lines = len(entry.lines)
        one_string_a_failure(report)
        with open("lines.txt", "a") as f:
            f.write(f"{item.name} {lines} {len(entry.lines)}\\n")
    return report
"""

FAILING = """
import pytest

def test_falls_short():
    pytest.fail("model score 2 is below the bar 5\\nquestion: which?\\nanswer: that",
                pytrace=False)

def test_asserts():
    assert 1 + 1 == 3
"""


def test_a_failure_without_a_traceback_is_kept_as_one_string_and_shows_the_same(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_failing=FAILING)

    def shown() -> tuple[list[str], str]:
        result = pytester.runpytest("-rA", "--junitxml=junit.xml", "-p", "no:cacheprovider")
        written = (pytester.path / "junit.xml").read_text()
        return ([line for line in result.outlines if " in " not in line],
                re.sub(r'(time|timestamp|hostname)="[^"]*"', "", written))

    before = shown()
    pytester.makeconftest(JOINING)
    after = shown()
    # The failure raised without a traceback is kept as one string, the other as it was...
    joined = (pytester.path / "lines.txt").read_text().splitlines()
    assert joined[0] == "test_falls_short 3 1"
    assert joined[1].startswith("test_asserts ") and len(set(joined[1].split()[1:])) == 1
    # ...and the terminal's failure sections and -r summary, and junit, are what they were.
    assert after == before
    assert "question: which?" in "\n".join(after[0]) and "question: which?" in after[1]


SHARED_TEXT = """
import json, pytest

def pytest_sessionfinish(session):
    terminal = session.config.pluginmanager.get_plugin("terminalreporter")
    items = {item.nodeid: item for item in session.items}
    shared = []
    for report in terminal.stats.get("failed", []):
        if report.nodeid.startswith("audiobench::"):
            kept = items[report.nodeid]._rerun_condition_excinfos["call"][0].value
            text = report.longrepr.reprtraceback.reprentries[0].lines
            shared.append([len(text) == 1 and text[0] is str(kept), str(kept) == text[0]])
    with open("shared.json", "w") as f:
        json.dump(shared, f)
"""


def test_a_failed_samples_text_is_one_string_with_the_exception_that_rerunfailures_keeps(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest-rerunfailures keeps each failed phase's exception to the end of the run; the
    # report's text was a second copy of its message (about 600 bytes a failed Chat sample).
    pytest.importorskip("pytest_rerunfailures", reason="the dev extra installs it")
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:html -p no:metadata")
    pytester.makeconftest(SHARED_TEXT)
    answering(servers, small_records, {1, 5, 9})
    run_bench().result.assert_outcomes(passed=13, failed=3)
    shared = json.loads((pytester.path / "shared.json").read_text())
    assert shared == [[True, True]] * 3


def _inner(payload: object) -> None:
    raise ValueError("fell short")


def _middle(weight: object) -> None:
    payload = weight
    _inner(payload)


def _raised_through_frames(weight: object) -> BaseException:
    """An error raised two calls down, ``weight`` a local of each, caught and returned."""
    try:
        _middle(weight)
    except ValueError as exc:
        return exc
    raise AssertionError("not raised")


class _Weight:
    pass


def _locals_copies(frame: Any) -> list[dict[str, Any]]:
    """The copies of a frame's locals that Python 3.11 and 3.12 keep on it once read."""
    return [held for held in gc.get_referents(frame) if type(held) is dict]


def test_letting_go_of_locals_empties_the_copies_read_and_makes_none_where_none_was_read(
        ) -> None:
    weight = _Weight()
    alive = weakref.ref(weight)
    error = _raised_through_frames(weight)
    del weight
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    assert len(frames) == 3
    # pytest reads the innermost frame's locals (its __tracebackhide__): a copy is made there.
    frames[-1].f_locals  # noqa: B018
    read = 1 if sys.version_info < (3, 13) else 0
    assert [len(_locals_copies(f)) for f in frames] == [0, 0, read]
    let_go_of_locals(error)
    gc.collect()
    # The locals are gone, the copy read too, and no frame gained a copy (an empty dict each,
    # kept to the end of the run by a plugin that keeps the error).
    assert alive() is None
    assert [len(_locals_copies(f)) for f in frames] == [0, 0, read]
    assert all(not copy for f in frames for copy in _locals_copies(f))
    assert str(error) == "fell short"


STASHED = """
import json, sys, pytest

def pytest_sessionfinish(session):
    sizes = {item.nodeid: sys.getsizeof(item.stash._storage) for item in session.items}
    with open("stashed.json", "w") as f:
        json.dump(sizes, f)
"""


def test_a_sample_items_stash_is_left_no_larger_than_a_plain_tests(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[Any]) -> None:
    # pytest's stash is a dict, which never shrinks: the sample and the item's state beside
    # the keys of pytest's own plugins grew it past its first size, 128 bytes more an item
    # kept to the end of the run.
    pytester.makeconftest(STASHED)
    pytester.makepyfile(test_plain=PLAIN)
    answering(servers, small_records, {3, 7})
    run_bench("test_plain.py").result.assert_outcomes(passed=15, failed=3)
    sizes = json.loads((pytester.path / "stashed.json").read_text())
    plain = max(size for node, size in sizes.items() if node.startswith("test_plain.py"))
    ours = [size for node, size in sizes.items() if node.startswith("audiobench::")]
    assert len(ours) == 16 and max(ours) <= plain, (ours, plain)


LOCATED = """
import json, pytest

def pytest_sessionfinish(session):
    ours = [item for item in session.items if item.nodeid.startswith("audiobench::")]
    with open("located.json", "w") as f:
        json.dump([[item.location, pytest.Item.location.func(item)] for item in ours], f)
"""


def test_a_samples_location_is_the_one_pytest_makes_its_clip_relative_to_the_rootdir(
        run_bench: Any, pytester: pytest.Pytester, chat_data: Any) -> None:
    # Made without pytest's cache of every distinct location's path, which would keep one
    # for each sample.
    pytester.makeconftest(LOCATED)
    run_bench("-k", "speech_QA").result.assert_outcomes(passed=2)
    located = json.loads((pytester.path / "located.json").read_text())
    assert len(located) == 2 and all(ours == pytests for ours, pytests in located)
    path, line, domain = located[0][0]
    assert (pytester.path / path).resolve().is_relative_to(chat_data.resolve())
    assert (line, domain) == (0, "air_bench_chat speech_QA 400")


SHARED = """
import pytest

calls = []

@pytest.fixture(autouse=True)
def counted(request):
    calls.append(request.node.nodeid)
    yield

def pytest_collection_finish(session):
    ours = [i for i in session.items if i.nodeid.startswith("audiobench::")]
    closures = {id(i._fixtureinfo) for i in ours}
    tasks = {i.nodeid.rsplit("::", 1)[0] for i in ours}
    with open("closures.txt", "w") as f:
        f.write(f"{len(ours)} {len(closures)} {len(tasks)}")

def pytest_sessionfinish(session):
    with open("autouse.txt", "w") as f:
        f.write(str(len(set(calls))))
"""


def test_the_items_of_a_task_share_one_fixture_closure_and_fixtures_still_run_for_each(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    pytester.makeconftest(SHARED)
    run_bench().result.assert_outcomes(passed=16)
    items, closures, tasks = map(int, (pytester.path / "closures.txt").read_text().split())
    assert (items, closures) == (16, tasks) and tasks < items
    assert (pytester.path / "autouse.txt").read_text() == "16"


FROZEN = """
import gc, pytest

seen = []
collecting = []

@pytest.hookimpl(tryfirst=True)
def pytest_collection(session):
    collecting.append(gc.get_freeze_count())

def pytest_runtest_call(item):
    seen.append(gc.get_freeze_count())

@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    worker = getattr(config, "workerinput", None)
    name = worker["workerid"] if worker else "controller"
    with open(f"frozen-{name}.txt", "w") as f:
        f.write(f"{min(seen, default=-1)} {gc.get_freeze_count()} {collecting[0]}")
"""


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_the_collected_tree_is_out_of_the_garbage_collectors_rescans_until_the_end(
        run_bench: Any, pytester: pytest.Pytester, xdist: list[str]) -> None:
    pytester.makeconftest(FROZEN)
    run_bench(*xdist, subprocess=True).result.assert_outcomes(passed=16)
    found = {p.name: p.read_text().split() for p in pytester.path.glob("frozen-*.txt")}
    ran = {name: parts for name, parts in found.items() if parts[0] != "-1"}
    assert len(ran) == 1  # the worker, under xdist; the controller runs no item there
    for name, (during, after, collecting) in ran.items():
        # Frozen while every item ran, the loaded samples already while the items were
        # made; nothing left frozen once the session is over.
        assert int(during) > int(collecting) > 1000 and after == "0", name


def test_the_loaded_samples_are_out_of_the_rescans_while_collecting_only(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    pytester.makeconftest(FROZEN)
    run_bench("--collect-only", subprocess=True).result.stdout.fnmatch_lines(["*16 tests*"])
    during, after, collecting = (pytester.path / "frozen-controller.txt").read_text().split()
    assert (during, after) == ("-1", "0") and int(collecting) > 1000


def _collectable(thing: object) -> bool:
    """Whether the collector still scans ``thing``: a frozen object is in none of its
    generations. Asked of the object itself, not of the freeze count, which other threads
    (execnet's, under xdist) lower whenever they free something frozen."""
    return any(seen is thing for seen in gc.get_objects())


def test_a_freeze_made_by_someone_else_is_left_as_it_is_and_ours_grows() -> None:
    assert gc.get_freeze_count() == 0, "this test needs a process that froze nothing"
    try:
        gc.freeze()
        made_after: list[object] = []
        assert not freeze_kept(ours=False) and _collectable(made_after)
        gc.unfreeze()
        assert freeze_kept(ours=False) and not _collectable(made_after)
        kept: list[object] = []
        assert freeze_kept(ours=True) and not _collectable(kept)
    finally:
        unfreeze()
    assert gc.get_freeze_count() == 0 and _collectable(kept)


def test_a_session_that_froze_already_does_not_count_what_it_froze(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The count walks every frozen object: in a process that holds a million of them, each
    # of the session's later freezes paid a tenth of a second for a number it had no use for.
    def walked() -> int:
        raise AssertionError("gc.get_freeze_count walked the frozen objects")

    assert gc.get_freeze_count() == 0, "this test needs a process that froze nothing"
    try:
        assert freeze_kept(ours=False)
        monkeypatch.setattr(gc, "get_freeze_count", walked)
        kept: list[object] = []
        assert freeze_kept(ours=True) and not _collectable(kept)
    finally:
        unfreeze()
