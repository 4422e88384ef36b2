"""The offline default as users run it: the bundled mini benchmark, the built-in models and
the offline judge, end to end, with real audio decoding and a real speech model."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks import registry
from pytest_audiobench.benchmarks.release import mini_root
from pytest_audiobench.benchmarks.sample import NodeId
from pytest_audiobench.builtin.cascade import NO_SPEECH
from pytest_audiobench.builtin.words import words
from pytest_audiobench.config.names import bundled
from tests.conftest import MODEL, Run, Servers
from tests.fakes.openai_server import Scripted
from tests.settings import make_settings
from tests.test_run import _summary

INSTALL = "pip install 'pytest-audiobench[cascade]'"


def test_without_the_extra_the_cascade_is_a_one_line_error_naming_the_install(
        pytester: pytest.Pytester, chat_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A module that shadows the real one and fails to import, as a missing package does.
    hidden = pytester.path / "without_extra"
    hidden.mkdir()
    (hidden / "faster_whisper.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'faster_whisper'\")\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(hidden))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--audiobench-model", "cascade",
        "--audiobench-judge-model", "overlap", f"--audiobench-data={chat_data}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [f"ERROR: --audiobench-model cascade needs faster-whisper, which comes with "
                      f"the cascade extra: {INSTALL}"]
    assert "Traceback" not in result.stderr.str()


# --- the README's main job: the three benchmarks on the mini data, cascade and offline judge ----

BENCHMARKS = registry.built_in()
MAIN_JOB = ("--audiobench-model", "cascade", "--audiobench-judge-model", "overlap",
            "--audiobench-benchmark", "all", "--audiobench-data", "mini")


def main_job(benchmarks: Sequence[str]) -> list[str]:
    """The main job on ``benchmarks`` alone."""
    return [",".join(benchmarks) if arg == "all" else arg for arg in MAIN_JOB]


def mini_items(here: Path) -> dict[str, int]:
    """Each built-in benchmark's samples in the bundled mini data, as its own reader reads
    them: what the main job runs, whatever benchmarks the registry holds."""
    settings = make_settings(here, model="cascade", judge_model="overlap", data="mini",
                             benchmark=BENCHMARKS)
    return {name: len(registry.create(name, settings).load(mini_root(name)).samples)
            for name in BENCHMARKS}


COMMITTED = Path(__file__).resolve().parents[1] / "baselines"
MINI_BASELINES = bundled("baselines", "mini")


def with_committed_baselines(pytester: pytest.Pytester) -> None:
    """The repository's baselines/ where a run from the repository root finds them: in the
    rootdir, as the README's main job does."""
    if not (pytester.path / "baselines").exists():
        (pytester.path / "baselines").symlink_to(COMMITTED, target_is_directory=True)


def offline_run(pytester: pytest.Pytester, *args: str) -> tuple[pytest.RunResult, Run]:
    with_committed_baselines(pytester)
    report = pytester.path / "report.json"
    result = pytester.runpytest("-p", "no:cacheprovider", f"--audiobench-report={report}",
                                f"--audiobench-cache-dir={pytester.path / 'cache'}", *args)
    return result, Run(result, report)


def answers(run: Run) -> dict[str, str]:
    return {s["nodeid"]: s["answers"][0]["completion"]["text"] for s in run.report["samples"]}


