"""Big Bench Audio's fixed facts: its name, the two releases, their fields, its size and its
four categories. A leaf: the spec and every module of the benchmark read them from here."""

from __future__ import annotations

from typing import Literal, get_args

NAME = "big_bench_audio"
RELEASE = "Big Bench Audio (ArtificialAnalysis/big_bench_audio)"
"""1,000 spoken BIG-Bench Hard questions (MIT), 250 in each category, each judged CORRECT or
INCORRECT against its official answer."""
HUB_REPO = "fixie-ai/big_bench_audio"
"""The parquet copy (split ``train``) that carries the question's text: ``id``,
``category``, ``official_answer``, ``transcript``, ``audio`` (the clip's bytes inside)."""
ORIGINAL_REPO = "ArtificialAnalysis/big_bench_audio"
"""The original release: MP3 files and ``metadata.jsonl`` (``category``, ``official_answer``,
``file_name``, ``id``), without the question's text."""
SIZE = 1_000
CATEGORIES: tuple[str, ...] = ("formal_fallacies", "navigate", "object_counting",
                               "web_of_lies")
"""The categories, which are the tasks (``audiobench::big_bench_audio::<category>::<id>``)."""
METADATA = "metadata.jsonl"
"""The layout a run reads: one record a line (``id``, ``category``, ``official_answer``,
``file_name`` the clip's path relative to the folder, ``transcript``), the clips beside it;
the original release's file, with the transcripts added."""
TRANSCRIPTS = "transcripts.jsonl"
"""Beside an original ``metadata.jsonl`` that has no ``transcript``: one ``{"id": ...,
"transcript": ...}`` a line, every id's question text."""

Reading = Literal["case-insensitive", "exact"]
"""How a judge reply's word is read: in any letter case ("Correct" is CORRECT), or only as
written in upper case."""
READINGS: tuple[Reading, ...] = get_args(Reading)
PUBLISHED_JUDGE = "gpt-4o-mini"
"""The judge of the only published audio-in figures (AU-Harness's leaderboard, in
``baselines/big_bench_audio/``): its default judge model."""
JUDGE_TEMPERATURE = 0.1
"""AU-Harness's judge temperature (``metrics/llm_judge.py``), this benchmark's default."""
JUDGE_READING: Reading = "case-insensitive"
"""AU-Harness's reading (the reply stripped and upper-cased, then CORRECT or INCORRECT), this
benchmark's default."""
