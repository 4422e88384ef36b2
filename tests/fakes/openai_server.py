"""A real, scriptable OpenAI-compatible HTTP server on 127.0.0.1 for tests."""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from typing import Any

from tests.fakes.serving import ServedInThread, TrackedHandler

__all__ = [
    "ChatRequest",
    "FakeOpenAIServer",
    "Reply",
    "Script",
    "Scripted",
    "dies_after",
    "judge_line",
    "restarts_after",
]

AUDIO_PART_TYPES = frozenset({"input_audio", "audio_url"})


@dataclass(frozen=True)
class Reply:
    """What the server answers to one chat request. ``content`` None is sent as JSON null;
    ``reasoning`` goes into the message under ``reasoning_field`` (vLLM's reasoning parsers
    since late 2025 write ``reasoning``, older ones and DeepSeek ``reasoning_content``).
    ``model`` is the id the completion names (else the server's ``served_as``, else the one
    asked for). ``body``, when given, is sent instead of a completion (or of a models listing),
    ``repeat`` times over (the same bytes object each time, so a body of hundreds of megabytes
    costs the server none), with the status and headers."""

    content: str | None = ""
    status: int = 200
    delay: float = 0.0
    headers: Mapping[str, str] = field(default_factory=dict)
    drop: bool = False
    usage: Mapping[str, Any] | None = None
    reasoning: str | None = None
    reasoning_field: str = "reasoning"
    finish_reason: str = "stop"
    model: str | None = None
    body: bytes | None = None
    repeat: int = 1
    trickle: float = 0.0
    """Seconds between the bytes of ``body``: a reply that keeps coming, a byte at a time."""


@dataclass(frozen=True)
class ChatRequest:
    """One received POST /v1/chat/completions."""

    body: dict[str, Any]
    model: str
    text: str
    audio_parts: list[dict[str, Any]]
    headers: dict[str, str]


Script = Callable[[ChatRequest], Reply | str]


def _default_script(request: ChatRequest) -> Reply | str:
    return "ok"


def _as_reply(value: Reply | str) -> Reply:
    return Reply(content=value) if isinstance(value, str) else value


def judge_line(a: int | str, b: int | str) -> str:
    """The two-score line an AIR-Bench GPT-4 judge answers with, e.g. "8 6"."""
    return f"{a} {b}"


class _Rule:
    def __init__(
        self, model: str | None, contains: str | None, replies: Sequence[Reply | str]
    ) -> None:
        self.model = model
        self.contains = contains
        self.replies = [_as_reply(r) for r in replies]
        self.used = 0

    def matches(self, request: ChatRequest) -> bool:
        if self.model is not None and request.model != self.model:
            return False
        return self.contains is None or self.contains in request.text

    def next_reply(self) -> Reply:
        # Caller holds the lock; the last reply repeats once the sequence is used up.
        reply = self.replies[min(self.used, len(self.replies) - 1)]
        self.used += 1
        return reply


class Scripted:
    """Rules checked in order; first match wins; else the default."""

    def __init__(self, default: Reply | str = "ok") -> None:
        self.default = _as_reply(default)
        self._rules: list[_Rule] = []
        self._lock = threading.Lock()

    def when(
        self,
        *,
        model: str | None = None,
        contains: str | None = None,
        replies: Sequence[Reply | str] | Reply | str,
    ) -> Scripted:
        """Add a rule; a sequence gives one reply per match, its last one repeating."""
        # A str is itself a Sequence, so single replies are checked first.
        items: Sequence[Reply | str] = (
            [replies] if isinstance(replies, (str, Reply)) else list(replies)
        )
        if not items:
            raise ValueError("replies must not be empty")
        with self._lock:
            self._rules.append(_Rule(model, contains, items))
        return self

    def __call__(self, request: ChatRequest) -> Reply:
        with self._lock:
            for rule in self._rules:
                if rule.matches(request):
                    return rule.next_reply()
        return self.default


def _error_type(status: int) -> str:
    if status == 401:
        return "authentication_error"
    if status == 403:
        return "permission_error"
    if status == 404:
        return "not_found_error"
    if status == 429:
        return "rate_limit_error"
    if status >= 500:
        return "server_error"
    return "invalid_request_error"


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


def _error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": _error_type(status), "code": status}}


