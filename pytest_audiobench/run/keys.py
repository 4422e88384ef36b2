"""The stash key of a sample item: the benchmark sample it runs."""

from __future__ import annotations

import pytest

from pytest_audiobench.benchmarks.sample import Sample

SAMPLE_KEY = pytest.StashKey[Sample]()
