"""What goes over the wire: the model request, the audio part in each mode, and the judge
request of the official protocol."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile

from tests.conftest import JUDGE, MODEL, Servers
from tests.fakes.datasets import build_air_bench_chat
from tests.fakes.made_records import made_chat_records


def _audio(request: Any) -> dict[str, Any]:
    (part,) = request.audio_parts
    return dict(part)


def test_the_model_gets_the_audio_then_the_question_as_raw_base64_input_audio(
        run_bench: Any, servers: Servers, chat_data: Path, small_records: list[Any]) -> None:
    run = run_bench("--audiobench-tasks", "speech_dialogue_QA,speech_QA")
    run.result.assert_outcomes(passed=4)
    by_question = {r.text: r for r in servers.model.requests}
    for record in small_records[:4]:
        request = by_question[record["question"]]
        (message,) = request.body["messages"]
        assert message["role"] == "user"
        assert [part["type"] for part in message["content"]] == ["input_audio", "text"]
        part = message["content"][0]["input_audio"]
        assert not part["data"].startswith("data:")
        path = chat_data / "Chat" / f"{record['task_name']}_{record['dataset_name']}" / record[
            "path"]
        assert base64.b64decode(part["data"]) == path.read_bytes()
        assert part["format"] == path.suffix.lstrip(".")
        assert request.body["temperature"] == 0.0 and request.body["max_tokens"] == 1024
        assert "seed" not in request.body


def test_common_voice_mp3_clips_are_sent_as_mp3(run_bench: Any, servers: Servers,
                                                tmp_path: Path) -> None:
    mp3 = [r for r in made_chat_records(common_voice=True) if r["path"].endswith(".mp3")]
    data = build_air_bench_chat(tmp_path / "data", mp3)
    run = run_bench(data=data)
    run.result.assert_outcomes(passed=2)
    assert {_audio(r)["input_audio"]["format"] for r in servers.model.requests} == {"mp3"}


@pytest.mark.parametrize(("mode", "expected_type"), [
    ("data-uri", "input_audio"), ("audio-url", "audio_url")])
def test_the_other_audio_modes_send_a_data_uri(run_bench: Any, servers: Servers, mode: str,
                                               expected_type: str) -> None:
    run = run_bench("--audiobench-audio-mode", mode, "--audiobench-tasks", "sound_QA")
    run.result.assert_outcomes(passed=2)
    part = _audio(servers.model.requests[0])
    assert part["type"] == expected_type
    value = part["input_audio"]["data"] if mode == "data-uri" else part["audio_url"]["url"]
    assert value.startswith("data:audio/wav;base64,")
    assert run.report["samples"][0]["answers"][0]["request"]["audio_mode"] == mode


def test_flac_is_transcoded_to_wav_and_long_clips_warn(run_bench: Any, servers: Servers,
                                                       tmp_path: Path,
                                                       small_records: list[Any]) -> None:
    record = dict(small_records[4], path="clip.flac")
    data = build_air_bench_chat(tmp_path / "data", [record])
    flac = data / "Chat" / f"{record['task_name']}_{record['dataset_name']}" / "clip.flac"
    soundfile.write(flac, np.zeros(16000 * 3, dtype=np.int16), 16000, format="FLAC")
    run = run_bench("--audiobench-max-audio-seconds", "2", data=data)
    run.result.assert_outcomes(passed=1)
    part = _audio(servers.model.requests[0])["input_audio"]
    assert part["format"] == "wav" and base64.b64decode(part["data"]).startswith(b"RIFF")
    answer = run.report["samples"][0]["answers"][0]
    assert answer["request"]["transcoded"] is True
    assert answer["request"]["audio_seconds"] == 3.0
    assert "clip is 3.0 s, longer than --audiobench-max-audio-seconds 2" in answer["warnings"][0]
    assert "longer than --audiobench-max-audio-seconds" in run.result.stdout.str()


def test_sampling_settings_are_sent_and_recorded(run_bench: Any, servers: Servers) -> None:
    run = run_bench("--audiobench-temperature", "0.7", "--audiobench-max-tokens", "64",
                    "--audiobench-seed", "11", "--audiobench-judge-temperature", "0",
                    "--audiobench-judge-seed", "42", "--audiobench-tasks", "music_QA")
    run.result.assert_outcomes(passed=2)
    body = servers.model.requests[0].body
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.7, 64, 11)
    judge_bodies = [r.body for r in servers.judge.requests]
    assert {(b["temperature"], b["seed"]) for b in judge_bodies} == {(0.0, 42)}
    sampling = run.report["samples"][0]["answers"][0]["request"]["sampling"]
    assert sampling == {"temperature": 0.7, "max_tokens": 64, "seed": 11}
    judge = run.report["settings"]["judge"]["endpoint"]
    assert judge["model"] == JUDGE and judge["sampling"]["seed"] == 42


def test_each_judge_pass_is_one_user_message_with_the_official_inputs_in_order(
        run_bench: Any, servers: Servers, small_records: list[Any]) -> None:
    record = small_records[14]
    run = run_bench("--audiobench-tasks", "speech_and_music_QA")
    run.result.assert_outcomes(passed=2)
    prompts = [r.body["messages"] for r in servers.judge.requests
               if record["question"] in r.text]
    assert len(prompts) == 2
    for messages in prompts:
        (message,) = messages
        assert message["role"] == "user" and isinstance(message["content"], str)
    texts = [m[0]["content"] for m in prompts]
    firsts = []
    for text in texts:
        one = text.index("[Assistant 1's answer]")
        two = text.index("[Assistant 2's answer]")
        assert text.index(record["meta_info"]) < text.index(record["question"]) < one < two
        firsts.append(text[one:two])
        assert "single line" in text and "Assistant 1's score first" in text
    assert sorted("a good answer" in block for block in firsts) == [False, True]
    assert sorted(record["answer_gt"] in block for block in firsts) == [False, True]
    assert all(r.body["model"] == JUDGE for r in servers.judge.requests)
    assert all(r.body["model"] == MODEL for r in servers.model.requests)
