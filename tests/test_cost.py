"""What a run costs at --audiobench-price: the prices read from the flag, the dollars of hand
tables (paid, cached, unpriced, a price below a cent), and through the plugin the summary,
the JSON report, the page and the dry run's estimate, with and without xdist. The fake
server counts a request's words as its prompt tokens and a reply's words as its completion
tokens."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

import pytest

from pytest_audiobench.config.prices import Price, prices
from pytest_audiobench.outcome.cost import Planned, Spent, cost, estimate_lines, money
from pytest_audiobench.transport.types import Usage
from tests.conftest import JUDGE, MODEL, XDIST_MODES, Servers
from tests.fakes.openai_server import FakeOpenAIServer, Scripted
from tests.test_head_to_head import RIVAL, _against
from tests.test_shard import _merge


def test_prices_are_read_per_model_id_even_one_with_slashes() -> None:
    assert prices("Qwen/Qwen2-Audio-7B-Instruct=0.2/0.6, gpt-4o=2.5/10") == (
        Price(model="Qwen/Qwen2-Audio-7B-Instruct", prompt=0.2, completion=0.6),
        Price(model="gpt-4o", prompt=2.5, completion=10.0))


@pytest.mark.parametrize(("given", "said"), [
    ("gpt-4o", "expected MODEL=IN/OUT (dollars per million prompt and completion tokens), like "
               "gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; got 'gpt-4o'"),
    ("gpt-4o=2.5", "expected MODEL=IN/OUT (dollars per million prompt and completion tokens), "
                   "like gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; got 'gpt-4o=2.5'"),
    ("=1/2", "expected MODEL=IN/OUT (dollars per million prompt and completion tokens), like "
             "gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; got '=1/2'"),
    ("m=-1/2", "expected MODEL=IN/OUT (dollars per million prompt and completion tokens), like "
               "gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; got 'm=-1/2'"),
    ("m=1/nan", "expected MODEL=IN/OUT (dollars per million prompt and completion tokens), "
                "like gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; got 'm=1/nan'"),
    ("m=1/2,m=3/4", "m is priced twice in 'm=1/2,m=3/4'"),
    (" , ", "expected MODEL=IN/OUT, like gpt-4o-audio-preview=2.5/10,gpt-4o-2024-08-06=2.5/10; "
            "got ' , '"),
])
def test_a_price_that_cannot_be_read_says_what_was_expected(given: str, said: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError) as caught:
        prices(given)
    assert str(caught.value) == said


def test_the_cost_of_a_hand_table_paid_cached_and_unpriced() -> None:
    # 200,000 prompt tokens at $2.5 and 50,000 completion tokens at $10 per million: $0.50 +
    # $0.50; the cached 100,000 prompt tokens would have cost $0.25; the judge's 40,000 and
    # 10,000 at $0.15 and $0.6: $0.006 + $0.006 = $0.012.
    spent = {"m": Spent(role="model", sent=Usage(prompt_tokens=200_000, completion_tokens=50_000),
                        cached=Usage(prompt_tokens=100_000)),
             "j": Spent(role="judge", sent=Usage(prompt_tokens=40_000, completion_tokens=10_000)),
             "b": Spent(role="baseline model", sent=Usage(prompt_tokens=1))}
    found = cost(spent, [Price(model="m", prompt=2.5, completion=10),
                         Price(model="j", prompt=0.15, completion=0.6)])
    assert found is not None
    assert [(i.model, i.paid, i.cached) for i in found.items] == [
        ("m", 1.0, 0.25), ("j", pytest.approx(0.012), 0.0)]
    assert found.line() == ("cost: $1.01 for the tokens sent (model m $1.00, judge j $0.01); "
                            "the replies from the cache would have cost $0.25 more; no price "
                            "for b (--audiobench-price)")
    assert cost(spent, []) is None


def test_a_model_that_reported_no_tokens_costs_nothing_and_is_not_called_unpriced() -> None:
    found = cost({"m": Spent(role="model"), "j": Spent(role="judge")},
                 [Price(model="j", prompt=1, completion=1)])
    assert found is not None and found.line() == "cost: $0.00 for the tokens sent (judge j $0.00)"


@pytest.mark.parametrize(("amount", "shown"), [
    (0.0, "$0.00"), (0.004999, "$0.0050"), (0.0049, "$0.0049"), (0.00004, "$0.000040"),
    (0.005, "$0.01"), (0.015, "$0.02"), (1234.5, "$1234.50")])
def test_money_shows_cents_and_two_digits_below_half_a_cent(amount: float, shown: str) -> None:
    assert money(amount) == shown


def test_the_dry_run_estimate_of_a_hand_table() -> None:
    # 8 calls at a mean of (4,000 + 2,000) / 4 = 1,500 prompt and 100 completion tokens, at
    # $2 and $8 per million: 8 x (0.003 + 0.0008) = $0.0304.
    planned = {"m": Planned(role="model", to_send=8, cached_replies=4,
                            cached=Usage(prompt_tokens=6_000, completion_tokens=400)),
               "j": Planned(role="judge", to_send=3, bound=True),
               "k": Planned(role="baseline model", to_send=0),
               "u": Planned(role="judge", to_send=5),
               "overlap": Planned(role="judge", to_send=7, free=True)}
    listed = [Price(model=m, prompt=2, completion=8) for m in ("m", "j", "k")]
    assert estimate_lines(planned, listed) == [
        "cost of the calls to the model m: about $0.03 (8 x 1500 prompt + 100 completion "
        "tokens, the mean of 4 replies in the cache)",
        "cost of the calls to the judge j: unknown, no reply of it in the cache to measure its "
        "tokens from (a run of a few samples first, e.g. --audiobench-limit 1, caches some)",
        "cost of the calls to the baseline model k: $0.00, nothing to send",
        "cost: no price for u (--audiobench-price)"]
    assert estimate_lines(planned, []) == []
    # A model or judge that runs here costs nothing, priced or not.
    free = [Price(model="overlap", prompt=2, completion=8)]
    assert estimate_lines({"overlap": planned["overlap"]}, free) == [
        "cost of the calls to the judge overlap: $0.00, it runs in this process"]


PRICE = f"--audiobench-price={MODEL}=1000/2000,{JUDGE}=10/20"
"""Dear enough that the fake server's few tokens show in cents."""


