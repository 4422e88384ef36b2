"""MMSU's two readings of a reply, against a table worked by hand through every branch of the
official rule (mmsu_evaluation.py) and against that rule written out again here, on 5,000
generated replies."""

from __future__ import annotations

import random

import pytest

from pytest_audiobench.benchmarks.mmsu.data import MmsuRecord
from pytest_audiobench.benchmarks.mmsu.grade import MmsuGrade
from pytest_audiobench.benchmarks.mmsu.prompts import mmsu_prompt

OPTIONS = {"A": "a dog barking", "B": "a cat meowing", "C": "rain falling", "D": "a car horn"}
ANSWER = "a cat meowing"
# reply, the official letter (None: none), counted by the official rule, its decision (None:
# left out), the strict letter, the strict decision.
TABLE = [
    ("B", "B", True, True, "B", True),  # a bare letter
    ("C", "C", True, False, "C", False),  # a wrong letter
    ("(C)", "C", True, False, "C", False),  # the second-to-last character
    ("The answer is D.", "D", True, False, "D", False),  # likewise
    ("Answer: B", "A", True, False, "B", True),  # its first character is read: A
    ("**B**", None, False, None, "B", True),  # neither character: left out
    ("b", None, False, None, "B", True),  # lower case: left out
    ("", None, True, False, None, False),  # empty: counted wrong
    ("None", None, True, False, None, False),  # likewise
    ("A cat meowing is heard.", "A", True, False, "B", True),  # a capital that is a letter
]


@pytest.mark.parametrize(("reply", "official", "counted", "decided", "strict", "right"), TABLE,
                         ids=[repr(row[0]) for row in TABLE])
def test_each_branch_of_the_official_rule_and_the_strict_reading(
        reply: str, official: str | None, counted: bool, decided: bool | None,
        strict: str | None, right: bool) -> None:
    grade = MmsuGrade.read(reply, OPTIONS, ANSWER, "official")
    assert (grade.official, grade.counted, grade.strict) == (official, counted, strict)
    assert grade.decisions == {"official": decided, "strict": right}


def test_the_table_s_counted_totals_and_the_replies_read_otherwise() -> None:
    grades = [MmsuGrade.read(row[0], OPTIONS, ANSWER, "official") for row in TABLE]
    official = [v.decisions["official"] for v in grades]
    # Eight counted (two left out), one of them right: 12.5 %; strict counts all ten and
    # finds five right. "Answer: B" and the sentence are read A officially, B strictly.
    assert (sum(d is not None for d in official), sum(d is True for d in official)) == (8, 1)
    assert sum(v.decisions["strict"] is True for v in grades) == 5
    assert sum(v.counts()["official.differs_num"] for v in grades) == 2


def _official_as_written(response: str, choices: dict[str, str], answer_gt: str
                         ) -> bool | None:
    """mmsu_evaluation.py's decision, written out again from its published logic: True or
    False when it counts the record, None when it skips it."""
    predict = response.strip().replace("\n", "")
    model_predict = None
    if predict != "None" and predict:
        if predict[0] in ("A", "B", "C", "D"):
            model_predict = predict[0]
        elif len(predict) > 1 and predict[-2] in ("A", "B", "C", "D"):
            model_predict = predict[-2]
        else:
            return None
    return model_predict is not None and choices[model_predict] == answer_gt


STYLES = ["{L}", "({L})", "{L}.", "Answer: {L}", "The answer is {L}.", "**{L}**", "{l}", "",
          "None", "  {L}\n", "I think it is {L}", "Option {L} seems right.", "{text}",
          "Based on the audio, {L}.", "{L}. {text}", "None of them", "\n\n"]


