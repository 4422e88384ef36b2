"""Bad input is a clear one-line error that names the flag, file or record, before any
request is paid for."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import MODEL, Servers
from tests.fakes.openai_server import Reply, Scripted


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _usage_error(run: Any) -> str:
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR, run.result.stdout.str()
    lines = [line for line in run.result.stderr.str().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1, run.result.stderr.str()
    return lines[0]


def test_an_unreachable_model_endpoint_is_reported_at_start(run_bench: Any, pytester: Any,
                                                            servers: Servers,
                                                            chat_data: Path) -> None:
    url = _closed_port_url()
    result = pytester.runpytest(
        "--audiobench-model", MODEL, "--audiobench-api-url", url,
        f"--audiobench-data={chat_data}", "--audiobench-judge-model", "j",
        "--audiobench-judge-api-url", servers.judge.url)
    line = _usage_error(type("R", (), {"result": result})())
    assert f"cannot reach the model {MODEL} at {url} (--audiobench-api-url): " in line
    assert servers.judge.count() == 0


def test_a_model_the_server_does_not_serve_is_reported_at_start(run_bench: Any,
                                                                servers: Servers) -> None:
    servers.model.models[:] = ["other-model"]
    line = _usage_error(run_bench())
    assert (f"the model {MODEL} at {servers.model.url} (--audiobench-api-url): that server "
            f"does not serve '{MODEL}'; it serves: other-model") in line
    assert servers.model.count() == 0


def test_a_missing_api_key_variable_is_an_error_naming_it(run_bench: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TEAM_JUDGE_KEY", raising=False)
    line = _usage_error(run_bench("--audiobench-judge-api-key-env", "TEAM_JUDGE_KEY"))
    assert "environment variable TEAM_JUDGE_KEY is not set" in line


@pytest.mark.parametrize(("variable", "key"), [
    ("AUDIOBENCH_API_KEY", "sk-clé-secrète"),         # not ASCII
    ("AUDIOBENCH_JUDGE_API_KEY", "sk-tab\tsecret"),
    ("AUDIOBENCH_JUDGE_API_KEY", "sk-pasted-secret\n"),
])
def test_a_key_that_cannot_travel_in_a_header_is_a_usage_error_naming_the_variable(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, variable: str,
        key: str) -> None:
    monkeypatch.setenv(variable, key)
    run = run_bench()
    line = _usage_error(run)
    assert f"environment variable {variable} holds a character an HTTP header cannot carry" in (
        line)
    printed = run.result.stdout.str() + run.result.stderr.str()
    assert "secr" not in printed and "INTERNALERROR" not in printed
    assert servers.model.count() == 0


def test_api_keys_come_from_the_environment_and_are_never_printed(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDIOBENCH_API_KEY", "sk-model-secret-123")
    monkeypatch.setenv("TEAM_JUDGE_KEY", "sk-judge-secret-456")
    run = run_bench("--audiobench-judge-api-key-env", "TEAM_JUDGE_KEY", "-v")
    run.result.assert_outcomes(passed=16)
    assert servers.model.requests[0].headers["authorization"] == "Bearer sk-model-secret-123"
    assert servers.judge.requests[0].headers["authorization"] == "Bearer sk-judge-secret-456"
    printed = run.result.stdout.str() + run.result.stderr.str() + run.report_path.read_text()
    assert "secret" not in printed


def test_a_data_folder_without_the_meta_file_names_the_flag_and_the_expected_layout(
        run_bench: Any, tmp_path: Path) -> None:
    line = _usage_error(run_bench(data=tmp_path))
    assert f"--audiobench-data {tmp_path}: no Chat/Chat_meta.json there" in line


def test_a_data_path_that_does_not_exist_says_so_and_what_to_give(run_bench: Any,
                                                                  tmp_path: Path) -> None:
    missing = tmp_path / "AIR-Bench-Datset"
    assert _usage_error(run_bench(data=missing)) == (
        f"ERROR: --audiobench-data {missing}: no such folder; give the release root of "
        "air_bench_chat (the folder holding Chat/Chat_meta.json), 'mini' (the bundled mini "
        "benchmark) or a download source: 'modelscope'")


def test_a_record_missing_a_field_names_the_file_and_the_record(run_bench: Any,
                                                                tmp_path: Path,
                                                                small_records: list[Any]) -> None:
    records = [dict(r) for r in small_records]
    del records[3]["answer_gt"]
    meta = tmp_path / "Chat" / "Chat_meta.json"
    meta.parent.mkdir()
    meta.write_text(json.dumps(records))
    line = _usage_error(run_bench(data=tmp_path))
    assert f"{meta}: record 3 (uniq_id {records[3]['uniq_id']}): answer_gt: field required" in line


def test_an_unknown_task_name_lists_the_accepted_ones(run_bench: Any) -> None:
    run = run_bench("--audiobench-tasks", "speech_qa")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    err = run.result.stderr.str()
    assert ("--audiobench-tasks speech_qa is not a task of --audiobench-benchmark "
            "air_bench_chat; its tasks are: speech_QA, speech_dialogue_QA") in err


def test_an_unknown_benchmark_is_a_usage_error(run_bench: Any) -> None:
    run = run_bench("--audiobench-benchmark", "air_bench_medicine")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown benchmark air_bench_medicine" in run.result.stderr.str()


def test_a_judge_template_without_the_placeholders_names_the_file(run_bench: Any,
                                                                  tmp_path: Path) -> None:
    template = tmp_path / "judge.txt"
    template.write_text("Rate the answer {answer_2} to {question}.")
    line = _usage_error(run_bench(f"--audiobench-judge-template={template}"))
    assert f"--audiobench-judge-template {template}: missing placeholder(s)" in line
    assert "{audio_description}" in line and "{answer_1}" in line


def test_a_users_judge_template_replaces_ours(run_bench: Any, servers: Servers,
                                             tmp_path: Path) -> None:
    template = tmp_path / "judge.txt"
    template.write_text("OFFICIAL-LIKE {audio_description} | {question} | {answer_1} | "
                        "{answer_2} | {\"json\": \"braces stay\"}")
    servers.judge.script = lambda request: "7 7"
    run = run_bench(f"--audiobench-judge-template={template}")
    run.result.assert_outcomes(passed=16)
    text = servers.judge.requests[0].text
    assert text.startswith("OFFICIAL-LIKE ") and '{"json": "braces stay"}' in text
    assert "Assistant 1's answer begins" not in text
    assert f"prompt {template}" in run.result.stdout.str()


# --- a server that echoes the key ----------------------------------------------------------------

KEY = "sk-live-0123456789abcdef"


def echoing_401(headers: dict[str, str]) -> Reply:
    return Reply(status=401, content=f"invalid credentials: {headers.get('authorization')}")


def test_a_key_echoed_by_the_server_at_the_start_is_never_printed(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDIOBENCH_API_KEY", KEY)
    servers.model.models_script = echoing_401
    run = run_bench()
    line = _usage_error(run)
    assert line == (f"ERROR: the model {MODEL} at {servers.model.url} (--audiobench-api-url) "
                    "refused the key in AUDIOBENCH_API_KEY (HTTP 401 to GET /models): invalid "
                    "credentials: Bearer [redacted]")
    assert KEY not in run.result.stdout.str() + run.result.stderr.str()


def test_a_refusal_without_a_key_says_which_variable_is_not_set(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AUDIOBENCH_API_KEY", raising=False)
    servers.model.models_script = lambda headers: Reply(status=401, content="no key given")
    assert _usage_error(run_bench()) == (
        f"ERROR: the model {MODEL} at {servers.model.url} (--audiobench-api-url) refused GET "
        "/models without a key (HTTP 401): environment variable AUDIOBENCH_API_KEY is not set: "
        f"set it to the API key for {servers.model.url}")


def test_a_key_refused_by_the_judge_during_the_run_is_said_once_per_sample(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDIOBENCH_JUDGE_API_KEY", KEY)
    servers.judge.script = Scripted(Reply(status=401, content="key revoked"))
    run = run_bench("--audiobench-retries", "0")
    run.result.assert_outcomes(errors=16)
    said = (f"the judge judge-model at {servers.judge.url} (--audiobench-judge-api-url) "
            "refused the key in AUDIOBENCH_JUDGE_API_KEY (HTTP 401 to a request for judge-model): "
            "key revoked")
    assert said in run.result.stdout.str() and "Error code" not in run.result.stdout.str()


SEEN_RAISED = """
import json, pytest

