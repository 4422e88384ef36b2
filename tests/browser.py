"""Headless Chromium for the tests that open a page (Debian's ``chromium`` and
``chromium-driver``; .ci/run installs them), driven by selenium: the browser, the mark that
skips a module without it, and what a page asked of the network."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
NEEDS_CHROMIUM = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no headless Chromium here (apt-get install chromium chromium-driver)")


@contextmanager
def chromium(*flags: str) -> Iterator[Any]:
    """A headless Chromium that logs the network and the console, with ``flags`` besides."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1200,900", *flags):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(DRIVER)), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


def asked_only_itself(page: Any) -> None:
    """Assert that the open page fetched nothing but itself and its files (``file:``,
    ``data:``) and logged no error."""
    requests = [json.loads(entry["message"])["message"] for entry in page.get_log("performance")]
    urls = [m["params"]["request"]["url"] for m in requests
            if m["method"] == "Network.requestWillBeSent"]
    assert urls and all(url.startswith(("file:", "data:")) for url in urls), urls
    errors = [e for e in page.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def opened(page: Any, nodeid: str) -> tuple[Any, Any]:
    """Open the sample row of ``nodeid`` by a click on its summary, checking that its body was
    hidden before and shows now; the row and its body."""
    row = page.find_element("css selector", f'details[data-nodeid="{nodeid}"]')
    body = row.find_element("css selector", ".body")
    assert not body.is_displayed()
    row.find_element("tag name", "summary").click()
    assert row.get_attribute("open") is not None and body.is_displayed()
    return row, body
