"""The run as one HTML page (--audiobench-html), read back without a browser: what it shows,
that nothing on it comes from elsewhere, the audio embedded or linked, and the same page from
audiobench-merge, audiobench-compare and pytest-html's rows. tests/test_html_browser.py
opens it in a real browser."""

from __future__ import annotations

import base64
import os
import re
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.commands import compare, merge
from pytest_audiobench.gate.decision import RunVerdict
from pytest_audiobench.outcome.records import Outcome, SampleRecord
from pytest_audiobench.outcome.view import SampleView
from pytest_audiobench.report import html
from pytest_audiobench.report.model import RunReport, TokenUsage
from tests.conftest import Servers
from tests.fakes.openai_server import Scripted
from tests.pages import Page, read_page
from tests.settings import make_settings
from tests.test_per_sample_gate import answering


def node(record: dict[str, Any]) -> str:
    return f"audiobench::air_bench_chat::{record['task_name']}::{record['uniq_id']}"


@pytest.fixture
def gated(run_bench: Any, servers: Servers, small_records: list[Any]) -> Any:
    """A per-sample baseline in which records 0 and 2 were poor; then a run in which 0 stays
    poor, 2 is good and 5 turns poor, writing the page."""
    answering(servers, small_records, {0, 2})
    assert run_bench("--audiobench-update-baseline").result.ret == 0
    answering(servers, small_records, {0, 5})

    def run(*args: str, xdist: list[str] | None = None) -> Any:
        return run_bench("--audiobench-html=out/page.html", *args, xdist=xdist or [])

    return run


def test_the_page_holds_the_run_its_gate_and_every_sample(
        gated: Any, pytester: pytest.Pytester, small_records: list[Any]) -> None:
    run = gated()
    path = pytester.path / "out" / "page.html"
    assert re.search(r"HTML report: .*page\.html \(16 clips embedded, 0\.0 MB; 0 linked\)",
                     run.result.stdout.str())
    page = read_page(path)
    header = "".join(page.all("header")[0].text)
    assert "audio-model at http://127.0.0.1" in header and "judge-model" in header
    # Every metric too small or can't tell: the header says the gate told nothing.
    assert "gate told nothing (too small or can't tell)" in header and "16 samples" in header
    assert "model temperature 0, at most 1024 tokens; judge temperature 1" in header
    section = page.all("section", "benchmark")[0]
    assert "gate held" in "".join(section.text)
    forest = [g for g in page.all("g", "row") if g.attrs["data-metric"] == "average.score"]
    assert len(forest) == 2  # the change chart and the headline bars
    # Sixteen samples: the average is gated, and its interval [-0.83, +0.83] reaches past the
    # margin 0.1: held, but it can't tell (drawn as a warning, never "ok"); the six
    # categories of two to four samples are too small and reported.
    assert len(page.all("table", "gate")) == 1 and len(page.all("tr", "ok")) == 0
    (unclear,) = page.all("tr", "worse")
    assert unclear.text[0] == "air_bench_chat.average.score" and unclear.text[-1] == "can't tell"
    assert len(page.all("tr", "small")) == 6
    assert any(n.text and n.text[0].startswith("too small: 6 metric(s)")
               for n in page.all("p", "note"))
    samples = page.samples()
    assert len(samples) == len(small_records)
    kinds = {n: e.attrs["data-kind"] for n, e in samples.items()}
    assert (kinds[node(small_records[5])], kinds[node(small_records[0])],
            kinds[node(small_records[2])]) == ("regressed", "xfailed", "xpassed")
    assert sorted(kinds.values()).count("passed") == 13
    # Rows needing attention come first.
    assert [e.attrs["data-kind"] for e in page.all("details", "sample")][:2] == [
        "regressed", "xpassed"]
    regressed = "".join(samples[node(small_records[5])].text)
    assert small_records[5]["question"] in regressed
    assert "baseline answer (score 8)" in regressed and "this run answer (score 2)" in regressed
    assert "'6 2' -> model 2, reference 6" in regressed  # this run's judge, pass by pass
    assert "baseline judge6 8 | 8 6" in regressed  # the baseline's replies
    assert "<del>good</del>" in page.source and "<ins>poor</ins>" in page.source


