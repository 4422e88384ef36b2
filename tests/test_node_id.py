"""A sample item's node id, built and read by one type (``benchmarks/sample.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_audiobench.benchmarks.sample import NodeId, Sample


def test_a_node_id_reads_back_the_parts_it_was_built_from() -> None:
    built = NodeId("mmar", "speech", "0042")
    assert str(built) == "audiobench::mmar::speech::0042"
    assert NodeId.parse(str(built)) == built
    assert NodeId.names_a_sample(str(built))


def test_a_sample_id_holding_colons_comes_back_whole() -> None:
    sample = Sample(benchmark="air_bench_chat", id="clip::7", task="speech_QA",
                    category="speech", audio=Path("a.wav"), question="q", reference="r")
    assert sample.nodeid == "audiobench::air_bench_chat::speech_QA::clip::7"
    assert NodeId.parse(sample.nodeid) == NodeId("air_bench_chat", "speech_QA", "clip::7")


@pytest.mark.parametrize("nodeid", ["tests/test_team.py::test_it", "audiobench",
                                    "audiobench::mmar::speech", "audiobench::mmar::::1",
                                    "other::mmar::speech::1"])
def test_what_is_not_a_samples_node_id_is_refused_by_name(nodeid: str) -> None:
    with pytest.raises(ValueError, match=r"not a sample's node id: .*expected "
                                         r"audiobench::<benchmark>::<task>::<sample id>"):
        NodeId.parse(nodeid)
    assert NodeId.names_a_sample(nodeid) == nodeid.startswith("audiobench::")
