"""A clone with no reference metadata beside it passes its own tests: the tests that need the
real metadata skip and say why, and the rest run on data the tests make or on the mini
benchmark (as in a user's clone, where ../shared does not exist)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Every module that reads the reference metadata (the ones that skip without it, and those
# with records of their own beside it), and one end-to-end module that used to need it.
SELECTION = ["tests/test_air_bench_chat_data.py", "tests/test_mmar_data.py",
             "tests/test_matching.py", "tests/test_fakes.py", "tests/test_full_reference.py",
             "tests/test_rubrics.py", "tests/test_gate.py",
             "tests/test_noisy_judge.py::test_on_the_full_release_a_drop_on_10_percent_fails_"
             "every_run_and_the_items_name_them"]


def test_without_the_reference_metadata_the_tests_pass_and_the_skips_say_why(
        tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") or k == "PYTEST_ADDOPTS"}
    env["AUDIOBENCH_TESTS_REFERENCE_DIR"] = str(tmp_path / "no-shared-here")
    done = subprocess.run(
        # The xdist variants of the end-to-end tests read the same data as their plain ones.
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         f"--basetemp={tmp_path / 'runs'}", "-k", "not n0 and not n2", *SELECTION],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:]
    assert "error" not in summary and "failed" not in summary, summary
    passed = int(re.search(r"(\d+) passed", summary).group(1))  # type: ignore[union-attr]
    assert passed > 100
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips, "without the metadata some tests must skip"
    assert all(re.search(r"reference|\.\./shared", line) for line in skips), skips
