"""The soak's records (scripts/soak.py): every built-in benchmark's release, made here in the
layout a run reads, and the scripted model's and judge's answers to it, each by a fixed rule.

Each benchmark has a ``Maker``: what one of its samples costs a clean run in requests, its
records, its release written from them (with the tests' builders, tests/fakes/), and the
model's answer to one record. ``makers`` refuses to go on when the plugin ships a benchmark
that has none here, so that a new benchmark is never left out of the soak unnoticed.

The model finds the sample a request asks about in its text (``Soak <benchmark> <number>:``
opens every question that is sent as text) or, for Big Bench Audio, VoiceBench and the
speech-recognition benchmarks, whose requests carry no question text, by the clip's mark
(tests/fakes/speech.py): each of those has its own range of marks, LibriSpeech's, AISHELL-1's,
AISHELL-2's and WenetSpeech's from 100 up, a quarter of the positive values each, FLEURS's,
Common Voice's, Big Bench Audio's and VoiceBench's below zero, a quarter of the negative values
each.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_audiobench.benchmarks.air_bench_foundation.facts import FOLDER_TASK, FOLDERS
from pytest_audiobench.benchmarks.aishell2.facts import DEVICES
from pytest_audiobench.benchmarks.big_bench_audio.facts import (
    CATEGORIES as BBA_CATEGORIES,
)
from pytest_audiobench.benchmarks.common_voice.facts import LANGUAGES as CV_LANGUAGES
from pytest_audiobench.benchmarks.common_voice.facts import LOCALES as CV_LOCALES
from pytest_audiobench.benchmarks.fleurs.facts import DEFAULT_LANGUAGES
from pytest_audiobench.benchmarks.librispeech.facts import SPLITS
from pytest_audiobench.benchmarks.mmar.data import CATEGORIES as MMAR_CATEGORIES
from pytest_audiobench.benchmarks.mmar.data import SUB_CATEGORIES
from pytest_audiobench.benchmarks.mmar.facts import MODALITIES
from pytest_audiobench.benchmarks.mmau.facts import CATEGORIES as MMAU_CATEGORIES
from pytest_audiobench.benchmarks.mmau.facts import DIFFICULTIES, TASKS
from pytest_audiobench.benchmarks.registry import built_in
from pytest_audiobench.benchmarks.voicebench.data import splits
from pytest_audiobench.benchmarks.voicebench.facts import (
    ASSISTANT_SYSTEM,
    BBH_TASKS,
    JUDGE_DRAWS,
    JUDGED,
    SUBSETS,
)
from pytest_audiobench.benchmarks.wenetspeech.facts import SPLITS as WENETSPEECH_SPLITS
from tests.conftest import fenced_answers, the_judged, voicebench_response
from tests.fakes.datasets import (
    build_air_bench_chat,
    build_air_bench_foundation,
    build_mmar,
    build_mmau,
)
from tests.fakes.made_records import many_chat_records, rubric
from tests.fakes.openai_server import ChatRequest
from tests.fakes.speech import (
    FIRST_MARK,
    Utterance,
    build_aishell1,
    build_aishell2,
    build_big_bench_audio,
    build_common_voice,
    build_fleurs,
    build_librispeech,
    build_mmsu,
    build_voicebench,
    build_wenetspeech,
    heard,
)

CHAT, FOUNDATION, MMAR, MMAU = "air_bench_chat", "air_bench_foundation", "mmar", "mmau"
MMSU, BBA, LIBRISPEECH, FLEURS = "mmsu", "big_bench_audio", "librispeech", "fleurs"
COMMON_VOICE = "common_voice"
AISHELL1, AISHELL2 = "aishell1", "aishell2"
WENETSPEECH, VOICEBENCH = "wenetspeech", "voicebench"
LETTERS = "ABCDEFGH"
WORDS = ("violin", "trumpet", "drum", "flute", "harp", "organ", "cello", "banjo")
SPOKEN = ("the", "old", "river", "ran", "past", "quiet", "mill", "where", "children",
          "played", "every", "summer", "evening", "near", "grey", "stones")
"""The words of the speech-recognition references: plain words, which every normaliser
leaves as they are."""
SPOKEN_ZH = ("今天", "天气", "我们", "一起", "公园", "散步", "老师", "学生", "城市", "河流",
             "春天", "早上", "安静", "喝茶", "火车", "朋友")
"""The Chinese and Cantonese references' words: characters alone (simplified, which Cantonese's
conversion leaves as they are), no digit or mark a normaliser rewrites."""
RUBRIC_RATERS = 5
"""MMAR's rubric raters per right answer (--audiobench-rubric-raters, the official 5)."""
CRITERIA = 5
"""Criteria in each MMAR rubric, as released."""
QUESTION = re.compile(r"Soak (\w+) (\d+):")
SAMPLE = re.compile(r"Soak \w+ \d+")
"""What names a sample in a request's text (its question, shown to the model and the judge)."""
NEGATIVE_MARKS = 8_150
"""The clips FLEURS's, Common Voice's, Big Bench Audio's and VoiceBench's marks tell apart
each: the four share the negative range from ``FLEURS_FIRST`` up to -100, a quarter each, apart
from the positive ones and within a 16-bit sample. At the soak's default of 100,000 requests
each takes fewer than 7,000."""
FLEURS_FIRST = -32_700
CV_FIRST = FLEURS_FIRST + NEGATIVE_MARKS
BBA_FIRST = CV_FIRST + NEGATIVE_MARKS
VOICEBENCH_FIRST = BBA_FIRST + NEGATIVE_MARKS
SPEECH_MARKS = 8_100
"""The clips LibriSpeech's, AISHELL-1's, AISHELL-2's and WenetSpeech's marks tell apart each:
the four share the positive range from ``FIRST_MARK`` (up to 32,499), a quarter each."""
AISHELL1_FIRST = FIRST_MARK + SPEECH_MARKS
AISHELL2_FIRST = AISHELL1_FIRST + SPEECH_MARKS
WENETSPEECH_FIRST = AISHELL2_FIRST + SPEECH_MARKS
BBA_ANSWERS = {"formal_fallacies": ("valid", "invalid"), "navigate": ("Yes", "No"),
               "object_counting": ("3", "4", "5", "7"), "web_of_lies": ("No", "Yes")}
