"""A plain file host on 127.0.0.1: each file's bytes at its path, 404 elsewhere, every request
counted by path. It stands for GitHub's raw files and nltk's data index."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from tests.fakes.serving import ServedInThread


class StaticFiles(ServedInThread):
    thread_name = "fake-static-files"

    def __init__(self, served: Mapping[str, bytes]) -> None:
        super().__init__()
        self.files = dict(served)
        """Path (without the leading slash) -> bytes; may be changed while it serves."""
        self.hits: Counter[str] = Counter()
        """Requests by path, those answered 404 too."""

    def url(self, path: str = "") -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def _make_server(self) -> ThreadingHTTPServer:
        host = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = urlsplit(self.path).path.lstrip("/")
                host.hits[path] += 1
                body = host.files.get(path)
                if body is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Quiet: the counts say what was asked."""

        return self._on_port(lambda port: ThreadingHTTPServer(("127.0.0.1", port), Handler))
