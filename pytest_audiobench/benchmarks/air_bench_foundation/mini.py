"""AIR-Bench Foundation's mini part: single-choice questions over speech, sound and music, in
folders named as the release names them, so that their node ids are the real ones."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.air_bench_foundation.facts import FLAC_TASKS
from pytest_audiobench.benchmarks.mini_making import (
    A_MINOR,
    C_MAJOR,
    DRINK,
    FEMALE,
    MALE,
    Espeak,
    Maker,
    Voice,
    beat,
    beeps,
    dialogue,
    note,
    progression,
    rain,
    write_json,
    write_wav,
)

README = """{count} AIR-Bench Foundation records
  (`Foundation/Foundation_meta.json`, audio in `Foundation/<task_name>_<dataset_name>/`)
  over speech, sound and music, with two, three and four options; the folders carry the real
  release's names, so the items' node ids are the real ones, but their text and audio are
  ours; the Audio_Grounding one names a `.wav` that is stored as `.flac`, as in the release."""


@dataclass(frozen=True)
class Item:
    task: str
    file: str
    question: str
    options: tuple[str, ...]
    answer: str
    make: Maker


FRENCH = Voice("fr", 50, "male")
ITEMS: tuple[Item, ...] = (
    # speech
    Item("Speaker_Gender_Recognition", "woman.wav", "Is the speaker male or female?",
         ("male", "female"), "female",
         lambda tts: tts.say("The library opens at nine today.", FEMALE)),
    Item("Speaker_Gender_Recognition", "man.wav", "Is the speaker male or female?",
         ("male", "female"), "male",
         lambda tts: tts.say("Please close the window behind you.", MALE)),
    Item("Speaker_Number_Verification", "two_voices.wav",
         "How many different people speak in the clip?",
         ("one", "two", "three", "four"), "two", dialogue(DRINK)),
    Item("Spoken_Language_Identification", "bonjour.wav",
         "Which language is spoken?", ("English", "French", "German", "Spanish"),
         "French", lambda tts: tts.say("Bonjour, je voudrais un café.", FRENCH)),
    Item("Speech_Entity_Reconition", "lisbon.wav", "Which city does the speaker name?",
         ("Paris", "Lisbon", "Rome", "Berlin"), "Lisbon",
         lambda tts: tts.say("I am flying to Lisbon on Monday.", MALE)),
    Item("Speaker_Intent_Classification", "alarm.wav",
         "What does the speaker want to do?",
         ("set an alarm", "play music", "check the weather", "send a message"),
         "set an alarm",
         lambda tts: tts.say("Wake me up at seven tomorrow morning.", FEMALE)),
    Item("Synthesized_Voice_Detection", "robot_voice.wav",
         "Is the voice in the clip a real person or synthesized?",
         ("real", "synthesized"), "synthesized",
         lambda tts: tts.say("This message was recorded for you.", MALE)),
    # sound
    Item("Acoustic_Scene_Classification", "rainy_roof.wav", "Where was this recorded?",
         ("in the rain", "on a busy street", "in a quiet office", "at a beach"),
         "in the rain", lambda tts: rain(2.5, seed=71)),
    Item("Sound_AQA", "four_beeps.wav", "How many beeps are there?",
         ("two", "three", "four", "five"), "four", lambda tts: beeps(4)),
    Item("Audio_Grounding", "high_beep.wav", "When does the high beep sound?",
         ("at the start", "in the middle", "at the end"), "at the end",
         lambda tts: beeps(5, odd=4, odd_freq=2000.0)),
    # music
    Item("Music_Instruments_Classfication", "drums.wav",
         "Which instrument is playing?", ("drums", "violin", "flute", "trumpet"),
         "drums", lambda tts: beat(120, 2.5)),
    Item("Music_Midi_Pitch_Analysis", "a440.wav", "Which note is played?",
         ("A4", "C4", "E5", "G3"), "A4", lambda tts: note(69, 2.0, decay=1.0)),
    Item("Music_Midi_Velocity_Analysis", "loud_note.wav",
         "Is the note played loud or soft?", ("loud", "soft"), "loud",
         lambda tts: note(60, 2.0, amp=0.9, decay=1.0)),
    Item("Music_Mood_Recognition", "bright_chords.wav",
         "What is the mood of the music?", ("happy", "sad"), "happy",
         lambda tts: progression([C_MAJOR, (65, 69, 72), (67, 71, 74), C_MAJOR],
                                 0.6)),
    Item("Music_AQA", "three_chords.wav", "How many chords are played?",
         ("two", "three", "four", "five"), "three",
         lambda tts: progression([C_MAJOR, A_MINOR, C_MAJOR], 0.7)),
)
DATASETS = {
    "Speaker_Gender_Recognition": "meld", "Speaker_Number_Verification": "voxceleb1",
    "Spoken_Language_Identification": "covost2", "Speech_Entity_Reconition": "slurp",
    "Speaker_Intent_Classification": "slurp", "Synthesized_Voice_Detection": "fake_or_real",
    "Acoustic_Scene_Classification": "TUT2017", "Sound_AQA": "clothoaqa",
    "Audio_Grounding": "AudioGrounding", "Music_Instruments_Classfication": "nsynth",
    "Music_Midi_Pitch_Analysis": "nsynth", "Music_Midi_Velocity_Analysis": "nsynth",
    "Music_Mood_Recognition": "MTJ-Jamendo", "Music_AQA": "music_avqa",
}
"""Each task's folder: the release's own folder names, so that the items have the node ids of
the real ones (the audio and the text are this project's, whatever the folder says)."""


def record(index: int, item: Item) -> dict[str, Any]:
    fields: dict[str, Any] = {"path": item.file, "question": item.question}
    for key, option in zip(("choice_a", "choice_b", "choice_c", "choice_d"), item.options,
                           strict=False):
        fields[key] = option
    fields.update({"answer_gt": item.answer, "task_name": item.task,
                   "dataset_name": DATASETS[item.task], "uniq_id": index})
    return fields


def write(out: Path, tts: Espeak) -> int:
    """Write ``Foundation/Foundation_meta.json`` and its clips under ``out``, a FLAC_TASKS
    clip as ``.flac`` under the ``.wav`` name its record gives; the number of items."""
    root = out / "Foundation"
    for item in ITEMS:
        folder = root / f"{item.task}_{DATASETS[item.task]}"
        if item.task in FLAC_TASKS:
            write_wav(folder / item.file.replace(".wav", ".flac"), item.make(tts), "FLAC")
        else:
            write_wav(folder / item.file, item.make(tts))
    write_json(root / "Foundation_meta.json",
               [record(index, item) for index, item in enumerate(ITEMS, start=1)])
    return len(ITEMS)
