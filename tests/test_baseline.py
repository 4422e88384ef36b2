"""Baseline files and the gate they define: paths, schema, row statuses, and rewriting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pytest import ExitCode

from pytest_audiobench.errors import BaselineError
from pytest_audiobench.gate.baseline import (
    Baseline,
    Provenance,
    Threshold,
    check_samples,
    from_run,
    load,
    load_samples,
    path_for,
    samples_path,
    whole,
)
from pytest_audiobench.gate.decision import (
    BaselineStatus,
    Decided,
    RunVerdict,
    exit_status,
    run_verdict,
)
from pytest_audiobench.gate.evaluation import Gate, GateRow, Measured, RowStatus, evaluate
from pytest_audiobench.gate.loaded import LoadedBaseline
from pytest_audiobench.gate.scope import LastWhole, Scope
from pytest_audiobench.gate.writing import write
from pytest_audiobench.outcome.lines import Linear, SampleLine, text_sha256
from pytest_audiobench.outcome.metrics import Metric
from tests.settings import make_settings

SPEECH = "air_bench_chat.speech.score"
SOUND = "air_bench_chat.sound.score"
SPEECH_WIN = "air_bench_chat.speech.win_rate"
JUDGE = "gpt-4-0125-preview"


def baseline(metrics: dict[str, tuple[float, float]], *, max_errors: int = 0,
             judge_model: str | None = JUDGE) -> Baseline:
    return Baseline(benchmark="air_bench_chat", model="m", judge_model=judge_model,
                    max_errors=max_errors,
                    metrics={k: Threshold(threshold=t, tolerance=tol)
                             for k, (t, tol) in metrics.items()})


def measured(**values: float) -> dict[str, Metric]:
    names = {"speech": SPEECH, "sound": SOUND, "speech_win": SPEECH_WIN}
    return {names[key]: Metric(value=v, n=10) for key, v in values.items()}


# --- path_for ---------------------------------------------------------------------------------

PATHS = [
    pytest.param("Qwen/Qwen2-Audio-7B-Instruct", "Qwen__Qwen2-Audio-7B-Instruct.json",
                 id="a_slash_becomes_a_double_underscore"),
    pytest.param("qwen2-audio", "qwen2-audio.json", id="a_plain_id_is_kept"),
    pytest.param("org/model:v1.5", "org__model__v1.5.json", id="a_colon_is_replaced_dots_kept"),
    pytest.param("a b\\c", "a__b__c.json", id="spaces_and_backslashes_are_replaced"),
    pytest.param("../../etc/passwd", "__..__etc__passwd.json",
                 id="a_climb_out_loses_its_slashes_and_stays_in_the_folder"),
    pytest.param(".hidden.", "hidden.json", id="leading_and_trailing_dots_are_stripped"),
]


@pytest.mark.parametrize(("model", "name"), PATHS)
def test_a_model_id_becomes_one_file_name_under_the_benchmark_folder(
        tmp_path: Path, model: str, name: str) -> None:
    path = path_for(tmp_path, "air_bench_chat", model)
    assert path == tmp_path / "air_bench_chat" / name
    assert path.parent == tmp_path / "air_bench_chat"


# --- load -------------------------------------------------------------------------------------

GOOD: dict[str, Any] = {
    "benchmark": "air_bench_chat", "model": "m", "judge_model": JUDGE, "max_errors": 2,
    "metrics": {SPEECH: {"threshold": 7.0, "tolerance": 0.2}, SOUND: {"threshold": 6.5}},
}


def write_json(path: Path, data: Any) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_missing_baseline_file_loads_as_none(tmp_path: Path) -> None:
    assert load(tmp_path / "air_bench_chat" / "m.json") is None


def test_a_valid_baseline_file_loads_with_defaults_filled(tmp_path: Path) -> None:
    loaded = load(write_json(tmp_path / "m.json", GOOD))
    assert loaded is not None
    assert loaded.max_errors == 2
    assert loaded.judge_model == JUDGE
    assert loaded.metrics[SPEECH] == Threshold(threshold=7.0, tolerance=0.2)
    assert loaded.metrics[SOUND] == Threshold(threshold=6.5, tolerance=0.0)


def test_a_baseline_without_judge_or_max_errors_takes_the_defaults(tmp_path: Path) -> None:
    data = {k: v for k, v in GOOD.items() if k not in ("judge_model", "max_errors")}
    loaded = load(write_json(tmp_path / "m.json", data))
    assert loaded is not None
    assert loaded.judge_model is None
    assert loaded.max_errors == 0


@pytest.mark.parametrize("text", [
    pytest.param("{not json", id="broken_json"),
    pytest.param("", id="an_empty_file"),
    pytest.param('{"metrics": {}', id="a_truncated_object"),
])
def test_a_baseline_that_is_not_json_is_an_error_naming_the_file(tmp_path: Path,
                                                                 text: str) -> None:
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BaselineError, match="not readable as JSON") as caught:
        load(path)
    assert str(path) in str(caught.value)


def test_a_baseline_that_is_not_utf8_is_an_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    path.write_bytes(b'{"model": "caf\xe9"}')
    with pytest.raises(BaselineError) as caught:
        load(path)
    assert str(path) in str(caught.value)


def with_changes(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


BAD_SCHEMA = [
    pytest.param(with_changes(metrics=None), "metrics: field required",
                 id="missing_metrics"),
    pytest.param(with_changes(metrics={SPEECH: {"threshold": 7.0, "tolerance": -0.1}}),
                 f"metrics.{SPEECH}.tolerance", id="a_negative_tolerance"),
    pytest.param(with_changes(owner="me"), "owner: extra inputs are not permitted",
                 id="an_unknown_top_level_key"),
    pytest.param(with_changes(metrics={SPEECH: {"threshold": 7.0, "tol": 0.1}}),
                 f"metrics.{SPEECH}.tol", id="an_unknown_key_in_a_threshold"),
    pytest.param(with_changes(metrics={SPEECH: {"threshold": "high"}}),
                 f"metrics.{SPEECH}.threshold", id="a_threshold_that_is_a_word"),
    pytest.param(with_changes(metrics={SPEECH: {"tolerance": 0.1}}),
                 f"metrics.{SPEECH}.threshold: field required", id="a_threshold_missing"),
    pytest.param(with_changes(max_errors=-1), "max_errors", id="negative_max_errors"),
    pytest.param([GOOD], "file: input should be a valid dictionary", id="a_list_not_an_object"),
]


@pytest.mark.parametrize(("data", "problem"), BAD_SCHEMA)
def test_a_baseline_of_the_wrong_schema_is_an_error_naming_the_file_and_the_field(
        tmp_path: Path, data: Any, problem: str) -> None:
    path = write_json(tmp_path / "m.json", data)
    with pytest.raises(BaselineError) as caught:
        load(path)
    message = str(caught.value)
    assert message.startswith(f"baseline {path}: ")
    assert problem in message
    assert "expected {benchmark, model, judge_model, max_errors" in message


@pytest.mark.parametrize("data", [
    pytest.param(with_changes(metrics={SPEECH: {"threshold": "7.0"}}),
                 id="a_threshold_that_is_a_numeric_string"),
    pytest.param(with_changes(metrics={SPEECH: {"threshold": True}}),
                 id="a_threshold_that_is_a_boolean"),
    pytest.param(with_changes(max_errors="2"), id="max_errors_as_a_string"),
])
def test_a_baseline_number_written_as_another_json_type_is_rejected(tmp_path: Path,
                                                                    data: Any) -> None:
    with pytest.raises(BaselineError):
        load(write_json(tmp_path / "m.json", data))


# --- evaluate ---------------------------------------------------------------------------------

STATUSES = [
    pytest.param(7.5, "above", id="above_the_threshold_is_above"),
    pytest.param(7.0, "above", id="at_the_threshold_is_above"),
    pytest.param(6.8, "above", id="exactly_threshold_minus_tolerance_is_above"),
    pytest.param(6.7999, "below", id="just_under_threshold_minus_tolerance_is_below"),
    pytest.param(0.0, "below", id="zero_is_below"),
]


@pytest.mark.parametrize(("value", "status"), STATUSES)
def test_a_metric_is_held_against_threshold_minus_tolerance(value: float, status: str) -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}), Measured(measured(speech=value), 0, JUDGE))
    assert [(row.metric, row.status) for row in gate.rows] == [(SPEECH, status)]
    assert gate.held is (status == "above")


def test_a_float_sum_that_lands_a_hair_under_the_limit_is_still_above() -> None:
    # 6.93 - 0.1 is 6.829999999999999 in floats; a value of 6.83 must not fail on that.
    gate = evaluate(baseline({SPEECH: (6.93, 0.1)}), Measured(measured(speech=6.83), 0, JUDGE))
    assert gate.rows[0].status == "above"


def test_a_gated_metric_this_run_did_not_measure_is_not_measured_and_fails() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2), SOUND: (6.0, 0.2)}),
                    Measured(measured(speech=7.5), 0, JUDGE))
    rows = {row.metric: row for row in gate.rows}
    assert rows[SOUND].status == "not measured"
    assert rows[SOUND].value is None and rows[SOUND].delta is None
    assert not gate.held


def test_a_measured_metric_the_baseline_does_not_gate_is_ignored() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}),
                    Measured(measured(speech=7.5, sound=0.0), 0, JUDGE))
    assert [row.metric for row in gate.rows] == [SPEECH]
    assert gate.held


def test_the_delta_is_the_value_minus_the_threshold() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}), Measured(measured(speech=6.5), 0, JUDGE))
    assert gate.rows[0].delta == pytest.approx(-0.5)


MISSING = [
    pytest.param(2, 2, None, True, id="missing_samples_at_the_baselines_allowance_hold"),
    pytest.param(3, 2, None, False, id="missing_samples_above_the_baselines_allowance_fail"),
    pytest.param(3, 2, 5, True, id="a_max_errors_argument_raises_the_allowance"),
    pytest.param(1, 2, 0, False, id="a_max_errors_argument_of_zero_overrides_the_baseline"),
    pytest.param(0, 0, None, True, id="none_missing_no_allowance_hold"),
]


@pytest.mark.parametrize(("missing", "in_file", "override", "held"), MISSING)
def test_the_allowance_of_missing_samples_comes_from_the_argument_else_the_baseline(
        missing: int, in_file: int, override: int | None, held: bool) -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}, max_errors=in_file),
                    Measured(measured(speech=7.0), missing, JUDGE), allowed=override)
    assert gate.allowed == (in_file if override is None else override)
    assert gate.held is held


def test_a_baseline_from_another_judge_does_not_hold_and_names_both_judges() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}),
                    Measured(measured(speech=9.0), 0, "gpt-4o-mini"))
    assert not gate.held
    assert gate.judge_mismatch is not None
    assert JUDGE in gate.judge_mismatch and "gpt-4o-mini" in gate.judge_mismatch
    assert gate.judge_mismatch in gate.reasons()


def test_a_baseline_without_a_judge_is_held_whatever_the_judge() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}, judge_model=None),
                    Measured(measured(speech=7.0), 0, "any-judge"))
    assert gate.judge_mismatch is None
    assert gate.held


def test_a_baseline_with_no_metrics_holds_on_missing_samples_alone() -> None:
    assert evaluate(baseline({}), Measured({}, 0, JUDGE)).held
    assert not evaluate(baseline({}), Measured({}, 1, JUDGE)).held


# --- reasons ----------------------------------------------------------------------------------


def test_a_held_gate_gives_no_reasons() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2)}), Measured(measured(speech=7.0), 0, JUDGE))
    assert gate.reasons() == []


def test_the_reasons_name_each_failing_metric_the_missing_samples_and_the_judge() -> None:
    gate = evaluate(baseline({SPEECH: (7.0, 0.2), SOUND: (6.5, 0.25), SPEECH_WIN: (0.5, 0.02)}),
                    Measured(measured(speech=6.7, speech_win=0.6), 4, "other-judge"), allowed=1)
    assert gate.reasons() == [
        f"{SPEECH} below (6.700 < 7 - 0.2)",
        f"{SOUND} not measured",
        "4 samples without a score, 1 allowed",
        f"baseline judged by {JUDGE}, this run by other-judge: scores are not comparable",
    ]


def test_a_gate_built_by_hand_reports_below_rows_without_a_value_plainly() -> None:
    gate = Gate(rows=[GateRow(metric=SPEECH, value=None, threshold=7.0, tolerance=0.0,
                              status="below")], missing=0, allowed=0)
    assert gate.reasons() == [f"{SPEECH} below"]


def NO_LINEAR(metric: str) -> Linear | None:
    """No metric's range known: a win rate is taken for a share, the rest for scores."""
    return None