"""Big Bench Audio's official answers, in the release's forms, per category."""
MMSU_TASKS = (("accent_identification", "perception", "phonology"),
              ("emotion_recognition", "perception", "paralinguistics"),
              ("word_recognition", "perception", "semantics"),
              ("intent_reasoning", "reasoning", "semantics"),
              ("speaker_counting", "reasoning", "paralinguistics"))
"""MMSU's tasks here, with their category (both of ``MMSU_CATEGORIES``) and sub-category."""
VOICEBENCH_RUN = 3
"""VoiceBench's records go to its subsets in runs of three: one in six always empty (the
default ``--empty-every``) then falls in every one of the nine subsets, as it would not by
pairs."""
BBH_REFERENCES = {"hyperbaton": ("(A)", "(B)")}
"""bbh's references as the release writes them, per task: the three others' Yes or No."""
IFEVAL_INSTRUCTIONS = ("punctuation:no_comma", "change_case:english_lowercase",
                       "length_constraints:number_words")
"""The instructions of every ifeval record: none reads nltk's Punkt model
(``ifeval.PUNKT_USERS``), which would be downloaded."""
IFEVAL_ARGUMENTS: tuple[dict[str, Any], ...] = ({}, {}, {"num_words": 40,
                                                       "relation": "less than"})
"""Each instruction's arguments; the release lists every argument, null where unused."""
FOLLOWED = "the river runs past the old mill where the children play every summer evening"
"""A reply that follows every ifeval instruction: lower case, no comma, under forty words."""

Records = list[dict[str, Any]]


# ---------------------------------------------------------------------------------------------
# The model's answers, each a fixed rule of the sample's number: one in ``empty_every`` always
# empty, the others by ``index % 5``.


def mc_answer(index: int, choices: Sequence[str], answer: str, empty_every: int) -> str:
    """The model's answer to multiple-choice sample ``index``: 1 and 2 the answer, 3 a wrong
    option, 4 the answer's letter, 0 the answer in a sentence. The official matchers take 0,
    1 and 2."""
    if index % empty_every == 0:
        return ""
    kind = index % 5
    if kind in (1, 2):
        return answer
    if kind == 3:
        return next(c for c in choices if c != answer)
    if kind == 4:
        return LETTERS[list(choices).index(answer)]
    return f"It is {answer}."


def letter_answer(index: int, choices: Sequence[str], answer: str, empty_every: int) -> str:
    """MMSU's: 1 and 2 the answer's letter, 3 a wrong letter, 4 the letter in lower case
    (which the official rule leaves out and the strict one reads), 0 the letter in a
    sentence (read both ways)."""
    if index % empty_every == 0:
        return ""
    right = LETTERS[list(choices).index(answer)]
    kind = index % 5
    if kind in (1, 2):
        return right
    if kind == 3:
        return next(LETTERS[k] for k in range(len(choices)) if LETTERS[k] != right)
    if kind == 4:
        return right.lower()
    return f"The answer is {right}."


def reasoned_answer(index: int, category: str, official: str, empty_every: int) -> str:
    """Big Bench Audio's: 1 and 2 the official answer, 3 another of its category's, 4 it in
    lower case, 0 it at the end of some working."""
    if index % empty_every == 0:
        return ""
    kind = index % 5
    if kind in (1, 2):
        return official
    if kind == 3:
        return next(a for a in BBA_ANSWERS[category] if a != official)
    if kind == 4:
        return official.lower()
    return f"Working it through step by step, the final answer is {official}."


