"""The HTML page in a real browser: headless Chromium driven by selenium (Debian's
``chromium`` and ``chromium-driver``; .ci/run installs them). The charts are drawn, the
filters change the rows, a row opens, the audio plays, and the page asks for nothing from
the network. Skipped, with the reason, where the browser or selenium is absent."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser import NEEDS_CHROMIUM, asked_only_itself, chromium, opened
from tests.conftest import Servers
from tests.test_html_report import node
from tests.test_per_sample_gate import answering

pytest.importorskip("selenium.webdriver", reason="selenium comes with the dev extra")
pytestmark = NEEDS_CHROMIUM


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium("--autoplay-policy=no-user-gesture-required") as driver:
        yield driver


@pytest.fixture
def page(run_bench: Any, pytester: pytest.Pytester, servers: Servers,
         small_records: list[Any], browser: Any) -> Any:
    """The page of a run gated against a per-sample baseline (5 regressed, 0 under the bar as
    before, 2 xpassed), open in the browser."""
    answering(servers, small_records, {0, 2})
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    answering(servers, small_records, {0, 5})
    run_bench("--audiobench-html=out/page.html")
    path = pytester.path / "out" / "page.html"
    browser.get_log("performance")  # drop what earlier pages logged
    browser.get(path.as_uri())
    return browser


def shown(browser: Any) -> str:
    return str(browser.find_element("id", "shown").text)


def test_the_charts_are_drawn(page: Any) -> None:
    boxes = page.execute_script(
        "return Array.from(document.querySelectorAll('svg.forest circle.point'))"
        ".map(c => { const b = c.getBoundingClientRect(); return [b.width, b.height]; });")
    assert len(boxes) == 7 and all(w > 0 and h > 0 for w, h in boxes)
    bars = page.execute_script(
        "return Array.from(document.querySelectorAll('svg.bars rect.value'))"
        ".map(r => r.getBoundingClientRect().width);")
    assert len(bars) == 7 and max(bars) > 100  # scores of 6-8 out of 10 over 420 pixels


def test_the_filters_change_the_rows(page: Any, small_records: list[Any]) -> None:
    assert shown(page) == "16 of 16 shown"
    page.find_element("css selector", "input[name=kind][value=passed]").click()
    assert shown(page) == "3 of 16 shown"
    visible = page.execute_script(
        "return Array.from(document.querySelectorAll('details.sample'))"
        ".filter(d => !d.hidden).map(d => d.dataset.kind);")
    assert sorted(visible) == ["regressed", "xfailed", "xpassed"]
    page.find_element("css selector", "input[name=kind][value=passed]").click()
    from selenium.webdriver.support.select import Select

    Select(page.find_element("id", "task")).select_by_value(
        f"air_bench_chat::{small_records[5]['task_name']}")
    assert shown(page) == "2 of 16 shown"
    Select(page.find_element("id", "task")).select_by_value("")
    page.find_element("id", "text").send_keys(small_records[5]["question"][:30])
    assert shown(page) == "1 of 16 shown"


def test_a_row_opens_to_its_answers_and_judges(page: Any, small_records: list[Any]) -> None:
    row, body = opened(page, node(small_records[5]))
    assert "baseline answer (score 8)" in body.text.lower()
    assert row.find_element("css selector", "del").text == "good"
    assert row.find_element("css selector", "ins").text == "poor"


def loaded(browser: Any, audio: Any) -> tuple[int, float, int | None]:
    """Load ``audio`` and wait until it can play through or fails: its readyState, duration
    and error code (None: no error)."""
    ready, duration, error = browser.execute_async_script(
        "const [audio, done] = arguments;"
        "audio.addEventListener('canplaythrough', () => done([audio.readyState, audio.duration,"
        " audio.error && audio.error.code]));"
        "audio.addEventListener('error', () => done([audio.readyState, 0,"
        " audio.error && audio.error.code]));"
        "audio.load();", audio)
    return ready, duration, error


@pytest.mark.parametrize("budget", [None, "0"], ids=["embedded", "linked"])
def test_the_audio_loads_and_plays(page: Any, small_records: list[Any], budget: str | None,
                                   run_bench: Any, pytester: pytest.Pytester) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    if budget is not None:  # every clip within the default budget is embedded: none left
        # A page of its own, waited for: under load the browser has answered with an empty
        # document while it was still going there.
        run_bench("--audiobench-html=out/linked.html", "--audiobench-html-audio-mb", budget)
        page.get((pytester.path / "out" / "linked.html").as_uri())
        WebDriverWait(page, 20).until(
            lambda browser: "audio linked, not embedded" in browser.page_source)
    row = page.find_element("css selector",
                            f'details[data-nodeid="{node(small_records[1])}"]')
    row.find_element("tag name", "summary").click()
    audio = row.find_element("tag name", "audio")
    ready, duration, error = loaded(page, audio)
    assert error is None and ready == 4 and duration > 0  # HAVE_ENOUGH_DATA
    assert page.execute_script("return arguments[0].play().then(() => true)", audio) is True


def test_the_page_asks_nothing_of_the_network(page: Any) -> None:
    row = page.find_element("css selector", "details.sample")
    row.find_element("tag name", "summary").click()
    page.execute_script("document.querySelectorAll('audio').forEach(a => a.load());")
    asked_only_itself(page)


def test_a_merge_page_opens_too(run_bench: Any, pytester: pytest.Pytester,
                                browser: Any) -> None:
    from pytest_audiobench.commands import merge

    shards = []
    for shard in ("1/2", "2/2"):
        run = run_bench("--audiobench-shard", shard)
        shards.append(run.report_path.rename(pytester.path / f"shard-{shard[0]}.json"))
    target: Path = pytester.path / "merged.html"
    assert merge.main([*map(str, shards), f"--html={target}"]) == 0
    browser.get(target.as_uri())
    assert shown(browser) == "16 of 16 shown"


def test_an_air_bench_foundation_row_marks_its_options_and_plays_its_flac(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, browser: Any) -> None:
    from tests.fakes.datasets import build_air_bench_foundation
    from tests.test_foundation import NAME, TABLE, scripted_servers

    scripted_servers(servers)
    release = build_air_bench_foundation(pytester.path / "release",
                                         [record for record, _, _ in TABLE.values()])
    run_bench("--audiobench-html=page.html", data=release, benchmark=NAME)
    browser.get((pytester.path / "page.html").as_uri())
    assert shown(browser) == "8 of 8 shown"

    def opened(nodeid: str) -> Any:
        row = browser.find_element("css selector", f'details[data-nodeid="{nodeid}"]')
        row.find_element("tag name", "summary").click()
        return row

    # r2: the model said "female" (B, chosen), the answer is "male" (A, correct).
    row = opened(f"audiobench::{NAME}::Speaker_Gender_Recognition_meld::2")
    marks = browser.execute_script(
        "return Array.from(arguments[0].querySelectorAll('ul.choices li')).map(li => {"
        " const s = getComputedStyle(li);"
        " return [li.className, li.textContent, s.fontWeight, s.textDecorationLine]; });", row)
    assert marks == [["correct", "A. male (correct)", "600", "none"],
                     ["chosen", "B. female (chosen)", "400", "line-through"]]
    assert "align judge replied 'B'" in row.text
    # r5: Audio_Grounding's clip is a FLAC under a .wav name; the page plays it.
    audio = opened(f"audiobench::{NAME}::Audio_Grounding_AudioGrounding::5").find_element(
        "tag name", "audio")
    ready, duration, error = loaded(browser, audio)
    assert error is None and ready == 4 and duration > 0
