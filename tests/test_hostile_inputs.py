"""Untrusted input, round two (issue 52): baseline files, datasets, judges and every field a
server sends, tried as an attacker would, through the plugin as users run it, against real
servers on 127.0.0.1 and files the tests write. None of them passes a regressed model,
commands a CI runner, floods the log, hangs the start or crashes the run: each is refused
in one line that names it, or shown safe and bounded."""

from __future__ import annotations

import json
import re
import tracemalloc
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.gate.baseline import LinesDigest
from pytest_audiobench.transport.ledger import Ledger
from tests.conftest import JUDGE, MODEL, ONE_WORKER, ScoringJudge, Servers
from tests.fakes.datasets import build_mmar
from tests.fakes.made_records import made_mmar_records
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted
from tests.test_client import complete, failure, settings, traffic

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
COMMAND = re.compile(r"^\s*::|##(vso)?\[", re.IGNORECASE)
"""A workflow command as the runners read one: GitHub's ``::`` at a line's start, its older
``##[`` and Azure's ``##vso[`` anywhere in a line."""
ATTACK = ("\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\x1b[H ##vso[task.setvariable variable=GATE]held"
          "\n::error::forged ##[add-mask]passed")
"""What a hostile server or file writes: a clipboard write (OSC 52), a screen clear, an Azure
command inside a line, then a line that starts with a GitHub command."""
LONGEST_LINE = 3_000
"""No line the plugin prints of an error is longer: a quoted text is cut at a few hundred."""


def printed(result: pytest.RunResult) -> str:
    return result.stdout.str() + "\n" + result.stderr.str()


def shown_safe(text: str, where: str) -> None:
    """No raw control character and no line a CI runner would read as a command."""
    found = RAW.search(text)
    assert found is None, f"{where}: raw {found.group()!r} at {found.start()}"
    commands = [line for line in text.splitlines() if COMMAND.search(line)]
    assert not commands, f"{where}: {commands[:3]}"


def usage_error(result: pytest.RunResult) -> str:
    """The one line of a run that stopped at its start (exit 4), checked safe and short."""
    out = printed(result)
    assert result.ret == pytest.ExitCode.USAGE_ERROR, out[-3000:]
    assert "INTERNALERROR" not in out and "Traceback" not in out, out[-3000:]
    shown_safe(out, "the terminal")
    lines = [line for line in result.stderr.str().splitlines() if line.startswith("ERROR:")]
    assert len(lines) == 1, result.stderr.str()
    assert len(lines[0]) < LONGEST_LINE, lines[0][:500]
    return lines[0]


# --- baseline files -----------------------------------------------------------------------


def written_baseline(run_bench: Any, pytester: pytest.Pytester) -> Path:
    """A per-sample baseline of the standard run, written by the plugin."""
    assert run_bench("--audiobench-update-baseline").result.ret == pytest.ExitCode.OK
    return pytester.path / "baselines" / "air_bench_chat" / f"{MODEL}.json"


def tampered(path: Path, change: Callable[[dict[str, Any]], None], line: int = 3) -> None:
    """Line ``line`` of the baseline's per-sample file changed by ``change``, and the count
    and the hash the baseline records of the file made again, as a forger would."""
    lines_path = path.with_name(path.stem + ".samples.jsonl")
    raw = lines_path.read_text(encoding="utf-8").splitlines()
    record = json.loads(raw[line - 1])
    change(record)
    raw[line - 1] = json.dumps(record)  # Python writes NaN and Infinity, as its reader reads
    lines_path.write_text("\n".join(raw) + "\n", encoding="utf-8")
    digest = LinesDigest()
    for text in raw:
        digest.add(text.encode("utf-8"))
    baseline = json.loads(path.read_text(encoding="utf-8"))
    baseline["samples"].update(lines=digest.count, sha256=digest.hexdigest())
    path.write_text(json.dumps(baseline), encoding="utf-8")