@pytest.mark.first
def test_the_main_job_runs_offline_and_holds_the_committed_per_sample_gate(
        pytester: pytest.Pytester, snapshot: Any) -> None:
    result, run = offline_run(pytester, *MAIN_JOB, "-rx")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    outcomes = run.outcomes()
    expected = mini_items(pytester.path)
    assert {name: sum(NodeId.parse(n).benchmark == name for n in outcomes)
            for name in BENCHMARKS} == expected and all(expected.values())
    counted = result.parseoutcomes()
    # Tones and noise leave a transcript-only model guessing, as they did when the committed
    # per-sample baseline was written: those items are expected failures, nothing regressed.
    assert counted["passed"] + counted["xfailed"] == sum(expected.values())
    assert counted["xfailed"] > 0 and "failed" not in counted
    # Speech is transcribed: the counting and name questions are answered right.
    said = answers(run)
    assert "five" in words(said["audiobench::air_bench_chat::speech_QA::1"])  # "5" or "five"
    assert "david" in words(said["audiobench::air_bench_chat::speech_QA::2"])
    assert said["audiobench::mmar::speech::mini-010"] == "five"
    assert said["audiobench::mmar::speech::mini-011"] == "David"
    assert outcomes["audiobench::mmar::speech::mini-010"] == "passed"
    assert outcomes["audiobench::mmar::speech::mini-011"] == "passed"
    stdout = result.stdout.str()
    assert ("XFAIL audiobench::mmar::sound::mini-002 - under its bar as in the baseline: "
            "baseline 0, now 0") in stdout
    assert all(s["gate"]["judge_mismatch"] is None for s in run.report["benchmarks"])
    assert [s["baseline_status"] for s in run.report["benchmarks"]] == ["applied"] * len(BENCHMARKS)
    # A single choice answered by its option's text: the offline judge aligns it.
    assert said["audiobench::air_bench_foundation::Speech_Entity_Reconition_slurp::5"] == "Lisbon"
    assert outcomes["audiobench::air_bench_foundation::Speech_Entity_Reconition_slurp::5"] == \
        "passed"
    # The two speakers of a dialogue counted from the transcript: an MMAU speech item.
    assert outcomes["audiobench::mmau::speech::mini-003"] == "passed"
    # Whisper tiny.en's real word error rate on the spoken mini utterances, not zero.
    wer = {name: m["value"] for s in run.report["benchmarks"] for name, m in s["metrics"].items()
           if name.endswith(".wer") and ".english." not in name}
    assert set(wer) == {"librispeech.test-clean.wer", "librispeech.test-other.wer",
                        "fleurs.en_us.wer", "common_voice.en.wer", "common_voice.fr.wer"}
    english = {name: value for name, value in wer.items() if name != "common_voice.fr.wer"}
    assert all(0 < value < 100 for value in english.values()), wer
    # An English-only model on French, Chinese and Cantonese: its English words are all wrong,
    # their letters inserted characters; honestly high, as in the committed baseline.
    metrics = {n: m["value"] for s in run.report["benchmarks"] for n, m in s["metrics"].items()}
    assert min(metrics["common_voice.fr.wer"], metrics["common_voice.zh-CN.cer"],
               metrics["common_voice.yue.cer"]) >= 100
    assert outcomes["audiobench::librispeech::test-clean::9101-4410-0000"] == "passed"
    # A word said is an MMSU option the transcript names, answered with its letter.
    assert said["audiobench::mmsu::word_recognition::mini_002"] == "B. noon"
    assert outcomes["audiobench::mmsu::word_recognition::mini_002"] == "passed"
    # A spoken question answered with its transcript: the offline judge finds no final answer
    # in it, as when the baseline was written (the cascade cannot reason).
    assert "how many animals" in said["audiobench::big_bench_audio::object_counting::mini_009"
                                      ].lower()
    assert outcomes["audiobench::big_bench_audio::object_counting::mini_009"] == "xfailed"
    # Word for word the answers the committed baselines were written from, under this CPU's
    # own instruction set (the test below forces the others).
    assert said == committed_answers()
    assert _summary(stdout) == snapshot


def committed_answers() -> dict[str, str]:
    """The cascade's answers in the committed per-sample baselines of the mini data."""
    return {line["id"]: line["answer"] for name in BENCHMARKS
            for line in map(json.loads, (MINI_BASELINES / name / "cascade.samples.jsonl")
                            .read_text(encoding="utf-8").splitlines())}


def test_the_main_job_under_xdist_gives_the_same_numbers(pytester: pytest.Pytester) -> None:
    # A judged benchmark and a multiple-choice one, the first sample of each of their tasks
    # (11 clips: every clip the cascade hears costs the suite a second of CPU; the main job's
    # test above hears all 111 without xdist, and the other two benchmarks take the same paths
    # under xdist). The two workers share them: each answer is the committed one, word for
    # word, and each metric of the run equals the committed baseline's on the same samples.
    twins = ("air_bench_chat", "mmau")
    result, run = offline_run(pytester, *main_job(twins), "--audiobench-limit", "1", "-n", "2")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-3000:]
    assert "model cascade in each of the 2 xdist workers" in result.stdout.str()
    said = answers(run)
    assert len(said) == 8 + 3  # the 8 tasks of AIR-Bench Chat, the 3 of MMAU
    committed = committed_answers()
    assert said == {sample: committed[sample] for sample in said}
    for name, summary in zip(twins, run.report["benchmarks"], strict=True):
        assert summary["benchmark"] == name and summary["baseline_status"] == "applied"
        thresholds = json.loads((MINI_BASELINES / name / "cascade.json").read_text("utf-8"))[
            "metrics"]
        rows = {row["metric"]: row for row in summary["gate"]["rows"] if row["n"]}
        # Every metric the baseline holds, paired over the samples run, but MMAU's medium and
        # hard items (the first of each task is an easy one).
        assert set(thresholds) - set(rows) == (
            {"mmau.difficulty.medium.avg", "mmau.difficulty.hard.avg"} if name == "mmau"
            else set())
        for metric, row in rows.items():
            assert row["test"] == "paired", metric
            assert row["value"] == pytest.approx(row["baseline"], abs=1e-9), metric
            assert run.metrics[metric] == row["value"], metric


