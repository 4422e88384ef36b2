"""Safe extraction of tar archives: only regular files and folders inside the target folder
are unpacked; any other member fails the whole extraction."""

from __future__ import annotations

import gzip
import tarfile
import zlib
from pathlib import Path, PurePosixPath, PureWindowsPath

from pytest_audiobench.errors import UnpackError
from pytest_audiobench.hub.network import MAX_REASON_CHARS, one_line


def _unsafe_member(member: tarfile.TarInfo) -> str | None:
    """Why `member` must not be extracted, or None."""
    if member.issym():
        return f"is a symbolic link (to {member.linkname!r})"
    if member.islnk():
        return f"is a hard link (to {member.linkname!r})"
    if member.ischr() or member.isblk():
        return "is a device file"
    if member.isfifo():
        return "is a FIFO"
    if not (member.isfile() or member.isdir()):
        return "is neither a regular file nor a folder"
    name = member.name
    windows = PureWindowsPath(name)
    if name.startswith(("/", "\\")) or windows.drive or windows.root:
        return "has an absolute path"
    if ".." in PurePosixPath(name).parts or ".." in windows.parts:
        return "has a '..' component"
    if member.isfile() and not PurePosixPath(name).parts:
        return "has no name"
    return None


def extract_safely(archive: Path, staging: Path) -> None:
    """Extract every member of `archive` into `staging`, or raise UnpackError on the first
    member that is not a regular file or folder inside `staging`."""
    has_data_filter = hasattr(tarfile, "data_filter")  # Python 3.11.4+, 3.12+
    base = staging.resolve()
    try:
        with tarfile.open(archive, mode="r:*") as tar:
            for member in tar:
                problem = _unsafe_member(member)
                target = base.joinpath(*PurePosixPath(member.name).parts)
                if problem is None and not target.resolve().is_relative_to(base):
                    problem = "would be written outside the target folder"
                if problem is not None:
                    raise UnpackError(
                        f"member {member.name!r} {problem}; only regular files and folders "
                        "inside the archive are allowed"
                    )
                if member.isdir():
                    target.mkdir(parents=True, exist_ok=True)
                elif has_data_filter:
                    tar.extract(member, base, filter="data")
                else:
                    tar.extract(member, base, set_attrs=False)
    except (tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        detail = one_line(str(exc))
        if "could not be opened successfully" in detail:  # tarfile's "r:*" tried every format
            detail = "not a gzip, bzip2, xz or plain tar file"
        raise UnpackError(
            f"it is not a readable tar archive ({type(exc).__name__}: "
            f"{detail[:MAX_REASON_CHARS]}); delete that file to fetch it again"
        ) from exc
