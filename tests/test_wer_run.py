"""LibriSpeech and FLEURS end to end: every reply style scored as the reports' reference
pipeline scores it (a table worked by hand), per split and never pooled, with and without
xdist; a worse transcriber fails the paired gate on a word error rate (better lower) and its
utterances with the words aligned; an unchanged one passes."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers, regressed_once_worse, written_then_held
from tests.fakes.hf_hub import DEFAULT_LFS_PATTERNS, FakeHfHub
from tests.fakes.hub_repos import fleurs_repo, librispeech_repo, local_snapshot
from tests.fakes.openai_server import Reply
from tests.fakes.speech import Utterance, build_fleurs, build_librispeech, by_clip, heard

CLEAN, OTHER = "test-clean", "test-other"
# (split, speaker, reference, reply); the errors under the reference pipeline and its
# reference words, worked by hand, are in ERRORS.
TABLE: list[Utterance] = [
    Utterance(CLEAN, "1001", "HE HAD NOT SEEN HIS BROTHER", "He had not seen his brother."),
    # A hesitation is dropped by Whisper's normaliser: not an error.
    Utterance(CLEAN, "1001", "THE LETTER WAS WRITTEN", "um the letter was written"),
    # A preamble: three insertions, as no reference pipeline strips it.
    Utterance(CLEAN, "1002", "SHE OPENED THE WINDOW",
              "The transcription is: she opened the window"),
    Utterance(CLEAN, "1002", "WE REACHED THE VILLAGE", "<|en|>we reached the village"),
    Utterance(CLEAN, "1003", "NOBODY IN THE HOUSE COULD FIND THE KEY",
              "nobody in the house could find key"),  # a deletion
    Utterance(CLEAN, "1004", "A COLD WIND BLEW", "a cold wind blew across"),  # an insertion
    # The thought block is set apart before scoring.
    Utterance(CLEAN, "1005", "THE CAPTAIN SMILED",
              "<think>The speaker says captain.</think>the captain smiled"),
    # Digits for words: both sides become "25 men came" (three words).
    Utterance(CLEAN, "1006", "TWENTY FIVE MEN CAME", "25 men came"),
    Utterance(CLEAN, "1007", "THE COLOUR OF THE SEA", "the color of the sea"),  # spelling
    Utterance(CLEAN, "1008", "I CANNOT SAY", ""),  # empty: all deletions
    # A contraction: both sides become "he will not go".
    Utterance(CLEAN, "1009", "HE WON'T GO", "he will not go"),
    Utterance(CLEAN, "1010", "THE OLD MILLER WALKED", "the old miller talked"),  # substitution
    Utterance(OTHER, "2001", "SMOKE ROSE FROM THE CHIMNEYS", "smoke rose from the chimneys"),
    Utterance(OTHER, "2001", "OUR NEIGHBOUR KEPT BEES", "our neighbor kept bees"),
    # "didn't" is "did not": the reply drops "not".
    Utterance(OTHER, "2001", "THE JUDGE DIDN'T BELIEVE", "the judge did believe"),
]
ERRORS = [(0, 6), (0, 4), (3, 4), (0, 4), (1, 8), (1, 4), (0, 3), (0, 3), (0, 5), (3, 3),
          (0, 4), (1, 4), (0, 5), (0, 4), (1, 5)]
"""(errors, reference words) per row, under the reference pipeline."""


def _wer(split: str) -> float:
    rows = [e for u, e in zip(TABLE, ERRORS, strict=True) if u.split == split]
    return 100 * sum(e for e, _ in rows) / sum(w for _, w in rows)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("librispeech")
    build_librispeech(root, TABLE)
    return root


@pytest.fixture
def speech_servers(servers: Servers) -> Servers:
    servers.model.script = by_clip(TABLE)
    return servers


def _run(run_bench: Any, release: Path, *args: str, **kw: Any) -> Any:
    return run_bench(*args, data=release, benchmark="librispeech", judge=False, **kw)


def test_each_split_s_rate_is_its_errors_over_its_words_as_worked_by_hand(
        run_bench: Any, release: Path, speech_servers: Servers) -> None:
    assert (_wer(CLEAN), _wer(OTHER)) == (pytest.approx(900 / 52), pytest.approx(100 / 14))
    run = _run(run_bench, release)
    metrics = run.metrics
    for split in (CLEAN, OTHER):
        assert metrics[f"librispeech.{split}.wer"] == pytest.approx(_wer(split))
        # No row of this table is read differently by the English normaliser alone.
        assert metrics[f"librispeech.{split}.english.wer"] == pytest.approx(_wer(split))
    assert "librispeech.wer" not in metrics  # the splits are never pooled
    assert (metrics["librispeech.test-clean.preamble_num"],
            metrics["librispeech.test-clean.empty_num"]) == (1, 1)
    assert (metrics["librispeech.test-clean.substitutions"],
            metrics["librispeech.test-clean.deletions"],
            metrics["librispeech.test-clean.insertions"]) == (1, 4, 4)
    outcomes = run.outcomes()
    assert outcomes["audiobench::librispeech::test-clean::1001-2001-0000"] == "passed"
    assert outcomes["audiobench::librispeech::test-clean::1008-2008-0000"] == "failed"
    run.result.assert_outcomes(passed=9, failed=6)


def test_a_failed_utterance_shows_its_words_aligned(run_bench: Any, release: Path,
                                                     speech_servers: Servers) -> None:
    run = _run(run_bench, release, "-k", "1002-2002-0000")
    out = run.result.stdout.str()
    assert ("word errors: 3 of 4 reference words (75.0 %): 0 substituted, 0 deleted, "
            "3 inserted (reference pipeline)") in out
    assert "REF:       *** ***           *** she opened the window" in out
    assert "HYP:       THE TRANSCRIPTION IS  she opened the window" in out
    assert "the answer opens with a preamble" in out


def test_a_selection_of_one_split_scores_and_reads_only_that_split(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path) -> None:
    import shutil

    alone = tmp_path / "alone"
    shutil.copytree(release / "LibriSpeech" / OTHER, alone / "LibriSpeech" / OTHER)
    run = _run(run_bench, alone, "--audiobench-tasks", OTHER)
    assert {n for n in run.metrics if n.endswith(".wer")} == {
        "librispeech.test-other.wer", "librispeech.test-other.english.wer"}
    assert "librispeech test-other: 3 of 2,939 utterances" in run.result.stdout.str()


def _baseline(run_bench: Any, release: Path, folder: Path) -> None:
    run = _run(run_bench, release, "--audiobench-update-baseline",
               f"--audiobench-baselines={folder}")
    assert run.result.ret == pytest.ExitCode.OK, run.result.stdout.str()[-2000:]


def _section(stdout: str, title: str) -> str:
    """The failure report under ``title``, its paths made stable."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if f" {title} " in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("_", "=")))
    return re.sub(r"audio: /\S*/LibriSpeech/", "audio: <dir>/LibriSpeech/",
                  "\n".join(lines[start:end]))


