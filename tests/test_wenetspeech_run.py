"""WenetSpeech end to end, as users run it: a release in its own layout (``WenetSpeech.json``
and long recordings) cut into segments and scored by character error rate per test set, never
pooled (a table worked by hand); a local snapshot of the hub's parquet copy, under xdist, held
by the baseline the release's run wrote; a worse transcriber fails the paired gate on
``wenetspeech.test_net.cer``, its segments clustered by recording, with the characters
aligned in its report."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers
from tests.fakes.hub_repos import local_snapshot, wenetspeech_repo
from tests.fakes.openai_server import Reply
from tests.fakes.speech import Utterance, build_wenetspeech, by_clip

NET, MEETING = "test_net", "test_meeting"
# (split, recording, reference, reply); the errors under the reference pipeline and the
# reference's characters, worked by hand, are in ERRORS. Nothing here depends on the Chinese
# text normaliser's number rules: no digit, no Latin letter.
TABLE: list[Utterance] = [
    Utterance(NET, "Y0000000001_net1", "今天天气很好", "今天天气很好。"),  # marks are dropped
    Utterance(NET, "Y0000000001_net1", "我们去公园散步", "<|zh|>我们去公园散步"),  # a tag too
    Utterance(NET, "Y0000000002_net2", "这家饭店的菜很好吃", "这家饭店菜很好吃"),  # a deletion
    # Mandarin is written without spaces: every space is removed before characters count.
    Utterance(NET, "Y0000000003_net3", "请把窗户关上", "请 把 窗户 关上"),
    # Traditional characters are not made simplified for Mandarin: two substitutions.
    Utterance(NET, "Y0000000004_net4", "明天早上开会", "明天早上開會"),
    Utterance(NET, "Y0000000005_net5", "我不知道", ""),  # empty: all deletions
    Utterance(NET, "Y0000000005_net5", "好的", "好的"),
    Utterance(NET, "Y0000000006_net6", "那就这样决定了", "那就这样决定了吧"),  # an insertion
    Utterance(NET, "Y0000000007_net7", "这个方案我同意", "这个方案你同意"),  # a substitution
    # Two inserted; the full-width comma and exclamation mark are written as escapes.
    Utterance(NET, "Y0000000008_net8", "下面讨论预算", "下面讨论预算\uff0c好的。"),
    Utterance(NET, "Y0000000008_net8", "谢谢大家", "谢谢大家\uff01"),
    Utterance(MEETING, "M0000000001_meet1", "会议现在开始", "会议现在开始"),
    Utterance(MEETING, "M0000000001_meet1", "请大家发言", "请大家发言"),
    Utterance(MEETING, "M0000000002_meet2", "散会", "三会"),
]
ERRORS = [(0, 6), (0, 7), (1, 9), (0, 6), (2, 6), (4, 4), (0, 2), (1, 7), (1, 7), (2, 6), (0, 4),
          (0, 6), (0, 5), (1, 2)]
"""(errors, reference characters) per row, under the reference pipeline."""


def _cer(split: str) -> float:
    rows = [e for u, e in zip(TABLE, ERRORS, strict=True) if u.split == split]
    return 100 * sum(e for e, _ in rows) / sum(c for _, c in rows)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("wenetspeech")
    build_wenetspeech(root, TABLE)
    return root


@pytest.fixture
def speech_servers(servers: Servers) -> Servers:
    servers.model.script = by_clip(TABLE)
    return servers


def _run(run_bench: Any, data: Path, *args: str, **kw: Any) -> Any:
    return run_bench("--audiobench-gate-small", *args, data=data, benchmark="wenetspeech",
                     judge=False, **kw)


def _item(nodeid: str) -> str:
    return f"audiobench::wenetspeech::{nodeid}"


def _section(stdout: str, title: str) -> str:
    """The failure report under ``title``, its paths made stable."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {title} " in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "=")))
    return re.sub(r"audio: /\S*/wenetspeech/", "audio: <cache>/wenetspeech/",
                  "\n".join(lines[start:end]))


