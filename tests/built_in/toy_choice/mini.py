"""The toy multiple-choice benchmark's mini part: two questions, a tone each."""

from pathlib import Path

from pytest_audiobench.benchmarks.mini_making import tone, write_json, write_wav

README = """{count} toy multiple-choice questions (`toy_choice.json`), a tone each."""

ITEMS = (("a1", "animals", "Which animal barks?", ["dog", "cat"], "dog", 440.0),
         ("i1", "instruments", "Which one is bowed?", ["violin", "drum"], "violin", 660.0))


def write(out: Path, tts: object) -> int:
    """The release layout the toy reads: ``toy_choice.json`` and its clips."""
    records = [{"id": i, "task": t, "audio": f"{i}.wav", "question": q, "choices": c,
                "answer": a} for i, t, q, c, a, _ in ITEMS]
    for (i, *_, hz) in ITEMS:
        write_wav(out / f"{i}.wav", tone(hz, 1.5))
    write_json(out / "toy_choice.json", records)
    return len(ITEMS)
