"""The in-process models and the offline judge, one piece at a time: how the cascade picks a
choice, the random baseline's seeding, the overlap judge's scores, how they read a request
in every audio mode, and the options that select them."""

from __future__ import annotations

import asyncio
import base64
import collections
import sys
from typing import Any

import pytest

from pytest_audiobench.benchmarks.air_bench_chat import offline as chat_offline
from pytest_audiobench.benchmarks.air_bench_chat.offline import score
from pytest_audiobench.builtin.cascade import best_choice, transcript_prompt
from pytest_audiobench.builtin.overlap import OverlapJudge
from pytest_audiobench.builtin.random_choice import OPEN_RANDOM, RandomChoice
from pytest_audiobench.builtin.request import request_parts
from pytest_audiobench.builtin.words import overlap_f1, spell, words
from pytest_audiobench.errors import EndpointError
from pytest_audiobench.transport.types import Completion
from tests.test_options import assert_usage_error, data_flag, run

# --- words --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "spelled"), [
    (0, "zero"), (5, "five"), (13, "thirteen"), (20, "twenty"), (42, "forty two"), (100, "100")])
def test_numbers_below_100_are_spelled_out(number: int, spelled: str) -> None:
    assert spell(number) == spelled


def test_words_are_lower_case_with_digits_spelled() -> None:
    assert words("I bought 5 Apples, and 21 pears!") == [
        "i", "bought", "five", "apples", "and", "twenty", "one", "pears"]


def test_overlap_is_one_for_the_same_content_words_and_zero_for_none_shared() -> None:
    assert overlap_f1("The speaker bought five apples.", "five apples bought by the speaker") == 1
    assert overlap_f1("A dog barks.", "Five apples.") == 0
    assert overlap_f1("", "Five apples.") == 0
    assert overlap_f1("the a of", "the a of") == 0  # stop words alone carry nothing


def test_overlap_is_the_harmonic_mean_of_precision_and_recall() -> None:
    # candidate: five apples pears (3), reference: five apples (2): shared 2.
    precision, recall = 2 / 3, 2 / 2
    assert overlap_f1("five apples and pears", "five apples") == pytest.approx(
        2 * precision * recall / (precision + recall))


# --- the offline judge ----------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "expected"), [
    ("Five apples.", 10), ("The speaker bought 5 apples.", 7), ("Two pears.", 0), ("", 0)])
def test_the_overlap_score_is_ten_times_f1_rounded(answer: str, expected: int) -> None:
    assert score(answer, "Five apples.") == expected


def judge_reply(fingerprint: dict[str, str] | None) -> Completion:
    judge = OverlapJudge({"air_bench_chat": chat_offline.reply})
    return asyncio.run(judge.answer([], {}, fingerprint))


def test_the_overlap_judge_replies_with_the_two_score_line_in_the_prompt_s_order() -> None:
    reply = judge_reply({"prompt": "p", "reference": "Five apples.",
                         "answer_1": "Five apples.", "answer_2": "Two pears."})
    assert reply.text == "10 0"
    swapped = judge_reply({"prompt": "p", "reference": "Five apples.",
                           "answer_1": "Two pears.", "answer_2": "Five apples."})
    assert swapped.text == "0 10"


def test_the_overlap_judge_refuses_a_request_no_benchmark_of_the_run_answers() -> None:
    with pytest.raises(EndpointError, match=r"no benchmark of the run \(air_bench_chat\) "
                                            "answers it offline"):
        judge_reply({"prompt": "rate this reasoning"})


def test_the_overlap_judge_replies_as_the_benchmark_whose_request_it_is() -> None:
    asked: list[str] = []

    def only(name: str, key: str) -> Any:
        def reply(inputs: Any) -> str | None:
            asked.append(name)
            return f"{name} says so" if key in inputs else None
        return reply

    judge = OverlapJudge({"first": only("first", "a"), "second": only("second", "b")})
    said = asyncio.run(judge.answer([], {}, {"b": 1}))
    assert (said.text, asked) == ("second says so", ["first", "second"])


# --- reading a request ----------------------------------------------------------------------------

WAV = b"RIFF....WAVEfmt "


@pytest.mark.parametrize("part", [
    {"type": "input_audio", "input_audio": {"data": base64.b64encode(WAV).decode(),
                                            "format": "wav"}},
    {"type": "input_audio", "input_audio": {
        "data": "data:audio/wav;base64," + base64.b64encode(WAV).decode(), "format": "wav"}},
    {"type": "audio_url", "audio_url": {"url": "data:audio/wav;base64,"
                                        + base64.b64encode(WAV).decode()}},
], ids=["input_audio", "data-uri", "audio-url"])
def test_the_audio_and_text_are_read_back_in_every_audio_mode(part: dict[str, Any]) -> None:
    audio, text = request_parts([{"role": "user", "content": [part, {"type": "text",
                                                                     "text": "How many?"}]}])
    assert (audio, text) == (WAV, "How many?")


# --- the cascade's choice -------------------------------------------------------------------------


def test_the_cascade_picks_the_choice_it_heard_digits_or_words() -> None:
    choices = ["three", "five", "seven", "nine"]
    assert best_choice("I bought five apples.", choices, "q") == "five"
    assert best_choice("I bought 7 apples.", choices, "q") == "seven"


def test_a_choice_of_several_words_is_ranked_by_the_share_of_its_words_heard() -> None:
    choices = ["a dog in the rain", "a dog barking", "a cat"]
    assert best_choice("the dog keeps barking", choices, "q") == "a dog barking"