def test_the_official_rule_equals_the_script_on_5000_generated_replies() -> None:
    rng = random.Random(7)
    counted = right = 0
    for _ in range(5_000):
        texts = rng.sample(["one", "two", "three", "four", "a dog", "the rain"], 4)
        if rng.random() < 0.4:  # one or two options missing, in any place, as the release pads
            for place in rng.sample(range(4), rng.choice((1, 2))):
                texts[place] = ""
        options = dict(zip("ABCD", texts, strict=True))
        answer = rng.choice([t for t in texts if t])
        letter = rng.choice("ABCD")
        reply = rng.choice(STYLES).format(L=letter, l=letter.lower(), text=options[letter])
        expected = _official_as_written(reply, options, answer)
        decided = MmsuGrade.read(reply, options, answer, "official").decisions["official"]
        assert decided == expected, (reply, options, answer)
        counted += expected is not None
        right += expected is True
    assert 0 < right < counted < 5_000  # every branch was taken


def test_the_prompt_letters_the_options_and_asks_for_one_letter() -> None:
    options = {**OPTIONS, "D": ""}
    prompt = mmsu_prompt("What is heard?", options, "default", None)
    assert prompt == ("What is heard?\n\nA. a dog barking\nB. a cat meowing\nC. rain falling\n\n"
                      "Reply with the letter of the correct option only (A, B, C), nothing "
                      "else.")
    assert mmsu_prompt("Q?", options, "reasoning", None).endswith(
        "Answer: <one of the letters A, B, C>")
    assert mmsu_prompt("Q?", options, "default", "{question} | {choices}") == (
        "Q? | A. a dog barking\nB. a cat meowing\nC. rain falling")


def _padded(**options: str | None) -> dict[str, str]:
    """The options by letter of a hand-made release row whose missing options are null."""
    row = {"id": "q1", "task_name": "gender_recognition", "question": "Who speaks?",
           "answer_gt": "male", "category": "perception", "sub-category": "paralinguistics",
           "audio": "audio/q1.wav", **{f"choice_{k.lower()}": v for k, v in options.items()}}
    return MmsuRecord.model_validate(row).letters


# The release's two-option items: nulls in any place (a third party counts 453 such items).
PADDED = {
    "A-missing": _padded(A=None, B="male", C="female", D=None),
    "B-missing": _padded(A="female", B=None, C="male", D="child"),
    "two-missing": _padded(A=None, B="female", C=None, D="male"),
}
# options, the right letter, a reply of the missing option's letter, the prompt's lines.
PADDED_CASES = [
    ("A-missing", "B", "A", ["B. male", "C. female"], "B, C"),
    ("B-missing", "C", "B", ["A. female", "C. male", "D. child"], "A, C, D"),
    ("two-missing", "D", "C", ["B. female", "D. male"], "B, D"),
]


@pytest.mark.parametrize(("name", "right", "missing", "lines", "letters"), PADDED_CASES,
                         ids=[case[0] for case in PADDED_CASES])
def test_options_missing_in_any_place_keep_their_letters_in_the_prompt_and_the_rule(
        name: str, right: str, missing: str, lines: list[str], letters: str) -> None:
    options = PADDED[name]
    prompt = mmsu_prompt("Who speaks?", options, "default", None)
    assert prompt == ("Who speaks?\n\n" + "\n".join(lines) + "\n\nReply with the letter of "
                      f"the correct option only ({letters}), nothing else.")
    # The official script reads the letter against choice_a to choice_d as they are.
    said = MmsuGrade.read(right, options, "male", "official")
    assert (said.official, said.right, said.decisions) == (
        right, [right], {"official": True, "strict": True})
    assert MmsuGrade.read(f"{right}. male", options, "male", "official").correct
    # A missing option's letter: counted wrong by the official rule; strictly it names none.
    absent = MmsuGrade.read(missing, options, "male", "official")
    assert (absent.official, absent.counted, absent.strict) == (missing, True, None)
    assert absent.decisions == {"official": False, "strict": False}
    assert absent.strict_reason == "names no option"
    assert MmsuGrade.read("male", options, "male", "strict").correct  # by its text
