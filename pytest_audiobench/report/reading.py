"""Reading a JSON report back (``audiobench-merge``, ``-compare`` and ``-history``): checked to
be one of ours, of this format or one of the four before it (read in this one's layout), with
its benchmarks installed, so that its grades load as their own types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.errors import ReportError, problems
from pytest_audiobench.report.model import FORMAT, RunReport
from pytest_audiobench.transport.types import Usage

READ = (3, 4, 5, 6, FORMAT)
"""The formats read: format 3's reports in format 4's layout (``_as_format_4``), format 4's
in format 5's (``_as_format_5``), format 5's in format 6's (``_as_format_6``), and format 6's
in format 7's (``_as_format_7``)."""


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
                          f"reads formats {', '.join(map(str, READ[:-1]))} and {READ[-1]}: "
                          "write the reports "
                          "with the same version of pytest-audiobench")
    if raw["format"] == 3:
        raw = _as_format_4(raw)
    if raw["format"] == 4:
        raw = _as_format_5(raw)
    if raw["format"] == 5:
        raw = _as_format_6(raw)
    if raw["format"] == 6:
        raw = _as_format_7(raw)
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
    return {**raw, "format": 4, "benchmarks": summaries,
            "settings": _renamed(settings, "rival", "baseline_endpoint")
            if isinstance(settings, dict) else settings,
            "samples": [_renamed(record, "rival", "baseline_answers")
                        if isinstance(record, dict) else record
                        for record in raw.get("samples", [])]}


def _as_format_5(raw: dict[str, Any]) -> dict[str, Any]:
    """A format-4 report in format 5's layout. Its usage's ``model``, ``model_requests``,
    ``model_cached`` and ``model_reused`` counted both models' answers head to head: the live
    baseline model's share (its ``baseline_model`` tokens, its records' ``baseline_answers``)
    moves to the baseline model's fields. A sample record's ``judged_again`` and
    ``judged_again_failed`` are read under their format-5 names by the record itself."""
    usage = raw.get("usage")
    if not isinstance(usage, dict):
        return {**raw, "format": 5}
    theirs = [answer.get("completion") for record in raw.get("samples", [])
              if isinstance(record, dict) for answer in record.get("baseline_answers") or []
              if isinstance(answer, dict)]
    sent = [c for c in theirs if isinstance(c, dict)]
    cached = sum(1 for c in sent if c.get("cached"))
    reused = sum(1 for c in sent if c.get("reused_from") is not None)
    both, share = usage.get("model"), usage.get("baseline_model")
    own = {**usage,
           "model_requests": usage.get("model_requests", 0) - len(theirs),
           "model_cached": usage.get("model_cached", 0) - cached,
           "model_reused": usage.get("model_reused", 0) - reused,
           "baseline_model_requests": len(theirs), "baseline_model_cached": cached}
    if isinstance(both, dict) and isinstance(share, dict):
        own["model"] = (Usage.model_validate(both) - Usage.model_validate(share)).model_dump()
    return {**raw, "format": 5, "usage": own}


def _as_format_6(raw: dict[str, Any]) -> dict[str, Any]:
    """A format-5 report in format 6's layout: its ``verdict`` (the verdict's kind, absent
    before it was recorded) and its ``gate_held`` are the verdict's ``kind`` and ``held``; what
    format 6 adds to the verdict (the benchmarks that fail the run, the metrics told) was not
    recorded, and is read as none."""
    held = bool(raw.get("gate_held"))
    kind = raw.get("verdict") or ("held" if held else "failed")
    rest = {key: value for key, value in raw.items() if key not in ("verdict", "gate_held")}
    return {**rest, "format": 6, "verdict": {"kind": kind, "held": held}}


def _as_format_7(raw: dict[str, Any]) -> dict[str, Any]:
    """A format-6 report in format 7's layout, which only renames: a sample record's
    ``verdicts``, ``baseline_verdicts`` and ``baseline_verdicts_failed`` (an answer's grades)
    and a gate row's ``verdict`` (the row's status) are read under their format-7 names
    (``grades``, ``baseline_grades``, ``baseline_grades_failed``, ``status``) by the record and
    the row themselves, as every older name of theirs is."""
    return {**raw, "format": 7}


def _renamed(raw: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    return {new if key == old else key: value for key, value in raw.items()}
