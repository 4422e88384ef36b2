"""The life cycle every fake server shares: serve on 127.0.0.1 in a daemon thread, stop
cleanly, work as a context manager; and, for those that stand for a server restarted in
place, the connections their clients keep alive cut at a stop and the port kept for the next
start."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self, TypeVar

S = TypeVar("S", bound=ThreadingHTTPServer)


class ServedInThread:
    """Subclasses build their server in ``_make_server`` and may clean up in ``_on_stop``."""

    thread_name = "fake-server"
    poll_interval = 0.05

    def __init__(self) -> None:
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._bound = 0
        """The port it had, once it had one: 0 (any free port) before its first start."""
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def _on_port(self, make: Callable[[int], S]) -> S:
        """The server ``make`` builds on the port this one had (any free port the first
        time), that port kept for the next start."""
        server = make(self._bound)
        self._bound = server.server_address[1]
        return server

    def track(self, connection: socket.socket, *, add: bool) -> None:
        """A client's connection opened (``add``) or closed: those open are cut at a stop."""
        with self._connections_lock:
            if add:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _cut_connections(self) -> None:
        """Cut every connection still open, as a process that dies does: kept-alive ones
        would otherwise pin their handler threads and outlive the stop."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)

    def _make_server(self) -> ThreadingHTTPServer:
        raise NotImplementedError

    def _on_stop(self) -> None:
        """Called after the server stopped accepting and before its thread is joined."""

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        port: int = self._server.server_address[1]
        return port

    def start(self) -> Self:
        """Bind a free port and serve in a daemon thread; does nothing when running."""
        if self._server is None:
            self._server = self._make_server()
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                kwargs={"poll_interval": self.poll_interval},
                name=self.thread_name, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Shut down and join; idempotent."""
        server, thread = self._server, self._thread
        if server is None:
            return
        server.shutdown()
        server.server_close()
        self._on_stop()
        if thread is not None:
            thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class TrackedHandler(BaseHTTPRequestHandler):
    """A handler whose connection its server tracks (``ServedInThread.track``)."""

    @property
    def served(self) -> ServedInThread:
        raise NotImplementedError

    def setup(self) -> None:
        super().setup()
        self.served.track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.served.track(self.connection, add=False)


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound once, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


T = TypeVar("T")


def at_once(call: Callable[[], T], callers: int = 2) -> list[T]:
    """What ``call`` returns in each of ``callers`` threads started together; the first error
    any of them raised, raised here."""
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(call())
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    if errors:
        raise errors[0]
    return results