@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.excinfo is not None and call.when == "setup":
        error = call.excinfo.value
        with open("raised.jsonl", "a", encoding="utf-8") as out:
            # The frames pytest formats: those outside pytest and pluggy.
            frames = [entry for entry in call.excinfo.traceback
                      if not {"_pytest", "pluggy"} & set(entry.path.parts)]
            seen = {"type": type(error).__name__, "frames": len(frames),
                    "cause": error.__cause__ is not None}
            out.write(json.dumps(seen) + "\\n")
    return report
"""


def test_an_error_of_ours_reaches_pytest_without_the_frames_its_report_never_shows(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # pytest formats every frame under a setup error before the report is made, reading the
    # source of each frame's file; the report then shows our message alone. The errors reach
    # it bare: a frame or two, and no error they were raised from.
    monkeypatch.setenv("AUDIOBENCH_JUDGE_API_KEY", KEY)
    servers.judge.script = Scripted(Reply(status=401, content="key revoked"))
    pytester.makeconftest(SEEN_RAISED)
    run = run_bench("--audiobench-retries", "0")
    run.result.assert_outcomes(errors=16)
    raised = [json.loads(line) for line in
              (pytester.path / "raised.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(raised) == 16 and {r["type"] for r in raised} == {"EndpointError"}
    assert max(r["frames"] for r in raised) == 1 and not any(r["cause"] for r in raised)
    assert "key revoked" in run.result.stdout.str()


@pytest.mark.parametrize("url", ["https://api.openai.com/v1", "https://10.1.2.3:8443/v1"])
def test_a_hosted_judge_without_its_key_is_an_error_before_any_request(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.delenv("AUDIOBENCH_JUDGE_API_KEY", raising=False)
    assert _usage_error(run_bench(f"--audiobench-judge-api-url={url}")) == (
        "ERROR: environment variable AUDIOBENCH_JUDGE_API_KEY is not set: it must hold the API "
        f"key for the judge judge-model at {url} (--audiobench-judge-api-url)")
    assert servers.model.requests == [] and servers.judge.requests == []


def test_a_key_echoed_during_the_run_is_in_no_output_report_junit_or_cache_entry(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AUDIOBENCH_API_KEY", KEY)
    monkeypatch.setenv("AUDIOBENCH_JUDGE_API_KEY", KEY + "-judge")
    # The model puts its Authorization header in every answer; the judge rejects every
    # request with a body that quotes it.
    servers.model.script = lambda request: f"you sent {request.headers['authorization']}"
    servers.judge.script = Scripted(Reply(
        status=401, content=f"bad key {KEY}-judge (Authorization: Bearer {KEY}-judge)"))
    junit = pytester.path / "junit.xml"
    run = run_bench(f"--junitxml={junit}", "--audiobench-retries", "0", "-v")
    run.result.assert_outcomes(errors=16)
    shown = [run.result.stdout.str(), run.result.stderr.str(), run.report_path.read_text(),
             junit.read_text()]
    shown += [p.read_text(errors="replace") for p in (pytester.path / "cache").rglob("*")
              if p.is_file()]
    assert all(KEY not in text for text in shown)
    assert "you sent Bearer [redacted]" in run.report_path.read_text()
    assert "bad key [redacted]" in run.result.stdout.str()
