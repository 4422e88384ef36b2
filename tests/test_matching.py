"""MMAR answer matching: the official rule exactly, the strict rule, answer lines and prompts."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pytest

from pytest_audiobench.benchmarks.choice.matching import (
    MatchDecision,
    match_official,
    match_strict,
    split_reasoning,
    tokens,
)
from pytest_audiobench.benchmarks.choice.templates import default_prompt, reasoning_prompt
from pytest_audiobench.transport.types import Completion, split_thought
from tests.fakes.datasets import load_mmar_reference, reference_available

needs_reference = pytest.mark.skipif(
    not reference_available(), reason="the MMAR reference metadata (../shared/reference) is absent")

GRASS = ("Mountain Canyon", "Dense Forest", "Open Grassland", "City Streets")
FAR = ("Circling around", "In a fixed position", "From far to near", "From near to far")
RATIO = ("Ratio is 3:1", "Ratio is 2:1", "Ratio is 1:1", "Ratio is 1:3")
PAIRS = ("Guitar, Piano", "Piano, Guitar", "Piano, Guitar, Piano", "Guitar, Piano, Guitar")
COUNTS = ("2", "4", "5", "3")
TENNIS = ("Tennis", "Table Tennis", "Badminton", "Squash")
NOTES = ("C", "D", "E", "F")
PADDED = ("Yes", "No, there is distortion", "")


def official(prediction: str, answer: str, choices: Sequence[str]) -> bool:
    """The official ``string_match``, transcribed from its decision rule as the test oracle."""
    import re

    def tokenize(text: str) -> set[str]:
        return set(re.findall(r"\b\w+\b", text.lower()))

    predicted, expected = tokenize(prediction), tokenize(answer)
    if not predicted:
        return False
    others: set[str] = set()
    for choice in choices:
        if tokenize(choice) != expected:
            others |= tokenize(choice) - expected
    return expected <= predicted and predicted.isdisjoint(others)


# --- tokens -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "expected"), [
    pytest.param("Open Grassland", {"open", "grassland"}, id="lowercased_words"),
    pytest.param("Ratio is 1:3", {"ratio", "is", "1", "3"}, id="a_colon_splits_numbers"),
    pytest.param("G#4 and C5", {"g", "4", "and", "c5"}, id="a_hash_splits_a_note_name"),
    pytest.param("Bbm(add9)", {"bbm", "add9"}, id="brackets_split_a_chord_name"),
    pytest.param("well-known", {"well", "known"}, id="a_hyphen_splits"),
    pytest.param("snake_case", {"snake_case"}, id="an_underscore_is_part_of_a_word"),
    pytest.param("ii°", {"ii"}, id="a_degree_sign_is_not_a_word_character"),
    pytest.param("四川话", {"四川话"}, id="cjk_characters_are_word_characters"),
    pytest.param("", set(), id="an_empty_text_has_no_token"),
    pytest.param("?!", set(), id="punctuation_alone_has_no_token"),
])
def test_tokens_are_the_lowercase_word_set_of_the_official_script(
        text: str, expected: set[str]) -> None:
    assert tokens(text) == frozenset(expected)


# --- the official rule ------------------------------------------------------------------------

OFFICIAL = [
    pytest.param("Open Grassland", "Open Grassland", GRASS, True, id="the_exact_answer"),
    pytest.param("open grassland", "Open Grassland", GRASS, True, id="case_is_ignored"),
    pytest.param("OPEN GRASSLAND!!!", "Open Grassland", GRASS, True, id="punctuation_is_ignored"),
    pytest.param("Grassland, open", "Open Grassland", GRASS, True, id="word_order_is_ignored"),
    pytest.param("The answer is Open Grassland.", "Open Grassland", GRASS, True,
                 id="a_the_answer_is_prefix_is_harmless"),
    pytest.param("Answer: Open Grassland.", "Open Grassland", GRASS, True,
                 id="an_answer_colon_prefix_is_harmless"),
    pytest.param("It sounds like a wide open grassland with wind.", "Open Grassland", GRASS,
                 True, id="extra_words_of_no_choice_are_harmless"),
    pytest.param("Open Grassland, not City Streets", "Open Grassland", GRASS, False,
                 id="mentioning_a_second_choice_is_wrong"),
    pytest.param("Open Grassland or Dense Forest", "Open Grassland", GRASS, False,
                 id="hedging_between_two_choices_is_wrong"),
    pytest.param("Open", "Open Grassland", GRASS, False, id="part_of_the_answer_is_wrong"),
    pytest.param("Dense Forest", "Open Grassland", GRASS, False, id="another_choice_is_wrong"),
    pytest.param("It is a city.", "Open Grassland", GRASS, False,
                 id="one_word_of_another_choice_without_the_answer_is_wrong"),
    pytest.param("C", "Open Grassland", GRASS, False, id="a_bare_letter_never_matches"),
    pytest.param("(C) Open Grassland", "Open Grassland", GRASS, True,
                 id="a_letter_before_the_text_is_harmless"),
    pytest.param("The answer is C", "Open Grassland", GRASS, False,
                 id="a_letter_in_a_sentence_never_matches"),
    pytest.param("", "Open Grassland", GRASS, False, id="an_empty_prediction_is_wrong"),
    pytest.param("  ...  ", "Open Grassland", GRASS, False,
                 id="a_prediction_without_words_is_wrong"),
    pytest.param("From near to far", "From far to near", FAR, True,
                 id="a_wrong_choice_with_the_answer_words_is_accepted"),
    pytest.param("Ratio is 3:1", "Ratio is 1:3", RATIO, True,
                 id="a_reversed_ratio_is_accepted"),
    pytest.param("1:3", "Ratio is 1:3", RATIO, False, id="the_answer_without_its_prefix_is_wrong"),
    pytest.param("3", "3", COUNTS, True, id="a_number_answer"),
    pytest.param("There are 3 people.", "3", COUNTS, True, id="a_number_in_a_sentence"),
    pytest.param("3 or 4", "3", COUNTS, False, id="two_numbers_of_the_choices_are_wrong"),
    pytest.param("I count 3, not 2", "3", COUNTS, False, id="a_rejected_number_still_counts"),
    pytest.param("Tennis", "Tennis", TENNIS, True,
                 id="an_answer_inside_another_choice_matches_alone"),
    pytest.param("Table tennis", "Tennis", TENNIS, False,
                 id="the_longer_choice_containing_the_answer_is_wrong"),
    pytest.param("Table Tennis", "Table Tennis", TENNIS, True,
                 id="the_longer_choice_when_it_is_the_answer"),
    pytest.param("C", "C", NOTES, True, id="a_letter_that_is_the_answer_text_matches"),
    pytest.param("Yes", "Yes", PADDED, True, id="an_empty_placeholder_choice_is_harmless"),
]


@pytest.mark.parametrize(("prediction", "answer", "choices", "expected"), OFFICIAL)
def test_the_official_matcher_decides_as_the_official_script(
        prediction: str, answer: str, choices: Sequence[str], expected: bool) -> None:
    assert official(prediction, answer, choices) is expected  # the oracle agrees with the table
    assert match_official(prediction, answer, choices).correct is expected


@pytest.mark.parametrize(("prediction", "answer", "choices", "expected"), [
    pytest.param("Open Grassland", "Open Grassland", GRASS, MatchDecision(
        correct=True, extracted="Open Grassland",
        reason="every answer token present; no token of another choice"), id="accepted"),
    pytest.param("Open Grassland, not City Streets", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="also contains 'city', 'streets' from choice 'City Streets'"),
        id="clash"),
    pytest.param("Open", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="missing answer token(s) 'grassland'"), id="missing"),
    pytest.param("Dense Forest", "Open Grassland", GRASS, MatchDecision(
        correct=False, extracted="Dense Forest",
        reason="missing answer token(s) 'grassland', 'open'"), id="another_choice"),
    pytest.param("B", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="bare letter B is not matched by the official script: it "
        "compares words, not option letters"), id="bare_letter"),
    pytest.param("The answer is (B).", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="option letter B is not matched by the official script: it "
        "compares words, not option letters"), id="letter_in_a_phrase"),
    pytest.param("", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="the prediction has no word: an empty prediction is wrong"),
        id="empty"),
    pytest.param("From near to far", "From far to near", FAR, MatchDecision(
        correct=True, extracted="From far to near",
        reason="every answer token present; no token of another choice (choice 'From near to "
        "far' has the same words: the official script cannot tell them apart)"), id="twin"),
])
def test_an_official_decision_says_why_and_which_choice_it_saw(
        prediction: str, answer: str, choices: Sequence[str], expected: MatchDecision) -> None:
    assert match_official(prediction, answer, choices) == expected


# --- the strict rule --------------------------------------------------------------------------

STRICT = [
    pytest.param("Open Grassland", "Open Grassland", GRASS, True, id="the_exact_answer"),
    pytest.param("The answer is Open Grassland.", "Open Grassland", GRASS, True,
                 id="a_prefix_is_harmless_as_officially"),
    pytest.param("Open Grassland, not City Streets", "Open Grassland", GRASS, False,
                 id="a_second_choice_is_wrong_as_officially"),
    pytest.param("C", "Open Grassland", GRASS, True, id="a_bare_letter_names_its_choice"),
    pytest.param("(C)", "Open Grassland", GRASS, True, id="a_letter_in_parentheses"),
    pytest.param("C.", "Open Grassland", GRASS, True, id="a_letter_with_a_period"),
    pytest.param("[C]", "Open Grassland", GRASS, True, id="a_letter_in_brackets"),
    pytest.param("**C**", "Open Grassland", GRASS, True, id="a_letter_in_bold"),
    pytest.param("Option C", "Open Grassland", GRASS, True, id="option_and_a_letter"),
    pytest.param("The answer is C", "Open Grassland", GRASS, True, id="the_answer_is_a_letter"),
    pytest.param("The correct answer is: (C).", "Open Grassland", GRASS, True,
                 id="the_correct_answer_is_colon_letter"),
    pytest.param("Answer: c", "Open Grassland", GRASS, True,
                 id="a_lowercase_letter_after_a_phrase"),
    pytest.param("c", "Open Grassland", GRASS, False, id="a_lone_lowercase_letter_is_not_one"),
    pytest.param("B", "Open Grassland", GRASS, False, id="a_letter_naming_a_wrong_choice"),
    pytest.param("E", "Open Grassland", GRASS, False, id="a_letter_out_of_range"),
    pytest.param("B or C", "Open Grassland", GRASS, False, id="two_letters_are_no_answer"),
    pytest.param("C", "C", NOTES, True, id="a_letter_that_is_a_choice_text_is_text"),
    pytest.param("A", "C", NOTES, False, id="a_letter_is_not_an_index_when_choices_are_letters"),
    pytest.param("From far to near", "From far to near", FAR, True, id="the_answer_in_order"),
    pytest.param("It moves from far to near.", "From far to near", FAR, True,
                 id="the_answer_in_order_within_a_sentence"),
    pytest.param("From near to far", "From far to near", FAR, False,
                 id="the_same_words_in_another_order_are_wrong"),
    pytest.param("far near from to", "From far to near", FAR, False,
                 id="the_answer_words_in_no_choice_order_are_wrong"),
    pytest.param("From far to near, not from near to far", "From far to near", FAR, False,
                 id="naming_the_twin_as_well_is_wrong"),
    pytest.param("Ratio is 1:3", "Ratio is 1:3", RATIO, True, id="the_ratio_in_order"),
    pytest.param("Ratio is 3:1", "Ratio is 1:3", RATIO, False, id="the_reversed_ratio_is_wrong"),
    pytest.param("Guitar, Piano", "Guitar, Piano", PAIRS, True, id="a_short_answer_alone"),
    pytest.param("Guitar, Piano, Guitar", "Guitar, Piano", PAIRS, False,
                 id="a_longer_twin_containing_the_answer_is_wrong"),
    pytest.param("Guitar, Piano, Guitar", "Guitar, Piano, Guitar", PAIRS, True,
                 id="a_long_answer_containing_a_twin_is_right"),
    pytest.param("Piano, Guitar", "Guitar, Piano, Guitar", PAIRS, False,
                 id="a_shorter_twin_is_wrong"),
]


@pytest.mark.parametrize(("prediction", "answer", "choices", "expected"), STRICT)
def test_the_strict_matcher_fixes_same_word_twins_and_reads_letters(
        prediction: str, answer: str, choices: Sequence[str], expected: bool) -> None:
    assert match_strict(prediction, answer, choices).correct is expected


@pytest.mark.parametrize(("prediction", "answer", "choices", "expected"), [
    pytest.param("C", "Open Grassland", GRASS, MatchDecision(
        correct=True, extracted="Open Grassland",
        reason="option letter C names the answer 'Open Grassland'"), id="letter_right"),
    pytest.param("B", "Open Grassland", GRASS, MatchDecision(
        correct=False, extracted="Dense Forest",
        reason="option letter B names choice 'Dense Forest', not the answer 'Open Grassland'"),
        id="letter_wrong"),
    pytest.param("F", "Open Grassland", GRASS, MatchDecision(
        correct=False, reason="option letter F is out of range: there are only 4 choices"),
        id="letter_out_of_range"),
    pytest.param("From near to far", "From far to near", FAR, MatchDecision(
        correct=False, extracted="From near to far",
        reason="has the answer's words but not in its order; choice 'From near to far' has the "
        "same words in another order"), id="twin"),
    pytest.param("from far to near, not from near to far", "From far to near", FAR,
                 MatchDecision(correct=False, reason="also contains choice 'From near to far', "
                               "which has the same words as the answer in another order"),
                 id="both"),
    pytest.param("From far to near", "From far to near", FAR, MatchDecision(
        correct=True, extracted="From far to near",
        reason="the answer's words in the answer's order; no other choice"), id="right"),
])
def test_a_strict_decision_says_why_and_which_choice_it_saw(
        prediction: str, answer: str, choices: Sequence[str], expected: MatchDecision) -> None:
    assert match_strict(prediction, answer, choices) == expected


def _variants(text: str) -> list[str]:
    return [text, text.lower(), f"The answer is {text}.", f"Answer: {text}", f"{text}!",
            f"I think it is {text}, because of what I hear."]


@needs_reference
def test_the_strict_matcher_accepts_nothing_the_official_rejects_on_real_items() -> None:
    for record in load_mmar_reference():
        choices, answer = record["choices"], record["answer"]
        texts = [v for c in choices for v in _variants(c)]
        texts += [f"{a} or {b}" for a, b in pairwise(choices)]
        for prediction in texts:
            if match_strict(prediction, answer, choices).correct:
                assert match_official(prediction, answer, choices).correct, (
                    record["id"], prediction)


@needs_reference
def test_both_matchers_accept_the_exact_answer_text_of_every_real_item() -> None:
    for record in load_mmar_reference():
        choices, answer = record["choices"], record["answer"]
        assert match_official(answer, answer, choices).correct, record["id"]
        assert match_strict(answer, answer, choices).correct, record["id"]


@needs_reference
def test_the_official_matcher_accepts_a_wrong_option_exactly_when_it_has_the_answer_words(
        ) -> None:
    accepted_items: set[str] = set()
    accepted_pairs = 0
    for record in load_mmar_reference():
        choices, answer = record["choices"], record["answer"]
        for wrong in (c for c in choices if c != answer):
            decision = match_official(wrong, answer, choices)
            assert decision.correct == official(wrong, answer, choices)
            assert decision.correct == (tokens(wrong) == tokens(answer)), (record["id"], wrong)
            assert not match_strict(wrong, answer, choices).correct, (record["id"], wrong)
            if decision.correct:
                accepted_items.add(record["id"])
                accepted_pairs += 1
    # PROTOCOLS.md counts 20 items; some have two or three such options, 28 in all.
    assert len(accepted_items) == 20
    assert accepted_pairs == 28


@needs_reference
def test_a_letter_names_the_choice_at_its_position_on_real_items() -> None:
    for record in load_mmar_reference():
        choices, answer = record["choices"], record["answer"]
        for index, choice in enumerate(choices):
            letter = "ABCDEF"[index]
            decision = match_strict(f"({letter})", answer, choices)
            assert decision.correct is (choice == answer), (record["id"], letter)
            assert decision.extracted == choice
            assert not match_official(f"({letter})", answer, choices).correct


# --- split_reasoning --------------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "expected"), [
    pytest.param("Throat singing suggests the steppe.\nAnswer: Open Grassland",
                 ("Throat singing suggests the steppe.", "Open Grassland"), id="answer_line"),
    pytest.param("Reasoning.\n**Answer:** Open Grassland\n",
                 ("Reasoning.", "Open Grassland"), id="bold_answer_line"),
    pytest.param("Reasoning.\nFinal answer: Dense Forest", ("Reasoning.", "Dense Forest"),
                 id="final_answer_line"),
    pytest.param("Reasoning.\nANSWER: Dense Forest", ("Reasoning.", "Dense Forest"),
                 id="any_case"),
    pytest.param("Reasoning.\nAnswer:\nOpen Grassland\n", ("Reasoning.", "Open Grassland"),
                 id="answer_on_the_next_line"),
    pytest.param("Answer: maybe forest?\nOn reflection...\nAnswer: Open Grassland",
                 ("Answer: maybe forest?\nOn reflection...", "Open Grassland"),
                 id="the_last_answer_line_counts"),
    pytest.param("Reasoning.\nAnswer: Open Grassland\nHope this helps.",
                 ("Reasoning.", "Open Grassland"), id="text_after_the_answer_line_is_dropped"),
    pytest.param("The answer: grassland is wide open", ("The answer: grassland is wide open",
                 "The answer: grassland is wide open"), id="answer_mid_line_is_no_answer_line"),
    pytest.param("Open Grassland", ("Open Grassland", "Open Grassland"),
                 id="no_answer_line_means_the_whole_reply_is_both"),
    pytest.param("<think>steppe, wind</think>\n\nOpen Grassland",
                 ("steppe, wind", "Open Grassland"), id="a_think_block_is_reasoning"),
    pytest.param("<think>steppe</think>More.\nAnswer: Open Grassland",
                 ("steppe\n\nMore.", "Open Grassland"), id="think_block_and_answer_line"),
    pytest.param("<think>steppe</think>", ("steppe", ""), id="a_think_block_without_answer"),
    pytest.param("<think>steppe, wind and no end", ("steppe, wind and no end", ""),
                 id="a_think_block_never_closed_is_all_reasoning"),
    pytest.param("steppe</think>Open Grassland", ("steppe", "Open Grassland"),
                 id="a_block_the_template_opened"),
    pytest.param("", ("", ""), id="empty"),
])
def test_split_reasoning_finds_the_final_answer_line(reply: str,
                                                     expected: tuple[str, str]) -> None:
    # As the benchmarks see a reply: the thought block taken out first (transport), then the
    # answer line found in what is left.
    thought, answer = split_thought(reply)
    assert split_reasoning(answer, thought) == expected


@pytest.mark.parametrize("content", ["Open Grassland", "More.\nAnswer: Open Grassland",
                                     "", "Answer: Open Grassland"])
def test_reasoning_given_apart_splits_as_the_same_reasoning_given_inline(content: str) -> None:
    inline = Completion(text=f"<think>steppe, wind</think>{content}")
    apart = Completion(text=content, reasoning="steppe, wind")
    assert (inline.thought, inline.answer) == (apart.thought, apart.answer.strip())
    assert split_reasoning(inline.answer, inline.thought) == split_reasoning(
        apart.answer, apart.thought)


# --- prompts ----------------------------------------------------------------------------------


def test_the_default_prompt_is_question_instruction_then_one_choice_a_line() -> None:
    lines = default_prompt("Where is this from?", GRASS).split("\n")
    assert lines[0] == "Where is this from?"
    assert "select one option" in lines[1].lower()
    assert lines[2:] == list(GRASS)


def test_the_default_prompt_shows_no_option_letters() -> None:
    assert "A." not in default_prompt("Q?", GRASS)
    assert "(A)" not in default_prompt("Q?", GRASS)


def test_the_reasoning_prompt_asks_for_reasoning_then_an_answer_line() -> None:
    prompt = reasoning_prompt("Where is this from?", GRASS)
    assert prompt.startswith(default_prompt("Where is this from?", GRASS) + "\n")
    assert "step by step" in prompt
    assert prompt.rstrip().endswith("Answer: <the chosen option, written exactly as above>")


def test_a_reply_in_the_requested_format_splits_and_matches() -> None:
    reply = "I hear throat singing, typical of the steppe.\nAnswer: Open Grassland"
    reasoning, answer = split_reasoning(reply)
    assert reasoning.startswith("I hear")
    assert match_official(answer, "Open Grassland", GRASS).correct
