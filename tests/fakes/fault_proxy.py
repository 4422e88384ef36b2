"""A fault-injecting HTTP proxy on 127.0.0.1, for the tests and ``scripts/soak.py``: it stands
in front of a fake OpenAI server and, for each chat request a ``Chooser`` picks, answers with a
fault instead of the server's reply, or spoils the reply on its way back.

Faults (``FAULTS``): ``reset`` (the connection is cut, no reply), ``truncate`` (the reply's
body stops half way), ``invalid_json`` (a 200 whose body is not JSON), ``empty_choices`` (a 200
with ``choices: []``), ``null_content`` / ``blank_content`` (a 200 whose message content is
null / only spaces), ``trickle`` (a 200 whose bytes come one at a time, ``trickle_interval``
apart), ``hang`` (no reply at all), ``throttle`` (HTTP 429), ``server_error`` (HTTP 500),
``huge`` (a 200 whose answer is 20 MB). The proxy counts what it forwarded and injected, and
how long each trickled or hung request was held before the client gave up; a reply forwarded
unspoiled counts once written whole (``forwarded``), else as ``undelivered``. Stopped, it cuts
the connections its clients kept alive; started again, it listens on the port it had (a server
restarted in place, as ``scripts/soak.py`` does).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes.serving import ServedInThread, TrackedHandler

FAULTS = ("reset", "truncate", "invalid_json", "empty_choices", "null_content",
          "blank_content", "trickle", "hang", "throttle", "server_error", "huge")

Chooser = Callable[[dict[str, Any]], str | None]
"""Given a chat request's body, the fault to answer it with, or None to forward it."""


def none(body: dict[str, Any]) -> str | None:
    return None


def mixed(rate: float, faults: Iterable[str] = FAULTS, seed: int = 0) -> Chooser:
    """Each request a fault with probability ``rate``, the kind drawn evenly."""
    kinds = list(faults)
    rng = random.Random(seed)
    lock = threading.Lock()

    def choose(body: dict[str, Any]) -> str | None:
        with lock:
            return rng.choice(kinds) if rng.random() < rate else None

    return choose


