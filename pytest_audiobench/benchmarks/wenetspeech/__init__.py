"""WenetSpeech: Mandarin from the internet (test_net) and from real meetings (test_meeting),
character error rate per test set.

This module is the benchmark's spec (cheap: pytest reads it in every start); the benchmark is
``benchmark.Wenetspeech``. Its tasks are the two test sets, never pooled.
"""

from __future__ import annotations

from pytest_audiobench.benchmarks.wenetspeech.facts import METADATA, NAME, SPLITS
from pytest_audiobench.benchmarks.wenetspeech.options import WenetspeechOptions
from pytest_audiobench.config.declarations import BenchmarkSpec

SPEC = BenchmarkSpec(
    name=NAME,
    tasks=tuple(SPLITS),
    benchmark="pytest_audiobench.benchmarks.wenetspeech.benchmark:Wenetspeech",
    options=WenetspeechOptions,
    sources=("huggingface",),
    layout=f"the release's folder: {METADATA} beside the audio/ folder of opus recordings it "
           "names (the test sets' audio at least)",
)

__all__ = ["NAME", "SPEC", "SPLITS"]
