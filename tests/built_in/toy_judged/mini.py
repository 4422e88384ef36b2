"""The toy judged benchmark's mini part: two questions, a tone each."""

from pathlib import Path

from pytest_audiobench.benchmarks.mini_making import tone, write_json, write_wav

README = """{count} toy judged questions (`toy_judged.json`), a tone each."""

ITEMS = (("c1", "colours", "What colour is the sky?", "blue", 440.0),
         ("n1", "numbers", "How many legs has a dog?", "four", 660.0))


def write(out: Path, tts: object) -> int:
    """The release layout the toy reads: ``toy_judged.json`` and its clips."""
    for (i, *_, hz) in ITEMS:
        write_wav(out / f"{i}.wav", tone(hz, 1.5))
    write_json(out / "toy_judged.json", [{"id": i, "task": t, "audio": f"{i}.wav",
                                          "question": q, "answer": a}
                                         for i, t, q, a, _ in ITEMS])
    return len(ITEMS)
