"""The MMAR challenge submission: one JSON line per item."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.mmar import REASONING_LIMIT
from pytest_audiobench.benchmarks.mmar.verdict import mmar_verdicts
from pytest_audiobench.outcome.records import SampleRecord


def export_submission(records: Sequence[SampleRecord], path: Path) -> tuple[int, int]:
    """The challenge format, one JSON line per item: id, thinking_prediction (cut below the
    challenge's 10,000 characters) and answer_prediction, from the first inference run."""
    lines = []
    empty = 0
    for record in records:
        verdicts = mmar_verdicts(record.verdicts)
        if verdicts:
            thinking, answer = verdicts[0].reasoning, verdicts[0].prediction
        else:
            thinking, answer = "", ""
            empty += 1
        lines.append(json.dumps({"id": record.sample_id,
                                 "thinking_prediction": thinking[:REASONING_LIMIT - 1],
                                 "answer_prediction": answer}, ensure_ascii=False))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return len(lines), empty
