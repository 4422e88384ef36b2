"""MMSU's mini part: eight questions of our own, four of perception and four of reasoning over
semantics, phonology and paralinguistics, spoken by espeak-ng, in the converted layout a run
reads (``mmsu.jsonl`` and ``audio/``), two to four options each."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from pytest_audiobench.benchmarks.mini_making import (
    FEMALE,
    MALE,
    Espeak,
    Maker,
    Voice,
    dialogue,
    write_text,
    write_wav,
)
from pytest_audiobench.benchmarks.mmsu.facts import CONVERTED

README = """{count} MMSU records in the converted layout a run reads (`mmsu.jsonl`, audio in
  `audio/`), four of perception and four of reasoning over semantics, phonology and
  paralinguistics, with two to four options."""

FAST = Voice("en-us", 45, "male", 240)


def said(text: str, voice: Voice = MALE) -> Maker:
    return lambda tts: tts.say(text, voice)


@dataclass(frozen=True)
class Item:
    task: str
    category: str
    sub_category: str
    sub_sub_category: str
    discipline: str
    question: str
    options: tuple[str, ...]
    answer: str
    make: Maker


ITEMS: tuple[Item, ...] = (
    Item("speaker_gender_recognition", "perception", "paralinguistics", "speaker traits",
         "speaker identity", "What is the gender of the speaker?", ("male", "female"),
         "female", said("Good morning, everyone, please take a seat.", FEMALE)),
    Item("word_recognition", "perception", "semantics", "lexical", "lexical semantics",
         "Which word does the speaker say at the end?", ("moon", "noon", "soon", "spoon"),
         "noon", said("The meeting starts at noon.")),
    Item("speech_rate_recognition", "perception", "paralinguistics", "speaking style",
         "prosody", "How fast does the speaker talk?", ("slowly", "at a normal pace",
                                                        "very quickly"),
         "very quickly", said("I will call you back as soon as I get home tonight.", FAST)),
    Item("word_counting", "perception", "phonology", "phonetics", "phonetics",
         "How many times does the speaker say the word blue?", ("two", "three", "four"),
         "three", said("Blue, red, blue, green, blue.")),
    Item("intent_reasoning", "reasoning", "semantics", "pragmatics", "pragmatics",
         "Why does the speaker want the window closed?",
         ("it is cold", "it is noisy", "it is dark", "it is raining"), "it is cold",
         said("Could you close the window? It is freezing in here.", FEMALE)),
    Item("temporal_reasoning", "reasoning", "semantics", "logic", "semantics",
         "When did the train arrive?", ("at nine", "at ten", "at eleven"), "at ten",
         said("The train left at eight, and the trip took two hours.")),
    Item("speaker_counting", "reasoning", "paralinguistics", "speaker traits",
         "speaker identity", "How many people speak in the clip?", ("one", "two", "three"),
         "two", dialogue(((FEMALE, "Are you coming to lunch?"), (MALE, "Yes, in a minute.")))),
    Item("stress_reasoning", "reasoning", "phonology", "prosody", "prosody",
         "Does the speaker ask a question or state a fact?",
         ("a question", "a fact"), "a question", said("Is the shop open on Sunday?", FEMALE)),
)
"""Every record's text and audio are ours; the task names follow the release's style."""


def record(index: int, item: Item) -> dict[str, object]:
    """The item as a line of ``mmsu.jsonl``: the release's fields, the clip's path for
    ``audio``, the options after the last given empty as the release leaves them."""
    ident = f"mini_{index:03d}"
    options = [*item.options, *[""] * (4 - len(item.options))]
    return {"id": ident, "task_name": item.task, "audio": f"audio/{ident}.wav",
            "question": item.question, "choice_a": options[0], "choice_b": options[1],
            "choice_c": options[2], "choice_d": options[3], "answer_gt": item.answer,
            "category": item.category, "sub-category": item.sub_category,
            "sub-sub-category": item.sub_sub_category,
            "linguistics_sub_discipline": item.discipline}


def write(out: Path, tts: Espeak) -> int:
    """Write ``mmsu.jsonl`` and the clips its records name under ``out``; the number of
    items."""
    records = [record(index, item) for index, item in enumerate(ITEMS, start=1)]
    for row, item in zip(records, ITEMS, strict=True):
        write_wav(out / str(row["audio"]), item.make(tts))
    write_text(out / CONVERTED,
               "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in records))
    return len(ITEMS)
