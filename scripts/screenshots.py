"""Regenerate the screenshots of the HTML page in docs/ from a real run on the bundled mini
benchmark: the built-in random model gated against the cascade's committed baseline (both
benchmarks, the offline judge), so the page shows regressions, expected failures and
improvements. Needs headless Chromium and its driver (apt-get install chromium
chromium-driver) and selenium (the dev extra).

    python scripts/screenshots.py [--out docs]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

REPO = Path(__file__).resolve().parents[1]
WIDTH = 1100


def make_page(work: Path) -> Path:
    """Run the plugin as a user would and return the page it wrote."""
    page = work / "page.html"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "AUDIOBENCH_"))}
    env["XDG_CACHE_HOME"] = str(work / "cache")
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
         "--audiobench-model", "random", "--audiobench-gate-against", "cascade",
         "--audiobench-judge-model", "overlap", "--audiobench-benchmark", "air_bench_chat,mmar",
         "--audiobench-data", "mini", f"--audiobench-baselines={REPO / 'baselines'}",
         f"--audiobench-html={page}"],
        cwd=work, env=env, check=False, stdout=subprocess.DEVNULL)
    if not page.exists():
        raise SystemExit(f"the run wrote no page at {page}")
    return page


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if chromium is None or driver is None:
        raise SystemExit("needs chromium and chromedriver (apt-get install chromium "
                         "chromium-driver)")
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--window-size={WIDTH},1000", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(driver), options=options)


def shoot(page: Path, out: Path) -> list[Path]:
    driver = browser()
    try:
        driver.get(page.as_uri())
        top = out / "html-report.png"
        driver.set_window_size(WIDTH, 1050)
        driver.save_screenshot(str(top))
        # The samples: "passed" filtered out, the first regression opened.
        driver.execute_script("document.querySelector('input[value=passed]').click();"
                              "document.querySelector('details.sample summary').click();"
                              "document.querySelector('section.samples').scrollIntoView();")
        samples = out / "html-report-samples.png"
        driver.set_window_size(WIDTH, 900)
        driver.save_screenshot(str(samples))
        return [top, samples]
    finally:
        driver.quit()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        for path in shoot(make_page(Path(folder)), args.out):
            print(f"{path} ({path.stat().st_size / 1024:.0f} KB)")


if __name__ == "__main__":
    main()