def _dollars(usage: dict[str, Any], per_prompt: float, per_completion: float) -> float:
    return (usage["prompt_tokens"] * per_prompt + usage["completion_tokens"] * per_completion) / 1e6


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_summary_report_and_page_say_what_was_paid_and_what_the_cache_saved(
        run_bench: Any, servers: Servers, pytester: pytest.Pytester, xdist: list[str]) -> None:
    first = run_bench(PRICE, "--audiobench-html=page.html", xdist=xdist)
    assert first.result.ret == 0
    usage = first.report["usage"]
    paid = {MODEL: _dollars(usage["model"], 1000, 2000), JUDGE: _dollars(usage["judge"], 10, 20)}
    assert usage["model_sent"] == usage["model"] and usage["judge_sent"] == usage["judge"]
    items = {i["model"]: i for i in usage["cost"]["items"]}
    assert {m: i["paid"] for m, i in items.items()} == pytest.approx(paid)
    line = (f"cost: {money(sum(paid.values()))} for the tokens sent (model {MODEL} "
            f"{money(paid[MODEL])}, judge {JUDGE} {money(paid[JUDGE])})")
    first.result.stdout.fnmatch_lines([line])
    page = (pytester.path / "page.html").read_text(encoding="utf-8")
    assert f"<dt>cost</dt><dd>{line.removeprefix('cost: ')}</dd>" in page
    # Every reply from the cache: nothing paid, and the cache saved what the first run paid.
    again = run_bench(PRICE, "--audiobench-reuse", "last", xdist=xdist)
    assert (servers.model.count(), servers.judge.count()) == (16, 32)
    again.result.stdout.fnmatch_lines([
        f"cost: $0.00 for the tokens sent (model {MODEL} $0.00, judge {JUDGE} $0.00); the "
        f"replies from the cache would have cost {money(sum(paid.values()))} more"])


@pytest.mark.parametrize("xdist", XDIST_MODES)
def test_the_dry_run_prices_the_calls_to_send_from_the_cached_replies(
        run_bench: Any, servers: Servers, xdist: list[str]) -> None:
    dry = run_bench(PRICE, "--audiobench-dry-run", xdist=xdist)
    dry.result.stdout.fnmatch_lines([
        f"cost of the calls to the model {MODEL}: unknown, no reply of it in the cache to "
        "measure its tokens from (a run of a few samples first, e.g. --audiobench-limit 1, "
        "caches some)"])
    half = run_bench("--audiobench-tasks", "speech_QA,sound_QA,music_QA,speech_and_sound_QA")
    usage = half.report["usage"]
    model = {k: usage["model"][k] / 8 for k in ("prompt_tokens", "completion_tokens")}
    judge = {k: usage["judge"][k] / 16 for k in ("prompt_tokens", "completion_tokens")}
    again = run_bench(PRICE, "--audiobench-dry-run", "--audiobench-reuse", "last", xdist=xdist)
    assert (servers.model.count(), servers.judge.count()) == (8, 16)
    again.result.stdout.fnmatch_lines([
        f"cost of the calls to the model {MODEL}: about {money(8 * _dollars(model, 1000, 2000))}"
        f" (8 x {model['prompt_tokens']:.0f} prompt + {model['completion_tokens']:.0f} "
        "completion tokens, the mean of 8 replies in the cache)",
        f"cost of the calls to the judge {JUDGE}: about {money(16 * _dollars(judge, 10, 20))} "
        f"(16 x {judge['prompt_tokens']:.0f} prompt + {judge['completion_tokens']:.0f} "
        "completion tokens, the mean of 16 replies in the cache)"])


