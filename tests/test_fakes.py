"""The fake OpenAI server and the benchmark folder builders behave as tests rely on."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import soundfile as sf  # type: ignore[import-untyped, unused-ignore]

from tests.fakes.datasets import (
    MMAR_LEGACY_FIELDS,
    REFERENCE_DIR,
    build_air_bench_chat,
    build_mmar,
    chat_records,
    load_chat_reference,
    load_mmar_reference,
    mmar_audio_relpath,
    reference_available,
)
from tests.fakes.openai_server import ChatRequest, FakeOpenAIServer, Reply, Scripted, judge_line

needs_reference = pytest.mark.skipif(
    not reference_available(),
    reason=f"reference metadata not found at {REFERENCE_DIR} (a clone outside this setup)",
)


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def client(fake: FakeOpenAIServer, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.url, api_key="test", max_retries=0, **kwargs)


def ask(fake: FakeOpenAIServer, text: str = "hello", model: str = "m") -> str | None:
    with client(fake) as c:
        completion = c.chat.completions.create(
            model=model, messages=[{"role": "user", "content": text}]
        )
    return completion.choices[0].message.content


# --- server -------------------------------------------------------------------------------


def test_default_script_answers_ok(server: FakeOpenAIServer) -> None:
    assert ask(server) == "ok"
    assert server.count() == 1


def test_scripted_answer_round_trips_through_openai_client(server: FakeOpenAIServer) -> None:
    server.script = lambda req: f"echo {req.model}: {req.text}"
    with client(server) as c:
        completion = c.chat.completions.create(
            model="qwen-audio",
            messages=[
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "two words"},
            ],
        )
    assert completion.choices[0].message.content == "echo qwen-audio: be brief\ntwo words"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "qwen-audio"
    assert completion.usage is not None
    assert completion.usage.prompt_tokens == 4
    assert completion.usage.completion_tokens == 6
    assert completion.usage.total_tokens == 10


def test_audio_part_is_recorded_with_audio_token_usage(server: FakeOpenAIServer) -> None:
    data = base64.b64encode(b"RIFF fake").decode()
    with client(server) as c:
        completion = c.chat.completions.create(
            model="m",
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}},
                        {"type": "text", "text": "What is heard?"},
                    ],
                }
            ],
            extra_headers={"X-Trace": "abc"},
        )
    (request,) = server.requests
    assert request.text == "What is heard?"
    assert request.audio_parts == [
        {"type": "input_audio", "input_audio": {"data": data, "format": "wav"}}
    ]
    assert request.headers["x-trace"] == "abc"
    assert request.body["model"] == "m"
    assert completion.usage is not None
    details = completion.usage.prompt_tokens_details
    assert details is not None
    assert details.audio_tokens == 10


def test_usage_override_replaces_default_block(server: FakeOpenAIServer) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8}
    server.script = lambda req: Reply("x", usage=usage)
    with client(server) as c:
        completion = c.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "q"}]
        )
    assert completion.usage is not None
    assert completion.usage.model_dump(exclude_none=True) == usage


def test_status_429_with_retry_after_raises_rate_limit_error(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply(status=429, headers={"Retry-After": "0"})
    with pytest.raises(openai.RateLimitError) as info:
        ask(server)
    assert info.value.status_code == 429
    assert info.value.response.headers["retry-after"] == "0"
    assert isinstance(info.value.body, dict)
    assert info.value.body["type"] == "rate_limit_error"


def test_status_500_raises_internal_server_error(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply("boom", status=500)
    with pytest.raises(openai.InternalServerError, match="boom"):
        ask(server)


def test_dropped_connection_raises_api_connection_error(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply(drop=True)
    with pytest.raises(openai.APIConnectionError):
        ask(server)
    # The server keeps serving after a drop.
    server.script = lambda req: "back"
    assert ask(server) == "back"


def test_retrying_client_recovers_from_rate_limit(server: FakeOpenAIServer) -> None:
    server.script = Scripted().when(
        replies=[Reply(status=429, headers={"Retry-After": "0"}), "fine"]
    )
    with openai.OpenAI(base_url=server.url, api_key="t", max_retries=2) as c:
        completion = c.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "q"}]
        )
    assert completion.choices[0].message.content == "fine"
    assert server.count() == 2


def test_stream_requests_are_refused(server: FakeOpenAIServer) -> None:
    with client(server) as c, pytest.raises(openai.BadRequestError):
        c.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "q"}], stream=True
        )


def test_script_exception_becomes_500_and_is_kept(server: FakeOpenAIServer) -> None:
    def broken(request: ChatRequest) -> str:
        raise KeyError("oops")

    server.script = broken
    with pytest.raises(openai.InternalServerError, match="oops"):
        ask(server)
    assert isinstance(server.errors[0], KeyError)


def test_delay_holds_the_answer(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply("late", delay=0.3)
    start = time.perf_counter()
    assert ask(server) == "late"
    assert time.perf_counter() - start >= 0.3


def test_timeout_on_slow_reply_raises_api_timeout_error(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply("late", delay=2.0)
    with client(server, timeout=0.2) as c, pytest.raises(openai.APITimeoutError):
        c.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])


def test_32_concurrent_requests_are_served_in_parallel(server: FakeOpenAIServer) -> None:
    server.script = lambda req: Reply(f"re {req.text}", delay=0.2)

    async def run() -> list[str | None]:
        async with openai.AsyncOpenAI(base_url=server.url, api_key="t", max_retries=0) as c:

            async def one(i: int) -> str | None:
                completion = await c.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": str(i)}]
                )
                return completion.choices[0].message.content

            return await asyncio.gather(*(one(i) for i in range(32)))

    start = time.perf_counter()
    answers = asyncio.run(run())
    elapsed = time.perf_counter() - start
    assert answers == [f"re {i}" for i in range(32)]
    assert server.max_in_flight >= 16
    assert elapsed < 2.0, f"32 requests of 0.2 s took {elapsed:.2f} s: not concurrent"


def test_models_are_listed_when_configured() -> None:
    with FakeOpenAIServer(models=["a", "b"]) as fake, client(fake) as c:
        assert [m.id for m in c.models.list()] == ["a", "b"]
        assert ask(fake, model="a") == "ok"
        with pytest.raises(openai.NotFoundError):
            ask(fake, model="zzz")
        assert fake.count("a") == 1
        assert fake.count("zzz") == 1


def test_models_listing_is_404_when_no_models_configured(server: FakeOpenAIServer) -> None:
    with client(server) as c, pytest.raises(openai.NotFoundError):
        c.models.list()
    assert ask(server, model="anything") == "ok"


def test_unknown_route_is_404(server: FakeOpenAIServer) -> None:
    with client(server) as c, pytest.raises(openai.NotFoundError):
        c.embeddings.create(model="m", input="x")


def test_count_filters_by_model(server: FakeOpenAIServer) -> None:
    ask(server, model="x")
    ask(server, model="y")
    ask(server, model="y")
    assert (server.count(), server.count("x"), server.count("y")) == (3, 1, 2)
    assert [r.model for r in server.requests] == ["x", "y", "y"]


def test_stop_is_idempotent_and_url_needs_start() -> None:
    fake = FakeOpenAIServer()
    with pytest.raises(RuntimeError):
        _ = fake.url
    fake.start()
    assert fake.url.startswith("http://127.0.0.1:")
    assert fake.url.endswith("/v1")
    fake.stop()
    fake.stop()


def test_stop_does_not_wait_for_slow_replies() -> None:
    fake = FakeOpenAIServer(lambda req: Reply("late", delay=30)).start()
    c = client(fake, timeout=5)
    loop = asyncio.new_event_loop()
    try:
        # Fire one slow request in the background, then stop the server under it.
        task = loop.run_in_executor(None, lambda: c.chat.completions.create(model="m", messages=[]))
        deadline = time.monotonic() + 2
        while fake.count() == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        start = time.perf_counter()
        fake.stop()
        assert time.perf_counter() - start < 2
        loop.run_until_complete(asyncio.wait([task], timeout=5))
    finally:
        loop.close()
        c.close()


def test_scripted_rules_match_in_order_and_sequences_repeat_last(
    server: FakeOpenAIServer,
) -> None:
    server.script = (
        Scripted(default="fallback")
        .when(model="judge", replies=[judge_line(8, 6), judge_line(3, 9)])
        .when(contains="ping", replies="pong")
        .when(model="judge", replies="never")
    )
    judged = [ask(server, model="judge") for _ in range(4)]
    assert judged == ["8 6", "3 9", "3 9", "3 9"]
    assert ask(server, "say ping now") == "pong"
    assert ask(server, "other") == "fallback"


def test_scripted_rejects_empty_replies() -> None:
    with pytest.raises(ValueError):
        Scripted().when(replies=[])


def test_scripted_is_thread_safe_under_concurrency(server: FakeOpenAIServer) -> None:
    server.script = Scripted().when(replies=[str(i) for i in range(20)])

    async def run() -> list[str | None]:
        async with openai.AsyncOpenAI(base_url=server.url, api_key="t", max_retries=0) as c:

            async def one() -> str | None:
                completion = await c.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "q"}]
                )
                return completion.choices[0].message.content

            return await asyncio.gather(*(one() for _ in range(20)))

    assert sorted(asyncio.run(run()), key=lambda s: int(s or -1)) == [str(i) for i in range(20)]


def test_judge_line_joins_scores() -> None:
    assert judge_line(8, "6") == "8 6"


# --- datasets -----------------------------------------------------------------------------


@needs_reference
def test_reference_metadata_has_expected_shapes() -> None:
    chat = load_chat_reference()
    mmar = load_mmar_reference()
    assert len(chat) == 2200
    assert len(mmar) == 1000
    assert set(chat[0]) == {
        "path",
        "question",
        "answer_gt",
        "task_name",
        "dataset_name",
        "meta_info",
        "uniq_id",
    }
    assert len(mmar[0]) == 15


@needs_reference
def test_chat_records_takes_first_n_of_each_task_in_file_order() -> None:
    all_records = chat_records()
    few = chat_records(2)
    assert len(few) == 16
    by_task: dict[str, list[int]] = {}
    for r in all_records:
        by_task.setdefault(r["task_name"], []).append(r["uniq_id"])
    picked = {u for ids in by_task.values() for u in ids[:2]}
    assert few == [r for r in all_records if r["uniq_id"] in picked]


@pytest.mark.slow
@needs_reference
def test_full_chat_build_writes_every_distinct_file_readably(tmp_path: Path) -> None:
    records = load_chat_reference()
    start = time.perf_counter()
    root = build_air_bench_chat(tmp_path, records)
    elapsed = time.perf_counter() - start
    assert root == tmp_path
    meta = json.loads((root / "Chat" / "Chat_meta.json").read_text(encoding="utf-8"))
    assert meta == records
    files = [p for p in (root / "Chat").rglob("*") if p.is_file() and p.name != "Chat_meta.json"]
    assert len(files) == 1549
    wanted = {f"{r['task_name']}_{r['dataset_name']}/{r['path']}" for r in records}
    assert {p.relative_to(root / "Chat").as_posix() for p in files} == wanted
    per_record = [
        root / "Chat" / f"{r['task_name']}_{r['dataset_name']}" / r["path"] for r in records
    ]
    suffixes = [p.suffix for p in per_record]
    assert (suffixes.count(".wav"), suffixes.count(".mp3")) == (2000, 200)
    for path in files:
        data, rate = sf.read(path)
        assert rate == 16000
        assert len(data) > 0
    # Generous: shared CI machines are slow at creating many small files.
    assert elapsed < 30, f"full chat build took {elapsed:.2f} s"


@needs_reference
def test_chat_build_tones_differ_between_files(tmp_path: Path) -> None:
    records = chat_records(1)[:2]
    build_air_bench_chat(tmp_path, records, seconds=0.1)
    a, b = (
        sf.read(tmp_path / "Chat" / f"{r['task_name']}_{r['dataset_name']}" / r["path"])[0]
        for r in records
    )
    assert len(a) == len(b) == 1600
    assert not (a == b).all()


@needs_reference
def test_chat_build_empty_and_missing_options(tmp_path: Path) -> None:
    records = chat_records(3)
    first, second = records[0], records[1]
    build_air_bench_chat(tmp_path, records, empty={first["uniq_id"]}, missing={second["uniq_id"]})

    def where(r: dict[str, Any]) -> Path:
        return tmp_path / "Chat" / f"{r['task_name']}_{r['dataset_name']}" / str(r["path"])

    assert where(first).stat().st_size == 0
    assert not where(second).exists()
    assert sf.info(where(records[2])).frames == 800
    assert len(json.loads((tmp_path / "Chat" / "Chat_meta.json").read_text())) == len(records)


def test_chat_build_writes_other_extensions_by_suffix(tmp_path: Path) -> None:
    record = {
        "path": "clip.flac",
        "question": "q",
        "answer_gt": "a",
        "task_name": "t",
        "dataset_name": "d",
        "meta_info": "",
        "uniq_id": 0,
    }
    build_air_bench_chat(tmp_path, [record], sample_rate=8000)
    info = sf.info(tmp_path / "Chat" / "t_d" / "clip.flac")
    assert (info.format, info.samplerate) == ("FLAC", 8000)


@pytest.mark.slow
@needs_reference
def test_mmar_build_writes_jsonl_without_trailing_newline(tmp_path: Path) -> None:
    records = load_mmar_reference()
    start = time.perf_counter()
    build_mmar(tmp_path, records)
    elapsed = time.perf_counter() - start
    raw = (tmp_path / "MMAR-meta.jsonl").read_bytes()
    assert not raw.endswith(b"\n")
    assert raw.count(b"\n") == 999
    assert [json.loads(line) for line in raw.splitlines()] == records
    wavs = sorted((tmp_path / "audio").glob("*.wav"))
    assert len(wavs) == 1000
    assert {p.relative_to(tmp_path).as_posix() for p in wavs} == {
        mmar_audio_relpath(r) for r in records
    }
    assert sf.info(wavs[0]).subtype == "PCM_16"
    assert elapsed < 30, f"mmar build took {elapsed:.2f} s"


@needs_reference
def test_mmar_audio_follows_audio_path_even_when_it_differs_from_id(tmp_path: Path) -> None:
    odd = [r for r in load_mmar_reference() if r["audio_path"] != f"./audio/{r['id']}.wav"]
    assert odd, "the reference is expected to hold records whose audio_path is not the id"
    build_mmar(tmp_path, odd[:3])
    for r in odd[:3]:
        assert (tmp_path / r["audio_path"]).is_file()
        assert not (tmp_path / "audio" / f"{r['id']}.wav").exists()


@needs_reference
def test_mmar_legacy_json_has_the_first_12_fields(tmp_path: Path) -> None:
    records = load_mmar_reference()[:5]
    build_mmar(tmp_path, records, legacy_json=True, missing={records[0]["id"]})
    assert not (tmp_path / "MMAR-meta.jsonl").exists()
    legacy = json.loads((tmp_path / "MMAR-meta.json").read_text(encoding="utf-8"))
    assert len(legacy) == 5
    assert all(tuple(item) == MMAR_LEGACY_FIELDS for item in legacy)
    assert len(MMAR_LEGACY_FIELDS) == 12
    assert len(list((tmp_path / "audio").glob("*.wav"))) == 4
    assert not (tmp_path / mmar_audio_relpath(records[0])).exists()
