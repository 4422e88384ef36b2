"""A content-addressed store of model answers and judge replies, one file per request.

The key is a hash of everything that can change a reply: the endpoint's model id, the
sampling settings (seed included), which run or retry the request is, and the request's
content (the prompt text and the audio's content hash for the model; the whole prompt for a
judge). Entries are written to a temporary file and renamed into place, so several xdist
workers can write at once and a run killed half way leaves only complete entries: the next
run asks just for what is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_audiobench.transport.types import Completion
from pytest_audiobench.untrusted import json_safe

_VERSION = 2  # bump when the key's recipe changes, so old entries are never misread


def request_key(parts: Mapping[str, Any]) -> str:
    text = json.dumps({"v": _VERSION, **parts}, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.unreadable: list[Path] = []
        """Entries that could not be read this run: each counted as a miss, asked again and
        rewritten (a truncated or garbled file is never an item error)."""
        self.unwritable = 0
        """Replies that could not be written (a full disk, a read-only folder): kept in
        memory for this run instead, so that nothing paid for is lost while it lasts."""
        self.first_unwritable: str | None = None
        self._memory: dict[str, Completion] = {}

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        kept = self._memory.get(key)
        if kept is not None:
            return kept.model_copy(update={"cached": True})
        path = self._path(key)
        try:
            completion = Completion.model_validate_json(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):  # pydantic's ValidationError is a ValueError
            self.unreadable.append(path)
            return None
        return completion.model_copy(update={"cached": True})

    def put(self, key: str, completion: Completion) -> None:
        """Keep ``completion`` under ``key``: on disk, or in memory when the disk refuses."""
        try:
            self._write(self._path(key), completion)
        except OSError as exc:
            self.unwritable += 1
            self.first_unwritable = self.first_unwritable or f"{self.root}: {exc.strerror or exc}"
            self._memory[key] = completion

    def _write(self, path: Path, completion: Completion) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                # What a server sent stays whole; only its characters that JSON lets
                # through raw are escaped (``untrusted.json_safe``).
                handle.write(json_safe(completion.model_dump_json()))
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def clear(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
