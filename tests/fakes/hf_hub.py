"""A local HTTP server with just enough of the Hugging Face Hub API for ``hf_hub_download``.

It answers what huggingface_hub 2.4 (and, as far as the protocol goes, 0.23 and later) asks
while fetching one file of a dataset repo into its cache:

- ``HEAD /datasets/{owner}/{name}/resolve/{revision}/{filename}`` - the file's metadata:
  ``X-Repo-Commit`` (the commit the revision points at), ``ETag`` (the git blob id, quoted),
  ``Content-Length``. Files matching ``lfs_patterns`` are answered like LFS files on the real
  hub: a ``302`` to a CDN url on another origin (``localhost`` instead of ``127.0.0.1``, same
  port) with ``X-Linked-Etag`` (the SHA-256) and ``X-Linked-Size``; huggingface_hub follows
  no redirect to another origin and reads the metadata off the ``302`` itself.
- ``GET`` on the same url - the bytes (LFS files: the same ``302``), with ``Range`` support.
- ``GET|HEAD /cdn/datasets/{owner}/{name}/{commit}/{filename}`` - the LFS bytes.
- ``GET|HEAD /api/datasets/{owner}/{name}`` - a small repo-info JSON (``id``, ``sha``,
  ``siblings``), e.g. for a reachability probe.

Errors carry the headers huggingface_hub maps to its exceptions: ``X-Error-Code:
RepoNotFound`` (404, unknown repo), ``RevisionNotFound`` (404, a revision other than ``main``
or the current commit) and ``EntryNotFound`` (404, no such file; with ``X-Repo-Commit``, which
lets huggingface_hub remember the absence in its cache). Xet storage is not emulated: no
``X-Xet-*`` header is sent, so huggingface_hub downloads over plain HTTP.

Each repo's files are the files under a local folder; the commit id is a hash of their paths
and contents, so it changes when a file is added, removed or rewritten.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from fnmatch import fnmatch
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from tests.fakes.serving import ServedInThread

__all__ = ["DEFAULT_LFS_PATTERNS", "PARQUET_AS_LFS", "FakeHfHub"]

DEFAULT_LFS_PATTERNS: tuple[str, ...] = ("*.tar.gz", "*.tgz", "*.tar", "*.zip", "*.wav", "*.mp3")
PARQUET_AS_LFS: tuple[str, ...] = (*DEFAULT_LFS_PATTERNS, "*.parquet")
"""Parquet files served as the real hub serves a dataset's: LFS files, redirected to a CDN
url."""

_RESOLVE_PREFIX = "/datasets/"
_API_PREFIX = "/api/datasets/"
_CDN_PREFIX = "/cdn/datasets/"
# The origin of the CDN urls: another host name for the same server, so it is another origin.
_CDN_HOST = "localhost"


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
        hub._log(self.command, self.path)
        path = urlsplit(self.path).path
        if path.startswith(_API_PREFIX):
            self._api(unquote(path[len(_API_PREFIX) :]).strip("/"))
        elif path.startswith(_CDN_PREFIX):
            self._cdn(path[len(_CDN_PREFIX) :], head=head)
        elif path.startswith(_RESOLVE_PREFIX):
            self._resolve(path[len(_RESOLVE_PREFIX) :], head=head)
        else:
            self._error(404, "RepoNotFound", f"no route {path}")

    # --- routes ---------------------------------------------------------------------------

    def _api(self, repo_id: str) -> None:
        folder = self.server.hub.repos.get(repo_id)
        if folder is None:
            self._error(404, "RepoNotFound", f"Repository {repo_id} not found")
            return
        files = _files(folder)
        info = {
            "id": repo_id,
            "sha": _commit(files),
            "private": False,
            "siblings": [{"rfilename": name} for name in files],
        }
        self._json(200, info)

    def _resolve(self, rest: str, *, head: bool) -> None:
        hub = self.server.hub
        for repo_id, folder in hub.repos.items():
            prefix = f"{repo_id}/resolve/"
            if not rest.startswith(prefix):
                continue
            revision, _, quoted_name = rest[len(prefix) :].partition("/")
            files = _files(folder)
            commit = _commit(files)
            if unquote(revision) not in ("main", commit):
                self._error(404, "RevisionNotFound", f"Invalid rev id: {unquote(revision)}")
                return
            filename = unquote(quoted_name)
            if filename not in files:
                self._error(404, "EntryNotFound", f"{filename} does not exist", commit=commit)
                return
            data = files[filename].read_bytes()
            if hub.is_lfs(filename):
                self._lfs_redirect(repo_id, commit, filename, data)
            else:
                self._file(filename, data, commit=commit, head=head)
            return
        self._error(404, "RepoNotFound", "Repository not found")

    def _cdn(self, rest: str, *, head: bool) -> None:
        hub = self.server.hub
        for repo_id, folder in hub.repos.items():
            prefix = f"{repo_id}/"
            if not rest.startswith(prefix):
                continue
            commit, _, quoted_name = rest[len(prefix) :].partition("/")
            filename = unquote(quoted_name)
            files = _files(folder)
            if commit == _commit(files) and filename in files:
                self._file(filename, files[filename].read_bytes(), commit=None, head=head)
                return
        self._plain(404, b"NoSuchKey")

    # --- answers --------------------------------------------------------------------------

    def _lfs_redirect(self, repo_id: str, commit: str, filename: str, data: bytes) -> None:
        port = self.server.server_address[1]
        location = f"http://{_CDN_HOST}:{port}{_CDN_PREFIX}{repo_id}/{commit}/{quote(filename)}"
        self.send_response(302)
        self.send_header("Location", location)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"{_git_blob_id(_lfs_pointer(data))}"')
        self.send_header("X-Linked-Etag", f'"{hashlib.sha256(data).hexdigest()}"')
        self.send_header("X-Linked-Size", str(len(data)))
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _file(self, filename: str, data: bytes, *, commit: str | None, head: bool) -> None:
        start, end = 0, len(data) - 1
        ranged = False
        range_header = self.headers.get("Range", "")
        if range_header.startswith("bytes="):
            first, _, last = range_header[len("bytes=") :].partition("-")
            if first.isdigit():
                start, ranged = int(first), True
                if last.isdigit():
                    end = min(int(last), end)
            if ranged and start > end:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        chunk = data[start : end + 1]
        self.send_response(206 if ranged else 200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(len(chunk)))
        self.send_header("ETag", f'"{_git_blob_id(data)}"')
        self.send_header("Accept-Ranges", "bytes")
        if commit is not None:
            self.send_header("X-Repo-Commit", commit)
        if ranged:
            self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
        if not head:
            # Recorded before the body goes out, so a client that has the bytes sees the record.
            self.server.hub._record(filename)
        self.end_headers()
        if not head:
            self.wfile.write(chunk)

    def _error(self, status: int, code: str, message: str, *, commit: str | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        if commit is not None:
            self.send_header("X-Repo-Commit", commit)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, payload: Mapping[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _plain(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, hub: FakeHfHub) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.hub = hub


def _files(folder: Path) -> dict[str, Path]:
    """Repo-relative posix path -> file, for every regular file under `folder`, sorted."""
    return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _commit(files: Mapping[str, Path]) -> str:
    digest = hashlib.sha1(usedforsecurity=False)
    for name, path in files.items():
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _lfs_pointer(data: bytes) -> bytes:
    return (
        "version https://git-lfs.github.com/spec/v1\n"
        f"oid sha256:{hashlib.sha256(data).hexdigest()}\nsize {len(data)}\n"
    ).encode()


class FakeHfHub(ServedInThread):
    """A Hugging Face-like hub on 127.0.0.1 serving `repos` (dataset id -> local folder).

    Files whose repo path matches one of `lfs_patterns` (:func:`fnmatch.fnmatch`) are served
    like LFS files (a redirect to a CDN url), the others directly.
    """

    def __init__(
        self, repos: Mapping[str, Path], *, lfs_patterns: Sequence[str] = DEFAULT_LFS_PATTERNS
    ) -> None:
        self.repos: dict[str, Path] = {rid: Path(p) for rid, p in repos.items()}
        self.lfs_patterns = tuple(lfs_patterns)
        self._lock = threading.Lock()
        self._downloaded: list[str] = []
        self._requests: list[tuple[str, str]] = []
        super().__init__()

    thread_name = "fake-hf-hub"

    def _make_server(self) -> _Server:
        return _Server(self)

    @property
    def url(self) -> str:
        """The endpoint, e.g. ``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[tuple[str, str]]:
        """Every (method, path?query) received, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def downloaded(self) -> list[str]:
        """Repo-relative paths of the files whose bytes were sent, in order (a copy)."""
        with self._lock:
            return list(self._downloaded)

    def is_lfs(self, filename: str) -> bool:
        return any(fnmatch(filename, pattern) for pattern in self.lfs_patterns)

    def _record(self, filename: str) -> None:
        with self._lock:
            self._downloaded.append(filename)

    def _log(self, method: str, path: str) -> None:
        with self._lock:
            self._requests.append((method, path))