def _set(field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record[field] = value
    return change


def _value(name: str, value: float) -> Callable[[dict[str, Any]], None]:
    def change(record: dict[str, Any]) -> None:
        record["values"][name] = value
    return change


FORGED_LINES = {
    "NaN in its values": (_value("score", float("nan")), "values.score: input should be a "
                                                         "finite number"),
    "an infinite value": (_value("score", float("inf")), "values.score: input should be a "
                                                         "finite number"),
    "1e308": (_value("score", 1e308), "values.score: input should be less than or equal to"),
    "NaN draws": (_set("draws", [float("nan")]), "draws.0: input should be a finite number"),
    "no draws": (_set("draws", []), "draws: list should have at least 1 item"),
    "a score past the scale": (_value("score", 40.0), "values.score is 40.0, outside 0 to 10"),
    "a score below it": (_value("score", -1e9), "values.score is -1000000000.0, outside 0 to 10"),
    "a draw below it": (_set("draws", [-1e6]), "draws[0] is -1000000.0, outside 0 to 10"),
    "a run's score past the scale": (_set("runs", [{"score": 99.0}, {"score": 1.0}]),
                                     "runs[0].score is 99.0, outside 0 to 10"),
}


@pytest.mark.parametrize("forged", list(FORGED_LINES), ids=list(FORGED_LINES))
def test_a_baseline_line_not_finite_or_out_of_its_range_is_refused_before_any_request(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, forged: str) -> None:
    path = written_baseline(run_bench, pytester)
    change, said = FORGED_LINES[forged]
    tampered(path, change, line=3)
    asked = servers.model.count(), servers.judge.count()
    servers.model.script = Scripted("a poor answer")  # a regressed model: it must not pass
    run = run_bench()
    line = usage_error(run.result)
    assert f"baseline samples {path.with_name(f'{MODEL}.samples.jsonl')} line 3: " in line
    assert said in line
    assert (servers.model.count(), servers.judge.count()) == asked


def test_a_nan_threshold_a_huge_one_and_a_huge_noise_are_refused_naming_the_field(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    path = written_baseline(run_bench, pytester)
    baseline = json.loads(path.read_text(encoding="utf-8"))
    for field, value in (("threshold", 1e308), ("tolerance", float("inf"))):
        changed = json.loads(json.dumps(baseline))
        changed["metrics"]["air_bench_chat.average.score"][field] = value
        path.write_text(json.dumps(changed), encoding="utf-8")
        line = usage_error(run_bench().result)
        assert f"baseline {path}: metrics.air_bench_chat.average.score.{field}:" in line
    path.write_text(json.dumps({**baseline, "noise": 1e300}), encoding="utf-8")
    assert "noise: input should be less than or equal to" in usage_error(run_bench().result)


def test_an_untouched_baseline_still_holds_and_a_regressed_model_still_fails(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers) -> None:
    """The checks refuse forged lines only: the plugin's own lines load and gate."""
    written_baseline(run_bench, pytester)
    assert run_bench().result.ret == pytest.ExitCode.OK
    servers.model.script = Scripted("a poor answer")
    assert run_bench().result.ret == pytest.ExitCode.TESTS_FAILED


# --- workflow commands anywhere in a line ---------------------------------------------------

INSIDE = "Green. ##[add-mask]passed ##vso[task.setvariable variable=GATE]held ##VSO[task.x]"


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_a_workflow_command_inside_a_line_of_an_answer_a_reply_an_error_or_a_baseline_is_disarmed(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str]) -> None:
    # The baseline's answers hold them: a regression's report shows them beside the new one.
    servers.model.script = Scripted(f"a good answer. {INSIDE}")
    assert run_bench("--audiobench-update-baseline").result.ret == pytest.ExitCode.OK
    servers.model.script = Scripted(f"a poor answer. {INSIDE}").when(
        contains=small_records[0]["question"],
        replies=Reply(status=400, content=f"boom {INSIDE}"))
    servers.judge.script = ScoringJudge(replies={small_records[1]["question"]: f"7 ? {INSIDE}"})
    run = run_bench("--junitxml=junit.xml", "--audiobench-html=page.html", xdist=xdist,
                    subprocess=True)
    out = printed(run.result)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert "regressed" in out and "HTTP 400: boom Green. #\\x23[add-mask]passed" in out
    assert "#\\x23vso[task.setvariable" in out and "#\\x23VSO[task.x]" in out
    for name in ("junit.xml", "report.json", "page.html"):
        shown_safe((pytester.path / name).read_text(encoding="utf-8"), name)
    shown_safe(out, "the terminal")
    # The JSON report reads back to the very text: a JSON escape, not a change.
    answers = [a["completion"]["text"] for s in run.report["samples"] for a in s["answers"]]
    assert f"a poor answer. {INSIDE}" in answers


# --- what a server says at the start --------------------------------------------------------


def test_a_models_listing_whose_ids_attack_the_terminal_is_one_safe_line(
        run_bench: Any, servers: Servers) -> None:
    servers.model.models[:] = [f"other {ATTACK}", "x" * 100_000]
    line = usage_error(run_bench().result)
    assert "that server does not serve 'audio-model'; it serves: other \\x1b]52;c;" in line
    assert "#\\x23vso[task.setvariable variable=GATE]held ... [cut: 110 characters" in line
    assert "[cut: 100000 characters in all]" in line and "::error::forged" not in line
    assert servers.model.count() == 0


@pytest.mark.parametrize("status", [401, 500, 418])
def test_an_error_body_at_the_start_is_one_safe_short_line(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, status: int) -> None:
    monkeypatch.setenv("AUDIOBENCH_API_KEY", "sk-a-key-of-the-team")
    servers.model.models_script = lambda headers: Reply(status=status,
                                                        content=ATTACK + " " + "y" * 5_000_000)
    line = usage_error(run_bench().result)
    assert f"HTTP {status}" in line and "\\x1b[2J" in line
    assert "[cut: more than 65" in line and "the rest unread]" in line
    assert servers.model.count() == 0


@pytest.mark.parametrize(("body", "said"), [
    (b"<html>not a listing</html>", "a body that is not JSON"),
    (b'{"data": {"id": "audio-model"}}', 'an object whose "data" is an object, not a list'),
    (b'{"object": "list"}', 'an object without "data"'),
    (b"[1, 2]", "a list where a models listing was expected"),
    (b"[" * 100_000 + b"]" * 100_000, "a body that is not JSON (or is null, or nested too deep)"),
])
def test_a_models_listing_of_another_shape_or_depth_is_one_line_not_an_internal_error(
        run_bench: Any, servers: Servers, body: bytes, said: str) -> None:
    servers.model.models_script = lambda headers: Reply(status=200, body=body)
    line = usage_error(run_bench().result)
    assert f"answered GET /models with {said}" in line


def test_a_listing_sent_a_byte_at_a_time_ends_the_start_at_the_timeout(
        run_bench: Any, servers: Servers) -> None:
    listing = json.dumps({"data": [{"id": MODEL}]}).encode()
    servers.model.models_script = lambda headers: Reply(body=listing, trickle=1.5)
    line = usage_error(run_bench("--audiobench-timeout", "3", "--audiobench-deadline", "20"
                                 ).result)
    assert "no whole reply to GET /models within 3 s (--audiobench-timeout)" in line


def test_a_listing_sent_a_byte_at_a_time_ends_the_start_at_the_deadline(
        run_bench: Any, servers: Servers) -> None:
    listing = json.dumps({"data": [{"id": MODEL}]}).encode()
    servers.model.models_script = lambda headers: Reply(body=listing, trickle=1.5)
    line = usage_error(run_bench("--audiobench-timeout", "60", "--audiobench-deadline", "3"
                                 ).result)
    assert "the run's deadline (--audiobench-deadline) passed before its models listing" in line


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_a_5_mb_root_in_the_listing_is_cut_in_the_baseline_the_report_the_page_and_the_record(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, xdist: list[str]) -> None:
    servers.model.model_info[MODEL] = {"root": "/w/" + "r" * 5_000_000,
                                       "permission": [{"x": "y" * 1_000_000}]}
    run = run_bench("--audiobench-update-baseline", "--audiobench-html=page.html", xdist=xdist)
    assert run.result.ret == pytest.ExitCode.OK
    root = run.report["run"]["identity"]["served"]["root"]
    assert root.startswith("/w/rrr") and "characters in all" in root and len(root) < 500
    assert "permission" not in run.report["run"]["identity"]["served"]
    kept = [pytester.path / "report.json", pytester.path / "page.html",
            *(pytester.path / "baselines").rglob("*.json"),
            *(pytester.path / "cache" / "runs").rglob("*.json")]
    assert len(kept) >= 4
    for path in kept:
        assert path.stat().st_size < 400_000, path


# --- redirects ------------------------------------------------------------------------------


@pytest.fixture
def elsewhere() -> Any:
    """Another server, on another port: where a hostile server redirects."""
    seen: list[dict[str, str]] = []
    other = FakeOpenAIServer(Scripted("a good answer"), models=[MODEL])
    other.models_script = lambda headers: seen.append(headers) or Reply(
        body=json.dumps({"data": [{"id": MODEL}]}).encode())
    with other:
        yield other, seen


def test_a_redirect_of_the_listing_to_another_origin_is_refused_and_no_header_goes_there(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, elsewhere: Any) -> None:
    other, seen = elsewhere
    monkeypatch.setenv("AUDIOBENCH_HEADERS", '{"X-Gateway-Token": "gw-secret-4521"}')
    servers.model.models_script = lambda headers: Reply(
        status=307, headers={"Location": f"{other.url}/models"}, content="moved")
    line = usage_error(run_bench().result)
    assert f"HTTP 307: redirected to {other.url}/models: no redirect is followed" in line
    assert seen == []


def test_a_redirect_of_a_request_to_another_origin_is_refused_and_no_header_goes_there(
        run_bench: Any, servers: Servers, monkeypatch: pytest.MonkeyPatch, elsewhere: Any,) -> None:
    other, _ = elsewhere
    monkeypatch.setenv("AUDIOBENCH_HEADERS", '{"X-Gateway-Token": "gw-secret-4521"}')
    servers.model.script = Scripted(Reply(
        status=307, headers={"Location": f"{other.url}/chat/completions"}, content="moved"))
    run = run_bench()
    run.result.assert_outcomes(errors=16)
    assert f"failed after 1 attempt: HTTP 307: redirected to {other.url}/chat/completions" in (
        run.result.stdout.str())
    assert other.count() == 0


# --- errors without end ---------------------------------------------------------------------


def test_a_judge_that_replies_a_megabyte_that_never_parses_makes_a_short_error(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]]) -> None:
    servers.judge.script = ScoringJudge(replies={small_records[0]["question"]: "z" * 1_000_000})
    run = run_bench("--junitxml=junit.xml")
    run.result.assert_outcomes(passed=15, errors=1)
    out = run.result.stdout.str()
    assert "gave no reply of the form" in out and "[cut: 1000000 characters in all]" in out
    assert max(map(len, out.splitlines())) < LONGEST_LINE * 3
    assert (pytester.path / "junit.xml").stat().st_size < 1_000_000


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_an_error_message_of_5_mb_makes_a_short_line_and_a_small_junit(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str]) -> None:
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"],
        replies=Reply(status=500, content="boom " + "b" * 5_000_000))
    run = run_bench("--junitxml=junit.xml", "--audiobench-retries", "0", xdist=xdist)
    run.result.assert_outcomes(passed=15, errors=1)
    out = run.result.stdout.str()
    assert "HTTP 500: boom bbb" in out and "[cut: more than 65" in out
    assert max(map(len, out.splitlines())) < LONGEST_LINE
    assert (pytester.path / "junit.xml").stat().st_size < 200_000
    errored = next(s for s in run.report["samples"] if s["outcome"] == "error")
    assert len(errored["message"]) < LONGEST_LINE


