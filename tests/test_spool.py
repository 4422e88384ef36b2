"""The records of a run wait on disk (``RecordSpool``), and the JSON report is written from
there one record at a time, byte for byte what writing it whole wrote."""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.outcome.records import SampleRecord
from pytest_audiobench.report.model import RunReport
from pytest_audiobench.report.reading import read_report
from pytest_audiobench.run.spool import RecordSpool, Settled


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



def test_a_kept_record_costs_its_place_and_no_copy_of_the_node_id_it_came_with() -> None:
    # The spool keeps a place per sample to the end of the run: given the node id string its
    # item's reports carry (pytest keeps that one), it makes no copy of it, and each place is
    # one int (a tuple of two: about 120 bytes). Before: about 240 bytes a record, now about 70.
    nodeids = [f"audiobench::air_bench_chat::speech_QA::{n}" for n in range(3000)]
    lines = [_record(nodeid) for nodeid in nodeids]
    spool = RecordSpool()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for nodeid, line in zip(nodeids, lines, strict=True):
            spool.add(line, nodeid)
        kept = (tracemalloc.get_traced_memory()[0] - before) / len(nodeids)
    finally:
        tracemalloc.stop()
    assert kept < 100, kept
    assert spool.get(nodeids[1234]).nodeid == nodeids[1234] and len(spool) == 3000
    spool.add(_record("x::1", "error"), "x::2")  # not its node id: the record's own is kept
    assert "x::1" in spool and "x::2" not in spool and spool.undone(["x::1"]) == 1
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


def test_a_run_s_records_file_is_read_back_by_its_resume_and_written_on_after(
        tmp_path: Path) -> None:
    path = tmp_path / "runs" / "r1.records-f.jsonl"
    first = RecordSpool()
    assert first.keep_in(path) and first.settled() == {}
    for nodeid, outcome in (("x::1", "passed"), ("x::2", "error"), ("x::3", "failed"),
                            ("x::4", "not_run"), ("x::5", "skipped")):
        first.add(_record(nodeid, outcome))
    first.close()
    # A line that is no record, and one cut short at the end (the run was killed writing it).
    lines = path.read_bytes().splitlines(keepends=True)
    whole = b"".join([lines[0], b"not json\n", *lines[1:]])
    path.write_bytes(whole + b'{"nodeid": "x::6", "outcome": "pas')
    again = RecordSpool()
    assert again.keep_in(path)
    assert path.read_bytes() == whole  # the line cut short is gone; the rest is read
    # The done samples' places, for their items; errors and those not run are asked again.
    settled = again.settled()
    assert sorted(settled) == ["x::1", "x::3", "x::5"]
    assert again.undone(["x::1", "x::2", "x::3", "x::4", "x::5", "x::6"]) == 3
    assert not again.recorded_now("x::2")
    again.add(_record("x::2", "passed"))
    assert again.recorded_now("x::2") and again.get("x::2").outcome == "passed"
    assert again.get("x::3").outcome == "failed" and "x::2" not in again.settled()
    again.close()
    items = Settled(path, settled)
    assert "x::3" in items and len(items) == 3
    record = items.take("x::3")
    assert record is not None and record.nodeid == "x::3" and record.outcome == "failed"
    assert items.take("x::3") is None and "x::3" not in items  # each taken once
    items.close()
    # A place that holds another sample's record, or a file gone: no record, asked again.
    assert Settled(path, {"x::1": settled["x::3"]}).take("x::1") is None
    assert Settled(tmp_path / "gone.jsonl", settled).take("x::1") is None


def test_a_records_file_the_disk_refuses_leaves_the_run_in_a_temporary_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r1.records-f.jsonl"
    spool = RecordSpool()
    assert spool.keep_in(path)
    spool.add(_record("x::1"))
    kept = path.stat().st_ino
    pwrite = os.pwrite

    def full(fd: int, data: Any, offset: int) -> int:
        if os.fstat(fd).st_ino == kept:
            raise OSError(28, "No space left on device")
        return pwrite(fd, data, offset)

    monkeypatch.setattr(os, "pwrite", full)
    spool.add(_record("x::2", "failed"))
    spool.add(_record("x::3"))
    assert [r.nodeid for r in spool.ordered(["x::1", "x::2", "x::3"])] == ["x::1", "x::2", "x::3"]
    assert spool.get("x::2").outcome == "failed"
    # The file keeps what it had; a resume asks the run's cache for the rest.
    assert path.read_text(encoding="utf-8").count("\n") == 1
    assert spool.settled() == {}
    spool.close()


def test_a_records_file_that_cannot_be_opened_leaves_the_run_as_it_was(tmp_path: Path) -> None:
    (tmp_path / "blocker").write_text("a file where a folder should be")
    spool = RecordSpool()
    assert not spool.keep_in(tmp_path / "blocker" / "r1.records-f.jsonl")
    spool.add(_record("x::1"))
    assert spool.get("x::1").nodeid == "x::1" and spool.settled() == {}
    spool.close()
