"""How large the HTML page of a full AIR-Bench Chat run is, how long it takes to write, and
how long headless Chromium takes to open it and to filter its rows.

A measurement, not a test. It takes the 2,200 real AIR-Bench Chat records (from
../shared/reference, with generated 50 ms clips; without them, 100 made records per task),
writes a per-sample baseline from one run against a local scripted server, then a second run
in which a tenth of the answers got worse writes the page; then it opens the page in
Chromium (selenium) and reads the browser's own timings.

    python scripts/bench_html.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.conftest import JUDGE, MODEL, ScoringJudge  # noqa: E402
from tests.fakes.datasets import (  # noqa: E402
    build_air_bench_chat,
    load_chat_reference,
    reference_available,
)
from tests.fakes.made_records import many_chat_records  # noqa: E402
from tests.fakes.openai_server import FakeOpenAIServer, Scripted  # noqa: E402


def run(work: Path, model: FakeOpenAIServer, judge: FakeOpenAIServer, data: Path,
        *extra: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env["XDG_CACHE_HOME"] = str(work / "xdg")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "--audiobench-model", MODEL, "--audiobench-api-url", model.url,
         "--audiobench-judge-model", JUDGE, "--audiobench-judge-api-url", judge.url,
         f"--audiobench-data={data}", "--audiobench-concurrency", "64", "--audiobench-no-cache",
         *extra], cwd=work, env=env, check=False, stdout=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"the run failed ({done.returncode}):\n{done.stdout[-3000:]}")
    return time.perf_counter() - start


def open_page(page: Path) -> dict[str, Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"),
                              options=options)
    try:
        driver.get(page.as_uri())
        timing: dict[str, Any] = driver.execute_script(
            "const t = performance.getEntriesByType('navigation')[0];"
            "return {dom: t.domContentLoadedEventEnd, load: t.loadEventEnd};")
        timing["filter"] = driver.execute_script(
            "const box = document.querySelector('input[value=passed]');"
            "const start = performance.now(); box.click(); return performance.now() - start;")
        timing["shown"] = driver.find_element("id", "shown").text
        return timing
    finally:
        driver.quit()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    records = load_chat_reference() if reference_available() else many_chat_records(100)
    worse = {r["question"] for r in records[::10]}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        data = build_air_bench_chat(work / "data", records)
        script = Scripted("a good answer")
        for question in sorted(worse):
            script.when(contains=question, replies="a poor answer")
        judge = FakeOpenAIServer(ScoringJudge(), models=[JUDGE])
        model = FakeOpenAIServer(Scripted("a good answer"), models=[MODEL])
        with model, judge:
            run(work, model, judge, data, "--audiobench-update-baseline")
            model.script = script
            seconds = run(work, model, judge, data, "--audiobench-html=page.html")
            seconds_plain = run(work, model, judge, data)
        page = work / "page.html"
        size = page.stat().st_size
        timing = open_page(page)
    print(f"samples: {len(records)}, {len(worse)} of them worse")
    print(f"page: {size / 2**20:.1f} MB; run with the page {seconds:.1f} s, without "
          f"{seconds_plain:.1f} s")
    print(f"Chromium: DOM ready {timing['dom']:.0f} ms, loaded {timing['load']:.0f} ms; "
          f"hiding the passed rows {timing['filter']:.0f} ms ({timing['shown']})")


if __name__ == "__main__":
    main()