def first_attempts(fault: str, times: int = 1, model: str | None = None) -> Chooser:
    """The first ``times`` attempts of every distinct request (of ``model``, if given) get
    ``fault``; its retries after that are forwarded."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    def choose(body: dict[str, Any]) -> str | None:
        if model is not None and body.get("model") != model:
            return None
        key = json.dumps(body, sort_keys=True)
        with lock:
            seen[key] += 1
            return fault if seen[key] <= times else None

    return choose


def always(fault: str, model: str | None = None, contains: str | None = None) -> Chooser:
    """``fault`` for every request (of ``model``; whose body contains ``contains``)."""
    def choose(body: dict[str, Any]) -> str | None:
        if model is not None and body.get("model") != model:
            return None
        if contains is not None and contains not in json.dumps(body):
            return None
        return fault

    return choose


class FaultProxy(ServedInThread):
    """An HTTP proxy to ``upstream`` (a fake server's base URL) that injects faults."""

    thread_name = "fault-proxy"
    poll_interval = 0.02

    def __init__(self, upstream: str, choose: Chooser = none, *,
                 trickle_interval: float = 0.5, trickle_seconds: float = 3600.0) -> None:
        parts = urlsplit(upstream)
        self.upstream_host, self.upstream_port = parts.hostname or "127.0.0.1", parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.choose = choose
        self.trickle_interval = trickle_interval
        self.trickle_seconds = trickle_seconds
        self.injected: Counter[str] = Counter()
        self.forwarded = 0
        """Replies forwarded unspoiled and written whole to the client."""
        self.undelivered = 0
        """Replies forwarded unspoiled that could not be written: the client, or the proxy
        stopping, had closed the connection."""
        self.held: list[float] = []
        """Seconds each trickled or hung request was held until the client hung up."""
        self._lock = threading.Lock()
        self._counted = threading.Condition(self._lock)
        self._stopping = threading.Event()
        super().__init__()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.prefix}"

    def _make_server(self) -> ThreadingHTTPServer:
        self._stopping.clear()
        server = self._on_port(lambda port: _ProxyServer(("127.0.0.1", port), _Handler))
        server.proxy = self
        return server

    def _on_stop(self) -> None:
        self._stopping.set()
        self._cut_connections()

    def _count(self, fault: str | None, held: float | None = None) -> None:
        with self._lock:
            if fault is None:
                self.forwarded += 1
            else:
                self.injected[fault] += 1
            if held is not None:
                self.held.append(held)
            self._counted.notify_all()

    def held_once(self, count: int, within: float = 5.0) -> list[float]:
        """``held`` once ``count`` requests were let go, or as it is ``within`` seconds: a
        handler counts its request when its next write or poll finds the client gone, which
        can be after the client's run has ended and the test reads it."""
        with self._counted:
            self._counted.wait_for(lambda: len(self.held) >= count, timeout=within)
            return list(self.held)

    def forward(self, method: str, path: str, body: bytes | None,
                headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        connection = http.client.HTTPConnection(self.upstream_host, self.upstream_port,
                                                timeout=60)
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            connection.close()


class _ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512
    allow_reuse_address = True
    proxy: FaultProxy

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up on a fault is what the faults are for


class _Handler(TrackedHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _ProxyServer

    @property
    def served(self) -> FaultProxy:
        return self.server.proxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        status, headers, data = self.server.proxy.forward("GET", self.path, None,
                                                          self._headers())
        self._reply(status, data, headers)

    def do_POST(self) -> None:
        proxy = self.server.proxy
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            parsed = json.loads(body)
        except ValueError:
            parsed = {}
        fault = proxy.choose(parsed) if isinstance(parsed, dict) else None
        started = time.monotonic()
        if fault in ("reset", "hang", "throttle", "server_error", "invalid_json",
                     "empty_choices"):
            self._without_upstream(fault, started)
            return
        status, headers, data = proxy.forward("POST", self.path, body, self._headers())
        if fault is None or status != 200:
            try:
                self._reply(status, data, headers)
            except OSError:
                with proxy._lock:
                    proxy.undelivered += 1
                raise
            proxy._count(None)
            return
        self._spoiled(fault, data, headers, started)

    def _without_upstream(self, fault: str, started: float) -> None:
        proxy = self.server.proxy
        if fault == "reset":
            proxy._count(fault)
            self._reset()
        elif fault == "hang":
            self._hold(started, fault)
        elif fault in ("throttle", "server_error"):
            proxy._count(fault)
            status = 429 if fault == "throttle" else 500
            error = {"error": {"message": fault, "type": fault, "code": status}}
            self._reply(status, json.dumps(error).encode(), [("Retry-After", "0")])
        else:
            proxy._count(fault)
            data = b'{"id": "cut", "choices": [' if fault == "invalid_json" else json.dumps(
                {"id": "none", "object": "chat.completion", "choices": []}).encode()
            self._reply(200, data)

    def _spoiled(self, fault: str, data: bytes, headers: list[tuple[str, str]],
                 started: float) -> None:
        proxy = self.server.proxy
        if fault == "truncate":
            proxy._count(fault)
            self._head(200, len(data), headers)
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self._reset()
            return
        if fault == "trickle":
            self._trickle(data, headers, started)
            return
        completion = json.loads(data)
        message = completion["choices"][0]["message"]
        message["content"] = {"null_content": None, "blank_content": "  \n ",
                              "huge": "x" * (20 * 2**20)}[fault]
        proxy._count(fault)
        self._reply(200, json.dumps(completion).encode(), headers)

    def _trickle(self, data: bytes, headers: list[tuple[str, str]], started: float) -> None:
        proxy = self.server.proxy
        try:
            self._head(200, len(data), headers)
            for index in range(len(data)):
                if proxy._stopping.wait(proxy.trickle_interval) or \
                        time.monotonic() - started > proxy.trickle_seconds:
                    break
                self.wfile.write(data[index:index + 1])
                self.wfile.flush()
        except OSError:
            pass  # the client gave up
        proxy._count("trickle", time.monotonic() - started)
        self.close_connection = True

    def _hold(self, started: float, fault: str) -> None:
        """Answer nothing until the client hangs up (or the proxy stops)."""
        proxy = self.server.proxy
        self.connection.settimeout(0.05)
        while not proxy._stopping.is_set():
            try:
                if self.connection.recv(1) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:
                break
        proxy._count(fault, time.monotonic() - started)
        self.close_connection = True

    def _reset(self) -> None:
        # SO_LINGER 0: close() sends RST, as a crashed server or a cut cable does.
        with contextlib.suppress(OSError):
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.connection.close()
        self.close_connection = True

    def _headers(self) -> dict[str, str]:
        return {k: v for k, v in self.headers.items()
                if k.lower() not in ("host", "connection", "content-length")}

    def _head(self, status: int, length: int, headers: Iterable[tuple[str, str]] = ()) -> None:
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "content-type", "connection",
                                    "transfer-encoding", "date", "server"):
                self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()

    def _reply(self, status: int, data: bytes, headers: Iterable[tuple[str, str]] = ()) -> None:
        self._head(status, len(data), headers)
        self.wfile.write(data)
        self.wfile.flush()
