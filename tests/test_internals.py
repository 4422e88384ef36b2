"""The private pytest and xdist names the plugin reads (``run/internals.py``) are still where
it reads them: a release that moves one fails here, by name."""

from __future__ import annotations

import pytest

from pytest_audiobench.run import internals

CONFTEST = '''
from pytest_audiobench.run import internals

def pytest_collection_modifyitems(items):
    info = internals.fixture_info(items[0])
    assert type(info).__name__ == "FuncFixtureInfo", "pytest's Function._fixtureinfo is gone"
    assert "tmp_path" in info.names_closure
'''

TESTS = '''
from pytest_audiobench.run import internals

def test_one(request, tmp_path):
    queue = internals.xdist_queue(request.config)
    if hasattr(request.config, "workerinput"):
        assert queue is not None, "xdist's WorkerInteractor.torun is gone"
        with queue.lock() as pending:
            upcoming = list(pending)
        # What it holds, when xdist has sent more: item indices, as the plugin reads them,
        # and xdist's shutdown marker.
        assert all(isinstance(i, int) or getattr(i, "name", "") == "SHUTDOWN"
                   for i in upcoming), upcoming
    else:
        assert queue is None

def test_two(tmp_path):
    pass

def test_three():
    pass
'''


@pytest.mark.parametrize("xdist", [pytest.param([], id="no-xdist"),
                                   pytest.param(["-n", "1"], id="n1")])
def test_the_private_names_are_where_the_plugin_reads_them(
        pytester: pytest.Pytester, xdist: list[str]) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_checks=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", *xdist)
    result.assert_outcomes(passed=3)


def test_a_plain_process_has_no_worker_queue(pytester: pytest.Pytester) -> None:
    assert internals.xdist_queue(pytester.parseconfig()) is None


def test_pytest_still_tells_the_keys_of_the_file_no_plugin_declared(
        pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nnothing_declares_this = 1\nmarkers = x: y\n")
    config = pytester.parseconfigure()
    assert internals.unknown_ini_keys(config) == {"nothing_declares_this"}
