"""VoiceBench's fixed facts: its name, the hub release, its nine leaderboard subsets, which
evaluator scores each, the splits of the two subsets that have several, and the sizes. A leaf:
the spec and every module of the benchmark read them from here.

Facts from MatthewCYM/VoiceBench (``api_judge.py``, ``src/evaluator/*.py``, its README's
dataset table and leaderboard), December 2026.
"""

from __future__ import annotations

from typing import Literal

NAME = "voicebench"
RELEASE = "VoiceBench (hlt-lab/voicebench)"
"""Spoken instructions to a voice assistant (Apache-2.0): the audio is the user's request,
not a clip to answer questions about."""
HUB_REPO = "hlt-lab/voicebench"
"""One folder of parquet files per config (subset), each file named by its split:
``<subset>/<split>-NNNNN-of-NNNNN.parquet``; the audio inside each row."""

Evaluator = Literal["open", "qa", "mcq", "ifeval", "bbh", "harm"]
"""The reference's evaluators (``src/evaluator/__init__.py``'s names)."""

SUBSETS: dict[str, Evaluator] = {
    "alpacaeval_full": "open",
    "commoneval": "open",
    "wildvoice": "open",
    "sd-qa": "qa",
    "mmsu": "mcq",
    "openbookqa": "mcq",
    "bbh": "bbh",
    "ifeval": "ifeval",
    "advbench": "harm",
}
"""The leaderboard's nine columns, in its order, and the evaluator of each; these are the
benchmark's tasks. ``alpacaeval_full`` (636) is the leaderboard's AlpacaEval column, not the
199-item ``alpacaeval`` config."""

JUDGED: tuple[str, ...] = ("alpacaeval_full", "commoneval", "wildvoice", "sd-qa")
"""The subsets a judge grades (gpt-4o-mini in the reference): three rated 1 to 5, sd-qa
Yes or No."""

RATED: tuple[str, ...] = ("alpacaeval_full", "commoneval", "wildvoice")
"""The columns on the judge's 1-5 scale: the leaderboard multiplies them by 20 for its
Overall."""

SD_QA_ACCENTS: tuple[str, ...] = ("aus", "gbr", "ind_n", "ind_s", "irl", "kenya", "nga",
                                  "nzl", "phl", "usa", "zaf")
"""sd-qa's splits: the same 553 questions read by speakers of eleven English accents."""

MMSU_DOMAINS: tuple[str, ...] = ("biology", "business", "chemistry", "economics",
                                 "engineering", "health", "history", "law", "other",
                                 "philosophy", "physics", "psychology")
"""VoiceBench's mmsu (spoken MMLU-Pro, not the MMSU benchmark): its twelve domains, each a
split of the config (as lmms-eval's per-domain tasks read it)."""

BBH_TASKS: tuple[str, ...] = ("sports_understanding", "hyperbaton", "navigate", "web_of_lies")
"""bbh's four tasks: the reference finds a record's task in its ``id`` and reads the reply
by that task's rules."""

SIZES: dict[str, int] = {
    "alpacaeval_full": 636, "commoneval": 200, "wildvoice": 1_000,
    "sd-qa": 553 * len(SD_QA_ACCENTS), "mmsu": 3_074, "openbookqa": 455, "bbh": 1_000,
    "ifeval": 345, "advbench": 520,
}
"""Each subset's items in the release (sd-qa: 553 per accent)."""

PEDANT_CLASSIFIER_URL = "https://github.com/zli12321/qa_metrics/raw/master/qa_metrics/classifier"
"""Where qa-metrics' ``PEDANT.__init__`` downloads its classifier from: the repository's
master branch, so the files can change; the hashes of those taken are kept beside them."""

JUDGE_MODEL = "gpt-4o-mini"
JUDGE_TEMPERATURE = 0.5
JUDGE_TOP_P = 0.95
JUDGE_DRAWS = 3
"""The reference asks its judge for three completions of each request (``n=3``) and reads
every one: the open subsets average all three ratings, sd-qa takes their majority."""
JUDGE_MAX_TOKENS = 1024

ASSISTANT_SYSTEM = "You are a helpful assistant who tries to help answer the user's question."
"""The system message the reference sends with the spoken instruction to the API models it
evaluates (``src/models/gpt4o.py``), and with every judge request; the open-weight models get
the audio alone. A fact of the protocol (its exact words matter to the model)."""

CONVERTED = "voicebench.jsonl"
"""The converted layout a run reads: one record a line (``subset``, ``split``, the row's
fields, ``audio`` the clip's path relative to the folder), the clips beside it in
``audio/``."""
