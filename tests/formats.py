"""A JSON report as an older format wrote it, made from one this version wrote: what
``report/reading.py`` must read back as the same run."""

from __future__ import annotations

from typing import Any

GRADES_AS_FORMAT_6 = {"grades": "verdicts", "baseline_grades": "baseline_verdicts",
                      "baseline_grades_failed": "baseline_verdicts_failed"}
"""A sample record's keys that format 7 renamed (an answer's grades), by their format-6 names."""


def as_format_6(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` (format 7) as format 6 wrote it: a sample record's grades under
    ``verdicts``, ``baseline_verdicts`` and ``baseline_verdicts_failed``, and a gate row's
    status (in a summary's ``gate`` and ``replaced``) under ``verdict``."""
    samples = [{GRADES_AS_FORMAT_6.get(key, key): value for key, value in record.items()}
               for record in report["samples"]]
    summaries = [{**summary, **{key: _gate_as_format_6(summary[key])
                                for key in ("gate", "replaced") if summary.get(key)}}
                 for summary in report["benchmarks"]]
    return {**report, "format": 6, "samples": samples, "benchmarks": summaries}


def _gate_as_format_6(gate: dict[str, Any]) -> dict[str, Any]:
    return {**gate, "rows": [{("verdict" if key == "status" else key): value
                              for key, value in row.items()} for row in gate["rows"]]}
