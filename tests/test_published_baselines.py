"""The published reference baselines in ``baselines/``: each reads as a baseline file, names
where its numbers come from, sits where a run looks for its model, and holds only metrics its
benchmark reports, with a source of its own benchmark's (none shared with another benchmark's
baselines, none naming another benchmark); MMAU's task numbers agree with their average; Big
Bench Audio's state the judge's settings, which its options' defaults reproduce."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.gate.baseline import load, path_for

REPO = Path(__file__).resolve().parents[1]
PUBLISHED = sorted((REPO / "baselines").glob("*/*.json"))
TASK_SIZES = {"sound": 333, "music": 334, "speech": 333}


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_published_baseline_reads_says_its_source_and_sits_where_a_run_looks(
        path: Path) -> None:
    baseline = load(path)
    assert baseline is not None and baseline.source.startswith("published: ")
    assert path_for(REPO / "baselines", baseline.benchmark, baseline.model) == path
    assert baseline.benchmark in registry.catalog().specs
    assert all(name.startswith(f"{baseline.benchmark}.") for name in baseline.metrics)


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_metric_of_a_published_baseline_is_one_its_benchmark_gates(
        path: Path, tmp_path: Path) -> None:
    # A name the benchmark never reports (a character error rate named "wer", a language it
    # does not have) would be "not measured" in every run: a threshold that never holds.
    from tests.settings import make_settings

    baseline = load(path)
    assert baseline is not None
    settings = make_settings(tmp_path, model="random", judge_model="overlap", data="mini",
                             benchmark=(baseline.benchmark,))
    gating = registry.create(baseline.benchmark, settings).gating()
    assert [name for name in baseline.metrics if gating.linear(name) is None] == []


def _names(benchmark: str) -> set[str]:
    """What names ``benchmark`` in a source, in lower case: its name, spelled with spaces or
    hyphens too, and its tasks that are not plain words ("test-clean", "en_us")."""
    spec = registry.catalog().specs[benchmark]
    tasks = {t for t in spec.tasks if re.search(r"[-_]", t) and not t.startswith("mix-")}
    spelled = {benchmark, benchmark.replace("_", " "), benchmark.replace("_", "-"), *tasks}
    return {name.lower() for name in spelled}


def test_no_published_source_is_another_benchmark_s() -> None:
    # FLEURS's once repeated LibriSpeech's, its figures and its splits included.
    sources: dict[str, set[str]] = {}
    for path in PUBLISHED:
        baseline = load(path)
        assert baseline is not None and baseline.source is not None
        sources.setdefault(baseline.source, set()).add(baseline.benchmark)
        named = {other for other in registry.catalog().specs if other != baseline.benchmark
                 and any(name in baseline.source.lower() for name in _names(other))}
        assert not named, f"{path.name} ({baseline.benchmark}) names {named}"
    shared = {source: found for source, found in sources.items() if len(found) > 1}
    assert not shared


# A source that gives the average only (Qwen3-Omni's card) has nothing to check here.
BY_TASK = [p for p in PUBLISHED if p.parent.name == "mmau" and "mmau.task.sound.avg" in
           p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", BY_TASK, ids=lambda p: p.name)
def test_mmau_task_numbers_average_to_the_published_average(path: Path) -> None:
    baseline = load(path)
    assert baseline is not None
    metrics = baseline.metrics
    mean = sum(size * metrics[f"mmau.task.{t}.avg"].threshold
               for t, size in TASK_SIZES.items()) / 1000
    assert mean == pytest.approx(metrics["mmau.avg"].threshold, abs=0.05)


BIG_BENCH_AUDIO = [p for p in PUBLISHED if p.parent.name == "big_bench_audio"]
JUDGED = re.compile(r"judge (\S+) at temperature ([0-9.]+), its reply read (in any letter case|"
                    r"in upper case only)")


@pytest.mark.parametrize("path", BIG_BENCH_AUDIO, ids=lambda p: p.name)
def test_a_big_bench_audio_baseline_states_its_judge_settings_and_the_defaults_are_them(
        path: Path) -> None:
    from pytest_audiobench.benchmarks.big_bench_audio.options import BigBenchAudioOptions
    from pytest_audiobench.config.declarations import declared

    baseline = load(path)
    assert baseline is not None and baseline.source is not None
    said = JUDGED.search(baseline.source)
    assert said is not None, baseline.source
    model, temperature, reading = said.groups()
    assert model == baseline.judge_model == "gpt-4o-mini"
    # The defaults are the published protocol: a run that names the judge compares as is.
    defaults = {option.attr: option.default for option in declared(BigBenchAudioOptions)}
    assert float(temperature) == defaults["big_bench_audio_judge_temperature"] == 0.1
    assert reading == "in any letter case"
    assert defaults["big_bench_audio_judge_reading"] == "case-insensitive"
    # A judge identity is compared whole (endpoint, all its sampling, our prompt's hash), and
    # the published numbers have none of those in our terms: one would make every run's judge
    # another judge. The settings are stated in the source and the defaults instead.
    assert baseline.judge is None
