"""The MMAR challenge submission: one JSON line per item."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pytest_audiobench.benchmarks.mmar.facts import REASONING_LIMIT
from pytest_audiobench.benchmarks.mmar.verdict import mmar_verdicts
from pytest_audiobench.files import replacing
from pytest_audiobench.outcome.records import SampleRecord


def export_submission(records: Iterable[SampleRecord], path: Path) -> tuple[int, int]:
    """The challenge format, one JSON line per item: id, thinking_prediction (cut below the
    challenge's 10,000 characters) and answer_prediction, from the first inference run.
    Written as the records come (a partial file is replaced only when all is written)."""
    written = empty = 0
    with replacing(path) as out:
        for record in records:
            line, blank = _line(record)
            out.write(line + "\n")
            written += 1
            empty += blank
    return written, empty


def _line(record: SampleRecord) -> tuple[str, bool]:
    """The record's submission line, and whether it has no prediction."""
    verdicts = mmar_verdicts(record.verdicts)
    thinking, answer = (verdicts[0].reasoning, verdicts[0].prediction) if verdicts else ("", "")
    line = json.dumps({"id": record.sample_id,
                       "thinking_prediction": thinking[:REASONING_LIMIT - 1],
                       "answer_prediction": answer}, ensure_ascii=False)
    return line, not verdicts
