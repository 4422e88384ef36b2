"""Everything a server sends is untrusted, and the transport makes it safe to keep (issue 42):
a key it sends back in another letter case or in base64, in an answer, in its models listing
or in the model id its replies name, reaches no file and no terminal; a baseline keeps only
the weights of what the server said; a server naming a new model id in every reply leaves
the counts bounded; a lone surrogate is an answer, its code point replaced and counted; a
body past the limit is a failure of the endpoint, never read whole."""

from __future__ import annotations

import base64
import itertools
import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.transport import secrets
from pytest_audiobench.transport.ledger import Ledger
from pytest_audiobench.transport.replies import completion_of
from tests.conftest import MODEL, ONE_WORKER, XDIST_MODES, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Scripted
from tests.test_client import complete, failure, settings, traffic

KEY = "sk-Live~4f9c?E71b>8A0d3Qz"
"""A key whose base64 holds a ``+`` (so its URL-safe form is another text) and padding."""
UPPER, LOWER = KEY.upper(), KEY.lower()
BASE64 = base64.b64encode(KEY.encode()).decode()
URL_SAFE = base64.urlsafe_b64encode(KEY.encode()).decode().rstrip("=")
BASIC = base64.b64encode(f"user:{KEY}".encode()).decode()
"""The key inside a longer encoded text, as a ``Basic`` header carries it."""
FORMS = {"upper case": UPPER, "lower case": LOWER, "base64": BASE64,
         "base64 without padding": BASE64.rstrip("="), "URL-safe base64": URL_SAFE,
         "base64 of user:key": BASIC}
REDACTED = "[redacted]"
OTHER_IDS = "(other ids)"
TOO_BIG = 9 * 2**20
"""A reply body past the limit of 8 MB."""


def leaks(text: str) -> list[str]:
    """The forms of the key ``text`` holds: the key in any letter case, or one of the
    encoded forms the server sent."""
    found = [name for name, form in FORMS.items() if form in text]
    return found + (["the key"] if KEY.casefold() in text.casefold() else [])


def files_under(folder: Path) -> dict[str, str]:
    return {str(path): path.read_bytes().decode("utf-8", "replace")
            for path in folder.rglob("*") if path.is_file()}


def endpoint_traffic(run: Any, servers: Servers) -> dict[str, Any]:
    counted: dict[str, Any] = run.report["traffic"]["endpoints"][
        f"{MODEL} at {servers.model.url}"]
    return counted


@pytest.fixture
def key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AUDIOBENCH_API_KEY", KEY)
    secrets.remember(KEY)  # as the run's endpoint does, for the tests that ask no run
    return KEY


# --- secrets ------------------------------------------------------------------------------


@pytest.mark.parametrize("form", list(FORMS.values()), ids=list(FORMS))
def test_a_key_sent_back_in_another_case_or_in_base64_is_redacted(key: str, form: str) -> None:
    said = secrets.redact(f"the key you sent: {form}.")
    assert REDACTED in said and not leaks(said), said


@pytest.mark.parametrize("xdist", ONE_WORKER)
def test_a_key_in_the_listing_the_answers_and_the_model_id_reaches_no_file_nor_the_terminal(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers, key: str,
        xdist: list[str]) -> None:
    servers.model.model_info[MODEL] = {
        "root": f"/models/{key}", "owned_by": UPPER, "parent": BASE64,
        "permission": [{"group": LOWER, "note": BASIC}], URL_SAFE: "a field named by it"}
    echoed = " ".join(FORMS.values())
    servers.model.script = Scripted(Reply(f"a good answer {echoed}", reasoning=echoed,
                                          model=f"{MODEL}-{key}"))
    run = run_bench("--audiobench-update-baseline", "--audiobench-html=page.html",
                    "--junitxml=junit.xml", xdist=xdist)
    assert run.result.ret == pytest.ExitCode.OK
    outputs = {"terminal": run.result.stdout.str() + run.result.stderr.str(),
               **files_under(pytester.path / "cache"), **files_under(pytester.path / "baselines"),
               **{name: (pytester.path / name).read_text(encoding="utf-8")
                  for name in ("report.json", "page.html", "junit.xml")}}
    assert {name: leaks(text) for name, text in outputs.items() if leaks(text)} == {}
    served = run.report["run"]["identity"]["served"]
    assert (served["root"], served["owned_by"], served["parent"]) == (
        f"/models/{REDACTED}", REDACTED, REDACTED)
    assert list(endpoint_traffic(run, servers)["served"]) == [f"{MODEL}-{REDACTED}"]
    baseline = json.loads((pytester.path / "baselines/air_bench_chat/audio-model.json")
                          .read_text(encoding="utf-8"))
    assert baseline["identity"]["served"] == {"root": f"/models/{REDACTED}"}


