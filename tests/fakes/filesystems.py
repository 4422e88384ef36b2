"""Real file systems that refuse writes, for the tests: a command run with a small or a
read-only tmpfs mounted over one folder, in a mount namespace of its own (``unshare``), so no
privilege is needed and nothing outside the command sees the mount."""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


@functools.cache
def why_not() -> str | None:
    """Why such a file system cannot be had here, or None when it can."""
    if shutil.which("unshare") is None:
        return "unshare (util-linux) is not installed"
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c",
                            "mount -t tmpfs -o size=16k tmpfs /mnt"],
                           capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return f"this machine lets no process mount a tmpfs of its own ({probe.stderr.strip()})"
    return None


def run_with_tmpfs(folder: Path, options: str, argv: Sequence[str], *, cwd: Path,
                   env: Mapping[str, str], timeout: float = 300
                   ) -> subprocess.CompletedProcess[str]:
    """``argv`` run in ``cwd`` with a fresh tmpfs (``mount -o options``: ``size=48k`` for a
    disk that fills up, ``ro`` for a read-only one) over ``folder``, made if missing."""
    folder.mkdir(parents=True, exist_ok=True)
    script = 'mount -t tmpfs -o "$1" tmpfs "$2" && shift 2 && exec "$@"'
    return subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh",
         options, str(folder), *argv],
        cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout, check=False)


def visible_names(root: Path) -> set[str]:
    """The names in ``root`` that are not hidden (dot files: locks, markers, partial files)."""
    return {p.name for p in root.iterdir() if not p.name.startswith(".")}