def test_an_unchanged_transcriber_passes_and_a_worse_one_fails_the_paired_gate(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path,
        snapshot: Any) -> None:
    from tests.test_run import _summary

    folder = tmp_path / "baselines"
    _baseline(run_bench, release, folder)
    same = _run(run_bench, release, f"--audiobench-baselines={folder}")
    assert same.result.ret == pytest.ExitCode.OK
    rows = {r["metric"]: r for b in same.report["benchmarks"] for r in b["gate"]["rows"]}
    clean = rows["librispeech.test-clean.wer"]
    assert (clean["test"], clean["status"], clean["lower_is_better"]) == ("paired", "can't tell",
                                                                           True)
    assert rows["librispeech.test-other.wer"]["status"] == "too small"

    # Worse on test-clean: a word added to every reply, one more error an utterance (not a
    # hesitation such as "um", which Whisper's normaliser drops).
    def worse(index: int, reply: str | Reply) -> str | Reply:
        return reply if TABLE[index].split == OTHER else f"{reply} indeed"

    speech_servers.model.script = by_clip(TABLE, worse)
    run = _run(run_bench, release, f"--audiobench-baselines={folder}")
    assert run.result.ret == pytest.ExitCode.TESTS_FAILED
    rows = {r["metric"]: r for b in run.report["benchmarks"] for r in b["gate"]["rows"]}
    clean = rows["librispeech.test-clean.wer"]
    assert clean["status"] == "regressed"
    # Eleven more errors over 52 words, on nine of the ten speakers: the empty reply turned
    # "indeed" is one substitution and two deletions, three errors as before. The unchanged
    # speaker's sum is zero, whichever its sign: p = 2 of 2^10 sign patterns.
    assert clean["difference"] == pytest.approx(1100 / 52)
    assert clean["p"] == pytest.approx(2 ** -9)
    out = run.result.stdout.str()
    assert re.search(r"librispeech\.test-clean\.wer regressed \(changed \+21\.154; at least "
                     r"\+\d+\.\d+, beyond the margin \+0\.2", out), out[-3000:]
    assert "lower is better: librispeech.test-clean.wer" in out
    run.result.assert_outcomes(failed=11, passed=2, xfailed=2)
    assert ("regressed: score 0 in the baseline, 1 now: a rise of 1; its grading does not "
            "vary between draws, so any rise is a change") in out
    assert "base REF:  the letter was written\n" in out
    assert "now HYP:   the letter was written INDEED\n" in out
    assert _summary(out) == snapshot(name="summary")
    assert _section(out, "librispeech test-clean 1010-2010-0000") == snapshot(name="item")


