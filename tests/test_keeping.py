"""What pytest keeps of our items' reports: the passed setup and teardown reports of
benchmark items are let go once counted (pytest rescans them for every failure, which is
quadratic in a run with thousands of failures), and the output stays what it was."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import XDIST_MODES, Servers
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


@pytest.mark.parametrize("xdist", XDIST_MODES)
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
    reasons = [line for line in lines if line.startswith("air_bench_chat ")
               and "is below the bar 5" in line]
    assert len(reasons) == 8
    assert sum(line.startswith("FAILED audiobench::") for line in lines) == 8
    assert "PASSED audiobench::air_bench_chat::" in out
    junit = (pytester.path / "junit.xml").read_text()
    assert junit.count("<testcase") == 18 and junit.count("<failure") == 9
