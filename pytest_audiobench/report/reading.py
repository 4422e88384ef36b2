"""Reading a JSON report back (``audiobench-merge``, ``-compare`` and ``-history``): checked to
be one of ours, of this format or the one before it (read in this one's layout), with its
benchmarks installed, so that its verdicts load as their own types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.errors import ReportError, problems
from pytest_audiobench.report.model import FORMAT, RunReport

READ = (3, FORMAT)
"""The formats read: format 3's reports are read in format 4's layout (``_as_format_4``)."""


def read_report(path: Path, tool: str) -> RunReport:
    """The report at ``path``; ``tool`` (the command reading it) is named in the error when
    the report was written by another version's format."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ReportError(f"{path}: cannot read it as JSON ({exc})") from exc
    if not isinstance(raw, dict) or raw.get("tool") != "pytest-audiobench":
        raise ReportError(f"{path}: not a pytest-audiobench JSON report")
    if raw.get("format", 1) not in READ:
        raise ReportError(f"{path}: a report of format {raw.get('format', 1)}; this {tool} "
                          f"reads formats {' and '.join(map(str, READ))}: write the reports "
                          "with the same version of pytest-audiobench")
    if raw["format"] == 3:
        raw = _as_format_4(raw)
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


def _as_format_4(raw: dict[str, Any]) -> dict[str, Any]:
    """A format-3 report in format 4's layout. A summary's ``baseline`` is its
    ``baseline_status``, and its ``baseline_path`` its ``baseline_model`` head to head (where
    its judge comparison names the same live model), else its ``baseline_file``; the live
    baseline model's ``rival`` is ``baseline_endpoint`` in the settings, ``baseline_answers``
    in a sample record and ``baseline_model`` in a judge comparison."""
    summaries = []
    for summary in raw.get("benchmarks", []):
        if not isinstance(summary, dict):
            summaries.append(summary)
            continue
        summary = dict(summary)
        if "baseline" in summary:
            summary["baseline_status"] = summary.pop("baseline")
        path = summary.pop("baseline_path", None)
        comparison = summary.get("judge_comparison")
        live = isinstance(comparison, dict) and comparison.get("rival") == path
        summary["baseline_model" if live else "baseline_file"] = path
        if isinstance(comparison, dict):
            summary["judge_comparison"] = _renamed(comparison, "rival", "baseline_model")
        summaries.append(summary)
    settings = raw.get("settings")
    return {**raw, "format": FORMAT, "benchmarks": summaries,
            "settings": _renamed(settings, "rival", "baseline_endpoint")
            if isinstance(settings, dict) else settings,
            "samples": [_renamed(record, "rival", "baseline_answers")
                        if isinstance(record, dict) else record
                        for record in raw.get("samples", [])]}


def _renamed(raw: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    return {new if key == old else key: value for key, value in raw.items()}
