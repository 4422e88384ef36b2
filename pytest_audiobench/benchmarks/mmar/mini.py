"""MMAR's mini part: multiple-choice questions over all seven modalities and four layers,
each with the thinking, cues and five-criterion rubric the release gives its items."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pytest_audiobench.benchmarks.mini_making import (
    A_MINOR,
    C_MAJOR,
    FEMALE,
    MALE,
    WEEKEND,
    Espeak,
    Maker,
    beat,
    beeps,
    chord,
    dialogue,
    layer,
    melody,
    over,
    progression,
    rain,
    silence,
    sweep,
    then,
    tone,
    white_noise,
    write_text,
    write_wav,
)

SOURCE = "pytest-audiobench mini"
README = """{count} MMAR records (`MMAR-meta.jsonl` with thinking, cue and a five-criterion
  rubric, audio in `audio/`), covering all seven modalities and all four layers."""


@dataclass(frozen=True)
class Item:
    name: str
    modality: str
    category: str
    sub_category: str
    question: str
    choices: tuple[str, ...]
    answer: str
    thinking: str
    cue: tuple[str, str]
    link: str
    """What the reasoning must connect, completing "Award 1 point if the reasoning ..."."""
    absent: str
    """Something not in the clip, completing "... does not claim ..."."""
    make: Maker
    spoken: bool = False


ITEMS: tuple[Item, ...] = (
    # sound
    Item("beep_count", "sound", "Perception Layer", "Counting and Statistics",
         "How many beeps are in the clip?", ("three", "four", "five", "six"), "five",
         "The clip holds short identical beeps separated by silence. Counting them one by "
         "one gives five, so the answer is five.",
         ("short identical beeps", "silence between the beeps"),
         "counts the beeps one by one", "a voice or music",
         lambda tts: beeps(5)),
    Item("noise_color", "sound", "Signal Layer", "Acoustic Quality Analysis",
         "Which best describes the noise?", ("a high, bright hiss", "a low, dull rumble"),
         "a high, bright hiss",
         "The noise is steady and its energy reaches the highest frequencies, which is "
         "heard as a bright hiss rather than a rumble.",
         ("steady broadband noise", "strong high frequencies"),
         "ties the strong high frequencies to a hiss", "a tone or a rhythm",
         lambda tts: white_noise(1.6, seed=31, amp=0.6)),
    Item("sweep_direction", "sound", "Perception Layer", "Temporal Analysis",
         "How does the pitch of the tone move?", ("rising", "falling", "steady"), "falling",
         "A single pure tone starts high and ends low, gliding without steps, so its pitch "
         "is falling.",
         ("a single pure tone", "the pitch is higher at the start than at the end"),
         "compares the pitch at the start with the pitch at the end", "several tones",
         lambda tts: sweep(1800, 300, 1.6)),
    Item("odd_beep", "sound", "Perception Layer", "Anomaly Detection",
         "Which beep sounds different from the others?",
         ("first", "second", "third", "fourth"), "third",
         "There are four beeps; three share the same pitch and the third one is clearly "
         "higher, so the third beep is the odd one.",
         ("four beeps", "the third beep is higher in pitch"),
         "compares each beep's pitch with the others", "a change in loudness",
         lambda tts: beeps(4, 800, odd=2, odd_freq=1600)),
    Item("tone_pair", "sound", "Signal Layer", "Audio Difference Analysis",
         "How does the second tone differ from the first?",
         ("higher", "lower", "louder", "longer"), "lower",
         "Two tones of the same length and loudness follow each other; the second has a "
         "lower pitch than the first.",
         ("two tones of equal length and loudness", "the second tone is lower in pitch"),
         "rules out loudness and length as the difference", "noise or speech",
         lambda tts: then(silence(0.1), tone(880, 0.5), tone(440, 0.5), silence(0.1),
                          gap=0.25)),
    # music
    Item("chord_quality", "music", "Cultural Layer", "Music Theory",
         "What is the quality of this chord?", ("major", "minor"), "minor",
         "Three notes sound together; the lowest is A and the middle note is a minor third "
         "above it (C), so this is an A minor triad.",
         ("three notes played together", "a minor third above the root"),
         "names the interval above the root as what makes the chord minor",
         "a melody or a drum",
         lambda tts: chord(A_MINOR, 1.6)),
    Item("tempo", "music", "Perception Layer", "Counting and Statistics",
         "What is the tempo of the beat?", ("60 BPM", "120 BPM", "180 BPM"), "120 BPM",
         "The thumps are evenly spaced half a second apart, two per second, which is 120 "
         "beats per minute.",
         ("evenly spaced drum thumps", "two thumps per second"),
         "converts the spacing of the thumps into beats per minute", "a melody",
         lambda tts: beat(120, 2.1)),
    Item("scale_direction", "music", "Perception Layer", "Music Theory",
         "Is the scale ascending or descending?", ("ascending", "descending"), "descending",
         "Eight notes follow each other step by step, each lower than the one before, from "
         "C5 down to C4: a descending scale.",
         ("eight notes in steps", "each note lower than the last"),
         "follows the pitch from note to note", "chords",
         lambda tts: melody((72, 71, 69, 67, 65, 64, 62, 60), 0.22)),
    Item("cluster", "music", "Cultural Layer", "Aesthetic Evaluation",
         "How does this chord sound?", ("consonant", "dissonant"), "dissonant",
         "The chord stacks three neighbouring semitones (C, C sharp, D); notes that close "
         "beat against each other and sound harsh, so it is dissonant.",
         ("notes a semitone apart", "audible beating between the notes"),
         "links the close intervals to the harsh sound", "a major or minor triad",
         lambda tts: chord((60, 61, 62), 1.6)),
    # speech
    Item("apples", "speech", "Semantic Layer", "Content Analysis",
         "How many apples did the speaker buy?", ("three", "five", "seven", "nine"), "five",
         "The speaker says they bought five apples and two pears. The question asks only "
         "about apples, so the answer is five.",
         ("the speaker says five apples", "two refers to pears, not apples"),
         "separates the number of apples from the number of pears", "background music",
         lambda tts: tts.say("I bought five apples and two pears.", MALE), spoken=True),
    Item("name", "speech", "Semantic Layer", "Content Analysis",
         "What is the speaker's name?", ("David", "Sophia", "Marcus", "Helen"), "David",
         "The speaker introduces himself with 'my name is David', so the name is David.",
         ("a self-introduction", "the name David"),
         "uses the introduction phrase to identify the name", "a second speaker",
         lambda tts: tts.say("Hello, my name is David.", MALE), spoken=True),
    Item("directions", "speech", "Semantic Layer", "Content Analysis",
         "Where should the listener turn left?", ("bank", "school", "church", "station"),
         "bank",
         "The instruction is to turn left at the bank and then walk two blocks, so the "
         "turn is at the bank.",
         ("turn left at the bank", "walk two blocks afterwards"),
         "keeps the order of the two instructions", "any landmark besides the bank",
         lambda tts: tts.say("Turn left at the bank, then walk two blocks.", MALE),
         spoken=True),
    Item("window", "speech", "Semantic Layer", "Emotion and Intention",
         "What does the speaker want?",
         ("close the window", "open the door", "turn on the light"), "close the window",
         "The speaker asks to close the window and gives the cold as the reason, so they "
         "want the window closed.",
         ("a polite request to close the window", "the reason given is the cold"),
         "connects the request with its reason", "an angry tone",
         lambda tts: tts.say("Please close the window, it is cold.", FEMALE), spoken=True),
    Item("voices", "speech", "Perception Layer", "Speaker Analysis",
         "How many different people speak?", ("one", "two", "three"), "two",
         "A question in a higher, female voice is answered in a lower, male voice: two "
         "different speakers take turns.",
         ("a higher voice asks a question", "a lower voice answers"),
         "tells the voices apart by pitch and turn-taking", "overlapping speech",
         dialogue(WEEKEND), spoken=True),
    Item("gender", "speech", "Perception Layer", "Speaker Analysis",
         "Which voice is more likely speaking?", ("male", "female"), "male",
         "The voice is low-pitched with a deep timbre, typical of an adult male speaker.",
         ("a low-pitched voice", "a deep timbre"),
         "links the low pitch to a male speaker", "a second voice",
         lambda tts: tts.say("Good morning, everyone.", MALE), spoken=True),
    # mix-sound-music
    Item("beeps_over_chord", "mix-sound-music", "Perception Layer",
         "Counting and Statistics",
         "How many beeps sound over the chord?", ("two", "three", "four"), "three",
         "A held chord plays throughout; on top of it short high beeps sound three times.",
         ("a held chord underneath", "three short high beeps"),
         "separates the beeps from the chord before counting", "speech",
         lambda tts: layer(chord(C_MAJOR, 1.7), 0.7 * beeps(3, 1500, off=0.3))),
    Item("music_vs_noise", "mix-sound-music", "Signal Layer", "Acoustic Quality Analysis",
         "Which is louder?", ("the melody", "the hiss"), "the melody",
         "A clear melody plays in front of a faint, steady hiss; the notes stay well above "
         "the noise, so the melody is louder.",
         ("a clear melody", "a faint steady hiss behind it"),
         "compares the level of the melody with the level of the hiss", "a voice",
         lambda tts: over(melody((67, 64, 60, 64, 67, 72), 0.25),
                          white_noise(1.9, seed=41), -18, lead=0.1)),
    Item("noise_burst", "mix-sound-music", "Perception Layer", "Anomaly Detection",
         "What interrupts the steady beat?",
         ("a burst of noise", "a spoken word", "a sudden silence"), "a burst of noise",
         "An even drum beat runs through the clip, and in the middle a short loud burst of "
         "hiss sounds over it; no voice is heard and the beat does not stop.",
         ("an even drum beat", "a short loud burst of hiss in the middle"),
         "notes that the beat continues while the hiss sounds", "a voice",
         lambda tts: layer(beat(150, 2.0), np.concatenate(
             [silence(0.8), white_noise(0.35, seed=42, amp=1.5)]))),
    # mix-sound-speech
    Item("meeting", "mix-sound-speech", "Semantic Layer", "Content Analysis",
         "Where is the meeting?", ("library", "kitchen", "garden", "office"), "library",
         "Over a steady hiss, the speaker says the meeting is in the library.",
         ("a voice over steady noise", "the word library"),
         "picks the place out of the speech despite the noise", "music",
         lambda tts: over(tts.say("The meeting is in the library.", MALE),
                          white_noise(2.6, seed=51), -18), spoken=True),
    Item("umbrella", "mix-sound-speech", "Semantic Layer",
         "Environmental Perception and Reasoning",
         "What weather is most likely around the speaker?",
         ("rain", "snow", "heat", "wind"), "rain",
         "Behind the voice there are many random patters like drops, and the speaker says "
         "to take an umbrella: both point to rain.",
         ("patter like rain drops behind the voice", "the advice to take an umbrella"),
         "combines the background sound with the spoken advice", "thunder",
         lambda tts: over(tts.say("Take your umbrella with you.", FEMALE),
                          rain(2.2, seed=52), -12), spoken=True),
    Item("after_speech", "mix-sound-speech", "Perception Layer", "Temporal Analysis",
         "What comes right after the speech?", ("beeps", "music", "silence"), "beeps",
         "The speaker asks to wait, and as soon as the voice stops two short beeps follow.",
         ("the voice comes first", "two beeps follow it"),
         "keeps the order of the voice and the beeps", "music",
         lambda tts: then(tts.say("Please wait.", MALE), beeps(2), gap=0.1), spoken=True),
    Item("voice_vs_noise", "mix-sound-speech", "Signal Layer", "Acoustic Quality Analysis",
         "Which is louder, the voice or the hiss?", ("voice", "hiss"), "hiss",
         "A loud, steady hiss fills the clip and partly masks the voice speaking over it: "
         "the hiss is louder.",
         ("a loud steady hiss", "a weaker, partly masked voice"),
         "compares the two levels", "music",
         lambda tts: over(tts.say("Can you hear me?", FEMALE),
                          white_noise(2.0, seed=53), 4), spoken=True),
    # mix-music-speech
    Item("morning_show", "mix-music-speech", "Semantic Layer", "Content Analysis",
         "Which part of the day is the show for?",
         ("morning", "afternoon", "evening", "night"), "morning",
         "Over a soft chord progression the host says 'welcome to the morning show'.",
         ("a host's greeting over chords", "the word morning"),
         "takes the time of day from the greeting", "applause",
         lambda tts: over(tts.say("Welcome to the morning show.", MALE),
                          progression((C_MAJOR, (57, 60, 65), (59, 62, 67), C_MAJOR),
                                      0.6), -12), spoken=True),
    Item("voice_vs_music", "mix-music-speech", "Signal Layer", "Acoustic Quality Analysis",
         "Which is louder, the voice or the music?", ("voice", "music"), "voice",
         "A quiet beat plays under the speech; the voice is clearly in front of it, so the "
         "voice is louder.",
         ("a quiet beat underneath", "a clear voice in front"),
         "compares the two levels", "noise",
         lambda tts: over(tts.say("Listen to my voice.", FEMALE), beat(120, 2.2), -15),
         spoken=True),
    Item("dance", "mix-music-speech", "Semantic Layer", "Imagination",
         "Which activity would this audio suit best?",
         ("dance", "sleep", "study"), "dance",
         "A fast, driving beat plays while the speaker invites the listener to dance, which "
         "suits dancing far better than sleep or study.",
         ("a fast driving beat", "an invitation to dance"),
         "connects the fast beat and the invitation to an activity", "a slow lullaby",
         lambda tts: over(tts.say("Come and dance with me.", MALE), beat(150, 2.0), -10),
         spoken=True),
    # mix-sound-music-speech
    Item("color", "mix-sound-music-speech", "Semantic Layer", "Content Analysis",
         "What is the speaker's favorite color?", ("red", "green", "blue", "yellow"),
         "green",
         "Over a soft chord and a faint hiss, the speaker says their favorite color is "
         "green.",
         ("the phrase favorite color", "the word green"),
         "ignores the chord and the hiss to get the spoken word", "a second speaker",
         lambda tts: over(tts.say("My favorite color is green.", FEMALE),
                          chord(C_MAJOR, 2.3) + white_noise(2.3, seed=61, amp=0.1), -12),
         spoken=True),
    Item("layers", "mix-sound-music-speech", "Perception Layer",
         "Correlation Analysis",
         "Besides the voice, what else can be heard?",
         ("music and rain", "only music", "only rain"), "music and rain",
         "Under the voice a chord plays and random drops patter at the same time, so both "
         "music and rain are heard.",
         ("a chord under the voice", "random patter like rain"),
         "keeps both background layers apart", "a second voice",
         lambda tts: over(tts.say("Welcome back.", FEMALE),
                          chord(A_MINOR, 1.8) + 0.6 * rain(1.8, seed=62), -8), spoken=True),
    Item("concert", "mix-sound-music-speech", "Semantic Layer", "Content Analysis",
         "On which day is the concert?", ("Monday", "Wednesday", "Friday", "Sunday"),
         "Friday",
         "A steady A at 440 Hz, the pitch orchestras tune to, and a faint hiss sit under "
         "the voice, which says the concert is on Friday.",
         ("the tuning note A 440", "the word Friday"),
         "takes the day from the speech, not from the tone", "applause",
         lambda tts: over(tts.say("The concert is on Friday.", FEMALE),
                          tone(440, 2.1, 0.3) + white_noise(2.1, seed=63, amp=0.1), -12),
         spoken=True),
)


def record(index: int, item: Item) -> dict[str, Any]:
    return {
        "id": f"mini-{index:03d}", "audio_path": f"./audio/{item.name}.wav",
        "question": item.question, "choices": list(item.choices), "answer": item.answer,
        "modality": item.modality, "category": item.category,
        "sub-category": item.sub_category, "language": "en" if item.spoken else None,
        "source": SOURCE, "url": None, "timestamp": None, "thinking": item.thinking,
        "cue": list(item.cue), "rubric": rubric(item),
    }


def rubric(item: Item) -> list[dict[str, Any]]:
    def criterion(name: str, point: str, note: str) -> dict[str, Any]:
        return {"name": name, "scoring_point": f"Award 1 point if the reasoning {point}.",
                "note": note, "choices": [0, 1]}

    return [
        criterion("First cue", f"mentions {item.cue[0]}",
                  "The answer rests on hearing this in the clip."),
        criterion("Second cue", f"mentions {item.cue[1]}",
                  "The second piece of evidence the answer needs."),
        criterion("Inference", item.link, "The step from what is heard to the answer."),
        criterion("Answer", f"concludes with \"{item.answer}\"",
                  "The reasoning must end at the reference answer."),
        criterion("No invention", f"does not claim {item.absent}",
                  "The clip holds nothing of the kind."),
    ]


def write(out: Path, tts: Espeak) -> int:
    """Write ``MMAR-meta.jsonl`` and its clips under ``out``; the number of items."""
    for item in ITEMS:
        write_wav(out / "audio" / f"{item.name}.wav", item.make(tts))
    lines = [json.dumps(record(index, item), ensure_ascii=False)
             for index, item in enumerate(ITEMS, start=1)]
    write_text(out / "MMAR-meta.jsonl", "\n".join(lines) + "\n")
    return len(ITEMS)
