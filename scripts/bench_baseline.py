"""How long a per-sample baseline takes to write and to load, and how large it is, at the size
of both real releases together (2,200 AIR-Bench Chat and 1,000 MMAR samples: 3,200 lines).

A measurement, not a test: it prints its figures and never fails a build. The lines are made
like real ones: two judge draws each, an answer of a few hundred characters, two judge
replies, a 64-character audio hash shared by about 1.4 questions per clip.

    python scripts/bench_baseline.py [--samples 3200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pytest_audiobench.gate.baseline import Baseline, load_samples, samples_path
from pytest_audiobench.gate.writing import write
from pytest_audiobench.outcome.lines import SampleLine, text_sha256

SENTENCE = ("the speaker says that a dog barks twice before the music starts and then a woman "
            "answers the question about the weather in a calm voice")


def make_lines(count: int, seed: int = 0) -> list[SampleLine]:
    rng = random.Random(seed)
    lines = []
    for index in range(count):
        answer = " ".join(rng.choices(SENTENCE.split(), k=60))
        draws = [float(rng.randint(0, 10)) for _ in range(2)]
        task = f"task_{index % 8}"
        lines.append(SampleLine(
            id=f"audiobench::bench::{task}::{index}", cluster=text_sha256(str(index // 1.4)),
            groups={"task": task, "category": f"category_{index % 4}"},
            values={"score": sum(draws) / 2, "reference": 8.0, "win": float(draws[0] > 8)},
            draws=draws, judged=True, failed=sum(draws) / 2 < 5, answer=answer,
            answer_sha256=text_sha256(answer),
            replies=[f"8 {int(draws[0])}", f"{int(draws[1])} 8"]))
    return lines


def timed(action: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3200)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    lines = make_lines(args.samples)
    baseline = Baseline(benchmark="bench", model="model", judge_model="judge", metrics={})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "model.json"
        write_ms = timed(lambda: write(path, baseline, lines), args.repeat)
        load_ms = timed(lambda: load_samples(path), args.repeat)
        size = samples_path(path).stat().st_size
        loaded = load_samples(path)
        again = samples_path(path).read_bytes()
        write(path, baseline, list(reversed(lines)))
        stable = samples_path(path).read_bytes() == again
    assert len(loaded) == args.samples
    print(f"samples: {args.samples} lines, {size / 1e6:.2f} MB "
          f"({size / args.samples:.0f} bytes a line)")
    print(f"write: {write_ms:.0f} ms, load: {load_ms:.0f} ms "
          f"(median of {args.repeat}; {load_ms * 1000 / args.samples:.0f} us a line)")
    print(f"same bytes when written from the lines in another order: {stable}")


if __name__ == "__main__":
    main()
