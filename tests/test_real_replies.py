"""What real models send, scored as the official protocols score it: an empty answer is an
answer (wrong for a multiple-choice item, judged for Chat), reasoning is read from the field a
server puts it in (vLLM's ``reasoning``, the older ``reasoning_content``) as from an inline
block, a cut answer is counted, and the extra body and headers a server needs reach it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers
from tests.fakes.datasets import build_air_bench_foundation, build_mmar
from tests.fakes.made_records import made_mmar_records
from tests.fakes.openai_server import ChatRequest, Reply, Scripted
from tests.test_foundation import TABLE, scripted_servers
from tests.test_mmar_run import BothJudges, rubric_reply

RECORDS = made_mmar_records()
BY_QUESTION = {record["question"]: index for index, record in enumerate(RECORDS)}
THOUGHT = "I hear {answer} in the clip, so that is it."


def _wrong(record: dict[str, Any]) -> str:
    """A wrong option that the official rule rejects (not one with the answer's words)."""
    words = set(record["answer"].lower().split())
    return next(c for c in record["choices"] if set(c.lower().split()) != words)


class EmptySixth:
    """A model that answers nothing to every sixth item (content null), the answer to the
    other even ones and a wrong option to the odd ones: of 22 items, 4 empty (0, 6, 12, 18),
    7 right (2, 4, 8, 10, 14, 16, 20), 11 wrong."""

    def __call__(self, request: ChatRequest) -> Reply | str:
        index = BY_QUESTION[request.text.split("\n", 1)[0]]
        record = RECORDS[index]
        if index % 6 == 0:
            return Reply(None)
        return record["answer"] if index % 2 == 0 else _wrong(record)


RIGHT, EMPTY = 7, 4


class Reasoner:
    """A reasoning model: its thought in the field vLLM's parser uses (``where``), or inline
    in a ``<think>`` block, and ``Answer: <option>`` as its content; right on even items."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __call__(self, request: ChatRequest) -> Reply:
        index = BY_QUESTION[request.text.split("\n", 1)[0]]
        record = RECORDS[index]
        said = record["answer"] if index % 2 == 0 else _wrong(record)
        thought = THOUGHT.format(answer=said)
        if self.where == "inline":
            return Reply(f"<think>{thought}</think>\n\nAnswer: {said}")
        return Reply(f"Answer: {said}", reasoning=thought, reasoning_field=self.where)


class RatesReasoning:
    """A rubric judge that gives every point to a reasoning it is shown and none to a
    missing one."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, request: ChatRequest) -> str:
        self.seen.append(request.text)
        heard = "I hear " in request.text
        return rubric_reply((1, 1, 1, 1, 1) if heard else (0, 0, 0, 0, 0))


@pytest.fixture(scope="module")
def mmar_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mmar(tmp_path_factory.mktemp("mmar"), RECORDS)


def test_mmar_accuracy_counts_empty_answers_wrong_as_the_official_evaluation_does(
        run_bench: Any, servers: Servers, mmar_data: Path) -> None:
    servers.model.script = EmptySixth()
    servers.judge.script = BothJudges()  # 4 of 5 points from every rater
    run = run_bench("--audiobench-retries", "1", data=mmar_data, benchmark="mmar")
    n = len(RECORDS)
    run.result.assert_outcomes(passed=RIGHT, failed=n - RIGHT)  # no errors
    m = run.metrics
    # The official evaluation.py: 7 right of 22; the empty ones in the denominator, wrong.
    assert m["mmar.avg"] == pytest.approx(100 * 7 / 22)
    assert m["mmar.official.avg"] == pytest.approx(100 * 7 / 22)
    # The right ones rated 0.8, every other 0 without a judge call (the empty ones too).
    assert m["mmar.rubrics"] == pytest.approx(100 * 0.8 * 7 / 22)
    assert m["mmar.crs"] == pytest.approx(0.8)
    assert servers.judge.count() == RIGHT * 5
    counts = run.report["benchmarks"][0]["counts"]
    assert (counts["errors"], counts["empty_answers"]) == (0, EMPTY)
    # Each empty one was asked again once, then taken as given.
    assert servers.model.count() == n + EMPTY
    empty = [s for s in run.report["samples"] if s["answers"][0]["empty"]]
    assert len(empty) == EMPTY and all(s["outcome"] == "failed" for s in empty)
    assert all("(empty answer: asked 2 times, counted as given)" in s["message"]
               for s in empty)
    assert "answers: 4 empty answers, counted as given" in run.result.stdout.str()


@pytest.mark.parametrize(("where", "xdist"), [
    pytest.param("reasoning", [], id="reasoning-no-xdist"),
    pytest.param("reasoning_content", [], id="reasoning_content-no-xdist"),
    pytest.param("reasoning", ["-n1"], id="reasoning-n1")])
def test_reasoning_in_a_field_is_rated_and_exported_as_the_same_reasoning_inline(
        run_bench: Any, servers: Servers, mmar_data: Path, tmp_path: Path,
        where: str, xdist: list[str]) -> None:
    judged = {}
    # The inline reasoning is the reference, asked without xdist: the field's run under xdist
    # is held to it (and one xdist run, not two, is a few seconds of the suite).
    for how, workers in (("inline", []), (where, xdist)):
        servers.model.script = Reasoner(how)
        servers.judge.script = judge = RatesReasoning()
        export = tmp_path / f"{how}.jsonl"
        run = run_bench(f"--audiobench-export-mmar={export}", "--audiobench-no-cache",
                        f"--audiobench-html={tmp_path / how}.html", data=mmar_data,
                        benchmark="mmar", xdist=workers)
        judged[how] = (run.metrics, sorted(judge.seen), export.read_text(encoding="utf-8"))
    inline, field = judged["inline"], judged[where]
    # 11 right answers, each given all the points for its reasoning: Rubrics 50, CRS 1.
    assert field[0]["mmar.rubrics"] == pytest.approx(100 * 11 / 22)
    assert field[0]["mmar.crs"] == pytest.approx(1.0)
    assert field[0] == inline[0]
    assert field[1] == inline[1]  # the rubric judge saw the very same requests
    assert field[2] == inline[2]  # and the submission is the same
    exported = [json.loads(line) for line in field[2].splitlines()]
    assert all(line["thinking_prediction"].startswith("I hear ") for line in exported)
    assert all(not line["answer_prediction"].startswith("Answer") for line in exported)
    page = (tmp_path / f"{where}.html").read_text(encoding="utf-8")
    assert '<details class="field folded"><summary><h4>reasoning</h4>' in page


def test_the_offline_judge_scores_an_empty_chat_answer_as_the_llm_judge_would_be_asked_to(
        run_bench: Any, servers: Servers) -> None:
    servers.model.script = lambda request: (
        Reply(None) if "music" in request.text.lower() else "a good answer")
    run = run_bench("--audiobench-judge-model", "overlap", "--audiobench-retries", "0",
                    judge=False)
    empty = [s for s in run.report["samples"] if s["answers"][0]["empty"]]
    assert empty and run.report["benchmarks"][0]["counts"]["errors"] == 0
    for sample in empty:  # no content word shared with the reference: 0 in both passes
        assert [p["model_score"] for p in sample["grades"][0]["passes"]] == [0, 0]
        assert sample["outcome"] == "failed"


def test_foundation_counts_an_empty_answer_wrong_and_its_align_judge_sees_it(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    release = build_air_bench_foundation(tmp_path / "foundation",
                                         [record for record, _, _ in TABLE.values()])
    scripted_servers(servers)  # the align judge as the table says
    model = Scripted("A")
    for uid, (_, reply, _) in TABLE.items():
        model.when(contains=f"question {uid}?", replies=Reply(None) if uid == 7 else reply)
    servers.model.script = model
    run = run_bench("--audiobench-retries", "0", data=release, benchmark="air_bench_foundation")
    m = run.metrics
    # Strict: item 7 (right before) is now unanswered and wrong: 4 of 8, none left out.
    assert m["air_bench_foundation.strict.avg"] == pytest.approx(50.0)
    # Official: the align judge was shown the empty reply and named A (rock, not jazz): 4 of 7
    # counted (item 3's judge reply still names no letter).
    assert m["air_bench_foundation.official.avg"] == pytest.approx(100 * 4 / 7)
    assert run.report["benchmarks"][0]["counts"]["errors"] == 0
    assert servers.judge.count() == 8


def test_a_resume_asks_again_what_failed_and_never_an_empty_answer(
        run_bench: Any, servers: Servers, mmar_data: Path) -> None:
    empty_sixth = EmptySixth()

    def broken(request: ChatRequest) -> Reply | str:
        index = BY_QUESTION[request.text.split("\n", 1)[0]]
        return Reply("down", status=500) if index % 6 == 3 else empty_sixth(request)

    servers.model.script = broken
    first = run_bench("--audiobench-retries", "0", data=mmar_data, benchmark="mmar",
                      judge=False)
    assert first.report["benchmarks"][0]["counts"]["errors"] == 4  # items 3, 9, 15, 21
    asked = servers.model.count()
    servers.model.script = empty_sixth
    second = run_bench("--audiobench-retries", "0", "--audiobench-resume", data=mmar_data,
                       benchmark="mmar", judge=False)
    assert servers.model.count() - asked == 4  # the failed ones only; the empty ones kept
    counts = second.report["benchmarks"][0]["counts"]
    assert (counts["errors"], counts["empty_answers"]) == (0, EMPTY)
    assert second.metrics["mmar.avg"] == pytest.approx(100 * 7 / 22)


HEADERS = {"X-Route": "gpu-pool-7", "OpenAI-Organization": "org-secret-value-1"}


def test_the_extra_body_and_headers_reach_each_server_and_are_recorded_not_their_values(
        run_bench: Any, servers: Servers, mmar_data: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    headers_file = tmp_path / "judge-headers.json"
    headers_file.write_text(json.dumps({"X-Judge-Route": "eu"}), encoding="utf-8")
    monkeypatch.setenv("AUDIOBENCH_HEADERS", json.dumps(HEADERS))
    monkeypatch.setenv("AUDIOBENCH_JUDGE_HEADERS", str(headers_file))
    servers.model.script = Reasoner("reasoning")
    servers.judge.script = RatesReasoning()
    body = '{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}'
    run = run_bench("--audiobench-extra-body", body, "--audiobench-judge-extra-body",
                    '{"reasoning_effort": "low"}', "--audiobench-limit", "2",
                    data=mmar_data, benchmark="mmar")
    model = servers.model.requests[0]
    assert model.body["chat_template_kwargs"] == {"enable_thinking": False}
    assert model.body["top_k"] == 20 and model.headers["x-route"] == "gpu-pool-7"
    judge = servers.judge.requests[0]
    assert judge.body["reasoning_effort"] == "low" and judge.headers["x-judge-route"] == "eu"
    assert "top_k" not in judge.body and "x-route" not in judge.headers
    report = run.report_path.read_text(encoding="utf-8")
    assert "org-secret-value-1" not in report and "gpu-pool-7" not in report
    assert "org-secret-value-1" not in run.result.stdout.str()
    endpoint = run.report["settings"]["endpoint"]
    assert endpoint["extra_body"] == json.loads(body)
    assert endpoint["headers"]["names"] == ["OpenAI-Organization", "X-Route"]
    assert run.report["run"]["identity"]["extra_body"] == json.loads(body)
    # The judge's replies are keyed on its body: the same body is served from the cache, a
    # new one is asked again.
    asked = servers.judge.count()
    run_bench("--audiobench-extra-body", body, "--audiobench-judge-extra-body",
              '{"reasoning_effort": "low"}', "--audiobench-limit", "2", data=mmar_data,
              benchmark="mmar")
    assert servers.judge.count() == asked
    run_bench("--audiobench-extra-body", body, "--audiobench-judge-extra-body",
              '{"reasoning_effort": "high"}', "--audiobench-limit", "2", data=mmar_data,
              benchmark="mmar")
    assert servers.judge.count() == 2 * asked


def test_answers_of_another_extra_body_are_not_reused(
        run_bench: Any, servers: Servers, mmar_data: Path) -> None:
    run_bench("--audiobench-extra-body", '{"top_k": 20}', "--audiobench-limit", "1",
              data=mmar_data, benchmark="mmar", judge=False)
    run = run_bench("--audiobench-extra-body", '{"top_k": 40}', "--audiobench-limit", "1",
                    "--audiobench-reuse", "last", data=mmar_data, benchmark="mmar",
                    judge=False)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert ('extra body {"top_k": 20} (this run: {"top_k": 40}); its answers are not this '
            "model's") in errors[0]


@pytest.mark.parametrize(("args", "said"), [
    (("--audiobench-extra-body", "[1, 2]"),
     "argument --audiobench-extra-body: expected a JSON object, like "),
    (("--audiobench-extra-body", "{top_k: 2}"),
     "argument --audiobench-extra-body: expected a JSON object, like "),
    (("--audiobench-extra-body", '{"temperature": 0.7}'),
     "argument --audiobench-extra-body: 'temperature' has a flag of its own: "
     "--audiobench-temperature"),
    (("--audiobench-judge-extra-body", '{"max_tokens": 9}'),
     "argument --audiobench-judge-extra-body: 'max_tokens' has a flag of its own: "
     "--audiobench-judge-max-tokens"),
    (("--audiobench-extra-body", '{"messages": []}'),
     "argument --audiobench-extra-body: 'messages' is set by the benchmark's prompt, not in "
     "the extra body"),
])
def test_an_extra_body_that_is_not_a_usable_json_object_is_one_line_naming_the_flag(
        run_bench: Any, servers: Servers, args: tuple[str, ...], said: str) -> None:
    run = run_bench(*args)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in run.result.errlines if line.strip()]
    assert any(said in line for line in errors), errors
    assert servers.model.count() == 0


@pytest.mark.parametrize(("value", "said"), [
    ("[1]", "environment variable AUDIOBENCH_HEADERS holds neither a JSON object of HTTP "
            "headers, like {\"OpenAI-Organization\": \"org-123\"}, nor the path of a "
            "readable file holding one (No such file or directory)"),
    ('{"X-Route": 7}', "environment variable AUDIOBENCH_HEADERS: expected a JSON object of "
                       "HTTP header names and their text values"),
    ('{"Authorization": "Bearer sk-secret-0000"}',
     "environment variable AUDIOBENCH_HEADERS: header Authorization is set by the API key's "
     "environment variable"),
    ('{"X-Route": "a\\nb"}', "the value of header X-Route holds a character an HTTP header "
                            "cannot carry"),
    ("/no/such/headers.json", "environment variable AUDIOBENCH_HEADERS holds neither a JSON "
                              "object of HTTP headers"),
])
def test_unusable_headers_are_one_line_naming_the_variable_never_a_value(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, value: str,
        said: str) -> None:
    monkeypatch.setenv("AUDIOBENCH_HEADERS", value)
    run = run_bench()
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    text = run.result.stdout.str() + run.result.stderr.str()
    assert said in text
    assert "sk-secret-0000" not in text and "no/such" not in text


def test_judge_and_baseline_request_options_are_refused_where_nothing_sends_them(
        run_bench: Any, servers: Servers) -> None:
    run = run_bench("--audiobench-judge-extra-body", '{"top_k": 1}', "--audiobench-judge-model",
                    "overlap", "--audiobench-judge-api-url=")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--audiobench-judge-extra-body goes into the requests to a served judge; "
            "--audiobench-judge-model overlap runs in this process and sends none"
            ) in run.result.stderr.str()
    run = run_bench("--audiobench-baseline-extra-body", '{"top_k": 1}')
    assert "--audiobench-baseline-extra-body goes into the requests of " \
           "--audiobench-baseline-model NAME, which is not given" in run.result.stderr.str()
    assert servers.model.count() == 0
