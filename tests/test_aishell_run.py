"""AISHELL-1 and AISHELL-2 end to end, as users run them, against a scripted model that answers
each clip: character error rates per split worked by hand (AISHELL-1's test, each of
AISHELL-2's devices, never pooled), the baselines written and held, a worse transcriber failing
the paired gate on ``aishell1.test.cer`` with its characters aligned, and AISHELL-1's speaker
tarballs, packed as openslr ships them, unpacked once into the cache under xdist and scored
the same. Four runs in all: each one costs the suite a pytest start."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from tests.conftest import Run, Servers, written_then_held
from tests.fakes.openai_server import ChatRequest, Reply
from tests.fakes.speech import (
    Utterance,
    build_aishell1,
    build_aishell2,
    by_clip,
    heard,
    pack_aishell1_speakers,
)
from tests.settings import make_settings

AISHELL2_FIRST = 1000
"""AISHELL-2's clips are marked from here, AISHELL-1's from the builders' first mark."""

# (split, speaker, reference, reply); each row's character errors under the reference
# pipeline and its reference characters, worked by hand, in ERRORS. No digit and no mark: the
# Chinese text normaliser writes those out, and these rows hold whichever normaliser is in.
AISHELL1 = [
    Utterance("test", "S0764", "今天 天气 很 好", "今天天气很好"),  # the spaces are not the text
    Utterance("test", "S0764", "我们 去 公园", "我们 去 公园"),
    Utterance("test", "S0765", "老师 在 上课", "老师在上网"),  # a substitution
    Utterance("test", "S0766", "城市 交通 方便", "城市交通很方便"),  # an insertion
    Utterance("test", "S0767", "他 喜欢 喝 茶", ""),  # empty: all deletions
    Utterance("test", "S0767", "春天 来 了", "春天来了"),
    Utterance("test", "S0768", "图书馆 很 安静", "图书馆很安静"),
    Utterance("test", "S0769", "火车 站 不 远", "火车站不远"),
    Utterance("test", "S0770", "朋友 在 河边 散步", "朋友在河边跑步"),  # a substitution
    Utterance("test", "S0901", "学生 在 读书", "学生在读书"),
    Utterance("test", "S0902", "早上 空气 清新", "早上空气清新"),
    Utterance("test", "S0903", "河流 很 长", "河流很长"),
]
ERRORS = [(0, 6), (0, 5), (1, 5), (1, 6), (5, 5), (0, 4), (0, 6), (0, 5), (1, 7), (0, 5),
          (0, 6), (0, 4)]
"""(errors, reference characters) per AISHELL-1 row: 8 errors over 64 characters."""
AISHELL2 = [
    Utterance("ios", "T0011", "打开客厅的灯", "打开客厅的灯"),
    Utterance("ios", "T0012", "播放音乐", "播放音乐"),
    Utterance("android", "T0011", "打开客厅的灯", "打开客厅灯"),  # a deletion: 1 of 10
    Utterance("android", "T0012", "播放音乐", "播放音乐"),
    Utterance("mic", "T0011", "打开客厅的灯", "打开客厅的等"),  # a substitution
    Utterance("mic", "T0012", "播放音乐", ""),  # and four deletions: 5 of 10
]
AISHELL2_CER = {"ios": 0.0, "android": 10.0, "mic": 50.0}


def _model(aishell1: list[Utterance]) -> Any:
    """The script answering AISHELL-1's clips from `aishell1` and AISHELL-2's from its table."""
    first, second = by_clip(aishell1), by_clip(AISHELL2, first=AISHELL2_FIRST)

    def answer(request: ChatRequest) -> str | Reply:
        return (second if heard(request) >= AISHELL2_FIRST else first)(request)

    return answer


@pytest.fixture
def releases(tmp_path: Path, servers: Servers) -> dict[str, Path]:
    roots = {"aishell1": tmp_path / "aishell1", "aishell2": tmp_path / "aishell2"}
    build_aishell1(roots["aishell1"], AISHELL1, unheard=[("BAC009S0002W0001", "火车 站")])
    build_aishell2(roots["aishell2"], AISHELL2, first=AISHELL2_FIRST)
    servers.model.script = _model(AISHELL1)
    return roots


def _data(roots: dict[str, Path]) -> str:
    return ",".join(f"{name}={root}" for name, root in roots.items())


