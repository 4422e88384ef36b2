"""Big Bench Audio's mini part: twelve reasoning questions of our own, three in each category,
spoken by espeak-ng, in the layout a run reads (``metadata.jsonl`` with each question's
transcript, the clips in ``audio/``), MP3 as the release's (and small: a spoken question
takes five seconds). The official answers take the release's forms: valid or
invalid, Yes or No, a number in digits."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.big_bench_audio.facts import METADATA
from pytest_audiobench.benchmarks.mini_making import (
    FEMALE,
    MALE,
    QUESTION_SECONDS,
    Espeak,
    Voice,
    write_text,
    write_wav,
)

README = """{count} Big Bench Audio questions in the layout a run reads (`metadata.jsonl` with
  each question's transcript, MP3 audio in `audio/` as the release's), three in each of its
  four categories."""


@dataclass(frozen=True)
class Item:
    category: str
    transcript: str
    official_answer: str
    voice: Voice


ITEMS: tuple[Item, ...] = (
    Item("formal_fallacies", "Every robin is a bird. Pip is a robin. So Pip is a bird. Valid "
         "or invalid?", "valid", MALE),
    Item("formal_fallacies", "Some dogs are brown. Rex is brown. So Rex is a dog. Valid or "
         "invalid?", "invalid", FEMALE),
    Item("formal_fallacies", "No fish can fly. Nemo is a fish. So Nemo cannot fly. Valid or "
         "invalid?", "valid", MALE),
    Item("navigate", "Take three steps forward, then three steps back. Are you at the start?",
         "Yes", FEMALE),
    Item("navigate", "Take two steps left, then one step right. Are you at the start?", "No",
         MALE),
    Item("navigate", "Turn around. Take one step. Turn around. Take one step. Are you at the "
         "start?", "Yes", FEMALE),
    Item("object_counting", "I have a piano, two flutes and a violin. How many instruments do "
         "I have?", "4", MALE),
    Item("object_counting", "I have an apple, a chair and two pears. How many fruits do I "
         "have?", "3", FEMALE),
    Item("object_counting", "I have a cat, a lamp and a dog. How many animals do I have?", "2",
         MALE),
    Item("web_of_lies", "Ann tells the truth. Bob says Ann lies. Does Bob tell the truth?", "No",
         FEMALE),
    Item("web_of_lies", "Sam lies. Kim says Sam lies. Does Kim tell the truth?", "Yes", MALE),
    Item("web_of_lies", "Lee lies. Max says Lee tells the truth. Does Max tell the truth?", "No",
         FEMALE),
)
"""Every question, answer and clip is ours, in the release's four categories."""


def record(index: int, item: Item) -> dict[str, object]:
    """The item as a line of ``metadata.jsonl``: the original release's fields and the
    transcript the parquet copy adds."""
    ident = f"mini_{index:03d}"
    return {"id": ident, "category": item.category, "official_answer": item.official_answer,
            "file_name": f"audio/{ident}.mp3", "transcript": item.transcript}


def write(out: Path, tts: Espeak) -> int:
    """Write ``metadata.jsonl`` and the clips its records name under ``out``; the number of
    items."""
    records = [record(index, item) for index, item in enumerate(ITEMS, start=1)]
    for row, item in zip(records, ITEMS, strict=True):
        write_wav(out / str(row["file_name"]), tts.say(item.transcript, item.voice),
                  fmt="MP3", longest=QUESTION_SECONDS)
    write_text(out / METADATA,
               "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records))
    return len(ITEMS)
