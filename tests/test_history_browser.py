"""audiobench-history's page in a real browser (headless Chromium via selenium, as
tests/test_html_browser.py opens the run page): a row per run, every chart drawn, a flipped
sample's row opening to its body, and nothing asked of the network. Skipped, with the
reason, where the browser or selenium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from pytest_audiobench.commands import history
from tests.browser import NEEDS_CHROMIUM, asked_only_itself, chromium, opened
from tests.conftest import Servers
from tests.test_history import four_runs
from tests.test_html_report import node

pytest.importorskip("selenium.webdriver", reason="selenium comes with the dev extra")
pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as driver:
        yield driver


@pytest.fixture
def page(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
         small_records: list[Any], browser: Any) -> Any:
    """The history of four runs (tests/test_history.py's), open in the browser."""
    runs = four_runs(run_bench, pytester, servers, small_records)
    target = pytester.path / "out" / "history.html"
    assert history.main([*map(str, runs), f"--html={target}"]) == 0
    browser.get_log("performance")  # drop what earlier pages logged
    browser.get(target.as_uri())
    return browser


def test_the_table_has_a_row_per_run_and_every_chart_is_drawn(page: Any) -> None:
    assert len(page.find_elements("css selector", "table#runs tbody tr")) == 4
    charts = page.execute_script(
        "return Array.from(document.querySelectorAll('svg.history')).map(svg => {"
        " const box = svg.getBoundingClientRect();"
        " const dots = Array.from(svg.querySelectorAll('circle.point')).map(c => {"
        "  const b = c.getBoundingClientRect(); return b.width * b.height; });"
        " const line = svg.querySelector('path.line').getBoundingClientRect();"
        " return [box.width, box.height, dots, line.width]; });")
    assert len(charts) == 7
    for width, height, dots, line in charts:
        assert width > 0 and height > 0 and line > 0
        assert len(dots) == 4 and all(area > 0 for area in dots)


def test_a_flipped_sample_opens_to_its_body(page: Any, small_records: list[Any]) -> None:
    row, body = opened(page, node(small_records[2]))
    assert small_records[2]["question"] in body.text
    assert "a good answer" in body.text  # the latest run's answer
    strip = row.find_element("xpath", "preceding-sibling::p[@class='strip']")
    assert strip.text == "3 flips xXxX"


def test_the_history_page_asks_nothing_of_the_network(page: Any) -> None:
    page.find_element("css selector", "details.sample summary").click()
    page.execute_script("document.querySelectorAll('audio').forEach(a => a.load());")
    asked_only_itself(page)