# --- from_run ---------------------------------------------------------------------------------


def test_a_first_baseline_takes_this_runs_values_and_the_given_tolerance() -> None:
    made = from_run(Provenance("air_bench_chat", "m", JUDGE),
                    measured(speech=7.123456, sound=6.5), (SPEECH, SOUND), NO_LINEAR, None, 0.3)
    assert made.metrics == {SPEECH: Threshold(threshold=7.1234, tolerance=0.3),
                            SOUND: Threshold(threshold=6.5, tolerance=0.3)}
    assert made.judge_model == JUDGE
    assert made.max_errors == 0
    assert (made.benchmark, made.model) == ("air_bench_chat", "m")


def test_a_win_rate_gets_a_tenth_of_the_score_tolerance() -> None:
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), measured(speech_win=0.61),
                    (SPEECH_WIN,), NO_LINEAR, None, 0.2)
    assert made.metrics[SPEECH_WIN] == Threshold(threshold=0.61, tolerance=0.02)


@pytest.mark.parametrize(("span", "tolerance"), [(100.0, 2.0), (1.0, 0.02), (10.0, 0.2)])
def test_a_new_metrics_tolerance_is_scaled_to_its_range(span: float, tolerance: float) -> None:
    # --audiobench-tolerance is in points of a 0-10 score: 0.2 of it is 2 points of an
    # accuracy in percent (0-100) and 0.02 of a share (0-1).
    spanning = Linear(value="v", by="task", weights={"t": 1.0}, low=0.0, high=span)
    made = from_run(Provenance("mmar", "m"), measured(speech=61.5), (SPEECH,),
                    lambda metric: spanning, None, 0.2)
    assert made.metrics[SPEECH] == Threshold(threshold=61.5, tolerance=tolerance)