def test_every_clip_is_embedded_and_named_by_its_path_beside_the_page(
        gated: Any, pytester: pytest.Pytester, small_records: list[Any],
        chat_data: Path) -> None:
    gated()
    page = read_page(pytester.path / "out" / "page.html")
    samples = page.samples()
    for which in (5, 1):  # regressed, and passed
        audio = page.inside(samples[node(small_records[which])], "audio")[0]
        media, data = audio.attrs["src"].split(",", 1)
        assert media == "data:audio/wav;base64"
        original = (page.path.parent / audio.attrs["data-path"]).resolve()
        assert original.is_relative_to(chat_data.resolve())
        assert base64.b64decode(data) == original.read_bytes()


def test_a_zero_audio_budget_links_every_clip(gated: Any, pytester: pytest.Pytester,
                                              small_records: list[Any], chat_data: Path) -> None:
    run = gated("--audiobench-html-audio-mb", "0")
    assert "(0 clips embedded, 0.0 MB; 16 linked)" in run.result.stdout.str()
    page = read_page(pytester.path / "out" / "page.html")
    assert "data:audio" not in page.source
    passed = page.inside(page.samples()[node(small_records[1])], "audio")[0]
    assert passed.attrs["data-path"] == urllib.parse.unquote(passed.attrs["src"])
    linked = (page.path.parent / passed.attrs["data-path"]).resolve()
    assert linked.is_file() and linked.is_relative_to(chat_data.resolve())


def test_nothing_on_the_page_comes_from_elsewhere(gated: Any, pytester: pytest.Pytester) -> None:
    gated()
    page = read_page(pytester.path / "out" / "page.html")
    fetched = [(e.tag, name, value) for e in page.elements for name, value in e.attrs.items()
               if name in ("src", "href", "action", "data", "poster")
               and not value.startswith("data:") and "://" in value]
    assert fetched == []
    assert not page.all("link") and not page.all("iframe") and not page.all("img")
    assert all("src" not in e.attrs for e in page.all("script"))
    assert "@import" not in page.source and "url(" not in page.source
    policy = next(e for e in page.all("meta") if e.attrs.get("http-equiv") ==
                  "Content-Security-Policy")
    assert "default-src 'none'" in policy.attrs["content"]


def test_text_from_the_model_is_shown_never_run(run_bench: Any, pytester: pytest.Pytester,
                                                servers: Servers) -> None:
    servers.model.script = Scripted('<script>alert("x")</script> & <b>bold</b>')
    run_bench("--audiobench-html=page.html")
    source = (pytester.path / "page.html").read_text()
    assert "<script>alert" not in source and "<b>bold" not in source
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold" in source
    assert source.count("<script>") == 1  # the page's own


def test_a_missing_clip_is_said_on_the_page(run_bench: Any, pytester: pytest.Pytester,
                                            tmp_path: Path, small_records: list[Any]) -> None:
    from tests.fakes.datasets import build_air_bench_chat

    data = build_air_bench_chat(tmp_path / "data", small_records)
    gone = next(data.rglob("*.wav"))
    gone.unlink()
    run_bench("--audiobench-html=page.html", "--audiobench-max-errors", "1", data=data)
    page = read_page(pytester.path / "page.html")
    skipped = [e for e in page.all("details", "sample") if e.attrs["data-kind"] == "skipped"]
    assert len(skipped) == 1
    beside = Path(os.path.relpath(gone.resolve(), pytester.path.resolve())).as_posix()
    assert f"audio not found: {beside}" in page.source