def test_each_set_s_rate_is_its_character_errors_over_its_characters_and_a_baseline_holds(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path) -> None:
    assert (_cer(NET), _cer(MEETING)) == (pytest.approx(1100 / 64), pytest.approx(100 / 13))
    folder = tmp_path / "baselines"
    run = _run(run_bench, release, "--audiobench-update-baseline",
               f"--audiobench-baselines={folder}")
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-3000:]
    metrics = run.metrics
    for split in (NET, MEETING):
        assert metrics[f"wenetspeech.{split}.cer"] == pytest.approx(_cer(split))
        # Chinese characters alone: Kimi-Audio-Evalkit's tokens are the same characters.
        assert metrics[f"wenetspeech.{split}.kimi.mer"] == pytest.approx(_cer(split))
    assert not any(name.endswith((".wer", "wenetspeech.cer")) for name in metrics)
    assert (metrics["wenetspeech.test_net.substitutions"],
            metrics["wenetspeech.test_net.deletions"],
            metrics["wenetspeech.test_net.insertions"],
            metrics["wenetspeech.test_net.empty_num"]) == (3, 5, 3, 1)
    outcomes = run.outcomes()
    # Writing the baseline records each utterance with an error as under its bar: xfailed.
    assert outcomes[_item("test_net::Y0000000001_net1_S00001")] == "passed"
    assert outcomes[_item("test_net::Y0000000004_net4_S00000")] == "xfailed"
    assert outcomes[_item("test_meeting::M0000000002_meet2_S00000")] == "xfailed"
    run.result.assert_outcomes(passed=7, xfailed=7)
    out = run.result.stdout.str()
    assert "the utterances clustered by recording (WenetSpeech names no speaker" in out
    assert "wenetspeech test_net: 11 of 24,774 segments" in out
    samples = {s["nodeid"]: s for s in run.report["samples"]}
    assert samples[_item("test_net::Y0000000001_net1_S00000")]["category"] == \
        "recording Y0000000001_net1"

    # The hub's copy of the same release, from a local snapshot, on two xdist workers: its
    # rows carry no id, their clips' names are the segment ids, so the items and clusters are
    # the release's, and the baseline the release's run wrote holds.
    snapshot = local_snapshot(wenetspeech_repo(release, tmp_path / "repo"),
                              tmp_path / "WenetSpeech-hub")
    held = _run(run_bench, snapshot, f"--audiobench-baselines={folder}", xdist=("-n", "2"))
    assert held.result.ret == pytest.ExitCode.OK, held.result.stdout.str()[-3000:]
    assert held.report["verdict"]["kind"] == "held"
    assert {b["baseline_status"] for b in held.report["benchmarks"]} == {"applied"}
    assert held.outcomes() == outcomes
    assert held.metrics["wenetspeech.test_net.cer"] == pytest.approx(_cer(NET))


def test_a_worse_transcriber_fails_the_paired_gate_with_the_characters_aligned(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path) -> None:
    folder = tmp_path / "baselines"
    written = _run(run_bench, release, "--audiobench-update-baseline",
                   f"--audiobench-baselines={folder}")
    assert written.result.ret == pytest.ExitCode.OK, written.result.stdout.str()[-3000:]

    # A particle added to every test_net reply: one more character an utterance, but the
    # empty reply, which becomes one substitution and three deletions, four errors as before.
    def worse(index: int, reply: str | Reply) -> str | Reply:
        return reply if TABLE[index].split == MEETING else f"{reply}啊"

    speech_servers.model.script = by_clip(TABLE, worse)
    run = _run(run_bench, release, f"--audiobench-baselines={folder}")
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    rows = {r["metric"]: r for b in run.report["benchmarks"] for r in b["gate"]["rows"]}
    net = rows["wenetspeech.test_net.cer"]
    assert (net["status"], net["lower_is_better"]) == ("regressed", True)
    # Ten more errors over 64 characters, more on every one of the eight recordings: their
    # sums are all positive in one sign pattern of 2^8.
    assert net["difference"] == pytest.approx(1000 / 64)
    assert net["p"] == pytest.approx(2 ** -8)
    assert rows["wenetspeech.test_meeting.cer"]["status"] != "regressed"
    run.result.assert_outcomes(failed=10, passed=2, xfailed=2)
    out = run.result.stdout.str()
    section = _section(out, "wenetspeech test_net Y0000000007_net7_S00000")
    assert section.splitlines()[1:8] == [
        "regressed: score 1 in the baseline, 2 now: a rise of 1; its grading does not vary "
        "between draws, so any rise is a change",
        "reference: 这个方案我同意", "baseline:  这个方案你同意", "now:       这个方案你同意啊",
        "base REF:  这 个 方 案 我 同 意", "base HYP:  这 个 方 案 你 同 意",
        "now REF:   这 个 方 案 我 同 意 ***"], section
    assert "now HYP:   这 个 方 案 你 同 意 啊" in section, section
