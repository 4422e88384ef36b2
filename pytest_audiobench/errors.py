"""Domain exceptions. Each message names the flag, file or record and says what is expected."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


def problems(exc: ValidationError, whole: str = "record", *, one_line: bool = False) -> str:
    """A pydantic validation error as one line: ``field: what is wrong; ...``; JSON that does
    not parse as ``not JSON: what is wrong``, placed by column when the text is ``one_line``
    (a JSON Lines record, whose own line number the caller gives)."""
    return "; ".join(_problem(error, whole, one_line) for error in exc.errors())


def _problem(error: Any, whole: str, one_line: bool) -> str:
    if error["type"] != "json_invalid":
        return f"{'.'.join(str(part) for part in error['loc']) or whole}: {error['msg'].lower()}"
    said = str(error["ctx"]["error"])
    if one_line:
        said = re.sub(r" at line 1 column (\d+)$", r" at column \1", said)
        said = re.sub(r" at line \d+ column \d+$", " at the end of the line", said)
    return f"not JSON: {said}"


class AudiobenchError(Exception):
    """Base class of every error the plugin raises on purpose."""


class DataError(AudiobenchError):
    """A benchmark release is missing, malformed, or a record does not fit its schema."""


class AudioError(AudiobenchError):
    """An audio file cannot be read or encoded."""


class EmptyAudio(AudiobenchError):
    """An audio file is missing or holds no samples: the sample is skipped, never scored."""


class EndpointError(AudiobenchError):
    """A model or judge endpoint failed after every retry, timed out, or is unreachable."""


class NotRun(AudiobenchError):
    """The sample cannot be run to the end here; it is reported as not run, never scored."""


class DeadlineReached(NotRun):
    """The run's overall deadline passed before the request was sent, or while it was in
    flight: the sample is not run."""


class BudgetExhausted(NotRun):
    """The run's request or token budget is spent: the sample is not run."""


class EndpointDown(NotRun):
    """An endpoint stopped answering (connection failures in a row): nothing more is sent."""


class JudgeError(AudiobenchError):
    """The judge never produced a reply that the protocol's parser accepts."""

    def __init__(self, message: str, grade: Any = None, *, verdict: Any = None) -> None:
        super().__init__(message)
        self.grade = grade if grade is not None else verdict
        """The grade with every raw reply, so that the report keeps them (``verdict``, its
        old name, is taken too)."""

    @property
    def verdict(self) -> Any:
        """The old name of ``grade``."""
        return self.grade


class BaselineError(AudiobenchError):
    """A baseline file is unreadable or does not fit the baseline schema."""


class DownloadError(AudiobenchError):
    """The benchmark release could not be downloaded; the message is one line with the fix."""


class UnpackError(DataError):
    """The archive is unsafe, unreadable or laid out differently; the message says how."""


class ReportError(AudiobenchError):
    """A JSON report cannot be read, or the reports given do not go together."""


class MergeError(ReportError):
    """The reports are not the shards of one run."""


class RegistryError(AudiobenchError):
    """A registered benchmark cannot be loaded or clashes with another."""


class AudiobenchWarning(UserWarning):
    """Something a person should know about a sample that does not change its outcome."""
