"""AIR-Bench Chat's mini part: open questions, three for each of the eight tasks, in the
release's layout, with questions, answers and clips this project wrote and synthesized."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pytest_audiobench.benchmarks.mini_making import (
    A_MINOR,
    C_MAJOR,
    DATASET,
    DRINK,
    FEMALE,
    MALE,
    PARKING,
    TRAIN,
    Espeak,
    Maker,
    beat,
    beeps,
    brown_noise,
    chord,
    dialogue,
    dialogue_info,
    melody,
    note,
    over,
    progression,
    rain,
    said,
    sweep,
    then,
    tone,
    white_noise,
    write_json,
    write_wav,
)

README = """{count} AIR-Bench Chat records (`Chat/Chat_meta.json`, audio in
  `Chat/<task_name>_mini/`), three for each of the eight tasks."""


@dataclass(frozen=True)
class Item:
    task: str
    file: str
    question: str
    answer: str
    meta_info: str
    make: Maker


ITEMS: tuple[Item, ...] = (
    # speech_QA
    Item("speech_QA", "apples.wav", "How many apples did the speaker buy?",
         "Five apples.", said("I bought five apples and two pears.", MALE),
         lambda tts: tts.say("I bought five apples and two pears.", MALE)),
    Item("speech_QA", "introduction.wav", "What is the speaker's name?",
         "The speaker's name is David.", said("Hello, my name is David.", MALE),
         lambda tts: tts.say("Hello, my name is David.", MALE)),
    Item("speech_QA", "directions.wav",
         "Where should the listener turn left, and what should they do next?",
         "Turn left at the bank, then walk two blocks.",
         said("Turn left at the bank, then walk two blocks.", MALE),
         lambda tts: tts.say("Turn left at the bank, then walk two blocks.", MALE)),
    # speech_dialogue_QA
    Item("speech_dialogue_QA", "train.wav",
         "According to the second speaker, when does the train leave?",
         "In the morning.", dialogue_info(TRAIN), dialogue(TRAIN)),
    Item("speech_dialogue_QA", "drink.wav", "Which drink does the second speaker choose?",
         "Coffee.", dialogue_info(DRINK), dialogue(DRINK)),
    Item("speech_dialogue_QA", "parking.wav", "Where was the car parked?",
         "Next to the library.", dialogue_info(PARKING), dialogue(PARKING)),
    # sound_QA
    Item("sound_QA", "four_beeps.wav", "How many beeps can you hear?",
         "Four beeps.", "Four short 1 kHz beeps, evenly spaced, with silence between them.",
         lambda tts: beeps(4)),
    Item("sound_QA", "rumble.wav", "Is this sound a high hiss or a low rumble?",
         "A low, steady rumble.", "1.6 seconds of brown noise: a steady low rumble.",
         lambda tts: brown_noise(1.6, seed=11)),
    Item("sound_QA", "rising_sweep.wav", "Does the pitch of the tone go up or down?",
         "It goes up, from low to high.",
         "A pure tone sweeping up from 300 Hz to 2,400 Hz over 1.6 seconds.",
         lambda tts: sweep(300, 2400, 1.6)),
    # sound_generation_QA
    Item("sound_generation_QA", "rain.wav",
         "Describe the texture of this sound and what it resembles.",
         "Many short random clicks over a faint hiss, like rain drops falling.",
         "Synthetic rain: random short clicks of varying loudness over faint noise.",
         lambda tts: rain(1.6, seed=12)),
    Item("sound_generation_QA", "falling_sweep.wav",
         "How does the tone change over time?",
         "It falls steadily from a high pitch to a low pitch.",
         "A pure tone sweeping down from 2,000 Hz to 250 Hz over 1.6 seconds.",
         lambda tts: sweep(2000, 250, 1.6)),
    Item("sound_generation_QA", "siren.wav",
         "How many different pitches alternate in this sound?",
         "Two pitches alternate, like a siren.",
         "A two-tone siren: 700 Hz and 950 Hz alternating every 0.25 seconds.",
         lambda tts: np.concatenate([tone(f, 0.25, 0.4) for f in (700, 950) * 3])),
    # music_QA
    Item("music_QA", "major_chord.wav", "Is this chord major or minor?",
         "Major (a C major chord).", "A C major triad (C4, E4, G4) held for 1.6 seconds.",
         lambda tts: chord(C_MAJOR, 1.6)),
    Item("music_QA", "minor_chord.wav", "Is this chord major or minor?",
         "Minor (an A minor chord).", "An A minor triad (A3, C4, E4) held for 1.6 seconds.",
         lambda tts: chord(A_MINOR, 1.6)),
    Item("music_QA", "slow_beat.wav", "Is the beat fast or slow?",
         "Slow, about one beat per second (60 BPM).",
         "A drum-like thump at 60 beats per minute, three beats.",
         lambda tts: beat(60, 2.3)),
    # music_generation_analysis_QA
    Item("music_generation_analysis_QA", "scale_up.wav",
         "Does the melody go up or down?", "It goes up: an ascending C major scale.",
         "An ascending C major scale, C4 to C5, eight notes.",
         lambda tts: melody((60, 62, 64, 65, 67, 69, 71, 72), 0.22)),
    Item("music_generation_analysis_QA", "fast_beat.wav",
         "Roughly what is the tempo of this beat?",
         "Fast, about three beats per second (180 BPM).",
         "A drum-like thump at 180 beats per minute for 1.7 seconds.",
         lambda tts: beat(180, 1.7)),
    Item("music_generation_analysis_QA", "low_note.wav", "Is this note low or high?",
         "Low: a bass note (A2, 110 Hz).",
         "A single low note, A2 (110 Hz), decaying over 1.6 seconds.",
         lambda tts: note(45, 1.6, 0.6, decay=1.0)),
    # speech_and_sound_QA
    Item("speech_and_sound_QA", "meeting_noise.wav", "Where is the meeting?",
         "In the library.",
         said("The meeting is in the library.", FEMALE, background="white noise, quieter"),
         lambda tts: over(tts.say("The meeting is in the library.", FEMALE),
                          white_noise(2.4, seed=21), -14)),
    Item("speech_and_sound_QA", "wait_beeps.wav",
         "How many beeps come after the speech?", "Three beeps.",
         said("Please wait for the signal.", FEMALE, background="three beeps after it"),
         lambda tts: then(tts.say("Please wait for the signal.", FEMALE), beeps(3),
                          gap=0.1)),
    Item("speech_and_sound_QA", "umbrella_rain.wav",
         "What does the speaker tell the listener to take?", "Their umbrella.",
         said("Take your umbrella with you.", MALE, background="rain-like clicks, quieter"),
         lambda tts: over(tts.say("Take your umbrella with you.", MALE),
                          rain(2.2, seed=23), -18)),
    # speech_and_music_QA
    Item("speech_and_music_QA", "morning_show.wav", "What is said over the music?",
         "Welcome to the morning show.",
         said("Welcome to the morning show.", FEMALE,
              background="C, F, G, C chords, quieter"),
         lambda tts: over(tts.say("Welcome to the morning show.", FEMALE),
                          progression((C_MAJOR, (60, 65, 69), (59, 62, 67), C_MAJOR),
                                      0.6), -12)),
    Item("speech_and_music_QA", "louder_voice.wav",
         "Which is louder, the voice or the music?",
         "The voice is louder than the music.",
         said("Listen to my voice.", MALE, background="a beat at 120 BPM, much quieter"),
         lambda tts: over(tts.say("Listen to my voice.", MALE), beat(120, 2.2), -15)),
    Item("speech_and_music_QA", "green.wav", "What is the speaker's favorite color?",
         "Green.",
         said("My favorite color is green.", FEMALE,
              background="an A minor chord, quieter"),
         lambda tts: over(tts.say("My favorite color is green.", FEMALE),
                          chord(A_MINOR, 2.3), -12)),
)


def record(index: int, item: Item) -> dict[str, Any]:
    return {"path": item.file, "question": item.question, "answer_gt": item.answer,
            "task_name": item.task, "dataset_name": DATASET, "meta_info": item.meta_info,
            "uniq_id": index}


def write(out: Path, tts: Espeak) -> int:
    """Write ``Chat/Chat_meta.json`` and its clips under ``out``; the number of items."""
    root = out / "Chat"
    for item in ITEMS:
        write_wav(root / f"{item.task}_{DATASET}" / item.file, item.make(tts))
    write_json(root / "Chat_meta.json",
               [record(index, item) for index, item in enumerate(ITEMS, start=1)])
    return len(ITEMS)
