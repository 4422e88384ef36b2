"""A local HTTP server with just enough of the ModelScope hub API for dataset snapshot downloads.

It answers what modelscope 1.40 (modelscope-hub 0.5) asks while downloading a dataset:

- ``GET  /api/v1/datasets/{owner}/{name}`` - repo info (also our reachability probe);
- ``GET  /api/v1/datasets/{owner}/{name}/repo/tree?Revision&Recursive&PageNumber&PageSize&Root``
  - the paginated, recursive file listing (``{"Data": {"Files": [...]}}``);
- ``GET|HEAD /api/v1/datasets/{owner}/{name}/repo?Revision&FilePath`` - one file's bytes,
  with ``Range: bytes=N-`` resume support;
- anything else (e.g. ``/api/v1/repos/internalAccelerationInfo``, the intra-cloud region
  probe) - a JSON 404, which modelscope treats as "not available".

Each repo's files are the files under a local folder; revisions are ignored.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.fakes.serving import ServedInThread

__all__ = ["FakeModelScopeHub"]

_API_PREFIX = "/api/v1/datasets/"


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._dispatch(head=False)

    def do_HEAD(self) -> None:
        self._dispatch(head=True)

    def _dispatch(self, *, head: bool) -> None:
        hub = self.server.hub
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        hub._log(self.command, self.path)
        if not parts.path.startswith(_API_PREFIX):
            self._json(404, {"Code": 404, "Message": "no such API", "Success": False})
            return
        rest = parts.path[len(_API_PREFIX) :]
        for repo_id, folder in hub.repos.items():
            if rest == repo_id or rest.startswith(f"{repo_id}/"):
                self._repo(repo_id, folder, rest[len(repo_id) :], query, head=head)
                return
        self._json(404, {"Code": 404, "Message": f"dataset {rest} not found", "Success": False})

    def _repo(
        self, repo_id: str, folder: Path, route: str, query: dict[str, str], *, head: bool
    ) -> None:
        if route in ("", "/"):
            owner, name = repo_id.split("/", 1)
            data = {"Id": 1, "Name": name, "Namespace": owner, "Private": False}
            self._json(200, {"Code": 200, "Data": data, "Success": True})
        elif route == "/repo/tree":
            self._tree(folder, query)
        elif route == "/repo":
            self._file(folder, query.get("FilePath", ""), head=head)
        else:
            self._json(404, {"Code": 404, "Message": f"no route {route}", "Success": False})

    def _tree(self, folder: Path, query: dict[str, str]) -> None:
        root = query.get("Root", "").strip("/")
        base = _safe_join(folder, root) if root else folder
        if base is None or not base.is_dir():
            self._json(404, {"Code": 404, "Message": f"path {root} not found", "Success": False})
            return
        recursive = query.get("Recursive", "false").lower() == "true"
        children = sorted(base.rglob("*") if recursive else base.iterdir())
        entries = [_entry(folder, p) for p in children]
        page = max(int(query.get("PageNumber", "1")), 1)
        size = max(int(query.get("PageSize", "100")), 1)
        files = entries[(page - 1) * size : page * size]
        self._json(200, {"Code": 200, "Data": {"Files": files}, "Success": True})

    def _file(self, folder: Path, file_path: str, *, head: bool) -> None:
        target = _safe_join(folder, file_path)
        if target is None or not target.is_file():
            self._json(
                404, {"Code": 404, "Message": f"file {file_path} not found", "Success": False}
            )
            return
        body = target.read_bytes()
        start = 0
        range_header = self.headers.get("Range", "")
        if range_header.startswith("bytes=") and range_header[6:].split("-")[0].isdigit():
            start = int(range_header[6:].split("-")[0])
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        chunk = body[start:]
        self.send_response(206 if start else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(chunk)))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        if not head:
            # Recorded before the body goes out, so a client that has the bytes sees the record.
            self.server.hub._record(file_path)
        self.end_headers()
        if not head:
            self.wfile.write(chunk)

    def _json(self, status: int, payload: Mapping[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hub: FakeModelScopeHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hub = hub


def _safe_join(folder: Path, relative: str) -> Path | None:
    """`folder / relative`, or None when `relative` would leave `folder`."""
    candidate = (folder / relative.lstrip("/")).resolve()
    return candidate if candidate.is_relative_to(folder.resolve()) else None


def _entry(folder: Path, path: Path) -> dict[str, Any]:
    rel = path.relative_to(folder).as_posix()
    if path.is_dir():
        return {"Name": path.name, "Path": rel, "Type": "tree", "Size": 0}
    data = path.read_bytes()
    return {
        "Name": path.name,
        "Path": rel,
        "Type": "blob",
        "Size": len(data),
        "Sha256": hashlib.sha256(data).hexdigest(),
        "Revision": "master",
    }


class FakeModelScopeHub(ServedInThread):
    """A ModelScope-like hub on 127.0.0.1 serving `repos` (dataset id -> local folder)."""

    def __init__(self, repos: Mapping[str, Path]) -> None:
        self.repos: dict[str, Path] = {rid: Path(p) for rid, p in repos.items()}
        self._lock = threading.Lock()
        self._requested: list[str] = []
        self._requests: list[tuple[str, str]] = []
        super().__init__()

    thread_name = "fake-modelscope-hub"

    def _make_server(self) -> _Server:
        return _Server(self)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def requested_files(self) -> list[str]:
        """Repo-relative paths whose content was served, in order (a copy)."""
        with self._lock:
            return list(self._requested)

    @property
    def requests(self) -> list[tuple[str, str]]:
        """Every (method, path?query) received, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    def _record(self, file_path: str) -> None:
        with self._lock:
            self._requested.append(file_path)

    def _log(self, method: str, path: str) -> None:
        with self._lock:
            self._requests.append((method, path))
