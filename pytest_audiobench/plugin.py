"""The pytest11 entry point: options, hooks and fixtures, each handing off to the session.

Cheap to import: pytest loads it in every run of every project that has the plugin, so the
heavy modules (openai, soundfile, the benchmarks) load only when a benchmark run is asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.config import declarations, options
from pytest_audiobench.config.names import located
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.run import internals
from pytest_audiobench.run.keeping import forget_passed_phase
from pytest_audiobench.run.keys import SAMPLE_KEY
from pytest_audiobench.run.stash import SESSION_KEY, session_of

if TYPE_CHECKING:
    from pytest_audiobench.benchmarks.sample import Sample
    from pytest_audiobench.outcome.records import Grade, ModelAnswer
    from pytest_audiobench.run.session import Controller

def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_audiobench import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    catalog = registry.catalog()
    declarations.register(parser, options.groups(catalog), catalog)
    pluginmanager.hook.pytest_audiobench_register.call_historic(
        kwargs={}, result_callback=lambda specs: registry.register(specs, parser))


def pytest_unconfigure(config: pytest.Config) -> None:
    registry.forget_added()


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, Any, Any]:
    if config.option.help:
        from pytest_audiobench.run.help import ListedInHelp

        config.pluginmanager.register(ListedInHelp(options.groups(registry.catalog())))
    return (yield)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "audiobench: a benchmark sample item of pytest-audiobench "
                            "(-m audiobench runs them without the repository's other tests)")
    registry.refuse_bad()
    options.refuse_unknown_ini_keys(internals.unknown_ini_keys(config), registry.catalog())
    for warning in options.start_warnings(config, registry.catalog()):
        config.issue_config_time_warning(pytest.PytestConfigWarning(warning), stacklevel=2)
    if not options.enabled(config):
        return
    from pytest_audiobench.config.resolve import read_settings
    from pytest_audiobench.run.session import Controller, session_for

    audiobench = session_for(config, read_settings(config, registry.catalog()))
    config.stash[SESSION_KEY] = audiobench
    if isinstance(audiobench, Controller):
        config.pluginmanager.register(ControllerHooks(audiobench), "audiobench-controller")
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(XdistHooks(audiobench), "audiobench-xdist")


def pytest_report_header(config: pytest.Config) -> str | None:
    if SESSION_KEY not in config.stash:
        return None
    settings = session_of(config).settings
    judge = f"judge {settings.judge.endpoint.model}" if settings.judge else "no judge"
    workers = getattr(config.option, "numprocesses", None)
    return (f"audiobench: {','.join(settings.benchmarks)} on {settings.model} "
            f"{located(settings.endpoint.url, workers if isinstance(workers, int) else 0)}, "
            f"{judge}")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if SESSION_KEY in session.config.stash:
        session_of(session.config).start()


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    report = yield
    config = collector.config
    if isinstance(collector, pytest.Session) and SESSION_KEY in config.stash:
        from pytest_audiobench.run import items

        samples = session_of(config).samples()
        benchmark_only = config.args_source != pytest.Config.ArgsSource.ARGS
        node = items.root(collector, samples)
        report.result = [node] if benchmark_only else [*report.result, node]
    return report


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Last among plain hooks, so that the shards split what -k and --deselect left (--lf is a
    # wrapper and filters afterwards).
    if SESSION_KEY in config.stash:
        session_of(config).shard(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    if SESSION_KEY in session.config.stash:
        session_of(session.config).collection_done(session.items)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item) -> None:
    if SESSION_KEY in item.config.stash:
        session_of(item.config).worker.prefetch(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    except AudiobenchError as error:
        # A sample's report shows an error of ours as its message alone (run/items.py): the
        # frames under it, and the errors it was raised from, would be formatted only to be
        # thrown away, and pytest reads the source of every frame's file to format them (an
        # HTTP client's frames: most of a second of CPU for each failed request). Kept for
        # --pdb, whose debugger walks them.
        if SAMPLE_KEY not in item.stash or item.config.getoption("usepdb"):
            raise
        raise error.with_traceback(None) from None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if SESSION_KEY in item.config.stash:
        from pytest_audiobench.run import items

        items.note_phase(item, report, call.excinfo)
        if call.when == "teardown":
            gear = session_of(item.config).gear
            report.audiobench_in_flight = gear.in_flight()  # type: ignore[attr-defined]
            report.audiobench_away = gear.away()  # type: ignore[attr-defined]
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    if SESSION_KEY in session.config.stash:
        session_of(session.config).finish(session)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if SESSION_KEY not in config.stash:
        return
    lines = session_of(config).terminal_lines()
    if lines:
        terminalreporter.write_sep("=", "audiobench summary")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture
def audiobench_sample(request: pytest.FixtureRequest) -> Sample:
    """The benchmark sample of the current item."""
    from pytest_audiobench.run import items

    return items.sample_of(request)


@pytest.fixture
def audiobench_answers(request: pytest.FixtureRequest,
                       audiobench_sample: Sample) -> list[ModelAnswer]:
    """The model's answers to the sample, one per inference run (skips on empty audio,
    errors when the endpoint fails)."""
    from pytest_audiobench.run import items

    return items.answers_of(request, audiobench_sample)


@pytest.fixture
def audiobench_grades(request: pytest.FixtureRequest, audiobench_sample: Sample,
                      audiobench_answers: list[ModelAnswer]) -> list[Grade]:
    """One grade per answer (errors when the judge never gives a usable reply)."""
    from pytest_audiobench.run import items

    return items.grades_of(request, audiobench_sample)


@pytest.fixture
def audiobench_verdicts(audiobench_grades: list[Grade]) -> list[Grade]:
    """The old name of ``audiobench_grades``: the same grades."""
    return audiobench_grades


class ControllerHooks:
    """Where the reports of every item arrive: in a plain run, or on the xdist controller."""

    def __init__(self, audiobench: Controller) -> None:
        self.audiobench = audiobench
        self.terminal: Any = None

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        terminal = self.terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is None:
            return
        for line in self.audiobench.start_lines():
            terminal.write_line(line)
        self.audiobench.show_progress(_own_line(terminal, session.config.get_terminal_writer()))

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        record = getattr(report, "audiobench_record", None)
        settled = getattr(report, "audiobench_settled", None)
        if record is not None:
            self.audiobench.add(record, getattr(report, "node", None),
                                getattr(report, "audiobench_in_flight", None),
                                getattr(report, "audiobench_away", None), report.nodeid)
            # pytest keeps every report to the end; the record now lives in the session.
            del report.audiobench_record
        elif settled is not None:
            self.audiobench.settle(settled, getattr(report, "node", None),
                                   getattr(report, "audiobench_in_flight", None),
                                   getattr(report, "audiobench_away", None))
        elif report.failed and not NodeId.names_a_sample(report.nodeid):
            self.audiobench.foreign_failure()
        if report.passed and report.when != "call" and NodeId.names_a_sample(report.nodeid):
            forget_passed_phase(self.terminal, report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.audiobench.foreign_failure()

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Ctrl-C, or the stop xdist raises for -x and --maxfail: the words say which.
        self.audiobench.collected.interrupted = str(excinfo.value) or None


class XdistHooks:
    """The controller's hooks that exist only with pytest-xdist."""

    def __init__(self, audiobench: Controller) -> None:
        self.audiobench = audiobench

    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput.update(self.audiobench.worker_input())

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        worker = node.workerinput.get("workerid", "a worker")
        self.audiobench.add_worker_output(worker, getattr(node, "workeroutput", {}))

    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        if self.audiobench.collected.selected is None:
            self.audiobench.expect(ids)

    @pytest.hookimpl(trylast=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport,
                               sched: Any) -> None:
        """A sample whose worker died under it has a record all the same, an error that says
        so: it rides on the failed report xdist logs next. Last, so that a plugin which runs
        the item again (its report then no failure) goes first."""
        if report.outcome == "failed":
            record = self.audiobench.crashed(crashitem, str(report.longrepr))
            if record is not None:
                report.audiobench_record = record  # type: ignore[attr-defined]


def _own_line(terminal: Any, writer: Any) -> Callable[[str], None]:
    """Write a line that starts at the left margin. ``write_line`` starts a new line only
    after a test file's name, and under xdist the progress letters come without one."""
    def write(line: str) -> None:
        terminal.ensure_newline()
        if writer.width_of_current_line:
            terminal.write("\n")
        terminal.write_line(line)

    return write