def test_an_error_line_with_the_key_in_upper_case_or_base64_says_it_redacted(
        key: str) -> None:
    with FakeOpenAIServer(Scripted(Reply(status=400, content=f"bad key {UPPER} {BASE64}"))
                          ) as server:
        said = failure(settings(server.url))
    assert f"bad key {REDACTED} {REDACTED}" in said and not leaks(said)


# --- model ids ----------------------------------------------------------------------------


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_a_server_naming_a_new_model_id_in_every_reply_leaves_at_most_21_counted(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    ids = itertools.count()
    servers.model.script = lambda request: Reply("a good answer",
                                                 model=f"snapshot-{next(ids)}")
    run = run_bench("--audiobench-runs", "7", xdist=xdist)
    served = endpoint_traffic(run, servers)["served"]
    assert servers.model.count() == 16 * 7
    # 20 by name, each named once, and the 92 others together.
    assert len(served) == 21 and served[OTHER_IDS] == 16 * 7 - 20
    assert sum(served.values()) == 16 * 7


# --- invalid text -------------------------------------------------------------------------


def test_every_text_kept_from_a_reply_is_text_redacted_and_the_finish_reason_short(
        key: str) -> None:
    parts = [{"type": "text", "text": "in \ud800"}, {"type": "text", "text": " parts\udfff"}]
    message = {"content": parts, "reasoning": "a thought \udc00"}
    finish = f"{UPPER} and on " * 100
    read = completion_of({"choices": [{"message": message, "finish_reason": finish}]})
    assert (read.text, read.reasoning) == ("in \ufffd parts\ufffd", "a thought \ufffd")
    assert read.finish_reason == f"{REDACTED} and on {REDACTED} and on {REDACTED} "[:40]
    assert read.replaced == 3
    read.model_dump_json()  # a file can hold it


# The answer crosses from an xdist worker once, cached: its twin without the cache takes the
# same way across and would cost the suite another run with a worker.
@pytest.mark.parametrize(("xdist", "cache"), [
    pytest.param([], [], id="no-xdist-cache"),
    pytest.param([], ["--audiobench-no-cache"], id="no-xdist-no-cache"),
    pytest.param(["-n1"], [], id="n1-cache")])
def test_a_lone_surrogate_in_an_answer_is_replaced_counted_and_the_answer_scored(
        run_bench: Any, pytester: pytest.Pytester, servers: Servers,
        small_records: list[dict[str, Any]], xdist: list[str], cache: list[str]) -> None:
    question = small_records[0]["question"]
    servers.model.script = Scripted("a good answer").when(
        contains=question, replies="a good answer \ud800 heard")
    run = run_bench(*cache, xdist=xdist)
    run.result.assert_outcomes(passed=16)
    sample = next(s for s in run.report["samples"] if s["question"] == question)
    completion = sample["answers"][0]["completion"]
    assert completion["replaced"] == 1 and "a good answer \ufffd heard" in completion["text"]
    assert any("a good answer \ufffd heard" in asked.text for asked in servers.judge.requests)
    # The response cache keeps the answer as scored, and so does the run's record of it that a
    # resume replays (the spool beside it): one file each, none without the cache.
    kept = {Path(path).relative_to(pytester.path / "cache").parts[0]
            for path, text in files_under(pytester.path / "cache").items()
            if "a good answer \ufffd heard" in text}
    assert kept == (set() if cache else {"responses", "runs"})


# --- size ---------------------------------------------------------------------------------


def test_a_reply_body_past_the_limit_is_a_failure_of_the_endpoint_and_the_run_goes_on(
        run_bench: Any, servers: Servers, small_records: list[dict[str, Any]]) -> None:
    question = small_records[0]["question"]
    servers.model.script = Scripted("a good answer").when(
        contains=question, replies=Reply("x" * TOO_BIG))
    run = run_bench("--audiobench-retries", "1")
    run.result.assert_outcomes(passed=15, errors=1)
    assert endpoint_traffic(run, servers)["failures"] == {"too large": 2}
    errored = next(s for s in run.report["samples"] if s["question"] == question)
    assert "failed after 2 attempts: a reply of more than 8 MB" in errored["message"]
    assert not any("x" * 1000 in asked.text for asked in servers.judge.requests)


def test_a_body_of_64_mb_is_read_no_further_than_the_limit_and_the_retry_answers() -> None:
    megabyte = b"x" * 2**20
    ledger = Ledger()
    with FakeOpenAIServer(Scripted("fine").when(
            replies=[Reply(body=megabyte, repeat=64), "fine"])) as server:
        tracemalloc.start()
        try:
            answered = complete(settings(server.url, retries=1), ledger=ledger)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 24 * 2**20, f"{peak / 2**20:.0f} MB held at once"
    assert (answered.text, answered.attempts) == ("fine", 2)
    assert traffic(ledger).failures == {"too large": 1}