def test_rewriting_keeps_the_previous_tolerances_and_error_allowance() -> None:
    previous = baseline({SPEECH: (7.0, 0.5), SPEECH_WIN: (0.4, 0.07)}, max_errors=3)
    made = from_run(Provenance("air_bench_chat", "m", "new-judge"),
                    measured(speech=7.4, speech_win=0.5), (SPEECH, SPEECH_WIN), NO_LINEAR,
                    previous, 0.2)
    assert made.metrics[SPEECH] == Threshold(threshold=7.4, tolerance=0.5)
    assert made.metrics[SPEECH_WIN] == Threshold(threshold=0.5, tolerance=0.07)
    assert made.max_errors == 3
    assert made.judge_model == "new-judge"


def test_rewriting_keeps_previous_metrics_this_run_did_not_measure() -> None:
    previous = baseline({SOUND: (6.0, 0.4)})
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), measured(speech=7.0), (SPEECH,),
                    NO_LINEAR, previous, 0.2)
    assert made.metrics == {SPEECH: Threshold(threshold=7.0, tolerance=0.2),
                            SOUND: Threshold(threshold=6.0, tolerance=0.4)}


def test_rewriting_updates_a_previously_gated_metric_not_in_the_headline() -> None:
    previous = baseline({SOUND: (6.0, 0.4)})
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), measured(speech=7.0, sound=6.6),
                    (SPEECH,), NO_LINEAR, previous, 0.2)
    assert made.metrics[SOUND] == Threshold(threshold=6.6, tolerance=0.4)