FLEURS = [
    Utterance("en_us", "501", "dr smith's three cats", "Doctor Smith's three cats."),
    Utterance("en_us", "501", "dr smith's three cats", "doctor smith's tree cats"),
    Utterance("en_us", "502", "the museum opens at nine", "the museum opens at 9"),
]


def test_fleurs_scores_against_its_transcription_column_per_language(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    build_fleurs(tmp_path / "fleurs", FLEURS, raw={0: "Dr. Smith's 3 cats!", 1: "Dr. Smith's 3 "
                                                    "cats!", 2: "The museum opens at nine."})
    servers.model.script = by_clip(FLEURS)
    run = run_bench(data=tmp_path / "fleurs", benchmark="fleurs", judge=False)
    # "dr" and "doctor" both normalise to "doctor", "smith's" to "smith is", "three" to "3",
    # "nine" to "9": the first and last are exact; the second substitutes "tree" for "3".
    # Fifteen words in all.
    assert run.metrics["fleurs.en_us.wer"] == pytest.approx(100 / 15)
    assert run.outcomes()["audiobench::fleurs::en_us::7001"] == "failed"
    assert "fleurs en_us: 3 of 647 utterances" in run.result.stdout.str()


def test_a_space_before_a_mark_is_removed_before_the_words_are_counted(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    spaced = [Utterance("en_us", "601", "one thousand people saw version two",
                        "1 ,000 people saw version 2 .0 !")]
    build_fleurs(tmp_path / "fleurs", spaced)
    servers.model.script = by_clip(spaced)
    run = run_bench(data=tmp_path / "fleurs", benchmark="fleurs", judge=False)
    # remove_sp makes "1,000" and "2.0", which the English normaliser writes "1000" and "2",
    # as it writes the reference's numbers: no error. Without it, "1" and "000" were "one" and
    # "0", and ".0" a word: two insertions and a substitution over five words, 60 %.
    assert run.metrics["fleurs.en_us.wer"] == 0.0
    assert run.outcomes()["audiobench::fleurs::en_us::7000"] == "passed"
    # Whisper's normaliser alone, which has no remove_sp, keeps those three errors.
    assert run.metrics["fleurs.en_us.english.wer"] == pytest.approx(60.0)


def test_the_page_shows_each_split_s_rate_its_interval_and_the_utterances_that_moved_most(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path) -> None:
    from tests.pages import read_page

    folder = tmp_path / "baselines"
    _baseline(run_bench, release, folder)
    # Worse on two utterances: three words more on one, one on another.
    speech_servers.model.script = by_clip(TABLE, lambda index, reply: {
        0: "he had not seen his brother at all today", 13: "our neighbor kept bees too"}.get(
            index, reply))
    run = _run(run_bench, release, f"--audiobench-baselines={folder}",
               "--audiobench-html=page.html")
    page = read_page(run.report_path.parent / "page.html")
    cells = ["".join(row.text) for row in page.all("tr")]
    # Three more errors over 52 words: 17.31 % to 23.08 %, +5.77 points, with its interval.
    assert any(c.startswith("librispeech.test-clean.wer1217.3123.08+5.77[-") for c in cells)
    (moved,) = page.all("section", "moved")
    rows = [r for r in page.inside(moved, "tr") if "worsened" in r.classes]
    assert ["".join(r.text) for r in rows] == [
        "test-clean1001-2001-00000.003.00+3.00 (worse)",
        "test-other2001-3001-00010.001.00+1.00 (worse)"]
    # The utterance's row aligns its words with the reference.
    sample = page.samples()["audiobench::librispeech::test-clean::1001-2001-0000"]
    text = "".join(t for e in page.inside(sample, "pre") for t in e.text)
    assert "HYP: he had not seen his brother AT  ALL TODAY" in text  # under "***"


def test_both_run_from_the_hub_fetching_only_what_is_selected(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path,
        isolated_hf: None, monkeypatch: pytest.MonkeyPatch) -> None:
    librispeech = librispeech_repo(release, tmp_path / "hub" / "librispeech")
    build_fleurs(tmp_path / "made", FLEURS, first=1000)
    fleurs = fleurs_repo(tmp_path / "made", tmp_path / "hub" / "fleurs")
    heard_by = {"librispeech": by_clip(TABLE), "fleurs": by_clip(FLEURS, first=1000)}
    speech_servers.model.script = lambda request: heard_by[
        "fleurs" if heard(request) >= 1000 else "librispeech"](request)
    with FakeHfHub({"openslr/librispeech_asr": librispeech, "google/fleurs": fleurs},
                   lfs_patterns=(*DEFAULT_LFS_PATTERNS, "*.parquet")) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        run = run_bench("--audiobench-tasks", f"{CLEAN},en_us", data="huggingface",
                        benchmark="librispeech,fleurs", judge=False)
        fetched = {path for _, path in hub.requests}
    assert run.metrics["librispeech.test-clean.wer"] == pytest.approx(_wer(CLEAN))
    assert "librispeech.test-other.wer" not in run.metrics
    assert run.metrics["fleurs.en_us.wer"] == pytest.approx(100 / 15)
    assert not any("other/test" in path for path in fetched), fetched


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["no-xdist", "xdist"])
def test_a_local_snapshot_of_librispeech_s_hub_repo_runs_end_to_end(
        run_bench: Any, release: Path, speech_servers: Servers, tmp_path: Path,
        xdist: tuple[str, ...]) -> None:
    # As `huggingface-cli download --repo-type dataset openslr/librispeech_asr --include
    # 'clean/test/*' --include 'other/test/*' --local-dir DIR` leaves it: each split's parquet
    # files converted once into openslr's layout in the cache, and read from there.
    snapshot = local_snapshot(librispeech_repo(release, tmp_path / "repo"),
                              tmp_path / "librispeech_asr")
    run = written_then_held(run_bench, tmp_path / "baselines", data=snapshot,
                            benchmark="librispeech", judge=False, xdist=xdist)
    for split in (CLEAN, OTHER):
        assert run.metrics[f"librispeech.{split}.wer"] == pytest.approx(_wer(split))
    assert run.outcomes()["audiobench::librispeech::test-clean::1001-2001-0000"] == "passed"
    assert len(run.outcomes()) == len(TABLE)


CHINESE = [
    Utterance("cmn_hans_cn", "801", "博物馆九点开门", "博物馆九点开门。"),
    # Traditional characters are not converted for Chinese (the reference's normaliser runs
    # with its conversion off): 館, 點, 開 and 門 are four substitutions.
    Utterance("cmn_hans_cn", "801", "博物馆九点开门", "博物館九點開門"),
    Utterance("cmn_hans_cn", "802", "河水结冰了", "河水 结冰"),  # 了 deleted; spaces dropped
]
"""Chinese read aloud, scored by characters: five errors over nineteen."""


@pytest.mark.parametrize("xdist", [(), ("-n", "2")], ids=["no-xdist", "xdist"])
def test_a_local_snapshot_of_fleurs_s_hub_repo_runs_end_to_end(
        run_bench: Any, servers: Servers, tmp_path: Path, xdist: tuple[str, ...]) -> None:
    # As `huggingface-cli download --repo-type dataset google/fleurs --include
    # 'data/en_us/test*' --include 'data/en_us/audio/test*' (and cmn_hans_cn's) --local-dir
    # DIR` leaves it: each language's test.tsv and audio/test.tar.gz, the archives unpacked
    # once into the cache, and the languages read from there, each scored on its own.
    build_fleurs(tmp_path / "made", [*FLEURS, *CHINESE])
    snapshot = local_snapshot(fleurs_repo(tmp_path / "made", tmp_path / "repo"),
                              tmp_path / "fleurs")
    servers.model.script = by_clip([*FLEURS, *CHINESE])
    run = written_then_held(run_bench, tmp_path / "baselines",
                            "--audiobench-fleurs-language", "en_us,cmn_hans_cn", data=snapshot,
                            benchmark="fleurs", judge=False, xdist=xdist)
    assert run.metrics["fleurs.en_us.wer"] == pytest.approx(100 / 15)
    assert run.metrics["fleurs.cmn_hans_cn.cer"] == pytest.approx(100 * 5 / 19)
    assert "fleurs.cmn_hans_cn.wer" not in run.metrics
    assert run.outcomes()["audiobench::fleurs::en_us::7000"] == "passed"
    assert run.outcomes()["audiobench::fleurs::cmn_hans_cn::7004"] == "xfailed"
    assert len(run.outcomes()) == len(FLEURS) + len(CHINESE)
    # Without a baseline the item fails, its characters aligned, each under its own.
    alone = run_bench("--audiobench-fleurs-language", "cmn_hans_cn", data=snapshot,
                      benchmark="fleurs", judge=False)
    assert alone.outcomes()["audiobench::fleurs::cmn_hans_cn::7004"] == "failed"
    text = alone.result.stdout.str()
    assert "character errors: 4 of 7 reference characters (57.1 %)" in text
    assert re.search(r"REF: +博 物 馆 九 点 开 门\n.*HYP: +博 物 館 九 點 開 門", text), text


SENTENCES = ("今天天气很好", "我们一起去公园", "老师在教室里", "火车已经开走了", "河边有很多树",
             "她喜欢喝绿茶", "城市的夜晚很安静", "朋友明天来看我")
"""Eight Mandarin sentences of 53 characters, each its own FLEURS sentence (a cluster)."""


def test_a_worse_transcriber_of_chinese_fails_the_gate_on_fleurs_character_error_rate(
        run_bench: Any, servers: Servers, tmp_path: Path) -> None:
    spoken = [Utterance("cmn_hans_cn", f"90{n}", text, text)
              for n, text in enumerate(SENTENCES)]
    build_fleurs(tmp_path / "fleurs", spoken)
    servers.model.script = by_clip(spoken)

    def run(*args: str) -> Any:
        return run_bench("--audiobench-gate-small", "--audiobench-fleurs-language",
                         "cmn_hans_cn", *args, data=tmp_path / "fleurs", benchmark="fleurs",
                         judge=False)

    def worsen() -> None:
        # A character added to every reply: one insertion a sentence.
        servers.model.script = by_clip(spoken, lambda index, reply: f"{reply}了")

    worse = regressed_once_worse(run, tmp_path / "baselines", worsen)
    rows = {r["metric"]: r for b in worse.report["benchmarks"] for r in b["gate"]["rows"]}
    row = rows["fleurs.cmn_hans_cn.cer"]
    assert (row["status"], row["lower_is_better"]) == ("regressed", True)
    # Eight more errors over 53 characters, every sentence worse: of the 2^8 sign patterns
    # only the one observed rises as far, p = 2^-8.
    assert row["difference"] == pytest.approx(800 / 53)
    assert row["p"] == pytest.approx(2 ** -8)
