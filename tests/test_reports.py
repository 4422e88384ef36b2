"""The JSON report, junitxml properties, and pytest's own selection tools on sample items."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL, Servers
from tests.fakes.openai_server import Scripted


def test_the_json_report_holds_every_sample_with_request_answer_judge_outputs_and_scores(
        run_bench: Any, small_records: list[Any]) -> None:
    run = run_bench()
    report = run.report
    assert report["tool"] == "pytest-audiobench" and report["gate_held"] is True
    assert report["settings"]["model"] == MODEL
    assert "api_key" not in report["settings"]["endpoint"]  # only the variable's name is kept
    assert report["settings"]["endpoint"]["api_key_env"] == "AUDIOBENCH_API_KEY"
    samples = report["samples"]
    assert [s["sample_id"] for s in samples] == [str(r["uniq_id"]) for r in small_records]
    first = samples[0]
    assert first["outcome"] == "passed" and first["answers"][0]["completion"]["text"] == (
        "a good answer")
    assert first["answers"][0]["request"]["prompt"] == small_records[0]["question"]
    assert len(first["answers"][0]["request"]["audio_sha256"]) == 64
    passes = first["grades"][0]["passes"]
    assert [(p["order"], p["outputs"], p["model_score"], p["reference_score"]) for p in passes] == [
        ("reference_first", ["6 8"], 8, 6), ("model_first", ["8 6"], 8, 6)]
    assert first["grades"][0]["model_score"] == 8.0
    usage = report["usage"]
    assert usage["model"]["prompt_tokens"] > 0 and usage["judge"]["completion_tokens"] == 64


def test_junitxml_carries_per_sample_properties(run_bench: Any, pytester: pytest.Pytester) -> None:
    xml = pytester.path / "junit.xml"
    run = run_bench(f"--junitxml={xml}")
    run.result.assert_outcomes(passed=16)
    cases = ET.parse(xml).getroot().iter("testcase")
    props = {case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
             for case in cases}
    assert len(props) == 16
    some = next(iter(props.values()))
    assert some["audiobench_model_score"] == "8.0"
    assert some["audiobench_reference_score"] == "6.0"
    assert some["audiobench_judge_outputs"] == "6 8 | 8 6"


def test_k_selects_a_task_and_deselect_drops_one_sample(run_bench: Any, servers: Servers,
                                                        small_records: list[Any]) -> None:
    speech = [r for r in small_records if r["task_name"] == "speech_QA"]
    dropped = f"audiobench::air_bench_chat::speech_QA::{speech[0]['uniq_id']}"
    run = run_bench("-k", "speech_QA", "--deselect", dropped)
    run.result.assert_outcomes(passed=1, deselected=15)
    assert servers.model.count() == 1
    assert run.report["benchmarks"][0]["counts"]["selected"] == 1


def test_last_failed_reruns_only_the_failed_samples(pytester: pytest.Pytester, servers: Servers,
                                                    chat_data: Path,
                                                    small_records: list[Any]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[2]["question"], replies="a poor answer")
    flags = ["--audiobench-model", MODEL, "--audiobench-api-url", servers.model.url,
             f"--audiobench-data={chat_data}", "--audiobench-judge-model", "judge-model",
             "--audiobench-judge-api-url", servers.judge.url, "--audiobench-no-cache"]
    pytester.runpytest(*flags).assert_outcomes(passed=15, failed=1)
    before = servers.model.count()
    rerun = pytester.runpytest(*flags, "--lf")
    rerun.assert_outcomes(failed=1, deselected=15)
    assert servers.model.count() == before + 1


def test_other_tests_run_beside_the_samples_when_paths_are_given(
        pytester: pytest.Pytester, servers: Servers, chat_data: Path) -> None:
    pytester.makepyfile(test_mine="def test_fails():\n    assert False\n")
    result = pytester.runpytest(
        "test_mine.py", "--audiobench-model", MODEL, "--audiobench-api-url", servers.model.url,
        f"--audiobench-data={chat_data}", "--audiobench-judge-model", "judge-model",
        "--audiobench-judge-api-url", servers.judge.url, "--audiobench-tasks", "sound_QA")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 1  # another test failed: the gate never hides it


def test_without_the_model_flag_the_plugin_stays_out_of_the_way(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_mine="def test_ok():\n    pass\n")
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "audiobench" not in result.stdout.str().replace("audiobench-0.1.0", "")


class _Asks:
    """A benchmark as the summary reads its judge protocol, and the judge's use it gives."""

    def __init__(self, *words: str) -> None:
        self.words = list(words)

    def judge_use(self) -> _Asks:
        return self

    def protocol(self) -> list[str]:
        return self.words


def test_the_judge_protocol_names_each_benchmark_only_when_several_ask_the_judge() -> None:
    from pytest_audiobench.report.summary import judge_protocol

    one = {"air_bench_chat": _Asks("both orders", "prompt built-in"), "mmsu": _Asks()}
    assert judge_protocol(one) == ["both orders", "prompt built-in"]  # type: ignore[arg-type]
    two = {"air_bench_chat": _Asks("both orders"), "mmsu": _Asks(),
           "big_bench_audio": _Asks("CORRECT/INCORRECT", "prompt built-in")}
    assert judge_protocol(two) == [  # type: ignore[arg-type]
        "air_bench_chat: both orders", "big_bench_audio: CORRECT/INCORRECT, prompt built-in"]
    assert judge_protocol({"mmsu": _Asks()}) == []  # type: ignore[arg-type]