def test_a_headline_metric_this_run_did_not_measure_is_left_out() -> None:
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), measured(speech=7.0),
                    (SPEECH, SOUND), NO_LINEAR, None, 0.2)
    assert set(made.metrics) == {SPEECH}


def test_a_baseline_written_from_a_run_holds_against_that_run_when_rounding_goes_down() -> None:
    metrics = measured(speech=7.123412)
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), metrics, (SPEECH,), NO_LINEAR,
                    None, 0.0)
    assert made.metrics[SPEECH].threshold == 7.1234
    assert evaluate(made, Measured(metrics, 0, JUDGE)).held


def test_a_baseline_written_from_a_run_holds_against_that_run() -> None:
    metrics = measured(speech=7.123456, sound=6.987654)
    made = from_run(Provenance("air_bench_chat", "m", JUDGE), metrics, (SPEECH, SOUND),
                    NO_LINEAR, None, 0.0)
    assert evaluate(made, Measured(metrics, 0, JUDGE)).held


# --- write / load -----------------------------------------------------------------------------


def test_write_then_load_round_trips(tmp_path: Path) -> None:
    original = baseline({SPEECH: (7.1235, 0.2), SPEECH_WIN: (0.55, 0.02)}, max_errors=4)
    path = path_for(tmp_path, "air_bench_chat", "Qwen/Qwen2-Audio-7B-Instruct")
    write(path, original)
    assert path.is_file()
    assert path.read_text(encoding="utf-8").endswith("}\n")
    loaded = load(path)
    assert loaded is not None and loaded.written is not None  # stamped when written
    assert loaded.model_copy(update={"written": None}) == original