def _parse_chat(body: dict[str, Any], headers: dict[str, str]) -> ChatRequest:
    texts: list[str] = []
    audio: list[dict[str, Any]] = []
    messages = body.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") in AUDIO_PART_TYPES:
                    audio.append(part)
    model = body.get("model")
    return ChatRequest(
        body=body,
        model=model if isinstance(model, str) else "",
        text="\n".join(texts),
        audio_parts=audio,
        headers=headers,
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Many clients connect at once in concurrency tests; the default backlog of 5 refuses them.
    request_queue_size = 512
    allow_reuse_address = True

    def __init__(self, fake: FakeOpenAIServer, port: int) -> None:
        self.fake = fake
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hung up (timeout, cancelled task, stop()) is routine in tests, so it is
        # not printed; anything else is kept for the test to inspect instead of a stderr dump.
        exc = sys.exc_info()[1]
        if exc is not None and not isinstance(exc, OSError):
            self.fake._record_error(exc)


class _Handler(TrackedHandler):
    # Headers and body go out in two writes; without this, Nagle's algorithm holds the body
    # back ~40 ms on every response.
    disable_nagle_algorithm = True
    # HTTP/1.1 so httpx can keep connections alive; every response sends Content-Length.
    protocol_version = "HTTP/1.1"
    server: _Server

    @property
    def served(self) -> FakeOpenAIServer:
        return self.server.fake

    def log_message(self, format: str, *args: Any) -> None:
        # Keep test output clean.
        pass

    def do_GET(self) -> None:
        fake = self.server.fake
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/models" and fake.models_script is not None:
            reply = fake.models_script({k.lower(): v for k, v in self.headers.items()})
            if reply.body is not None:
                self._send_raw(reply.status, reply.body, reply.repeat, reply.headers,
                               reply.trickle, fake._stopping)
            else:
                self._send_json(reply.status, _error_body(reply.status, reply.content or ""),
                                reply.headers)
        elif path == "/v1/models" and fake.models:
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake",
                 **fake.model_info.get(m, {})} for m in fake.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, _error_body(404, f"no route GET {path}"))

    def do_POST(self) -> None:
        raw = self._read_body()
        path = self.path.split("?", 1)[0].rstrip("/")
        if path != "/v1/chat/completions":
            self._send_json(404, _error_body(404, f"no route POST {path}"))
            return
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = None
        if not isinstance(body, dict):
            self._send_json(400, _error_body(400, "body must be a JSON object"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = _parse_chat(body, headers)
        self.server.fake._handle_chat(self, request)

    def _read_body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                if size == 0:
                    # Trailer section ends with an empty line.
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _send_json(
        self, status: int, payload: Mapping[str, Any], headers: Mapping[str, str] | None = None
    ) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_raw(self, status: int, body: bytes, repeat: int, headers: Mapping[str, str],
                  trickle: float = 0.0, stopping: threading.Event | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body) * repeat))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if trickle > 0 and stopping is not None:
            for byte in body * repeat:  # a byte at a time, until the client hangs up
                if stopping.wait(trickle):
                    return
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            return
        for _ in range(repeat):
            self.wfile.write(body)
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        # shutdown() makes the client see EOF at once instead of a half-open socket.
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class FakeOpenAIServer(ServedInThread):
    """OpenAI-compatible chat server answering from a script, on 127.0.0.1. Started again after
    a stop, it listens on the port it had (a server restarted in place: ``down_for``)."""

    def __init__(self, script: Script | None = None, models: Sequence[str] = ()) -> None:
        self.script: Script = script if script is not None else _default_script
        self.models: list[str] = list(models)
        self.models_script: Callable[[dict[str, str]], Reply] | None = None
        """When set, answers GET /models from the request's headers (an error status)."""
        self.model_info: dict[str, dict[str, Any]] = {}
        """Extra fields of a model's GET /models entry, e.g. vLLM's ``root``."""
        self.served_as: str | None = None
        """The model id its completions name, when not the one asked for (an alias's new
        snapshot)."""
        self.requests: list[ChatRequest] = []
        self.max_in_flight = 0
        self.errors: list[BaseException] = []
        self._in_flight = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._stopping = threading.Event()
        super().__init__()

    @property
    def url(self) -> str:
        """Base URL for the openai client, "http://127.0.0.1:<port>/v1"."""
        return f"http://127.0.0.1:{self.port}/v1"

    thread_name = "fake-openai-server"
    poll_interval = 0.02

    def _make_server(self) -> _Server:
        self._stopping.clear()
        return self._on_port(lambda port: _Server(self, port))

    def down_for(self, seconds: float) -> threading.Thread:
        """A model server its supervisor restarts: stopped now (when this returns its port is
        closed and every connection cut, as when a process dies; a script may call it), and
        started again on the same port ``seconds`` later by a thread, returned to join."""
        self.stop()

        def restart() -> None:
            time.sleep(seconds)
            self.start()

        thread = threading.Thread(target=restart, name="fake-openai-restart", daemon=True)
        thread.start()
        return thread

    def _on_stop(self) -> None:
        self._stopping.set()  # cuts pending delays short
        self._cut_connections()

    def count(self, model: str | None = None) -> int:
        """Number of chat requests received, optionally only those for one model."""
        with self._lock:
            return sum(1 for r in self.requests if model is None or r.model == model)

    def _record_error(self, exc: BaseException) -> None:
        with self._lock:
            self.errors.append(exc)

    def _handle_chat(self, handler: _Handler, request: ChatRequest) -> None:
        with self._lock:
            self.requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            self._answer(handler, request)
        finally:
            with self._lock:
                self._in_flight -= 1

    def _answer(self, handler: _Handler, request: ChatRequest) -> None:
        if request.body.get("stream") is True:
            handler._send_json(400, _error_body(400, "streaming is not supported"))
            return
        if self.models and request.model not in self.models:
            message = f"The model `{request.model}` does not exist"
            handler._send_json(404, _error_body(404, message))
            return
        try:
            reply = _as_reply(self.script(request))
        except Exception as exc:
            # Surface script bugs to the test instead of hiding them in a server thread.
            self._record_error(exc)
            handler._send_json(500, _error_body(500, f"script raised {exc!r}"))
            return
        if reply.delay > 0:
            # Wakes early on stop() so shutting down never waits for slow replies.
            self._stopping.wait(reply.delay)
        if reply.drop or self._stopping.is_set():
            handler._drop()
            return
        if reply.body is not None:
            handler._send_raw(reply.status, reply.body, reply.repeat, reply.headers,
                              reply.trickle, self._stopping)
            return
        if reply.status != 200:
            message = reply.content or _phrase(reply.status)
            handler._send_json(reply.status, _error_body(reply.status, message), reply.headers)
            return
        handler._send_json(200, self._completion(request, reply), reply.headers)

    def _completion(self, request: ChatRequest, reply: Reply) -> dict[str, Any]:
        usage: dict[str, Any]
        if reply.usage is not None:
            usage = dict(reply.usage)
        else:
            prompt = len(request.text.split())
            completion = len((reply.content or "").split()) + len(
                (reply.reasoning or "").split())
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            if request.audio_parts:
                usage["prompt_tokens_details"] = {
                    "audio_tokens": 10 * len(request.audio_parts),
                    "cached_tokens": 0,
                }
        return {
            "id": f"chatcmpl-fake-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model or self.served_as or request.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content,
                                **({reply.reasoning_field: reply.reasoning}
                                   if reply.reasoning is not None else {})},
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": usage,
        }


def restarts_after(server: FakeOpenAIServer, answered: int, down: float) -> Script:
    """A script that answers ``answered`` requests, then has its server restarted: down for
    ``down`` seconds (its port closed, the requests in flight dropped), then back on its
    port."""
    return _broken_after(answered, lambda: server.down_for(down), for_good=False)


def dies_after(server: FakeOpenAIServer, answered: int) -> Script:
    """A script that answers ``answered`` requests, then stops its server for good: its port
    closed before the request in flight is dropped, as when a process dies (a models listing
    asked after the drop gets no answer)."""
    return _broken_after(answered, server.stop, for_good=True)


def _broken_after(answered: int, breaks: Callable[[], object], *, for_good: bool) -> Script:
    """A script that answers ``answered`` requests, then calls ``breaks`` and drops the
    request that came next (and, ``for_good``, every later one)."""
    lock = threading.Lock()
    seen = [0]

    def script(request: ChatRequest) -> Reply | str:
        with lock:
            seen[0] += 1
            if seen[0] == answered + 1:
                breaks()
            if seen[0] == answered + 1 or (for_good and seen[0] > answered):
                return Reply(drop=True)
        return "a good answer"

    return script
