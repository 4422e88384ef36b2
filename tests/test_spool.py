"""The records of a run wait on disk (``RecordSpool``), and the JSON report is written from
there one record at a time, byte for byte what writing it whole wrote."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.reading import read_report
from pytest_audiobench.run.spool import RecordSpool


def _record(nodeid: str, outcome: str = "passed", message: str | None = None) -> str:
    return SampleRecord(benchmark="b", sample_id=nodeid.rsplit("::", 1)[-1], task="t",
                        category="c", nodeid=nodeid, outcome=outcome,  # type: ignore[arg-type]
                        audio_path="a.wav", question="what is heard?\nsaid «twice»",
                        message=message).model_dump_json()


def test_records_come_back_as_they_went_in_and_in_the_order_asked() -> None:
    spool = RecordSpool()
    for n in ("x::1", "x::2", "x::3"):
        assert spool.add(_record(n))["nodeid"] == n
    assert len(spool) == 3 and "x::2" in spool and "x::4" not in spool
    ordered = spool.ordered(["x::3", "x::4", "x::1"])
    assert [r.nodeid for r in ordered] == ["x::3", "x::1"]
    assert [r.nodeid for r in ordered] == ["x::3", "x::1"]  # read again, the same
    assert spool.get("x::2").question == "what is heard?\nsaid «twice»"
    spool.close()


def test_a_sample_recorded_again_keeps_its_last_record_and_what_is_undone_is_known() -> None:
    spool = RecordSpool()
    spool.add(_record("x::1", "not_run"))
    spool.add(_record("x::2"))
    spool.add(_record("x::3", "error", "the endpoint failed"))
    # Not run, an error, and x::4 with no record at all: what a resume would ask again.
    assert spool.undone(["x::1", "x::2", "x::3", "x::4"]) == 3
    spool.add(_record("x::1", "failed", "below the bar"))
    spool.add(_record("x::3", "skipped", "empty audio"))
    assert spool.undone(["x::1", "x::2", "x::3"]) == 0 and len(spool) == 3
    assert spool.get("x::1").message == "below the bar"
    with pytest.raises(KeyError):
        spool.get("x::4")
    spool.close()


def test_the_spool_leaves_no_file_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    spool = RecordSpool()
    assert list(tmp_path.iterdir()) == []  # nothing until a record comes
    spool.add(_record("x::1"))
    assert list(tmp_path.iterdir()) == []  # the file has no name, only an open descriptor
    descriptors = len(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    spool.close()
    if descriptors is not None:
        assert len(os.listdir("/proc/self/fd")) == descriptors - 1


def test_the_json_report_is_written_as_a_whole_report_would_be(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    run = run_bench()
    written = run.report_path.read_text(encoding="utf-8")
    report = read_report(run.report_path, "test")
    assert len(report.samples) == 16
    assert written == report.model_dump_json(indent=1) + "\n"
    streamed = pytester.path / "streamed.json"
    report.model_copy(update={"samples": []}).write(streamed, iter(report.samples))
    assert streamed.read_text(encoding="utf-8") == written
    assert not list(pytester.path.glob(".*.partial"))


def test_a_report_without_samples_is_written_as_before(tmp_path: Path, run_bench: Any) -> None:
    report = read_report(run_bench().report_path, "test")
    empty: RunReport = report.model_copy(update={"samples": []})
    empty.write(tmp_path / "empty.json")
    assert (tmp_path / "empty.json").read_text(encoding="utf-8") == (
        empty.model_dump_json(indent=1) + "\n")
