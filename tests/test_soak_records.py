"""The soak's records (scripts/soak_records.py): a maker for every built-in benchmark, or the
soak refuses to start; every release it makes loads through its benchmark, and the scripted
model finds each loaded sample from what the plugin sends (the question, or the clip) and names
it as the soak's figures name it from a report."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.voicebench.benchmark import VoiceBench
from pytest_audiobench.benchmarks.voicebench.facts import JUDGED
from pytest_audiobench.benchmarks.voicebench.judge import read_rating
from scripts import soak_records
from scripts.soak_records import Scripts, build, makers, plan, sample_label
from tests.fakes.openai_server import ChatRequest
from tests.settings import make_settings


def test_the_soak_has_a_records_maker_for_every_built_in_benchmark_in_its_order() -> None:
    assert list(makers()) == list(registry.built_in())


def test_the_soak_refuses_to_start_when_a_built_in_benchmark_has_no_records_maker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(soak_records.MAKERS, "fleurs")
    with pytest.raises(SystemExit, match="the plugin ships fleurs, which the soak has no "
                                         "records maker for: add one to MAKERS"):
        makers()


def test_a_size_past_what_the_clips_tell_apart_is_refused() -> None:
    # The counts depend on how many benchmarks share the requests and the marks: the first
    # benchmark past its range of marks is named, with both.
    with pytest.raises(SystemExit, match=r"\w+ would need [\d,]+ clips, more than the [\d,]+ "
                                         "its marks tell apart"):
        plan(200_000, 6, makers())


def _request(text: str, clip: Path) -> ChatRequest:
    data = base64.b64encode(clip.read_bytes()).decode()
    return ChatRequest(body={}, model="soak-model", text=text, headers={},
                       audio_parts=[{"type": "input_audio", "input_audio": {"data": data}}])


def test_every_release_loads_and_the_model_finds_and_names_each_sample(tmp_path: Path) -> None:
    chosen = makers()
    counts = plan(1_000, 6, chosen).samples
    data = build(tmp_path / "data", counts, chosen)
    scripts = Scripts(data, chosen, 6)
    # The settings of the soak's runs, which select every benchmark on its made release.
    settings = make_settings(tmp_path, model="soak-model", api_url="http://x",
                             judge_model="soak-judge", judge_api_url="http://y",
                             benchmark=tuple(chosen), data=data.flag())
    for name in chosen:
        bench = registry.create(name, settings)
        samples = bench.load(data.roots[name]).samples
        assert len(samples) == counts[name], name
        for sample in samples:
            request = _request(bench.prompt(sample), sample.audio)
            found = scripts.sample(request)
            assert found is not None, (name, sample.id)
            assert found[0] == name
            named = {"question": sample.question,
                     "nodeid": f"audiobench::{name}::{sample.task}::{sample.id}"}
            assert scripts.label(request) == sample_label(named), (name, sample.id)


def test_the_judge_answers_voicebench_s_prompts_in_form(tmp_path: Path) -> None:
    # VoiceBench's judge prompts come after a system message, as MMAR's rubrics do: the
    # scripted judge must tell them apart and answer each as its reader takes it.
    chosen = {"voicebench": makers()["voicebench"]}
    data = build(tmp_path / "data", {"voicebench": 54}, chosen)
    scripts = Scripts(data, chosen, 6)
    settings = make_settings(tmp_path, model="soak-model", api_url="http://x",
                             judge_model="soak-judge", judge_api_url="http://y",
                             benchmark=("voicebench",), data=data.flag())
    bench = registry.create("voicebench", settings)
    assert isinstance(bench, VoiceBench)
    said: dict[str, set[str]] = {}
    for sample in bench.load(data.roots["voicebench"]).samples:
        if sample.task not in JUDGED:
            continue
        answer = scripts.model(_request("", sample.audio))
        (messages, _), _ = bench.request(sample, answer)
        reply = scripts.judge(ChatRequest(body={"messages": messages}, model="soak-judge",
                                          text="\n".join(m["content"] for m in messages),
                                          headers={}, audio_parts=[]))
        said.setdefault(sample.task, set()).add(reply)
    assert said["sd-qa"] == {"Yes", "No"}
    for subset in ("alpacaeval_full", "commoneval", "wildvoice"):
        assert all(isinstance(read_rating(reply), float) for reply in said[subset]), subset
        assert len(said[subset]) > 1, subset