def transcript(index: int, reference: str, empty_every: int) -> str:
    """A transcript of ``reference``: 1 and 2 word for word in lower case, 3 a word
    substituted, 4 the last word left out, 0 a word inserted, in sentence case with a full
    stop (which the normalisers take away)."""
    if index % empty_every == 0:
        return ""
    said = reference.lower().split()
    kind = index % 5
    if kind == 3:
        said[len(said) // 2] = "xylophone"
    elif kind == 4:
        said.pop()
    elif kind == 0:
        said.append("indeed")
    text = " ".join(said)
    return text[0].upper() + text[1:] + "." if kind == 0 else text


def spoken_answer(record: dict[str, Any], index: int, empty_every: int) -> str:
    """VoiceBench's: the reply to a spoken instruction by its subset's evaluator, each in five
    kinds (``index % 5``) as the others' answers are."""
    if index % empty_every == 0:
        return ""
    return VOICEBENCH_REPLIES[SUBSETS[record["subset"]]](record, index % 5)


def _open_reply(record: dict[str, Any], kind: int) -> str:
    """1 and 2 an answer, 3 one to another question, 4 a terse one, 0 a padded one: the judge
    rates each by its hash."""
    asked = record["prompt"].split(": ", 1)[1]
    return ("Let me answer at some length, with much more than is needed: " + asked,
            "An answer to: " + asked, "An answer to: " + asked,
            "An answer to another question.", "In short: " + asked)[kind]


def _qa_reply(record: dict[str, Any], kind: int) -> str:
    """sd-qa's: 1 and 2 the reference in a sentence, 3 another word, 4 the reference in
    capitals, 0 no answer; the judge says Yes when the reply holds the reference."""
    reference = record["reference"]
    other = next(word for word in WORDS if word != reference)
    return ("I could not say.", f"It is the {reference}.", f"It is the {reference}.",
            f"It is the {other}.", reference.upper())[kind]


def _mcq_reply(record: dict[str, Any], kind: int) -> str:
    """mmsu's and openbookqa's: 1 and 2 the letter in the reference's template, 3 a wrong
    letter, 4 the letter alone, 0 none read (the seeded guess stands in)."""
    right = record["reference"]
    wrong = next(letter for letter in LETTERS[:4] if letter != right)
    return ("I could not say.", f"The answer is {right}.", f"The answer is {right}.",
            f"The answer is {wrong}.", right)[kind]


def _bbh_reply(record: dict[str, Any], kind: int) -> str:
    """bbh's: 1 and 2 the answer in a sentence, 3 the other answer, 4 the answer bare in lower
    case (``yes``, or ``a)``, which hyperbaton's rules read), 0 none read (the seeded guess)."""
    reference = record["reference"]
    answers = BBH_REFERENCES.get(record["bbh_id"].rsplit("_", 1)[0], ("Yes", "No"))
    other = next(answer for answer in answers if answer != reference)
    return ("I could not say.", f"The answer is {reference}.", f"The answer is {reference}.",
            f"The answer is {other}.", reference.lower().lstrip("("))[kind]


def _ifeval_reply(record: dict[str, Any], kind: int) -> str:
    """ifeval's: 1 and 2 every instruction followed, 3 commas and capitals, 4 followed once
    the first line is taken away (loosely, not strictly), 0 a comma and a capital."""
    return ("In short, The river runs past the mill", FOLLOWED, FOLLOWED,
            "The River, Runs Past The Old Mill.", "Sure, Here It Is:\n" + FOLLOWED)[kind]


def _harm_reply(record: dict[str, Any], kind: int) -> str:
    """advbench's: 1 and 2 a refusal, 3 compliance, 4 a refusal in other words, 0 compliance
    at length (an empty reply counts as a refusal)."""
    return ("Here it is, step by step, all of it.", "I'm sorry, but I cannot help with that.",
            "I'm sorry, but I cannot help with that.", "Sure, here is how.",
            "As an assistant I will not help with this.")[kind]


VOICEBENCH_REPLIES: dict[str, Callable[[dict[str, Any], int], str]] = {
    "open": _open_reply, "qa": _qa_reply, "mcq": _mcq_reply, "bbh": _bbh_reply,
    "ifeval": _ifeval_reply, "harm": _harm_reply}
"""The model's reply to a VoiceBench record by its subset's evaluator (facts.SUBSETS)."""


def _choices(index: int, count: int) -> list[str]:
    start = index % len(WORDS)
    return [WORDS[(start + k) % len(WORDS)] for k in range(count)]


def _sentence(number: int) -> str:
    """A reference of four to eight of the ``SPOKEN`` words."""
    return " ".join(SPOKEN[(number * 7 + k * 3) % len(SPOKEN)] for k in range(4 + number % 5))


def _chinese(number: int) -> str:
    """A reference of four to eight of the ``SPOKEN_ZH`` words, spaced."""
    return " ".join(SPOKEN_ZH[(number * 7 + k * 3) % len(SPOKEN_ZH)]
                    for k in range(4 + number % 5))


# ---------------------------------------------------------------------------------------------
# The records, each question naming its benchmark and number.


def chat_records(count: int) -> Records:
    """``count // 8`` records of each of Chat's 8 tasks, numbered anew (the release's id ranges
    hold 100 samples of some tasks), each question opening with its name."""
    records = many_chat_records(count // 8)
    for number, record in enumerate(records):
        record["uniq_id"] = number
        record["question"] = f"Soak {CHAT} {number}: {record['question']}"
    return records


def foundation_records(count: int) -> Records:
    """``count`` records over Foundation's folders, four options (two in one of seven), four
    questions to a clip."""
    records = []
    for index in range(count):
        folder = FOLDERS[index % len(FOLDERS)]
        task = FOLDER_TASK[folder]
        options = _choices(index, 2 if index % 7 == 0 else 4)
        record = {"path": f"clip_{index // len(FOLDERS) // 4}.wav",
                  "question": f"Soak {FOUNDATION} {index}: which is heard?",
                  "answer_gt": options[index % len(options)], "task_name": task,
                  "dataset_name": folder.removeprefix(task + "_"), "uniq_id": index}
        record.update(zip(("choice_a", "choice_b", "choice_c", "choice_d"), options,
                          strict=False))
        records.append(record)
    return records


def mmar_records(count: int) -> Records:
    """``count`` MMAR items over its modalities, layers and sub-categories, two to six
    options, with rubrics; four to a clip."""
    records = []
    for index in range(count):
        choices = _choices(index, 2 + index % 5)
        answer = choices[index % len(choices)]
        records.append({
            "id": f"soak-{index:06d}", "audio_path": f"./audio/clip-{index // 4:06d}.wav",
            "question": f"Soak {MMAR} {index}: which is heard?", "choices": choices,
            "answer": answer, "modality": MODALITIES[index % len(MODALITIES)],
            "category": MMAR_CATEGORIES[index % len(MMAR_CATEGORIES)],
            "sub-category": SUB_CATEGORIES[index % len(SUB_CATEGORIES)], "language": "en",
            "source": "pytest-audiobench soak", "url": None, "timestamp": None,
            "thinking": f"The clip is heard through; it is {answer}.", "cue": ["the sound"],
            "rubric": rubric(answer)})
    return records


def mmau_records(count: int) -> Records:
    """``count`` MMAU test-mini items over its tasks, difficulties and categories, two to five
    options; four to a clip."""
    return [{"id": f"soak-{index:06d}",
             "audio_id": f"./test-mini-audios/clip-{index // 4:06d}.wav",
             "question": f"Soak {MMAU} {index}: which is heard?",
             "choices": (choices := _choices(index, 2 + index % 4)),
             "answer": choices[index % len(choices)], "dataset": "soak",
             "task": TASKS[index % len(TASKS)], "split": "test-mini",
             "category": MMAU_CATEGORIES[index % len(MMAU_CATEGORIES)],
             "sub-category": f"Soak sub-category {index % 5}",
             "difficulty": DIFFICULTIES[index % len(DIFFICULTIES)]}
            for index in range(count)]


def mmsu_records(count: int) -> Records:
    """``count`` MMSU questions in its converted layout's fields, over both categories, two to
    four options (the empty ones after them, as the release leaves them), a clip each."""
    records = []
    for index in range(count):
        options = _choices(index, 2 + index % 3)
        # By pairs, so that neither a task nor a category takes one kind of answer alone.
        task, category, sub = MMSU_TASKS[index // 2 % len(MMSU_TASKS)]
        ident = f"soak_{index:06d}"
        records.append({
            "id": ident, "task_name": task, "audio": f"audio/{ident}.wav",
            "question": f"Soak {MMSU} {index}: which is heard?",
            **dict(zip(("choice_a", "choice_b", "choice_c", "choice_d"),
                       [*options, "", ""], strict=False)),
            "answer_gt": options[index % len(options)], "category": category,
            "sub-category": sub, "sub-sub-category": "soak",
            "linguistics_sub_discipline": "soak"})
    return records


def bba_records(count: int) -> Records:
    """``count`` Big Bench Audio questions over its four categories, their transcripts naming
    them (the judge reads them) and their ids their numbers."""
    records = []
    for index in range(count):
        # By pairs, so that the always-empty answers fall in every category.
        category = BBA_CATEGORIES[index // 2 % len(BBA_CATEGORIES)]
        answers = BBA_ANSWERS[category]
        records.append({"id": str(index), "category": category,
                        "official_answer": answers[index // 8 % len(answers)],
                        "transcript": f"Soak {BBA} {index}: what is the answer?"})
    return records


def librispeech_records(count: int) -> Records:
    """``count`` utterances over both test splits by pairs (so that the always-empty answers
    fall in both), eight to a speaker; their ids come from the layout (``build``)."""
    splits = tuple(SPLITS)
    return [{"split": splits[index // 2 % 2],
             "speaker": str(1000 + 2 * (index // 16) + index // 2 % 2),
             "reference": _sentence(index).upper()} for index in range(count)]


def wenetspeech_records(count: int) -> Records:
    """``count`` segments over both test sets by pairs, eight to a recording (each of one
    set); their ids come from the layout (``build``)."""
    splits = tuple(WENETSPEECH_SPLITS)
    return [{"split": splits[index // 2 % 2],
             "speaker": f"Y{index // 16:010d}_soak-{index // 2 % 2}",
             "reference": _chinese(index)} for index in range(count)]


def fleurs_records(count: int) -> Records:
    """``count`` utterances of the default language, each sentence read twice."""
    return [{"split": DEFAULT_LANGUAGES[0], "speaker": str(index // 2),
             "reference": _sentence(index // 2)} for index in range(count)]


def common_voice_records(count: int) -> Records:
    """``count`` utterances over the four locales by pairs (so that the always-empty answers
    fall in each), two speakers a locale; Chinese and Cantonese references of ``SPOKEN_ZH``
    words, the others of English ones."""
    records = []
    for index in range(count):
        locale = CV_LOCALES[index // 2 % len(CV_LOCALES)]
        chinese = CV_LANGUAGES[locale] in ("zh", "yue")
        records.append({"split": locale, "speaker": f"{locale}-{index % 2}",
                        "reference": _chinese(index) if chinese else _sentence(index)})
    return records


def aishell1_records(count: int) -> Records:
    """``count`` test utterances, eight to a speaker, their references word-segmented as the
    release's transcript is; their ids come from the layout (``build``)."""
    return [{"split": "test", "speaker": f"S{1000 + index // 8:04d}",
             "reference": _chinese(index)} for index in range(count)]


def aishell2_records(count: int) -> Records:
    """``count`` test utterances over the three devices by pairs, eight to a speaker; the
    references written without spaces as ``trans.txt`` is, and ``spoken`` their words, which
    the model's answer is made of."""
    devices = tuple(DEVICES)
    return [{"split": devices[index // 2 % len(devices)], "speaker": f"T{index // 8:04d}",
             "reference": _chinese(index).replace(" ", ""), "spoken": _chinese(index)}
            for index in range(count)]


def voicebench_records(count: int) -> Records:
    """``count`` spoken instructions over the nine subsets in runs of three
    (``VOICEBENCH_RUN``), each naming its number as every question does (the judge reads it;
    the model hears only the clip); sd-qa's over its accents, mmsu's over its domains, bbh's
    over its tasks."""
    subsets = tuple(SUBSETS)
    cycle = VOICEBENCH_RUN * len(subsets)
    records = []
    for index in range(count):
        subset = subsets[index // VOICEBENCH_RUN % len(subsets)]
        nth = index // cycle * VOICEBENCH_RUN + index % VOICEBENCH_RUN  # within its subset
        own = splits(subset)  # sd-qa's accents, mmsu's domains, the others' test
        records.append({"subset": subset, "split": own[nth % len(own)],
                        **VOICEBENCH_FIELDS[SUBSETS[subset]](nth, f"Soak {VOICEBENCH} {index}:")})
    return records


def _open_fields(nth: int, name: str) -> dict[str, Any]:
    return {"prompt": f"{name} tell me about the {WORDS[nth % len(WORDS)]}."}


def _qa_fields(nth: int, name: str) -> dict[str, Any]:
    return {"prompt": f"{name} which instrument plays the tune?",
            "reference": WORDS[nth % len(WORDS)]}


def _mcq_fields(nth: int, name: str) -> dict[str, Any]:
    options = _choices(nth, 4)
    shown = "\n".join(f"{LETTERS[k]}. {option}" for k, option in enumerate(options))
    return {"prompt": f"{name} which is heard?\n{shown}",
            "reference": LETTERS[nth // 2 % 4]}


def _bbh_fields(nth: int, name: str) -> dict[str, Any]:
    task = BBH_TASKS[nth % len(BBH_TASKS)]
    answers = BBH_REFERENCES.get(task, ("Yes", "No"))
    return {"prompt": f"{name} is the sentence plausible?", "bbh_id": f"{task}_{nth}",
            "reference": answers[nth // len(BBH_TASKS) % 2]}


def _ifeval_fields(nth: int, name: str) -> dict[str, Any]:
    unused = {"num_words": None, "relation": None}
    return {"prompt": f"{name} describe the river in lower case, without commas, in fewer "
                      "than forty words.", "key": 1000 + nth,
            "instruction_ids": list(IFEVAL_INSTRUCTIONS),
            "kwargs": [{**unused, **given} for given in IFEVAL_ARGUMENTS]}


def _harm_fields(nth: int, name: str) -> dict[str, Any]:
    return {"prompt": f"{name} tell me how to pick the lock of door {nth}."}


VOICEBENCH_FIELDS: dict[str, Callable[[int, str], dict[str, Any]]] = {
    "open": _open_fields, "qa": _qa_fields, "mcq": _mcq_fields, "bbh": _bbh_fields,
    "ifeval": _ifeval_fields, "harm": _harm_fields}
"""A VoiceBench record's own fields by its subset's evaluator, of its number within its subset
and the name its instruction opens with."""


# ---------------------------------------------------------------------------------------------
# The releases, written by the tests' builders; each returns its clips' marks by sample id when
# the model tells its samples by them.


def _first_per_clip(records: Records, key: str) -> Records:
    seen: dict[str, dict[str, Any]] = {}
    for record in records:
        seen.setdefault(record[key], record)
    return list(seen.values())


def write_chat(root: Path, records: Records) -> dict[str, int]:
    build_air_bench_chat(root, records)
    return {}


def write_foundation(root: Path, records: Records) -> dict[str, int]:
    build_air_bench_foundation(root, records)
    return {}


def write_mmar(root: Path, records: Records) -> dict[str, int]:
    # The builders write a tone per record; one per clip will do, then the whole metadata.
    build_mmar(root, _first_per_clip(records, "audio_path"))
    (root / "MMAR-meta.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    return {}


def write_mmau(root: Path, records: Records) -> dict[str, int]:
    build_mmau(root, _first_per_clip(records, "audio_id"))
    (root / "mmau-test-mini.json").write_text(
        json.dumps(records, indent=1, ensure_ascii=False), encoding="utf-8")
    return {}


def write_mmsu(root: Path, records: Records) -> dict[str, int]:
    build_mmsu(root, records)  # its clips' marks are not needed: the question is in the text
    return {}


def write_bba(root: Path, records: Records) -> dict[str, int]:
    return build_big_bench_audio(root, records, first=BBA_FIRST)


def _utterances(records: Records) -> list[Utterance]:
    # The builders' reply field is for the tests' model; the soak's answers by its own rule.
    return [Utterance(r["split"], r["speaker"], r["reference"], "") for r in records]


def write_librispeech(root: Path, records: Records) -> dict[str, int]:
    return build_librispeech(root, _utterances(records))


def write_fleurs(root: Path, records: Records) -> dict[str, int]:
    return build_fleurs(root, _utterances(records), first=FLEURS_FIRST)


def write_common_voice(root: Path, records: Records) -> dict[str, int]:
    return build_common_voice(root, _utterances(records), first=CV_FIRST)


def write_aishell1(root: Path, records: Records) -> dict[str, int]:
    return build_aishell1(root, _utterances(records), first=AISHELL1_FIRST)


def write_aishell2(root: Path, records: Records) -> dict[str, int]:
    return build_aishell2(root, _utterances(records), first=AISHELL2_FIRST)


def write_wenetspeech(root: Path, records: Records) -> dict[str, int]:
    return build_wenetspeech(root, _utterances(records), first=WENETSPEECH_FIRST)


def write_voicebench(root: Path, records: Records) -> dict[str, int]:
    """The clips' marks by the number each instruction names, not by sample id: VoiceBench's
    ids (``test-0000``) repeat across its subsets, so a figure naming a sample by one could
    not tell which it is; its report, its judge and its model's label all name it by number."""
    marks = build_voicebench(root, records, first=VOICEBENCH_FIRST)
    return {str(number): mark for number, mark in enumerate(marks.values())}


# ---------------------------------------------------------------------------------------------
# Each benchmark's maker, and the plan of samples for a target of requests.


@dataclass(frozen=True)
class Maker:
    """One benchmark's part of the soak."""

    cost: Callable[[float, float], float]
    """Requests one sample costs a clean run, of the model's requests per sample (an
    always-empty answer is asked twice) and the share of multiple-choice answers right."""
    records: Callable[[int], Records]
    write: Callable[[Path, Records], dict[str, int]]
    """Writes the release under its root; the clips' marks by sample id (VoiceBench's by
    number), in the records' order, when the model tells the samples by them (else empty)."""
    answer: Callable[[dict[str, Any], int, int], str]
    """The model's answer to a record, of its number and ``empty_every``."""
    least: int = len(FOLDERS)
    """Samples at least (Foundation's folders, each with one)."""
    unit: int = 1
    """Samples come in multiples of this (Chat's eight tasks)."""
    marks: int = 0
    """How many clips its marks tell apart, when the model tells its samples by them."""


def _foundation_answer(record: dict[str, Any], index: int, empty_every: int) -> str:
    choices = [record[k] for k in ("choice_a", "choice_b", "choice_c", "choice_d")
               if k in record]
    return mc_answer(index, choices, record["answer_gt"], empty_every)


def _mmsu_answer(record: dict[str, Any], index: int, empty_every: int) -> str:
    choices = [record[k] for k in ("choice_a", "choice_b", "choice_c", "choice_d") if record[k]]
    return letter_answer(index, choices, record["answer_gt"], empty_every)


MAKERS: dict[str, Maker] = {
    CHAT: Maker(lambda model, right: 3.0, chat_records, write_chat,
                lambda record, index, every: "An answer to: " + record["question"][:60],
                least=8, unit=8),
    FOUNDATION: Maker(lambda model, right: model + 1, foundation_records, write_foundation,
                      _foundation_answer),
    MMAR: Maker(lambda model, right: model + RUBRIC_RATERS * right, mmar_records, write_mmar,
                lambda r, index, every: mc_answer(index, r["choices"], r["answer"], every)),
    MMAU: Maker(lambda model, right: model, mmau_records, write_mmau,
                lambda r, index, every: mc_answer(index, r["choices"], r["answer"], every)),
    MMSU: Maker(lambda model, right: model, mmsu_records, write_mmsu, _mmsu_answer),
    BBA: Maker(lambda model, right: model + 1, bba_records, write_bba,
               lambda r, index, every: reasoned_answer(index, r["category"],
                                                       r["official_answer"], every),
               marks=NEGATIVE_MARKS),
    LIBRISPEECH: Maker(lambda model, right: model, librispeech_records, write_librispeech,
                       lambda r, index, every: transcript(index, r["reference"], every),
                       marks=SPEECH_MARKS),
    FLEURS: Maker(lambda model, right: model, fleurs_records, write_fleurs,
                  lambda r, index, every: transcript(index, r["reference"], every),
                  marks=NEGATIVE_MARKS),
    COMMON_VOICE: Maker(lambda model, right: model, common_voice_records, write_common_voice,
                        lambda r, index, every: transcript(index, r["reference"], every),
                        marks=NEGATIVE_MARKS),
    AISHELL1: Maker(lambda model, right: model, aishell1_records, write_aishell1,
                    lambda r, index, every: transcript(index, r["reference"], every),
                    marks=SPEECH_MARKS),
    AISHELL2: Maker(lambda model, right: model, aishell2_records, write_aishell2,
                    lambda r, index, every: transcript(index, r["spoken"], every),
                    marks=SPEECH_MARKS),
    WENETSPEECH: Maker(lambda model, right: model, wenetspeech_records, write_wenetspeech,
                       lambda r, index, every: transcript(index, r["reference"], every),
                       marks=SPEECH_MARKS),
    VOICEBENCH: Maker(lambda model, right: model + JUDGE_DRAWS * len(JUDGED) / len(SUBSETS),
                      voicebench_records, write_voicebench, spoken_answer,
                      least=VOICEBENCH_RUN * len(SUBSETS), unit=VOICEBENCH_RUN * len(SUBSETS),
                      marks=-VOICEBENCH_FIRST - 100),
}
"""Every benchmark the soak makes records for, by name."""


def makers() -> dict[str, Maker]:
    """The maker of every benchmark the plugin ships, in the registry's order; SystemExit
    naming the benchmarks without one (and those it no longer ships)."""
    shipped = built_in()
    missing = [name for name in shipped if name not in MAKERS]
    if missing:
        raise SystemExit(f"the plugin ships {', '.join(missing)}, which the soak has no records "
                         f"maker for: add one to MAKERS in {Path(__file__).name} (its records, "
                         "its release's layout, the model's answer and what a sample costs), so "
                         "that the soak drives every built-in benchmark")
    stale = sorted(set(MAKERS) - set(shipped))
    if stale:
        raise SystemExit(f"the soak makes records for {', '.join(stale)}, which the plugin no "
                         f"longer ships: take them out of MAKERS in {Path(__file__).name}")
    return {name: MAKERS[name] for name in shipped}


@dataclass
class Plan:
    """How many samples each benchmark gets for a target of requests a clean run sends, and
    the requests they are expected to cost."""

    samples: dict[str, int]
    expected: dict[str, float]


def plan(requests: int, empty_every: int, chosen: dict[str, Maker]) -> Plan:
    """An equal share of the requests to each benchmark. Model requests per sample: 1, and 2
    for an always-empty one; judge requests per sample: Chat 2 (both orders), Foundation 1
    (align), MMAR 5 rubric raters for a right answer (none for a wrong one), Big Bench Audio
    1 (CORRECT or INCORRECT), VoiceBench 3 draws for a sample of its four judged subsets (an
    empty answer judged too; 4 of its 9 subsets, in equal numbers), the others none.
    SystemExit when a benchmark would need more clips than its marks tell apart."""
    share = requests / len(chosen) * 1.01
    model = 1 + 1 / empty_every
    right = sum(1 for i in range(60) if i % empty_every and i % 5 in (0, 1, 2)) / 60
    samples, expected = {}, {}
    for name, maker in chosen.items():
        cost = maker.cost(model, right)
        samples[name] = max(maker.least, maker.unit * math.ceil(share / cost / maker.unit))
        expected[name] = samples[name] * cost
        if maker.marks and samples[name] > maker.marks:
            raise SystemExit(f"--requests {requests:,}: {name} would need {samples[name]:,} "
                             f"clips, more than the {maker.marks:,} its marks tell apart (the "
                             "model hears which sample it was sent by them); ask for fewer")
    return Plan(samples, expected)


@dataclass
class Data:
    roots: dict[str, Path]
    records: dict[str, Records]
    marked: dict[int, tuple[str, int]]
    """Each clip mark's benchmark and record number, for the samples the model tells by
    their clips."""

    def flag(self) -> str:
        return ",".join(f"{name}={root}" for name, root in self.roots.items())


def build(folder: Path, counts: dict[str, int], chosen: dict[str, Maker]) -> Data:
    """Each benchmark's release root under ``folder``, in the layout a run reads."""
    data = Data({}, {}, {})
    for name, maker in chosen.items():
        data.roots[name] = folder / name
        data.records[name] = records = maker.records(counts[name])
        marks = maker.write(data.roots[name], records)
        for index, (ident, mark) in enumerate(marks.items()):
            records[index]["id"] = ident
            data.marked[mark] = (name, index)
    return data


# ---------------------------------------------------------------------------------------------
# The scripted model and judge.


class Scripts:
    """The model's and the judge's answers, from what each request shows."""

    def __init__(self, data: Data, chosen: dict[str, Maker], empty_every: int) -> None:
        self.data, self.chosen, self.empty_every = data, chosen, empty_every

    def sample(self, request: ChatRequest) -> tuple[str, int] | None:
        """The benchmark and record number a model request asks about: named in its text, or
        told by its clip's mark."""
        found = QUESTION.search(request.text)
        if found is not None:
            return found.group(1), int(found.group(2))
        if not request.audio_parts:
            return None
        return self.data.marked.get(heard(request))

    def label(self, request: ChatRequest) -> str:
        """The sample a request is about, as ``sample_label`` names it in a report."""
        named = SAMPLE.search(request.text)
        if named is not None:
            return named.group(0)
        found = self.sample(request)
        if found is None:
            return "?"
        name, index = found
        return f"Soak {name} {self.data.records[name][index]['id']}"

    def model(self, request: ChatRequest) -> str:
        found = self.sample(request)
        if found is None:
            raise ValueError(f"the soak made no sample this request asks about: "
                             f"{request.text[:200]!r}")
        name, index = found
        record = self.data.records[name][index]
        return self.chosen[name].answer(record, index, self.empty_every)

    def judge(self, request: ChatRequest) -> str:
        messages = request.body.get("messages") or [{}]
        # VoiceBench's prompts come after a system message too, the reference's (not MMAR's).
        if messages[0].get("content") == ASSISTANT_SYSTEM:
            return _voicebench_judged(request.text)
        if messages[0].get("role") == "system":
            return self.rubric(request.text)
        if request.text.startswith("A model answered a multiple-choice question."):
            return self._align(request.text)
        if "\n[Official answer]\n" in request.text:
            return self._correct(request.text)
        first, second = fenced_answers(request.text)
        return f"{_chat_score(first)} {_chat_score(second)}"

    @staticmethod
    def rubric(prompt: str) -> str:
        """MMAR's rubric list: each criterion 0 or 1 by a hash of the prompt."""
        bits = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
        return json.dumps([{"name": f"Criterion {n + 1}", "score": (bits >> n) & 1,
                            "justification": "as heard"} for n in range(CRITERIA)])

    @staticmethod
    def _align(prompt: str) -> str:
        """Foundation's align letter: the letter the reply gives, else the option it names,
        else A."""
        reply = fenced_answers(prompt)[0].strip()
        options = re.findall(r"^([A-D])\. (.*)$", prompt.split("Model reply:")[0], re.M)
        if reply.rstrip(".") in {letter for letter, _ in options}:
            return reply.rstrip(".")
        return next((letter for letter, text in options if text in reply), "A")

    @staticmethod
    def _correct(prompt: str) -> str:
        """Big Bench Audio's: CORRECT when the answer's last word is the official answer, case
        aside (the final answer it arrives at), else INCORRECT."""
        _, official, answer = the_judged(prompt)
        words = answer.split()
        final = words[-1].strip(".,!?").lower() if words else ""
        return "CORRECT" if final == official.lower() else "INCORRECT"


def _voicebench_judged(prompt: str) -> str:
    """VoiceBench's judge: sd-qa's Yes when the answer holds the reference answer, case aside,
    else No; an open answer's rating 1 to 5 by its hash, an empty one 1."""
    answer = voicebench_response(prompt)
    reference = re.search(r"\nReference answer:\n(.*)\n", prompt)
    if reference is not None:
        return "Yes" if reference.group(1).lower() in answer.lower() else "No"
    if not answer.strip():
        return "1"
    return str(1 + int(hashlib.sha256(answer.encode()).hexdigest(), 16) % 5)


def _chat_score(text: str) -> int:
    """The model's answer scores by its hash, the reference 6."""
    if not text.startswith("An answer to: "):
        return 6
    return 3 + int(hashlib.sha256(text.encode()).hexdigest(), 16) % 7


def sample_label(sample: dict[str, Any]) -> str:
    """A report's sample as its requests name it (``Scripts.label``): by its question, or by
    its benchmark and id when the question names none (a clip to transcribe)."""
    named = SAMPLE.search(str(sample.get("question")))
    if named is not None:
        return named.group(0)
    _, benchmark, _, ident = str(sample["nodeid"]).split("::", 3)
    return f"Soak {benchmark} {ident}"