def _section(stdout: str, title: str) -> str:
    """The failure report under ``title``."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {title} " in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "=")))
    return "\n".join(lines[start:end])


def test_rates_are_worked_by_hand_an_unchanged_model_holds_and_a_worse_one_fails_the_gate(
        run_bench: Any, releases: dict[str, Path], servers: Servers, tmp_path: Path) -> None:
    folder = tmp_path / "baselines"
    held = written_then_held(run_bench, folder, data=_data(releases),
                             benchmark="aishell1,aishell2", judge=False)
    metrics = held.metrics
    assert metrics["aishell1.test.cer"] == pytest.approx(100 * 8 / 64)
    # No Latin word in these rows: Kimi-Audio-Evalkit's tokens are the characters too.
    assert metrics["aishell1.test.kimi.mer"] == pytest.approx(100 * 8 / 64)
    for device, rate in AISHELL2_CER.items():
        assert metrics[f"aishell2.{device}.cer"] == pytest.approx(rate)
    assert not [name for name in metrics if name.endswith((".wer", "aishell2.cer"))]
    out = held.result.stdout.str()
    assert "aishell1 test: 12 of 7,176 utterances" in out
    assert "aishell2 mic: 2 of 5,000 utterances" in out
    assert "the utterances clustered by speaker" in out
    assert held.outcomes()["audiobench::aishell1::test::BAC009S0764W0001"] == "passed"
    # Under its bar as in the baseline the run held it to: an expected failure.
    assert held.outcomes()["audiobench::aishell2::mic::MT0012W0001"] == "xfailed"

    # Worse on AISHELL-1: a character added to every reply, one more error an utterance (the
    # empty reply turned "的" is one substitution and four deletions, five errors as before),
    # so every one of the ten speakers is worse.
    servers.model.script = _model([Utterance(u.split, u.speaker, u.reference, f"{u.reply}的")
                                   for u in AISHELL1])
    run = run_bench("--audiobench-gate-small", f"--audiobench-baselines={folder}",
                    data=_data(releases), benchmark="aishell1,aishell2", judge=False)
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    row = run.gate_rows["aishell1.test.cer"]
    assert (row["status"], row["lower_is_better"]) == ("regressed", True)
    assert row["difference"] == pytest.approx(100 * 11 / 64)
    # Every one of the ten speakers worse: one sign pattern of the 2^10 is as bad.
    assert row["p"] == pytest.approx(2 ** -10)
    assert {run.gate_rows[f"aishell2.{d}.cer"]["status"] for d in AISHELL2_CER} != {"regressed"}
    out = run.result.stdout.str()
    assert re.search(r"aishell1\.test\.cer regressed \(changed \+17\.188", out), out[-3000:]
    report = _section(out, "aishell1 test BAC009S0765W0001")
    assert "regressed: score 1 in the baseline, 2 now: a rise of 1" in report
    # Character under character, the reference's spaces gone: the baseline's substitution,
    # then the added character over the gap.
    assert "base REF:  老 师 在 上 课\nbase HYP:  老 师 在 上 网\n" in report
    now = dict(line.split(":", 1) for line in report.splitlines()
               if line.startswith(("now REF:", "now HYP:")))
    assert now["now REF"].split() == ["老", "师", "在", "上", "***", "课"]
    assert now["now HYP"].split() == ["老", "师", "在", "上", "网", "的"]


def test_packed_speaker_tarballs_are_unpacked_once_under_xdist_and_score_the_same(
        run_bench: Any, releases: dict[str, Path], pytester: pytest.Pytester) -> None:
    # As data_aishell.tgz extracts: each speaker's wav/<speaker>.tar.gz, unpacked once into the
    # cache by the two workers together (under its lock), and read from there.
    packed = pack_aishell1_speakers(releases["aishell1"])
    run: Run = run_bench(data=packed, benchmark="aishell1", judge=False, xdist=("-n", "2"))
    assert run.metrics["aishell1.test.cer"] == pytest.approx(100 * 8 / 64)
    assert len(run.outcomes()) == len(AISHELL1)
    assert run.outcomes()["audiobench::aishell1::test::BAC009S0767W0001"] == "failed"
    unpacked = list((pytester.path / "cache").glob("aishell1/*/data_aishell/wav/test"))
    assert len(unpacked) == 1
    assert sorted(p.name for p in unpacked[0].iterdir()) == sorted({u.speaker for u in AISHELL1})


def test_tasks_select_one_device_and_the_others_need_not_be_there(
        releases: dict[str, Path], tmp_path: Path) -> None:
    import shutil

    root = releases["aishell2"]
    for device in ("Android", "Mic"):
        shutil.rmtree(root / "AISHELL-DEV-TEST-SET" / device)
    settings = make_settings(tmp_path, model="m", api_url="http://x", data=str(root),
                             benchmark=("aishell2",), tasks=("ios",))
    release = registry.create("aishell2", settings).load(root)
    assert {s.task for s in release.samples} == {"ios"}
    assert release.headline == ("aishell2.ios.cer",)
