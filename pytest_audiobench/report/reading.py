"""Reading a JSON report back (``audiobench-merge``, ``-compare`` and ``-history``): checked to
be one of ours, of this format, with its benchmarks installed, so that its verdicts load as
their own types."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import ValidationError

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.errors import ReportError, problems
from pytest_audiobench.report.model import FORMAT, RunReport


def read_report(path: Path, tool: str) -> RunReport:
    """The report at ``path``; ``tool`` (the command reading it) is named in the error when
    the report was written by another version's format."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{path}: cannot read it as JSON ({exc})") from exc
    if not isinstance(raw, dict) or raw.get("tool") != "pytest-audiobench":
        raise ReportError(f"{path}: not a pytest-audiobench JSON report")
    if raw.get("format", 1) != FORMAT:
        raise ReportError(f"{path}: a report of format {raw.get('format', 1)}; this {tool} "
                          f"reads format {FORMAT}: write the reports with the same version of "
                          "pytest-audiobench")
    names = raw.get("settings", {}).get("benchmarks", [])
    try:
        for name in names if isinstance(names, list) else []:
            registry.benchmark_class(str(name))
        return RunReport.model_validate(raw)
    except KeyError as exc:
        raise ReportError(f"{path}: benchmark {exc} is not installed here") from None
    except ValidationError as exc:
        raise ReportError(f"{path}: not a pytest-audiobench JSON report "
                          f"({problems(exc, 'file')})") from exc
