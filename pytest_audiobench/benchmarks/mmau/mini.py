"""MMAU's mini part: test-mini questions, four each of speech, sound and music, over the
three difficulties, with two to five options, in the published layout."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.mini_making import (
    A_MINOR,
    C_MAJOR,
    DATASET,
    DRINK,
    PARKING,
    TRAIN,
    WEEKEND,
    Espeak,
    Maker,
    beat,
    beeps,
    dialogue,
    melody,
    progression,
    rain,
    white_noise,
    write_json,
    write_wav,
)

README = """{count} MMAU test-mini records (`mmau-test-mini.json`, audio in
  `test-mini-audios/`), four each of speech, sound and music, over the three difficulties,
  with two to five options."""


@dataclass(frozen=True)
class Item:
    task: str
    difficulty: str
    category: str
    sub_category: str
    question: str
    choices: tuple[str, ...]
    answer: str
    make: Maker


ITEMS: tuple[Item, ...] = (
    # speech
    Item("speech", "easy", "Information Extraction", "Conversational Fact Retrieval",
         "What does the man want to drink?", ("tea", "coffee", "water"), "coffee",
         dialogue(DRINK)),
    Item("speech", "medium", "Information Extraction", "Key highlight Extraction",
         "Where did the woman say the car is parked?",
         ("next to the library", "behind the station", "at the airport",
          "in front of the bank"), "next to the library", dialogue(PARKING)),
    Item("speech", "medium", "Reasoning", "Counting",
         "How many different people speak in the clip?", ("one", "two", "three", "four",
                                                          "five"), "two", dialogue(WEEKEND)),
    Item("speech", "hard", "Reasoning", "Multi Speaker Role Mapping",
         "Who asks the question in the conversation?", ("the woman", "the man"),
         "the woman", dialogue(TRAIN)),
    # sound
    Item("sound", "easy", "Information Extraction", "Sound-Based Event Recognition",
         "How many beeps are heard?", ("two", "three", "four", "six"), "three",
         lambda tts: beeps(3)),
    Item("sound", "medium", "Reasoning", "Acoustic Scene Reasoning",
         "What weather is most likely outside?", ("rain", "snow", "fog"), "rain",
         lambda tts: rain(2.5, seed=81)),
    Item("sound", "hard", "Reasoning", "Temporal Event Reasoning",
         "Which beep differs from the others?", ("the first", "the last", "the second"),
         "the last", lambda tts: beeps(4, odd=3, odd_freq=1800.0)),
    Item("sound", "medium", "Reasoning", "Acoustic Source Inference",
         "What kind of signal is heard?", ("a steady hiss", "a ringing phone",
                                           "a barking dog", "footsteps"), "a steady hiss",
         lambda tts: white_noise(2.0, seed=82)),
    # music
    Item("music", "easy", "Information Extraction", "Instrumentation",
         "Which instrument keeps the rhythm?", ("a drum", "a violin", "a flute"), "a drum",
         lambda tts: beat(110, 2.5)),
    Item("music", "medium", "Reasoning", "Harmony and Chord Progressions",
         "How many chords are played?", ("two", "three", "four", "five"), "four",
         lambda tts: progression([C_MAJOR, A_MINOR, (65, 69, 72), C_MAJOR], 0.6)),
    Item("music", "hard", "Reasoning", "Melodic Structure Interpretation",
         "Does the melody rise or fall?", ("it rises", "it falls"), "it rises",
         lambda tts: melody((60, 62, 64, 65, 67, 69, 71, 72), 0.25)),
    Item("music", "medium", "Reasoning", "Emotional Tone Interpretation",
         "What mood does the music carry?", ("happy", "sad", "angry", "fearful"), "sad",
         lambda tts: progression([A_MINOR, (53, 57, 60), (52, 55, 59), A_MINOR], 0.7)),
)
"""MMAU items in the published layout (``mmau-test-mini.json``, ``test-mini-audios/``): the
three tasks, the three difficulties, two to five options; their text and audio are ours."""


def record(index: int, item: Item) -> dict[str, Any]:
    ident = f"mini-{index:03d}"
    return {"id": ident, "audio_id": f"./test-mini-audios/{ident}.wav",
            "question": item.question, "choices": list(item.choices), "answer": item.answer,
            "dataset": DATASET, "task": item.task, "split": "test-mini",
            "category": item.category, "sub-category": item.sub_category,
            "difficulty": item.difficulty}


def write(out: Path, tts: Espeak) -> int:
    """Write ``mmau-test-mini.json`` and the clips its records name under ``out``; the
    number of items."""
    records = [record(index, item) for index, item in enumerate(ITEMS, start=1)]
    for row, item in zip(records, ITEMS, strict=True):
        write_wav(out / row["audio_id"], item.make(tts))
    write_json(out / "mmau-test-mini.json", records)
    return len(ITEMS)
