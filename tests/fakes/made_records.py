"""AIR-Bench Chat records written for the tests, in the official fields and id ranges, so
that the end-to-end tests run in a clone that has no reference metadata beside it.

Every text here was written for this project (none comes from the real release). Two records
per task, with the release's task names, dataset names, file naming and ``uniq_id`` ranges;
``common_voice`` adds two speech_QA clips stored as mp3, as the release's Common Voice ones are.
"""

from __future__ import annotations

from typing import Any

# (task_name, dataset_name, first uniq_id of the task in the release, file stem, meta_info)
_TASKS = (
    ("speech_dialogue_QA", "fisher", 0, "{n}.00_{m}.50",
     '[{{"speaker": "speaker 1", "speaking time": "(0.00,4.20)", "transcription": "{said}"}}]'),
    ("speech_QA", "iemocap", 400, "Ses0{n}F_impro0{n}_F00{n}",
     "{{'emotion': 'neutral', 'gender': 'female', 'transcription': \"{said}\"}}"),
    ("sound_QA", "clotho", 800, "validation_{n}{m}",
     "['{said}', 'A second caption of the same clip.']"),
    ("sound_generation_QA", "clotho", 1200, "evaluation_{n}{m}",
     "['{said}', 'Another caption of the scene.']"),
    ("music_QA", "musiccaps", 1300, "Yclip{n}music{m}",
     "{{'description': '{said}'}}"),
    ("music_generation_analysis_QA", "musiccaps", 1700, "Ymood{n}piece{m}",
     "{{'description': '{said}'}}"),
    ("speech_and_sound_QA", "audiocaps_cv", 1800, "common_voice_en_{n}{m}_concat_Ysnd{n}",
     "{{'sound_caption': '{said}', 'age': 'thirties', 'gender': 'male'}}"),
    ("speech_and_music_QA", "musiccaps_cv", 2000, "common_voice_en_{n}{m}_add_Ymus{n}",
     "{{'music_caption': '{said}', 'age': 'twenties', 'gender': 'female'}}"),
)

_TEXTS = {
    "speech_dialogue_QA": [
        ("What does the first speaker plan to do on Saturday?", "Visit a farm market.",
         "we should go to the farm market on saturday"),
        ("Why does the second speaker call back later?", "The line was too noisy.",
         "sorry the line is really noisy I will call you back"),
    ],
    "speech_QA": [
        ("What emotion is the speaker expressing?", "The speaker sounds calm.",
         "It is fine, we can try again tomorrow."),
        ("Who is the speaker talking to at the end?", "The speaker is talking to a neighbour.",
         "Thank you, neighbour, see you next week."),
    ],
    "sound_QA": [
        ("Is the humming sound steady or changing?", "Steady.",
         "A steady electrical hum fills a quiet room."),
        ("What animal can be heard in the distance?", "A dog.",
         "A dog barks far away while wind blows."),
    ],
    "sound_generation_QA": [
        ("Describe a place where these sounds could be heard together.",
         "A harbour at dawn, with gulls above the boats and ropes creaking.",
         "Gulls call over water as wooden boats creak."),
        ("Imagine a short scene that matches the sounds in the clip.",
         "A baker opens the shop early while rain taps on the window.",
         "Rain taps on glass as a door opens and a bell rings."),
    ],
    "music_QA": [
        ("Which instrument plays the melody?", "A violin.",
         "A solo violin plays a slow melody over soft chords."),
        ("Is the tempo of the piece fast or slow?", "Slow.",
         "A slow piano ballad with gentle dynamics."),
    ],
    "music_generation_analysis_QA": [
        ("What kind of event would suit this music, and why?",
         "A quiet dinner, because the music is soft and unhurried.",
         "Soft jazz with brushed drums and a walking bass."),
        ("How might this music make a listener feel?",
         "Energised, because of the driving beat and bright brass.",
         "An upbeat brass band with a driving beat."),
    ],
    "speech_and_sound_QA": [
        ("What does the man say about the train?", "That it leaves at nine.",
         "A train horn sounds as it passes a station."),
        ("What can be heard behind the speaker?", "Running water and birds.",
         "Water runs in a stream while birds sing."),
    ],
    "speech_and_music_QA": [
        ("What directions does the woman give?", "Turn right after the bridge.",
         "A pop song with a steady beat and a synth bass."),
        ("Which city does the speaker name?", "Lisbon.",
         "A slow acoustic guitar piece with light percussion."),
    ],
}