# CTranslate2's kernel families and the CPU flags each one needs (its cpu_isa.cc).
ISA_FLAGS = {"GENERIC": (), "AVX": ("avx",), "AVX2": ("avx2", "fma"),
             "AVX512": ("avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw")}


def supported_isas() -> list[str]:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        pytest.skip("no /proc/cpuinfo: cannot tell which instruction sets this CPU has")
    flags = {flag for line in cpuinfo.splitlines() if line.startswith("flags")
             for flag in line.partition(":")[2].split()}
    if "sse4_1" not in flags:
        pytest.skip("not an x86-64 CPU with SSE4.1: CTranslate2 has no ISA to force here")
    return [isa for isa, needs in ISA_FLAGS.items() if set(needs) <= flags]


TRANSCRIBE = """
import json, sys
from pathlib import Path
from pytest_audiobench.builtin.speech import Transcriber
speech = Transcriber(None)
clips = sorted(p for p in Path(sys.argv[1]).rglob("*") if p.suffix in (".wav", ".flac"))
clips = [c for i, c in enumerate(clips) if i == 0 or c.parent != clips[i - 1].parent]
print(json.dumps({str(c): speech.transcribe(c.read_bytes()) for c in clips}))
"""


def committed_transcripts(mini: Path) -> dict[str, str]:
    """What the committed baseline says the cascade heard in each mini AIR-Bench Chat clip: a
    Chat question has no choices, so the cascade's answer is its transcript (or, when it heard
    none, the line that says so)."""
    said = committed_answers()
    records = json.loads((mini / "Chat" / "Chat_meta.json").read_text(encoding="utf-8"))
    heard: dict[str, str] = {}
    for record in records:
        clip = mini / "Chat" / f"{record['task_name']}_{record['dataset_name']}" / record["path"]
        answer = said[f"audiobench::air_bench_chat::{record['task_name']}::{record['uniq_id']}"]
        heard[str(clip)] = "" if answer == NO_SPEECH else answer
    return heard