def _gzip_bomb(megabytes: int) -> bytes:
    """A gzip body that inflates to ``megabytes`` of a JSON error, made a megabyte at a
    time."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    chunks = [packer.compress(b'{"error": {"message": "' + b"A" * (2**20 - 23))]
    chunks += [packer.compress(b"A" * 2**20) for _ in range(megabytes - 1)]
    return b"".join([*chunks, packer.compress(b'"}}'), packer.flush()])


def test_a_compressed_error_body_is_never_inflated_past_the_cap() -> None:
    bomb = _gzip_bomb(256)
    assert len(bomb) < 2**20
    assert len(zlib.decompressobj(31).decompress(bomb, 2**20)) == 2**20  # it does inflate
    with FakeOpenAIServer(Scripted(Reply(status=500, body=bomb,
                                         headers={"Content-Encoding": "gzip"}))) as server:
        url = server.url
        tracemalloc.start()
        try:
            said = failure(settings(server.url, retries=0))
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 16 * 2**20, f"{peak / 2**20:.0f} MB held at once"
    assert said.startswith(f"the model {MODEL} at {url}") and len(said) < LONGEST_LINE
    assert "HTTP 500: AAAA" in said


# --- token counts ---------------------------------------------------------------------------


@pytest.mark.parametrize(("usage", "said"), [
    ({"prompt_tokens": 5, "completion_tokens": -24_000_000}, "usage.completion_tokens is "
                                                              "-24000000, not a count"),
    ({"prompt_tokens": 10**400, "completion_tokens": 1}, "usage.prompt_tokens is 1000000000"),
    ({"prompt_tokens": 5, "completion_tokens": 2.5}, "usage.completion_tokens is 2.5"),
    ({"prompt_tokens": "5", "completion_tokens": 1}, "usage.prompt_tokens is a text"),
    ({"prompt_tokens": 5, "prompt_tokens_details": {"audio_tokens": -1}},
     "usage.audio_tokens is -1"),
])
def test_a_reply_with_a_token_count_that_is_no_count_is_malformed_and_retried(
        usage: dict[str, Any], said: str) -> None:
    ledger = Ledger()
    with FakeOpenAIServer(Scripted("fine").when(replies=[Reply("fine", usage=usage),
                                                         "fine"])) as server:
        answered = complete(settings(server.url, retries=1), ledger=ledger)
    assert (answered.text, answered.attempts) == ("fine", 2)
    assert traffic(ledger).failures == {"bad usage": 1}
    with FakeOpenAIServer(Scripted(Reply("fine", usage=usage))) as server:
        assert said in failure(settings(server.url, retries=1))


def test_negative_and_absurd_token_counts_never_pass_the_budget_nor_make_a_cost(
        run_bench: Any, servers: Servers) -> None:
    servers.model.script = Scripted(Reply("a good answer", usage={
        "prompt_tokens": 5, "completion_tokens": -24_000_000}))
    servers.judge.script = lambda request: Reply(ScoringJudge()(request), usage={  # type: ignore[arg-type]
        "prompt_tokens": 10**400, "completion_tokens": 1})
    run = run_bench("--audiobench-budget-tokens", "1000", "--audiobench-retries", "1",
                    "--audiobench-price", f"{MODEL}=1/1,{JUDGE}=1/1")
    out = run.result.stdout.str()
    assert "INTERNALERROR" not in out and "OverflowError" not in out
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    assert out.splitlines()[-2].startswith("verdict:") or "verdict:" in out
    assert "$-" not in out
    run.result.assert_outcomes(errors=16)
    assert "usage.completion_tokens is -24000000, not a count" in out


# --- malformed replies ----------------------------------------------------------------------


def test_a_reply_nested_100000_deep_is_a_retried_malformed_reply_not_a_recursion_error(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]],) -> None:
    deep = b'{"choices": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    servers.model.script = Scripted("a good answer").when(
        contains=small_records[0]["question"], replies=[Reply(body=deep), "a good answer"])
    servers.model.script.when(contains=small_records[1]["question"], replies=Reply(body=deep))
    run = run_bench("--audiobench-retries", "1")
    run.result.assert_outcomes(passed=15, errors=1)
    out = run.result.stdout.str()
    assert "RecursionError" not in out
    assert "failed after 2 attempts: a reply nested too deep to read as JSON" in out


# --- dataset text ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["y\x1b[2J\n::error::forged", "y\r24 passed",
                                   "made-001 ##vso[task.complete result=Succeeded]",
                                   "made\u202e100-edam", "\tmade"])
def test_a_record_whose_id_would_print_raw_in_a_node_id_is_refused_at_load(
        run_bench: Any, tmp_path: Path, servers: Servers, value: str) -> None:
    records = [dict(r) for r in made_mmar_records()]
    records[0]["id"] = value
    records[0]["audio_path"] = "./audio/made-001.wav"
    root = build_mmar(tmp_path / "mmar", records)
    run = run_bench("-v", data=root, benchmark="mmar", judge=False)
    line = usage_error(run.result)
    assert f"--audiobench-data {root}: mmar record " in line
    assert ("its id " in line and "holds a control character, a newline, a tab or a CI "
            "workflow command") in line
    assert servers.model.count() == 0


def test_a_task_read_from_the_data_that_would_print_raw_is_refused_at_load(
        run_bench: Any, tmp_path: Path, servers: Servers) -> None:
    from tests.test_mmsu_data import _converted, _line  # MMSU's tasks come from its data

    root = _converted(tmp_path / "mmsu", [_line(1), _line(2, task_name="emotion\n::error::x")])
    line = usage_error(run_bench(data=root, benchmark="mmsu", judge=False).result)
    assert "its task emotion ... [cut: 18 characters in all] holds a control character" in line
    assert servers.model.count() == 0


# --- the docs' table ------------------------------------------------------------------------

TABLE = Path(__file__).resolve().parents[1] / "docs" / "untrusted-input.md"
CONTROLS = {"test_an_untouched_baseline_still_holds_and_a_regressed_model_still_fails",
            "test_each_row_of_the_docs_table_names_tests_that_exist_and_each_test_a_row"}
"""Tests of this file that hold no row: the refusals refuse forged input only, and this."""


def _rows() -> dict[str, list[str]]:
    """Each row of the docs' table by its source, and the tests its last cell names."""
    rows = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
        if len(cells) == 6 and cells[0] not in ("source", "---"):
            rows[cells[0]] = re.findall(r"`(tests/[\w/]+\.py::\w+)`", cells[5])
    return rows


def test_each_row_of_the_docs_table_names_tests_that_exist_and_each_test_a_row() -> None:
    import importlib

    rows = _rows()
    assert len(rows) == 9 and all(rows.values()), rows
    named = {test for tests in rows.values() for test in tests}
    for test in named:
        path, function = test.split("::")
        module = importlib.import_module(path.removesuffix(".py").replace("/", "."))
        assert callable(getattr(module, function, None)), f"{test}: no such test"
    here = {f"tests/test_hostile_inputs.py::{name}" for name in globals()
            if name.startswith("test_") and name not in CONTROLS}
    assert here - named == set(), "tests that no row of docs/untrusted-input.md names"