def test_with_nothing_heard_the_pick_is_stable_and_depends_on_the_question() -> None:
    choices = ["low", "high", "rising", "falling"]
    picks = {best_choice("", choices, f"question {n}") for n in range(40)}
    assert len(picks) > 1  # not always the first choice
    assert all(best_choice("", choices, f"question {n}") == best_choice("", choices,
                                                                         f"question {n}")
               for n in range(10))


def test_the_text_model_reads_the_transcript_in_place_of_the_audio() -> None:
    prompt = transcript_prompt("I bought five apples.", "How many apples?")
    assert '"I bought five apples."' in prompt and prompt.endswith("How many apples?")
    assert "(no speech was recognised)" in transcript_prompt("", "How many apples?")


# --- the random baseline --------------------------------------------------------------------------


def random_answer(seed: int, prompt: str, choices: list[str] | None) -> str:
    fingerprint: dict[str, Any] = {"prompt": prompt, "audio": "sha"}
    if choices is not None:
        fingerprint["choices"] = choices
    return asyncio.run(RandomChoice().answer([], {"seed": seed}, fingerprint)).text


def test_random_picks_the_same_choice_for_the_same_seed_and_request() -> None:
    choices = ["a", "b", "c", "d"]
    assert random_answer(0, "q1", choices) == random_answer(0, "q1", choices)


def test_random_picks_are_spread_over_the_choices_and_move_with_the_seed() -> None:
    choices = ["a", "b", "c", "d"]
    picks = collections.Counter(random_answer(0, f"q{n}", choices) for n in range(400))
    assert set(picks) == set(choices)
    assert all(60 < count < 140 for count in picks.values())  # about 100 each
    moved = sum(random_answer(0, f"q{n}", choices) != random_answer(1, f"q{n}", choices)
                for n in range(100))
    assert 50 < moved < 95  # about 75 of 100 change with a new seed


def test_random_never_picks_an_empty_placeholder_option() -> None:
    assert {random_answer(0, f"q{n}", ["", "a", " "]) for n in range(50)} == {"a"}


def test_random_has_nothing_to_pick_for_an_open_question() -> None:
    assert random_answer(0, "Describe the sound.", None) == OPEN_RANDOM


# --- options ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "expected"), [
    pytest.param(("--audiobench-model", "random", "--audiobench-api-url", "http://127.0.0.1:9/v1"),
                 "--audiobench-model random is the built-in random-choice baseline: it takes no "
                 "--audiobench-api-url", id="random_with_an_url"),
    pytest.param(("--audiobench-model", "cascade", "--audiobench-cascade-llm", "qwen"),
                 "give both or neither", id="a_cascade_llm_without_its_url"),
    pytest.param(("--audiobench-model", "cascade", "--audiobench-api-url",
                  "http://127.0.0.1:9/v1"), "--audiobench-cascade-llm NAME",
                 id="a_cascade_with_an_url_but_no_llm"),
    pytest.param(("--audiobench-model", "m", "--audiobench-api-url", "http://127.0.0.1:9/v1",
                  "--audiobench-cascade-llm", "qwen"),
                 "--audiobench-cascade-llm applies only to --audiobench-model cascade",
                 id="a_cascade_llm_for_a_served_model"),
    pytest.param(("--audiobench-model", "m"), "the models that run here are: cascade, random",
                 id="a_served_model_without_an_url"),
])
def test_built_in_model_options_that_do_not_fit_are_one_line_usage_errors(
        pytester: pytest.Pytester, args: tuple[str, ...], expected: str) -> None:
    result = run(pytester, *args, data_flag(pytester), "--audiobench-judge-model", "overlap")
    assert_usage_error(result, expected)


def test_the_offline_judge_needs_no_url_but_another_judge_name_does(
        pytester: pytest.Pytester) -> None:
    result = run(pytester, "--audiobench-model", "random", data_flag(pytester),
                 "--audiobench-judge-model", "gpt-4o")
    assert_usage_error(result, "--audiobench-judge-model overlap alone is the offline judge")


@pytest.mark.parametrize(("given", "expected"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_whisper_threads_sleep_rather_than_spin_unless_the_user_says_otherwise(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any, given: str | None,
        expected: str) -> None:
    import os

    from pytest_audiobench.builtin.speech import Transcriber

    if given is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", given)
    with pytest.raises(EndpointError, match=r"no model\.bin there"):
        Transcriber(tmp_path).load()  # an empty folder: the weights are missing
    assert os.environ["OMP_WAIT_POLICY"] == expected


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt: Linux only")
@pytest.mark.parametrize(("tuned", "expected"), [
    (None, [(-3, 256 * 2**20), (-1, 512 * 2**20)]),
    ("MALLOC_ARENA_MAX", []),
    ("GLIBC_TUNABLES", []),
])
def test_whisper_s_large_buffers_stay_on_the_heap_unless_the_user_tuned_malloc(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Any, tuned: str | None,
        expected: list[tuple[int, int]]) -> None:
    # glibc mapped and unmapped the encoder's 54 MB buffers on every clip: a sixth of the
    # cascade's CPU was the kernel faulting them in again.
    import ctypes
    import os

    from pytest_audiobench.builtin.speech import Transcriber

    calls: list[tuple[int, int]] = []

    class Libc:
        def mallopt(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(ctypes, "CDLL", lambda name: Libc())
    for name in list(os.environ):
        if name.startswith(("MALLOC_", "GLIBC_TUNABLES")):
            monkeypatch.delenv(name)
    if tuned is not None:
        monkeypatch.setenv(tuned, "2")
    with pytest.raises(EndpointError, match=r"no model\.bin there"):
        Transcriber(tmp_path).load()
    assert calls == expected