def test_the_cascade_hears_the_same_under_every_instruction_set_this_cpu_has(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # CTranslate2 takes the best instruction set the CPU has, and the main job's test holds
    # its answers to the committed ones; here the plain kernels are forced, when this CPU has
    # better ones, in a subprocess (CTranslate2 reads CT2_FORCE_CPU_ISA once, when it is
    # loaded), and the first clip of each mini AIR-Bench Chat task (speech, dialogue, sound,
    # music and their mixes) is transcribed as the committed baseline has it. A Chat answer is
    # the transcript itself, and the main job's test holds every committed answer to what the
    # best kernels hear: the same transcripts as the best kernels', without a second
    # subprocess transcribing them under the best kernels again.
    pytest.importorskip("faster_whisper", reason="the cascade needs the [cascade] extra")
    monkeypatch.setenv("CT2_VERBOSE", "1")
    forced = [isa for isa in supported_isas()[:-1] if isa == "GENERIC"]
    if not forced:
        pytest.skip("this CPU offers one instruction set only: nothing to compare")
    mini = bundled("mini", "air_bench_chat")
    best = committed_transcripts(mini)

    def heard(isa: str) -> dict[str, str]:
        monkeypatch.setenv("CT2_FORCE_CPU_ISA", isa)
        done = subprocess.run([sys.executable, "-c", TRANSCRIBE, str(mini)],
                              capture_output=True, text=True, check=True)
        assert f"Selected ISA: {isa}" in done.stderr  # the dispatch was forced
        said: dict[str, str] = json.loads(done.stdout)
        return said

    for isa in forced:
        got = heard(isa)
        assert len(got) == 8 and any(got.values()), isa
        assert {clip: text for clip, text in got.items() if text != best[clip]} == {}, isa


def test_a_worse_model_gated_against_the_cascade_fails_on_its_regressions(
        pytester: pytest.Pytester) -> None:
    # The README's demonstration of a regression: random picks held against the cascade.
    result, run = offline_run(pytester, "--audiobench-model", "random", "--audiobench-judge-model",
                              "overlap", "--audiobench-benchmark", "air_bench_chat,mmar",
                              "--audiobench-data", "mini", "--audiobench-gate-against",
                              "cascade")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    counted = result.parseoutcomes()
    assert counted["failed"] > 0 and counted["xfailed"] > 0 and counted["xpassed"] > 0
    stdout = result.stdout.str()
    # The transcribed name was right in the baseline; a random pick cannot name anyone.
    assert ("regressed: score 100 in the baseline, 0 now: a drop of 100; "
            "its grading does not vary between draws, so any drop is a change") in stdout
    assert "baseline:  David\nnow:       " in stdout
    assert "score then: 100\nscore now:  0" in stdout
    assert "air_bench_chat.average.score regressed" in stdout
    failed = {n for n, outcome in run.outcomes().items() if outcome == "failed"}
    assert "audiobench::air_bench_chat::speech_QA::2" in failed


def test_the_random_baseline_is_seeded_and_holds_its_committed_gate(
        pytester: pytest.Pytester) -> None:
    args = ("--audiobench-model", "random", "--audiobench-judge-model", "overlap",
            "--audiobench-benchmark", "mmar", "--audiobench-data", "mini", "--audiobench-no-cache")
    first, run = offline_run(pytester, *args)
    assert first.ret == pytest.ExitCode.OK, first.stdout.str()[-3000:]
    picks = answers(run)
    _, rerun = offline_run(pytester, *args)
    assert answers(rerun) == picks
    _, reseeded = offline_run(pytester, *args, "--audiobench-seed", "1")
    assert answers(reseeded) != picks
    assert all(pick in sample["answers"][0]["request"]["prompt"]
               for sample, pick in zip(run.report["samples"], picks.values(), strict=True))


def test_the_cascade_asks_a_text_model_with_the_transcript_when_one_is_given(
        pytester: pytest.Pytester, servers: Servers) -> None:
    servers.model.script = Scripted("The speaker bought five apples.")
    result, run = offline_run(
        pytester, "--audiobench-model", "cascade", "--audiobench-cascade-llm", MODEL,
        "--audiobench-api-url", servers.model.url, "--audiobench-judge-model", "overlap",
        "--audiobench-data", "mini", "--audiobench-tasks", "speech_QA")
    assert result.ret in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED), result.stdout.str()
    asked = servers.model.requests
    assert len(asked) == 3 and all(not r.audio_parts for r in asked)
    apples = next(r.text for r in asked if "How many apples" in r.text)
    assert "five" in words(apples) and "Transcript:" in apples
    assert answers(run)["audiobench::air_bench_chat::speech_QA::1"] == (
        "The speaker bought five apples.")
    assert f"model cascade+{MODEL} in this process;" in result.stdout.str()


@pytest.mark.parametrize(("benchmark", "model", "there"), [
    ("mmar", "cascadee", "there are none there; the plugin bundles those of: cascade, random "
                         "({bundled}/mmar)"),
    # The published numbers are for the full release, not the mini data: the error says so.
    ("air_bench_foundation", "qwen-audio-turbo",
     "there are none there; the plugin bundles those of: cascade, random ({bundled}/"
     "air_bench_foundation) ({root}/baselines/air_bench_foundation/qwen-audio-turbo.json is "
     "that model's baseline for the full release; a run on the mini data is gated by the "
     "baselines under mini/)"),
])
def test_a_gate_against_a_baseline_that_is_not_there_is_an_error_naming_those_that_are(
        pytester: pytest.Pytester, benchmark: str, model: str, there: str) -> None:
    result, _ = offline_run(pytester, "--audiobench-model", "random", "--audiobench-judge-model",
                            "overlap", "--audiobench-benchmark", benchmark, "--audiobench-data",
                            "mini", "--audiobench-gate-against", model)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    root = pytester.path
    assert result.stderr.lines == [
        f"ERROR: --audiobench-gate-against {model}: no baseline for {benchmark} at "
        f"{root}/baselines/mini/{benchmark}/{model}.json; "
        f"{there.format(root=root, bundled=MINI_BASELINES)}", ""]