def test_after_a_limited_run_the_dry_run_of_the_whole_run_is_priced(
        run_bench: Any, servers: Servers) -> None:
    # The dry run the estimate recommends: a run of one sample a task, then the whole run's
    # estimate from those answers (another run's: measured, never served).
    limited = run_bench("--audiobench-limit", "1")
    usage = limited.report["usage"]
    model = {k: usage["model"][k] / 8 for k in ("prompt_tokens", "completion_tokens")}
    dry = run_bench(PRICE, "--audiobench-dry-run")
    out = dry.result.stdout.str()
    assert "model calls: 16 (0 in the cache, 16 to send)" in out
    assert (f"cost of the calls to the model {MODEL}: about "
            f"{money(16 * _dollars(model, 1000, 2000))} (16 x {model['prompt_tokens']:.0f} "
            f"prompt + {model['completion_tokens']:.0f} completion tokens, the mean of 8 replies "
            "in the cache)") in out
    assert servers.model.count() == 8


def test_an_offline_judge_needs_no_price(run_bench: Any, servers: Servers) -> None:
    run_bench("--audiobench-limit", "1", "--audiobench-judge-model", "overlap", judge=False)
    dry = run_bench(f"--audiobench-price={MODEL}=1000/2000", "--audiobench-dry-run",
                    "--audiobench-judge-model", "overlap", judge=False)
    out = dry.result.stdout.str()
    assert f"cost of the calls to the model {MODEL}: about " in out
    assert "no price for" not in out


def test_a_price_for_a_model_the_run_does_not_ask_is_a_usage_error(run_bench: Any) -> None:
    run = run_bench("--audiobench-price=audio-modle=1/2")
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    run.result.stderr.fnmatch_lines([
        "ERROR: --audiobench-price: audio-modle is not a model this run asks (it asks: model "
        f"{MODEL}, judge {JUDGE})"])
    assert "Traceback" not in run.result.stdout.str() + run.result.stderr.str()


@pytest.fixture
def rival() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Scripted("a good answer, at some length"), models=[RIVAL]) as server:
        yield server


def test_head_to_head_the_baseline_model_is_priced_apart_from_the_model(
        run_bench: Any, rival: FakeOpenAIServer) -> None:
    run = run_bench(*_against(rival), f"--audiobench-price={MODEL}=1000/2000,{RIVAL}=3000/4000")
    usage = run.report["usage"]
    # Each side in its own fields: the model's answers are 3 tokens, the baseline model's 6.
    own = usage["model"]
    assert usage["baseline_model"] == usage["baseline_model_sent"] and own["prompt_tokens"] > 0
    assert (own["completion_tokens"], usage["baseline_model"]["completion_tokens"]) == (
        3 * usage["model_requests"], 6 * usage["baseline_model_requests"])
    items = {i["model"]: (i["role"], i["paid"]) for i in usage["cost"]["items"]}
    assert items == {MODEL: ("model", pytest.approx(_dollars(own, 1000, 2000))),
                     RIVAL: ("baseline model", pytest.approx(
                         _dollars(usage["baseline_model_sent"], 3000, 4000)))}
    assert usage["cost"]["unpriced"] == [JUDGE]


def test_a_merge_of_shards_costs_what_its_shards_paid(
        run_bench: Any, pytester: pytest.Pytester) -> None:
    paid = []
    for k in (1, 2):
        path = pytester.path / f"shard-{k}.json"
        run_bench(PRICE, "--audiobench-shard", f"{k}/2", f"--audiobench-report={path}")
        paid.append(json.loads(path.read_text())["usage"]["cost"])
    merged = pytester.path / "merged.json"
    done = _merge(pytester.path / "shard-1.json", pytester.path / "shard-2.json", "--report",
                  merged, cwd=pytester.path)
    cost_of = json.loads(merged.read_text())["usage"]["cost"]
    assert {i["model"]: i["paid"] for i in cost_of["items"]} == pytest.approx(
        {m: sum(i["paid"] for c in paid for i in c["items"] if i["model"] == m)
         for m in (MODEL, JUDGE)})
    assert f"cost: {money(sum(i['paid'] for i in cost_of['items']))}" in done.stdout