def test_write_replaces_an_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "air_bench_chat" / "m.json"
    write(path, baseline({SPEECH: (7.0, 0.2)}))
    write(path, baseline({SOUND: (6.0, 0.1)}, judge_model=None))
    loaded = load(path)
    assert loaded is not None
    assert set(loaded.metrics) == {SOUND}
    assert loaded.judge_model is None


def _line(nodeid: str, answer: str) -> SampleLine:
    return SampleLine(id=nodeid, cluster="c", groups={"task": "t"}, values={"score": 6.0},
                      draws=[6.0, 7.0], failed=False, answer_sha256=text_sha256(answer),
                      answer=answer, replies=[f"judged {answer}"])


def test_sample_lines_are_held_without_their_texts_and_read_whole_when_shown(
        tmp_path: Path) -> None:
    path = tmp_path / "air_bench_chat" / "m.json"
    base = Baseline(benchmark="air_bench_chat", model="m", metrics={})
    write(path, base, [_line("a::1", "first answer"), _line("a::2", "second answer")])
    lines = load_samples(path)
    assert list(lines) == ["a::1", "a::2"] and lines["a::2"].draws == [6.0, 7.0]
    assert (lines["a::2"].answer, lines["a::2"].replies) == ("", [])  # the gate needs neither
    assert whole(lines, "a::2") == _line("a::2", "second answer")
    assert whole(lines, "a::3") is None
    # An update written meanwhile replaces the file; the lines loaded still read the old one.
    write(path, base, [_line("a::1", "rewritten")])
    assert whole(lines, "a::1") == _line("a::1", "first answer")
    assert whole(load_samples(path), "a::1") == _line("a::1", "rewritten")
    assert whole({"a::1": _line("a::1", "x")}, "a::1") == _line("a::1", "x")  # whole already
    assert sorted(p.name for p in path.parent.iterdir()) == ["m.json", "m.samples.jsonl"]