def made_chat_records(per_task: int = 2, *, common_voice: bool = False) -> list[dict[str, Any]]:
    """``per_task`` records of each task (at most 2), in ``uniq_id`` order; with
    ``common_voice`` two speech_QA records of the release's common_voice_en dataset, as mp3."""
    records = []
    for task, dataset, first, stem, meta in _TASKS:
        for n, (question, answer, said) in enumerate(_TEXTS[task][:per_task], start=1):
            records.append({
                "path": stem.format(n=n, m=n + 3) + ".wav", "question": question,
                "answer_gt": answer, "task_name": task, "dataset_name": dataset,
                "meta_info": meta.format(said=said), "uniq_id": first + n - 1})
    if common_voice:
        records += [{"path": f"common_voice_en_{n}00{n}.mp3", "question": question,
                     "answer_gt": answer, "task_name": "speech_QA",
                     "dataset_name": "common_voice_en",
                     "meta_info": f"{{'age': 'fifties', 'transcription': '{said}'}}",
                     "uniq_id": 600 + n}
                    for n, (question, answer, said) in enumerate(_TEXTS["speech_QA"], start=1)]
    return sorted(records, key=lambda r: r["uniq_id"])


_MMAR_MODALITIES = ("sound", "music", "speech", "mix-sound-music", "mix-sound-speech",
                    "mix-music-speech", "mix-sound-music-speech")
_LAYERS = ("Signal Layer", "Perception Layer", "Semantic Layer", "Cultural Layer")
_OPTIONS = (("a violin", "a trumpet", "a drum", "a flute"),
            ("one", "two", "three", "four"),
            ("rain", "wind", "traffic", "birdsong"))


def rubric(answer: str) -> list[dict[str, Any]]:
    """A five-criterion MMAR rubric whose fourth criterion names ``answer``, as released."""
    points = ("names what is heard", "says when it is heard", "compares the candidates",
              f"concludes with {answer}", "invents nothing")
    return [{"name": f"Criterion {n}", "scoring_point": f"Award 1 point if the reasoning {p}.",
             "note": "Written for the tests.", "choices": [0, 1]}
            for n, p in enumerate(points, start=1)]


def _mmar_record(number: int, modality: str, question: str, choices: tuple[str, ...],
                 answer: str) -> dict[str, Any]:
    return {"id": f"made-{number:03d}", "audio_path": f"./audio/made-{number:03d}.wav",
            "question": question, "choices": list(choices), "answer": answer,
            "modality": modality, "category": _LAYERS[number % len(_LAYERS)],
            "sub-category": "Content Analysis", "language": "en", "source": "pytest-audiobench",
            "url": None, "timestamp": None,
            "thinking": f"The clip is heard through; the evidence points to {answer}.",
            "cue": ["what is heard"], "rubric": rubric(answer)}


def made_mmar_records() -> list[dict[str, Any]]:
    """Three items per modality (distinct questions, none with an empty option), then one
    item whose wrong option has the answer's words in another order, as 20 of the release's
    items have: 22 records written for the tests, in MMAR-meta.jsonl's fields."""
    records = []
    for m, modality in enumerate(_MMAR_MODALITIES):
        for k, choices in enumerate(_OPTIONS):
            number = 3 * m + k + 1
            records.append(_mmar_record(
                number, modality, f"Which of these is heard in clip {number} ({modality})?",
                choices, choices[(m + k) % len(choices)]))
    records.append(_mmar_record(
        len(records) + 1, "sound", "In which direction does the car move?",
        ("From far to near", "From near to far", "It does not move"), "From far to near"))
    return records


def many_chat_records(per_task: int) -> list[dict[str, Any]]:
    """``per_task`` records of each task, numbered, in the release's id ranges; as in the
    release, some questions share a clip (every third asks about the clip before it)."""
    records = []
    for task, dataset, first, _stem, _meta in _TASKS:
        for n in range(per_task):
            clip = n - 1 if n % 3 == 2 else n
            records.append({
                "path": f"clip_{clip:04d}.wav",
                "question": f"Question {n} about the {task} clip: what is heard?",
                "answer_gt": f"The reference answer {n} for {task}.", "task_name": task,
                "dataset_name": dataset, "meta_info": f"made clip {clip} of {task}",
                "uniq_id": first + n})
    return sorted(records, key=lambda r: r["uniq_id"])


def made_foundation_records() -> list[dict[str, Any]]:
    """One four-option record in every one of the 25 folders, and a two-option one in a few:
    their options, answers and questions written for the tests."""
    from pytest_audiobench.benchmarks.air_bench_foundation.facts import FOLDER_TASK, FOLDERS

    records: list[dict[str, Any]] = []
    for index, folder in enumerate(FOLDERS):
        task = FOLDER_TASK[folder]
        dataset = folder.removeprefix(task + "_")
        options = [f"{folder} option {k}" for k in "wxyz"]
        records.append({
            "path": f"clip_{index}.wav", "question": f"What is heard in clip {index}?",
            "choice_a": options[0], "choice_b": options[1], "choice_c": options[2],
            "choice_d": options[3], "answer_gt": options[index % 4], "task_name": task,
            "dataset_name": dataset, "uniq_id": 1000 + index})
        if index % 5 == 0:
            records.append({
                "path": f"pair_{index}.wav", "question": f"Is clip {index} real or fake?",
                "choice_a": "real", "choice_b": "fake", "answer_gt": "fake",
                "task_name": task, "dataset_name": dataset, "uniq_id": 2000 + index})
    return records
