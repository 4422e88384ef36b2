"""AIR-Bench Chat: the release layout, its records, the model request and the judge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.benchmarks.air_bench_chat import NAME
from pytest_audiobench.benchmarks.air_bench_chat.data import _first_per_task, _sample, read_records
from pytest_audiobench.benchmarks.air_bench_chat.judge import (
    ChatVerdict,
    PassVerdict,
    judge_prompts,
    judge_sample,
)
from pytest_audiobench.benchmarks.air_bench_chat.scoring import (
    CATEGORIES,
    chat_metrics,
)
from pytest_audiobench.benchmarks.asking import ask_model
from pytest_audiobench.benchmarks.base import Runtime
from pytest_audiobench.benchmarks.release import mini_root
from pytest_audiobench.benchmarks.reporting import text_field
from pytest_audiobench.benchmarks.sample import Sample
from pytest_audiobench.builtin.overlap import NOT_COMPARABLE
from pytest_audiobench.config.names import BENCHMARK_TASKS, MINI
from pytest_audiobench.config.settings import Settings
from pytest_audiobench.errors import DataError, JudgeError
from pytest_audiobench.outcome.metrics import Metric
from pytest_audiobench.outcome.records import ModelAnswer, SampleRecord, Verdict

META = Path("Chat") / "Chat_meta.json"


class AirBenchChat:
    """The generative half of AIR-Bench: open questions graded by an LLM judge."""

    name = NAME

    def locate(self, settings: Settings) -> Path:
        spec = settings.data[NAME]
        if spec == "huggingface":
            raise DataError("--audiobench-data huggingface: air_bench_chat is downloaded from "
                            "ModelScope; use 'modelscope' or a local release root")
        if spec == MINI:
            return mini_root(NAME)
        if spec != "modelscope":
            return Path(spec)
        from pytest_audiobench.hub.download import DownloadError, download_air_bench_chat

        tasks = [t for t in settings.tasks if t in BENCHMARK_TASKS[NAME]] or list(
            BENCHMARK_TASKS[NAME])
        try:
            return download_air_bench_chat(tasks, settings.cache_dir / "modelscope")
        except DownloadError as exc:
            raise DataError(f"--audiobench-data modelscope: {exc}") from exc

    def load(self, root: Path, settings: Settings) -> list[Sample]:
        records = read_records(root)
        wanted = set(settings.tasks) & set(BENCHMARK_TASKS[NAME]) or set(BENCHMARK_TASKS[NAME])
        chosen = sorted((r for r in records if r.task_name in wanted), key=lambda r: r.uniq_id)
        if settings.limit is not None:
            chosen = _first_per_task(chosen, settings.limit)
        return [_sample(root, record) for record in chosen]

    def prompt(self, sample: Sample) -> str:
        return sample.question  # zero-shot, the question alone

    def judge_calls(self, sample: Sample, answer: str | None,
                    runtime: Runtime) -> tuple[int, int, bool]:
        judge = runtime.settings.judge
        assert judge is not None and runtime.judge is not None
        assert runtime.judge_template is not None
        if answer is None:
            return (2 if judge.swap else 1), 0, False
        requests = judge_prompts(runtime.judge_template, sample.context, sample.question,
                                 sample.reference, answer)
        asked = list(requests.values()) if judge.swap else [requests["reference_first"]]
        hits = sum(runtime.judge.cached(messages, fingerprint=fingerprint) is not None
                   for messages, fingerprint in asked)
        return len(asked), hits, False

    async def answer(self, sample: Sample, runtime: Runtime, run: int) -> ModelAnswer:
        return await ask_model(sample, self.prompt(sample), runtime, run)

    async def grade(self, sample: Sample, answer: ModelAnswer, runtime: Runtime) -> ChatVerdict:
        judge = runtime.settings.judge
        # Options make a judge mandatory whenever air_bench_chat runs.
        assert judge is not None and runtime.judge is not None
        assert runtime.judge_template is not None
        verdict = await judge_sample(
            runtime.judge, runtime.judge_template, audio_description=sample.context,
            question=sample.question, reference=sample.reference, answer=answer.text,
            swap=judge.swap, retries=judge.parse_retries,
        )
        if verdict.model_score is None:
            raise JudgeError(
                f"judge {judge.endpoint.model} gave no reply of the form '<score> <score>' "
                f"(integers 0-10) in {judge.parse_retries + 1} attempt(s) per pass; replies: "
                + "; ".join(repr(out) for p in verdict.passes for out in p.outputs),
                verdict,
            )
        return verdict

    def failure(self, sample: Sample, answers: Sequence[ModelAnswer],
                verdicts: Sequence[Verdict], settings: Settings) -> str | None:
        graded = _chat(verdicts)
        score, reference = _mean_scores(graded)
        if score is None or score >= settings.sample_bar:
            return None
        runs = "" if len(graded) == 1 else f" over {len(graded)} runs"
        lines = [
            f"{NAME} {sample.task} {sample.id}: model score {score:g} is below the bar "
            f"{settings.sample_bar:g} (reference scored {reference:g}){runs}",
            text_field("question", sample.question),
            text_field("reference", sample.reference),
        ]
        for answer, verdict in zip(answers, graded, strict=True):
            label = "answer" if len(graded) == 1 else f"run {answer.run}"
            lines.append(text_field(label, answer.text))
            lines += [_pass_line(p) for p in verdict.passes]
        lines.append(f"audio: {sample.audio}")
        return "\n".join(lines)

    def properties(self, verdicts: Sequence[Verdict]) -> list[tuple[str, object]]:
        graded = _chat(verdicts)
        score, reference = _mean_scores(graded)
        return [
            ("audiobench_model_score", score),
            ("audiobench_reference_score", reference),
            ("audiobench_judge_outputs",
             " | ".join(o for v in graded for p in v.passes for o in p.outputs)),
        ]

    def metrics(self, records: Sequence[SampleRecord], run: int) -> dict[str, Metric]:
        graded = ((r.task, _chat(r.verdicts)[run]) for r in records if len(r.verdicts) > run)
        return chat_metrics(graded, prefix=NAME)

    def failed_means(self, settings: Settings) -> str:
        return f"below the bar {settings.sample_bar:g}"

    def notes(self, settings: Settings) -> list[str]:
        # The judge and its protocol are named in the summary's first line; an offline
        # judge's numbers must not be read next to a leaderboard.
        if settings.judge is not None and settings.judge.offline:
            return [NOT_COMPARABLE]
        return []

    def finish(self, records: Sequence[SampleRecord], settings: Settings) -> list[str]:
        return []

    def headline(self) -> tuple[str, ...]:
        groups = (*CATEGORIES, "mixed", "average")
        return tuple(f"{NAME}.{group}.score" for group in groups)


def _chat(verdicts: Sequence[Verdict]) -> list[ChatVerdict]:
    return [v for v in verdicts if isinstance(v, ChatVerdict)]


def _mean_scores(verdicts: Sequence[ChatVerdict]) -> tuple[float | None, float | None]:
    scored = [v for v in verdicts if v.model_score is not None]
    if not scored:
        return None, None
    return (sum(v.model_score or 0 for v in scored) / len(scored),
            sum(v.reference_score or 0 for v in scored) / len(scored))


def _pass_line(judged: PassVerdict) -> str:
    who = ("reference is Assistant 1" if judged.order == "reference_first"
           else "model is Assistant 1")
    replies = " | ".join(repr(out) for out in judged.outputs)
    if not judged.parsed:
        return f"judge ({who}): no parseable reply: {replies}"
    return (f"judge ({who}): {replies} -> model {judged.model_score}, "
            f"reference {judged.reference_score}")