def test_a_bad_sample_line_names_the_file_and_line_number(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    (tmp_path / "m.samples.jsonl").write_text(
        _line("a::1", "ok").model_dump_json() + "\n{not json\n", encoding="utf-8")
    with pytest.raises(BaselineError, match=r"m\.samples\.jsonl line 2"):
        load_samples(path)


def test_a_baseline_s_digest_tells_a_rewritten_file_from_the_one_before() -> None:
    def loaded(threshold: float | None) -> LoadedBaseline:
        file = None if threshold is None else Baseline(
            benchmark="b", model="m", metrics={"b.score": Threshold(threshold=threshold)})
        return LoadedBaseline.of(Path("b/m.json"), file, {}, 0.95)

    first, same, rewritten = loaded(7.5), loaded(7.5), loaded(7.25)
    assert first.digest is not None and len(first.digest) == 16
    assert first.digest == same.digest != rewritten.digest
    assert loaded(None).digest is None


def _gate(*statuses: RowStatus) -> Gate:
    rows = [GateRow(metric=f"m{i}", value=1.0, threshold=1.0, tolerance=0.0, status=s)
            for i, s in enumerate(statuses)]
    return Gate(rows=rows, missing=0, allowed=0)


def _decided(*rows: RowStatus, status: BaselineStatus = "applied", failed: int = 0,
             regressed: int = 0, missing: int = 0, name: str = "b") -> Decided:
    gate = _gate(*rows) if rows else None
    return Decided(name, status, gate, failed, regressed, missing)


WHOLE, RERUN = Scope(), Scope(rerun="--lf: a rerun")
STOPPED = Scope(stopped="stopping after 1 failures; 3 of 4 selected sample(s) not run")
NARROWED = Scope(narrowed="-k left 2 of 4 out")
LAST_HELD = LastWhole(run_id="r1", started="2026-12-03T10:00:00+00:00", held=True)
LAST_FAILED = LAST_HELD.model_copy(update={"held": False})


@pytest.mark.parametrize(("decided", "scope", "kind", "held"), [
    # A whole run: the gate decides; samples that regressed do not fail a gate that held.
    ([_decided("ok", "too small", regressed=3, failed=3)], WHOLE, "held", True),
    ([_decided("ok"), _decided("regressed", regressed=1)], WHOLE, "failed", False),
    ([_decided(status="refused")], WHOLE, "failed", False),
    ([_decided("ok"), _decided(status="missing")], WHOLE, "ungated", True),
    # It tested no metric: blind, its items decide (none failed: it holds).
    ([_decided("too small", "not selected", regressed=2, failed=2)], WHOLE, "blind", False),
    ([_decided("too small", "judge changed")], WHOLE, "blind", True),
    # can't tell is tested in a whole run, and told nothing in a narrowed one.
    ([_decided("can't tell", regressed=2, failed=2)], WHOLE, "held", True),
    ([_decided("can't tell", regressed=2, failed=2)], NARROWED, "blind", False),
    ([_decided("can't tell", "worse within margin", regressed=2, failed=2)], NARROWED, "held",
     True),
    # A rerun: its items, and the last whole run it cannot overturn.
    ([_decided(status="partial", failed=1, regressed=1)], RERUN, "partial", False),
    ([_decided(status="partial")], RERUN, "partial", True),
    ([_decided(status="partial")], RERUN.model_copy(update={"last_whole": LAST_FAILED}),
     "partial", False),
    ([_decided(status="partial")], RERUN.model_copy(update={"last_whole": LAST_HELD}),
     "partial", True),
    ([_decided(status="partial", missing=1)], RERUN, "partial", False),
    # Stopped early: never a pass, with a baseline or without (an endpoint that stopped
    # answering before any sample ran is no first run to pass: it was "ungated" before).
    ([_decided(status="partial")], STOPPED, "partial", False),
    ([_decided(status="missing", missing=14)], STOPPED, "partial", False),
    # A rerun without a baseline: its items decide.
    ([_decided(status="missing", failed=1)], RERUN, "partial", False),
    ([_decided(status="missing")], RERUN, "partial", True),
    # A refused baseline fails before the scope says anything.
    ([_decided(status="refused")], RERUN, "failed", False),
])
def test_one_function_decides_whether_the_run_held(
        decided: list[Decided], scope: Scope, kind: str, held: bool) -> None:
    decision = run_verdict(decided, scope, sharded=False)
    assert (decision.kind, decision.held) == (kind, held)


def test_the_verdict_names_the_benchmarks_that_fail_and_counts_the_metrics_told() -> None:
    """What every renderer reads of the verdict, decided with it (issue 54): the failing
    benchmarks in the run's order, and of the applied gates' metrics those told from chance
    (held or failed, not can't tell, too small, not selected, judged by another judge)."""
    decided = [_decided("ok", "can't tell", "too small", name="a"),
               _decided("regressed", "judge changed", name="b"),
               _decided(status="refused", name="c"),
               _decided("worse within margin", status="written", name="d")]
    assert run_verdict(decided, WHOLE, sharded=False) == RunVerdict(
        "failed", False, ("b", "c"), 2, 5)
    quiet = [_decided("can't tell", "too small", name="a"), _decided(status="missing")]
    assert run_verdict(quiet, WHOLE, sharded=False) == RunVerdict("ungated", True, (), 0, 2)
    assert run_verdict([_decided("ok", name="a")], WHOLE, sharded=False) == RunVerdict(
        "held", True, (), 1, 1)


def test_a_shard_never_decides() -> None:
    failed = [_decided("regressed", regressed=4, failed=4)]
    assert run_verdict(failed, STOPPED, sharded=True) == RunVerdict("shard", True)


@pytest.mark.parametrize(("verdict", "status", "changes", "expected"), [
    # Held: 0, even with failed samples; pytest's status when something is ungated.
    (RunVerdict("held", True), ExitCode.TESTS_FAILED, {}, ExitCode.OK),
    (RunVerdict("ungated", True), ExitCode.TESTS_FAILED, {}, ExitCode.TESTS_FAILED),
    (RunVerdict("ungated", True), ExitCode.OK, {}, ExitCode.OK),
    (RunVerdict("failed", False), ExitCode.OK, {}, ExitCode.TESTS_FAILED),
    (RunVerdict("held", True), ExitCode.TESTS_FAILED, {"fail_on_samples": True},
     ExitCode.TESTS_FAILED),
    # A blind gate and a partial run that hold leave pytest's status as it is.
    (RunVerdict("blind", True), ExitCode.OK, {}, ExitCode.OK),
    (RunVerdict("blind", False), ExitCode.TESTS_FAILED, {}, ExitCode.TESTS_FAILED),
    (RunVerdict("partial", True), ExitCode.OK, {}, ExitCode.OK),
    (RunVerdict("partial", False), ExitCode.OK, {}, ExitCode.TESTS_FAILED),
    # Other tests failed; an output missing; an interruption; a shard.
    (RunVerdict("held", True), ExitCode.OK, {"foreign": 1}, ExitCode.TESTS_FAILED),
    (RunVerdict("failed", False), ExitCode.OK, {"unwritten": 1}, ExitCode.INTERNAL_ERROR),
    (RunVerdict("partial", False), ExitCode.INTERRUPTED, {"unwritten": 1},
     ExitCode.INTERRUPTED),
    (RunVerdict("shard", True), ExitCode.TESTS_FAILED, {"shard": (1, 2)}, ExitCode.OK),
    (RunVerdict("shard", True), ExitCode.OK, {"shard": (1, 2), "foreign": 2},
     ExitCode.TESTS_FAILED),
])
def test_the_exit_status_of_a_run_and_of_a_merge_is_one_rule(
        verdict: RunVerdict, status: ExitCode, changes: dict[str, Any],
        expected: ExitCode, tmp_path: Path) -> None:
    shard = changes.get("shard")
    settings = make_settings(tmp_path, model="random", data="mini", judge_model="overlap",
                             shard=shard,
                             fail_on_samples=changes.get("fail_on_samples", False),
                             report=Path("r.json") if shard else None)
    assert exit_status(settings, verdict, status, changes.get("foreign", 0),
                       changes.get("unwritten", 0)) == expected


class _CountedLines(dict[str, SampleLine]):
    """Lines that count how often all of them are looked through."""

    looked = 0

    def values(self) -> Any:
        type(self).looked += 1
        return super().values()


def test_whether_items_hold_against_their_lines_is_decided_once_not_per_item() -> None:
    # A rule-graded baseline (no line judged) is looked through to the end: asked by every
    # item, that was quadratic in the samples (65 s instead of 35 s at 9,000 MMAU items).
    lines = _CountedLines({f"a::{i}": _line(f"a::{i}", "x").model_copy(update={"draws": [6.0]})
                           for i in range(3)})
    loaded = LoadedBaseline(Path("b.json"), None, lines, None, 0.95)
    assert [loaded.holds_items for _ in range(5)] == [True] * 5
    assert _CountedLines.looked == 1
    judged = {k: v.model_copy(update={"judged": True}) for k, v in lines.items()}
    assert LoadedBaseline(Path("b.json"), None, judged, None, 0.95).holds_items is False


# --- the per-sample file is part of the baseline ------------------------------------------------


def _written_with_lines(tmp_path: Path) -> Path:
    path = tmp_path / "air_bench_chat" / "m.json"
    write(path, baseline({SPEECH: (7.0, 0.2)}),
          [_line("a::1", "first answer"), _line("a::2", "second answer")])
    return path


def _checked(path: Path) -> None:
    lines = load_samples(path)
    try:
        check_samples(path, load(path), lines)
    finally:
        lines.close()


def test_a_baseline_written_with_lines_names_them_and_holds_with_them(tmp_path: Path) -> None:
    path = _written_with_lines(tmp_path)
    named = json.loads(path.read_text(encoding="utf-8"))["samples"]
    assert (named["file"], named["lines"]) == ("m.samples.jsonl", 2)
    assert len(named["sha256"]) == 16
    _checked(path)  # whole: nothing to say


def test_a_baseline_that_lost_its_per_sample_file_is_refused_naming_the_file(
        tmp_path: Path) -> None:
    path = _written_with_lines(tmp_path)
    samples_path(path).unlink()
    with pytest.raises(BaselineError) as raised:
        _checked(path)
    said = str(raised.value)
    assert said.startswith(f"baseline {path}: its per-sample file {samples_path(path)} is "
                           "missing: the baseline was written with it (2 lines)")
    assert "never by its thresholds alone" in said and "\n" not in said


def test_another_per_sample_file_beside_a_baseline_is_refused(tmp_path: Path) -> None:
    path = _written_with_lines(tmp_path)
    lines = samples_path(path)
    lines.write_text(lines.read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    with pytest.raises(BaselineError, match=r"holds 1 lines \(sha256 \w+\) where the baseline "
                                            r"was written with 2 \(sha256 \w+\)"):
        _checked(path)


def test_a_checkout_that_turns_line_endings_into_crlf_keeps_the_file_whole(
        tmp_path: Path) -> None:
    path = _written_with_lines(tmp_path)
    lines = samples_path(path)
    lines.write_bytes(lines.read_bytes().replace(b"\n", b"\r\n"))
    _checked(path)


def test_a_baseline_that_names_no_per_sample_file_is_held_by_its_thresholds(
        tmp_path: Path) -> None:
    # A published baseline, or one a team wrote by hand: no file named, none expected.
    path = write_json(tmp_path / "m.json", GOOD)
    assert load(path) is not None and load(path).samples is None  # type: ignore[union-attr]
    _checked(path)
    # One written before the file was named in it still pairs with the lines beside it.
    legacy = _written_with_lines(tmp_path / "legacy")
    raw = json.loads(legacy.read_text(encoding="utf-8"))
    del raw["samples"]
    write_json(legacy, raw)
    _checked(legacy)