def test_merged_shards_make_the_same_page(run_bench: Any, pytester: pytest.Pytester,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    reports = []
    for shard in ("1/2", "2/2"):
        run = run_bench("--audiobench-shard", shard)
        reports.append(pytester.path / f"shard-{shard[0]}.json")
        run.report_path.rename(reports[-1])
    status = merge.main([*map(str, reports), f"--html={pytester.path / 'merged.html'}"])
    assert status == 0
    assert "HTML report:" in capsys.readouterr().out
    page = read_page(pytester.path / "merged.html")
    assert len(page.samples()) == 16
    assert "a merge of shards" in page.source


def test_compare_writes_b_against_a(run_bench: Any, pytester: pytest.Pytester,
                                    servers: Servers, small_records: list[Any],
                                    capsys: pytest.CaptureFixture[str]) -> None:
    run_bench().report_path.rename(pytester.path / "a.json")
    answering(servers, small_records, {5})
    run_bench().report_path.rename(pytester.path / "b.json")
    status = compare.main([str(pytester.path / "a.json"), str(pytester.path / "b.json"),
                           f"--html={pytester.path / 'ab.html'}"])
    assert status == 0  # one sample is not a metric beyond its margin
    assert "HTML report:" in capsys.readouterr().out
    page = read_page(pytester.path / "ab.html")
    kinds = {n: e.attrs["data-kind"] for n, e in page.samples().items()}
    assert kinds[node(small_records[5])] == "regressed"
    assert sorted(kinds.values()).count("passed") == 15
    assert "A answer (score 8)" in "".join(page.samples()[node(small_records[5])].text)


@pytest.mark.pytest_html
def test_pytest_html_rows_carry_each_samples_details(run_bench: Any,
                                                     pytester: pytest.Pytester) -> None:
    pytest.importorskip("pytest_html", reason="pytest-html comes with the dev extra")
    run_bench("--html=ph.html", "-n", "2")
    source = (pytester.path / "ph.html").read_text()
    assert source.count("audiobench-sample") == 16
    assert source.count("&lt;audio controls") + source.count("<audio controls") >= 16


def test_an_mmar_row_marks_the_chosen_and_the_correct_option(pytester: pytest.Pytester) -> None:
    baselines = Path(__file__).resolve().parents[1] / "baselines"
    pytester.runpytest("-p", "no:cacheprovider", "--audiobench-model", "random",
                       "--audiobench-gate-against", "cascade", "--audiobench-benchmark", "mmar",
                       "--audiobench-data", "mini", "--audiobench-judge-model", "overlap",
                       f"--audiobench-baselines={baselines}", "--audiobench-html=page.html")
    page = read_page(pytester.path / "page.html")
    regressed = [e for e in page.all("details", "sample") if e.attrs["data-kind"] == "regressed"]
    assert regressed
    for row in regressed:
        items = page.inside(row, "li")
        correct = [li for li in items if "correct" in li.classes]
        chosen = [li for li in items if "chosen" in li.classes]
        assert len(correct) == 1 and len(chosen) == 1 and correct != chosen
        assert "".join(correct[0].text).endswith("(correct)")
        text = "".join(row.text)
        assert "extracted" in text and "official" in text and "strict" in text
    bars = {g.attrs["data-metric"] for g in page.all("g", "row")}
    assert {"modality.speech.avg", "category.semantic_layer.avg"} <= bars


# The page's audio, written from records made here: each clip is CLIP bytes, the page sits in
# out/ and the clips in data/, both under the test's tmp folder (the runner's, as in CI).
CLIP = 1000


@pytest.fixture
def report(tmp_path: Path) -> RunReport:
    settings = make_settings(tmp_path, model="m", api_url="http://127.0.0.1:9/v1", data="mini",
                             judge_model="overlap")
    return RunReport(settings=settings, benchmarks=[], usage=TokenUsage(),
                     verdict=RunVerdict("held", True), samples=[])


def made(tmp_path: Path, name: str, outcome: Outcome = "passed", regressed: bool = False,
         question: str = "what is heard?", clip: bool = True) -> SampleRecord:
    """Sample ``name`` with its clip in data/ (none there unless ``clip``)."""
    audio = tmp_path / "data" / f"{name}.wav"
    if clip:
        audio.parent.mkdir(exist_ok=True)
        audio.write_bytes(name.encode()[:1] * CLIP)
    return SampleRecord(benchmark="b", sample_id=name, task="t", category="c",
                        nodeid=f"b::t::{name}", outcome=outcome, audio_path=str(audio),
                        change="regressed" if regressed else None, question=question)


def written(report: RunReport, records: list[SampleRecord], budget: int,
            tmp_path: Path) -> tuple[html.Written, Page]:
    page = html.Page(report=report, samples=records, benchmarks={}, lines={},
                     audio_limit=budget)
    done = html.write(page, tmp_path / "out" / "page.html")
    return done, read_page(done.path)


def embedded(page: Page) -> list[str]:
    """The samples whose clip the page embeds, in the page's order."""
    return [nodeid.rsplit("::", 1)[-1] for nodeid, row in page.samples().items()
            if any(a.attrs["src"].startswith("data:audio/") for a in page.inside(row, "audio"))]


def test_a_passing_run_s_page_embeds_every_clip_its_budget_allows(
        report: RunReport, tmp_path: Path) -> None:
    records = [made(tmp_path, name) for name in ("p0", "p1", "p2", "p3")]
    done, page = written(report, records, 4 * CLIP, tmp_path)
    assert embedded(page) == ["p0", "p1", "p2", "p3"]
    assert page.source.count('src="data:audio/wav;base64,') == 4
    assert done.line() == f"HTML report: {done.path} (4 clips embedded, 0.0 MB; 0 linked)"


@pytest.mark.parametrize(("clips", "expected"), [
    (1, ["r3"]),  # the page's first row, though x1 came first in the records
    (2, ["r3", "x1"]),  # exactly the attention clips: no other, skipped s2 on the page before x1
    (3, ["r3", "s2", "x1"]),  # then the rest in the page's order: skipped before passed
    (5, ["r3", "s2", "x1", "p0", "p4"]),
])
def test_the_clips_that_need_attention_take_the_budget_before_the_others(
        report: RunReport, tmp_path: Path, clips: int, expected: list[str]) -> None:
    records = [made(tmp_path, "p0"), made(tmp_path, "x1", "xpassed"),
               made(tmp_path, "s2", "skipped"), made(tmp_path, "r3", "failed", regressed=True),
               made(tmp_path, "p4")]
    done, page = written(report, records, clips * CLIP, tmp_path)
    assert [e.attrs["data-kind"] for e in page.all("details", "sample")] == [
        "regressed", "skipped", "xpassed", "passed", "passed"]
    assert embedded(page) == expected
    assert (done.embedded, done.embedded_bytes, done.linked) == (
        clips, clips * CLIP, len(records) - clips)


def test_no_path_on_the_page_is_the_runner_s_own(report: RunReport, tmp_path: Path) -> None:
    records = [made(tmp_path, "r0", "failed", regressed=True), made(tmp_path, "p1"),
               made(tmp_path, "p2", clip=False)]
    done, page = written(report, records, CLIP, tmp_path)
    assert (done.embedded, done.linked, done.missing) == (1, 1, 1)
    audio = page.all("audio")
    assert [a.attrs["data-path"] for a in audio] == ["../data/r0.wav", "../data/p1.wav"]
    assert not [a for a in audio if a.attrs["src"].startswith("/")]
    assert audio[1].attrs["src"] == "../data/p1.wav"
    assert str(tmp_path) not in page.source
    assert "audio not found: ../data/p2.wav" in page.source


def test_a_linked_clip_s_row_says_it_plays_only_beside_the_data(
        report: RunReport, tmp_path: Path) -> None:
    _, page = written(report, [made(tmp_path, "p0")], CLIP - 1, tmp_path)
    row = "".join(page.samples()["b::t::p0"].text)
    assert ("audio linked, not embedded (beyond the page's audio limit): it plays only beside "
            "the data, at ../data/p0.wav") in row


def test_a_sample_s_text_cannot_stand_in_for_a_player(report: RunReport, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not audio")
    hostile = f'<audiobench-clip ["{secret}", 9]\n'
    records = [made(tmp_path, "p0", question=hostile + "said"), made(tmp_path, "p1")]
    done, page = written(report, records, 10 * CLIP, tmp_path)
    assert (done.embedded, done.linked) == (2, 0)
    assert len(page.all("audio")) == 2
    assert base64.b64encode(b"not audio").decode() not in page.source
    assert hostile in "".join(page.samples()["b::t::p0"].text)  # shown as text


def test_history_s_rows_embed_any_outcome_s_clip_while_the_budget_lasts(
        tmp_path: Path) -> None:
    audio, done = html.audio_budget(tmp_path / "out" / "history.html", CLIP)
    first = html.sample_row(made(tmp_path, "p0"), SampleView(), audio)
    second = html.sample_row(made(tmp_path, "p1"), SampleView(), audio)
    assert 'src="data:audio/wav;base64,' in first and 'data-path="../data/p0.wav"' in first
    assert 'src="../data/p1.wav"' in second and "plays only beside the data" in second
    assert done.line() == (f"HTML report: {tmp_path / 'out' / 'history.html'} "
                           "(1 clips embedded, 0.0 MB; 1 linked)")


def test_pytest_html_s_rows_link_their_clip_relative_to_its_report(tmp_path: Path) -> None:
    extra = html.item_extra(made(tmp_path, "p0"), SampleView(), (None, None), tmp_path / "out")
    assert 'src="../data/p0.wav" data-path="../data/p0.wav"' in extra
    assert str(tmp_path) not in extra and "data:audio" not in extra
