"""How VoiceBench reads a reply to a bbh question (a yes/no or (A)/(B) question from four
BIG-Bench Hard tasks, spoken): 1 for yes or (B), 0 for no or (A), None when nothing reads.

Equal to the reference's ``BBHEvaluator`` (MatthewCYM/VoiceBench, ``src/evaluator/bbh.py``):
its if/elif chains are the ordered tables below, one (kind, text, answer) rule a line, and one
small reader tries them in order; the first rule that holds decides. The reply is normalised
first (``normalise``): lower case, a trailing ``<|user|>`` and a leading ``<1>``-``<3>`` cut,
``<|turn_end|>`` dropped, ``: ** " - , .`` and the full-width colon made spaces, whitespace
runs made one space.

Quirks of the reference, kept because the published numbers have them:

- hyperbaton: a reply that normalises to just "b" ("B", "b.", "**B**") reads 0, as "a" does;
  "b)" and "b because ..." read 1, and "(B)" alone reads nothing.
- hyperbaton has no yes/no step; the three others try the shared yes/no phrases first.
- "contains" rules match inside longer words and sentences: "answer is a" takes "the answer
  is actually b" as 0, "answer is no" takes "the answer is not obvious", "answer false" takes
  "the answer falsely"; "starts no" takes "not", "now"; "ends yes" takes "eyes"; web_of_lies's
  "ends lies" takes "applies".
- sports: "the sentence is not plausible" reads 0, but "the sentence <anything> is not
  plausible" (a regex, near the end) reads 1.
- web_of_lies: a reply ending "must be lying" reads 1, as if it were the truth.
- Phrases written with a space for an apostrophe ("doesn t", "you ll", "it s") match only
  when the reply had a space, a hyphen or a double quote there: normalising keeps "'".
- Dead rules, kept to stay the reference's list: sports' "yes the sentence is plausible"
  twice, and "the answer is without any modification no" also in the yes/no step; sports'
  "i would say that it is not a plausible sentence." holds a full stop, which normalising has
  already made a space.

Departure: where no rule holds the reference guesses ``random.choice([0, 1])`` unseeded;
``fallback`` guesses from the run's seed and the sample's id instead (see ``reading``'s
docstring: the same guess in every run, whatever the order).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal

from pytest_audiobench.benchmarks.voicebench.facts import BBH_TASKS

Kind = Literal["equals", "contains", "starts", "ends", "regex"]
"""How a rule's text is tested against the normalised reply: the reply equal to it, holding
it, starting with it, ending with it, or ``re.search`` finding it."""

Rule = tuple[Kind, str, int]
"""(kind, text, answer): when the test holds, the reply reads as ``answer``."""

TRUTHS: Mapping[str, int] = MappingProxyType({"yes": 1, "no": 0, "(a)": 0, "(b)": 1})
"""The reference answers (lower-cased) and what they read as."""

_TAGS: tuple[str, ...] = ("<1>", "<2>", "<3>")
_TRAILER = "<|user|>"
_DROPPED = "<|turn_end|>"
_SPACED: tuple[str, ...] = (":", "**", '"', "-", ",", ".", "：")  # noqa: RUF001
"""What normalising makes a space, in the reference's order."""

_TESTS: Mapping[Kind, Callable[[str, str], bool]] = MappingProxyType({
    "equals": lambda text, reply: reply == text,
    "contains": lambda text, reply: text in reply,
    "starts": lambda text, reply: reply.startswith(text),
    "ends": lambda text, reply: reply.endswith(text),
    "regex": lambda text, reply: re.search(text, reply) is not None,
})

# The tables below are the reference's conditions in its order (December 2026), written as
# data; only the reading of them is ours.

YES_NO: tuple[Rule, ...] = (
    ("contains", "answer is no", 0),
    ("contains", "answer is yes", 1),
    ("contains", "the answer no", 0),
    ("contains", "the answer yes", 1),
    ("contains", "final answer no", 0),
    ("contains", "final answer yes", 1),
    ("contains", "i would answer no", 0),
    ("contains", "i would answer yes", 1),
    ("contains", "the answer is without any modification no", 0),
    ("contains", "the answer is without any modification yes", 1),
    ("contains", "the answer to the question is no", 0),
    ("contains", "the answer to the question is yes", 1),
    ("contains", "the answer is false", 0),
    ("contains", "the answer is true", 1),
    ("contains", "answer false", 0),
    ("contains", "answer true", 1),
    ("contains", "the answer is $\\boxed{\\text{false}}$", 0),
    ("contains", "the answer is $\\boxed{\\text{true}}$", 1),
    ("contains", "the answer is \\boxed{no}", 0),
    ("contains", "the answer is \\boxed{yes}", 1),
    ("contains", "the answer is \\boxed{\\text{false}}", 0),
    ("contains", "the answer is \\boxed{\\text{true}}", 1),
    ("contains", "the answer is \\boxed{\\text{no}}", 0),
    ("contains", "the answer is \\boxed{\\text{yes}}", 1),
    ("contains", "i will provide the answer as no", 0),
    ("contains", "i will provide the answer as yes", 1),
    ("contains", "prefix answer no", 0),
    ("contains", "prefix answer yes", 1),
    ("contains", "conclusion no", 0),
    ("contains", "conclusion yes", 1),
)
"""``extract_answer_yn``: tried first for sports_understanding, navigate and web_of_lies."""

HYPERBATON: tuple[Rule, ...] = (
    ("equals", "a", 0),
    ("equals", "b", 0),
    ("contains", "the answer is (a)", 0),
    ("contains", "the answer is (b)", 1),
    ("contains", "the correct adjective order is option (a)", 0),
    ("contains", "the correct adjective order is option (b)", 1),
    ("contains", "the correct grammatical order is a", 0),
    ("contains", "the correct grammatical order is b", 1),
    ("contains", "the correct sentence is option (a)", 0),
    ("contains", "the correct sentence is option (b)", 1),
    ("contains", "the sentence with the correct adjectives is a", 0),
    ("contains", "the sentence with the correct adjectives is b", 1),
    ("contains", "correct adjective order options is a", 0),
    ("contains", "correct adjective order options is b", 1),
    ("contains", "the correct answer is (a)", 0),
    ("contains", "the correct answer is (b)", 1),
    ("contains", "the correct option is (a)", 0),
    ("contains", "the correct option is (b)", 1),
    ("contains", "the correct order of adjectives in the sentence is option a", 0),
    ("contains", "the correct order of adjectives in the sentence is option b", 1),
    ("contains", "the correct sentence would be option (a)", 0),
    ("contains", "the correct sentence would be option (b)", 1),
    ("contains", "the correct sentence is (a)", 0),
    ("contains", "the correct sentence is (b)", 1),
    ("contains", "the proper adjective order is a", 0),
    ("contains", "the proper adjective order is b", 1),
    ("contains", "the correct adjective order is (a)", 0),
    ("contains", "the correct adjective order is (b)", 1),
    ("contains", "correct adjective order is a", 0),
    ("contains", "correct adjective order is b", 1),
    ("contains", "the adjectives in option a are in the correct order", 0),
    ("contains", "the adjectives in option b are in the correct order", 1),
    ("contains", "the right adjective order is a)", 0),
    ("contains", "the right adjective order is b)", 1),
    ("contains", "the correct adjectivs is (a)", 0),
    ("contains", "the correct adjectivs is (b)", 1),
    ("contains", "the right adjective order is (a)", 0),
    ("contains", "the right adjective order is (b)", 1),
    ("contains", "correct adjectival order is a", 0),
    ("contains", "correct adjectival order is b", 1),
    ("contains", "the proper adjective order is (a)", 0),
    ("contains", "the proper adjective order is (b)", 1),
    ("contains", "the correct sentence order is a", 0),
    ("contains", "the correct sentence order is b", 1),
    ("contains", "option a correctly follows the standard adjective order", 0),
    ("contains", "option b correctly follows the standard adjective order", 1),
    ("contains", "the answer directly is a", 0),
    ("contains", "the answer directly is b", 1),
    ("contains", "the correct order would be option a", 0),
    ("contains", "the correct order would be option b", 1),
    ("contains", "final answer should be a", 0),
    ("contains", "final answer should be b", 1),
    ("contains", "final answer a", 0),
    ("contains", "final answer b", 1),
    ("contains", "option (a) uses the correct adjective sequence", 0),
    ("contains", "option (b) uses the correct adjective sequence", 1),
    ("contains", "the correct option is option a", 0),
    ("contains", "the correct option is option b", 1),
    ("contains", "the answer is without any modification a", 0),
    ("contains", "the answer is without any modification b", 1),
    ("contains", "the correct one is option a", 0),
    ("contains", "the correct one is option b", 1),
    ("contains", "answer is without any modification a", 0),
    ("contains", "answer is without any modification b", 1),
    ("contains", "the answer is without any modification option a", 0),
    ("contains", "the answer is without any modification option b", 1),
    ("contains", "answer is a", 0),
    ("contains", "answer is b", 1),
    ("contains", "the answer is [a]", 0),
    ("contains", "the answer is [b]", 1),
    ("contains", "option a follows the correct adjective order", 0),
    ("contains", "option b follows the correct adjective order", 1),
    ("contains", "the correct order of adjectives is a", 0),
    ("contains", "the correct order of adjectives is b", 1),
    ("contains", "option (a) is the correct answer", 0),
    ("contains", "option (b) is the correct answer", 1),
    ("contains", "the correct order is a", 0),
    ("contains", "the correct order is b", 1),
    ("contains", "the correct object order is a", 0),
    ("contains", "the correct object order is b", 1),
    ("contains", "the correct answer order is a", 0),
    ("contains", "the correct answer order is b", 1),
    ("contains", "the final answer without any modification is a", 0),
    ("contains", "the final answer without any modification is b", 1),
    ("contains", "the correct sentence is a", 0),
    ("contains", "the correct sentence is b", 1),
    ("contains", "correct adjective order option is a", 0),
    ("contains", "correct adjective order option is b", 1),
    ("contains", "correct adjective order is sentence a", 0),
    ("contains", "correct adjective order is sentence b", 1),
    ("contains", "correct objective order option is a", 0),
    ("contains", "correct objective order option is b", 1),
    ("contains", "the answer is is a", 0),
    ("contains", "the answer is is b", 1),
    ("contains", "the correct adjective order is option a", 0),
    ("contains", "the correct adjective order is option b", 1),
    ("contains", "the correct adjective order is provided in option a", 0),
    ("contains", "the correct adjective order is provided in option b", 1),
    ("contains", "option a is more accurate", 0),
    ("contains", "option b is more accurate", 1),
    ("contains", "answer is option a", 0),
    ("contains", "answer is option b", 1),
    ("contains", "option a has the adjectives in the correct order", 0),
    ("contains", "option b has the adjectives in the correct order", 1),
    ("contains", "option a is closer to being correct", 0),
    ("contains", "option b is closer to being correct", 1),
    ("contains", "the most logical order is option a", 0),
    ("contains", "the most logical order is option b", 1),
    ("contains", "in option a the adjectives are in the correct order", 0),
    ("contains", "in option b the adjectives are in the correct order", 1),
    ("contains", "sentence a is the closest to the correct adjective order", 0),
    ("contains", "sentence b is the closest to the correct adjective order", 1),
    ("contains", "option a has the correct order", 0),
    ("contains", "option b has the correct order", 1),
    ("contains", "sentence a has a more logical", 0),
    ("contains", "sentence b has a more logical", 1),
    ("contains", "the closest correct order is option a", 0),
    ("contains", "the closest correct order is option b", 1),
    ("contains", "sentence a has the correct adjective order", 0),
    ("contains", "sentence b has the correct adjective order", 1),
    ("contains", "option a is the closest to the typical order", 0),
    ("contains", "option b is the closest to the typical order", 1),
    ("contains", "the correct answer would be option a", 0),
    ("contains", "the correct answer would be option b", 1),
    ("contains", "the correct option is a", 0),
    ("contains", "the correct option is b", 1),
    ("contains", "option a has a better adjective order", 0),
    ("contains", "option b has a better adjective order", 1),
    ("contains", "option a has the correct adjective order", 0),
    ("contains", "option b has the correct adjective order", 1),
    ("contains", "option a seems to follow the typical order", 0),
    ("contains", "option b seems to follow the typical order", 1),
    ("contains", "the correct order is found in option a", 0),
    ("contains", "the correct order is found in option b", 1),
    ("contains", "the correct adjective order is in the first option", 0),
    ("contains", "the correct adjective order is in the second option", 1),
    ("contains", "the correct adverb order would be a", 0),
    ("contains", "the correct adverb order would be b", 1),
    ("contains", "the correct answer would be the a", 0),
    ("contains", "the correct answer would be the b", 1),
    ("contains", "the correct adjective order is in option a", 0),
    ("contains", "the correct adjective order is in option b", 1),
    ("contains", "the correct adjective order is in sentence a", 0),
    ("contains", "the correct adjective order is in sentence b", 1),
    ("contains", "the adjectives are in the correct order for a", 0),
    ("contains", "the adjectives are in the correct order for b", 1),
    ("contains", "the answer is [option a]", 0),
    ("contains", "the answer is [option b]", 1),
    ("contains", "option (a) has a correct adjective order", 0),
    ("contains", "option (b) has a correct adjective order", 1),
    ("contains", "the correct sentence would be a", 0),
    ("contains", "the correct sentence would be b", 1),
    ("contains", "option a follows the correct sequence of adjectives", 0),
    ("contains", "option b follows the correct sequence of adjectives", 1),
    ("contains", "option a would be closer to the correct order", 0),
    ("contains", "option b would be closer to the correct order", 1),
    ("contains", "the correct sentence with the adjective order is a", 0),
    ("contains", "the correct sentence with the adjective order is b", 1),
    ("contains", "option a is more grammatically correct", 0),
    ("contains", "option b is more grammatically correct", 1),
    ("contains", "option a would be more correct", 0),
    ("contains", "option b would be more correct", 1),
    ("contains", "option a is incorrect and option b is correct", 1),
    ("contains", "option a is the closest match", 0),
    ("contains", "option b is the closest match", 1),
    ("contains", "option b follows the typical order of adjectives", 1),
    ("contains", "the correct sentence with the adjective order is option a", 0),
    ("contains", "the correct sentence with the adjective order is option b", 1),
    ("contains", "the correct sentence is option a", 0),
    ("contains", "the correct sentence is option b", 1),
    ("contains", "the correct objective order is in option a", 0),
    ("contains", "the correct objective order is in option b", 1),
    ("contains", "the answer is option (a)", 0),
    ("contains", "the answer is option (b)", 1),
    ("contains", "the correct option would be (a)", 0),
    ("contains", "the correct option would be (b)", 1),
    ("contains", "the correct order is in option a", 0),
    ("contains", "the correct order is in option b", 1),
    ("contains", "the correct adjective order is found in option a", 0),
    ("contains", "the correct adjective order is found in option b", 1),
    ("contains", "option (a) follows the typical order of adjectives", 0),
    ("contains", "option (b) follows the typical order of adjectives", 1),
    ("contains", "option (a) has the correct adjective order", 0),
    ("contains", "option (b) has the correct adjective order", 1),
    ("contains", "option (a) follows the general adjective order", 0),
    ("contains", "option (b) follows the general adjective order", 1),
    ("contains", "option (a) would be more grammatically correct", 0),
    ("contains", "option (b) would be more grammatically correct", 1),
    ("contains", "option a is the correct", 0),
    ("contains", "option b is the correct", 1),
    ("contains", "option a has the correct word order", 0),
    ("contains", "option b has the correct word order", 1),
    ("contains", "option a follows the correct order", 0),
    ("contains", "option b follows the correct order", 1),
    ("contains", "following the typical order is the first option", 0),
    ("contains", "following the typical order is the second option", 1),
    ("contains", "option a has a slightly better chance of being correct", 0),
    ("contains", "option b has a slightly better chance of being correct", 1),
    ("contains", "the answer is sentence a", 0),
    ("contains", "the answer is sentence b", 1),
    ("contains", "the final answer is (a)", 0),
    ("contains", "the final answer is (b)", 1),
    ("regex", "sentence a (.+?) seems to have a more logical", 0),
    ("regex", "sentence b (.+?) seems to have a more logical", 1),
    ("regex", "the correct adjective order is (.+?) option a", 0),
    ("regex", "the correct adjective order is (.+?) option b", 1),
    ("starts", "a ", 0),
    ("starts", "b ", 1),
    ("starts", "a)", 0),
    ("starts", "b)", 1),
)
"""``extract_answer_hyperbaton``: which of two sentences, (A) or (B), orders its adjectives
right."""

SPORTS: tuple[Rule, ...] = (
    ("contains", "final answer the sentence is plausible", 1),
    ("contains", "the answer is directly yes", 1),
    ("contains", "no the sentence is not possible", 0),
    ("contains", "the answer is it is not possible", 0),
    ("contains", "the answer is the sentence is plausible", 1),
    ("contains", "the sentence is not particularly plausible", 0),
    ("contains", "the sentence is not plausible", 0),
    ("contains", "yes the sentence is structurally plausible", 1),
    ("contains", "is the sentence plausible? yes it is", 1),
    ("contains", "i would say that it is not a plausible sentence.", 0),
    ("contains", "no the original sentence is not plausible", 0),
    ("contains", "it s not a plausible", 0),
    ("contains", "to answer your original question no", 0),
    ("contains", "making it plausible", 1),
    ("contains", "making it implausible", 0),
    ("contains", "it is indeed a plausible sentence", 1),
    ("contains", "considering these points the sentence is plausible", 1),
    ("contains", "i would say the sentence is plausible", 1),
    ("contains", "i would say that the sentence is plausible", 1),
    ("contains", "i d say it s not entirely plausible", 0),
    ("contains", "therefore not plausible", 0),
    ("contains", "making it an implausible statement", 0),
    ("contains", "the following sentence is not plausible", 0),
    ("contains", "considering these points the sentence is unlikely to be true", 0),
    ("contains", "considering these points the sentence is not plausible", 0),
    ("contains", "yes the sentence is plausible", 1),
    ("contains", "based on this analysis the sentence is plausible", 1),
    ("contains", "considering these points the sentence seems plausible", 1),
    ("contains", "given the context the sentence is plausible", 1),
    ("contains", "considering these factors the sentence is plausible", 1),
    ("contains", "considering these points the sentence is unlikely to be plausible", 0),
    ("contains",
     "given the context of sports particularly basketball this sentence is plausible", 1),
    ("contains", "considering these points the sentence is likely true", 1),
    ("contains", "considering these elements the sentence is plausible", 1),
    ("contains", "i would say it s unlikely", 0),
    ("contains", "it seems unlikely", 0),
    ("contains", "given this analysis the sentence is plausible", 1),
    ("contains", "considering these points the sentence is the plausible", 1),
    ("contains", "the sentence is not entirely possible", 0),
    ("contains", "the sentence is not entirely accurate", 0),
    ("contains", "the sentence is not entirely plausible", 0),
    ("contains", "the answer is plausible", 1),
    ("contains", "modification of answer not possible", 0),
    ("contains", "the answer is without any modification no", 0),
    ("contains", "i would say that the sentence is generally plausible", 1),
    ("contains", "given these points the sentence is plausible", 1),
    ("contains", "yes the sentence is plausible", 1),
    ("contains", "considering these points the sentence seems to be a plausible", 1),
    ("contains", "the sentence appears to be a plausible", 1),
    ("equals", "not plausible", 0),
    ("regex",
     "considering these points the sentence (.+?) is grammatically correct and makes sense", 1),
    ("regex", "considering these points the sentence (.+?) is plausible", 1),
    ("regex", "considering these points the sentence (.+?) is unlikely", 0),
    ("regex", "based on this analysis the sentence (.+?) is plausible", 1),
    ("regex", "considering these points the sentence (.+?) seems to be a possible", 1),
    ("regex", "based on these steps the sentence (.+?) is plausible", 1),
    ("regex", "based on this analysis the sentence (.+?) seems plausible", 1),
    ("regex", "considering these points the sentence (.+?) appears to be plausible", 1),
    ("regex", "considering these points the sentence (.+?) seems plausible", 1),
    ("regex", "the sentence (.+?) is not very plausible", 0),
    ("regex", "considering these points (.+?) is a plausible sentence", 1),
    ("regex", "given this information the sentence (.+?) is plausible", 1),
    ("regex", "given the context the sentence (.+?) is plausible", 1),
    ("regex", "the sentence (.+?) is flexible and realistic", 1),
    ("regex", "considering these points the sentence (.+?) is not a plausible statement", 0),
    ("regex", "the sentence (.+?) is not plausible", 1),
    ("starts", "no", 0),
    ("starts", "yes", 1),
    ("starts", "the following sentence is plausible", 1),
    ("ends", "no", 0),
    ("ends", "yes", 1),
)
"""``extract_answer_sports``: is a sentence about sport plausible."""

NAVIGATE: tuple[Rule, ...] = (
    ("contains", "you do not return to the starting point", 0),
    ("contains", "you are not at the starting point", 0),
    ("contains", "you haven t moved back to the starting point", 0),
    ("contains", "you cannot return to the starting point", 0),
    ("contains", "you return to the starting point", 1),
    ("contains", "you are not facing the starting point", 0),
    ("contains", "you haven t returned to the starting point", 0),
    ("contains", "you end up back at the starting point", 1),
    ("contains", "you are not back at the starting point", 0),
    ("contains", "you will not return to the starting point", 0),
    ("contains", "yes following these instructions", 1),
    ("contains", "we end up back at the starting point", 1),
    ("contains", "indeed returns us to the starting point", 1),
    ("contains", "indeed bring us back to the starting point", 1),
    ("contains", "you ll end up right back where you started", 1),
    ("contains", "we ve now returned to the starting point", 1),
    ("contains", "i have returned to the starting position", 1),
    ("contains", "the final position is not directly at the starting point", 0),
    ("contains", "it appears that we did not return to the exact starting point", 0),
    ("contains", "does not return us to the starting point", 0),
    ("contains", "i will end up back where i started", 1),
    ("contains", "indeed return to the starting point", 1),
    ("contains", "i ll be back where i started", 1),
    ("contains", "i ll end up back at the starting point", 1),
    ("contains", "after following these instructions we return to the starting point", 1),
    ("contains", "we are back at the starting point!", 1),
    ("contains", "we are now back at the starting point", 1),
    ("contains", "you ll end up back where you started", 1),
    ("contains", "we have now returned to the starting point", 1),
    ("contains", "i ve returned to the starting point", 1),
    ("contains", "following these instructions will always return us to the starting point", 1),
    ("contains", "indeed return you to the starting point", 1),
    ("contains", "the answer is the starting point", 1),
    ("contains", "following these instructions doesn t return us to the starting point", 0),
    ("contains",
     "following these directions does not lead you back to your original starting point", 0),
    ("starts", "no", 0),
    ("starts", "yes", 1),
    ("ends", "no", 0),
    ("ends", "yes", 1),
)
"""``extract_answer_navigate``: do the steps lead back to the starting point."""

LIES: tuple[Rule, ...] = (
    ("contains", "the prefix no applies to the statement", 0),
    ("contains", "veena s statement cannot be true", 0),
    ("contains", "therefore truly lorene tells the truth", 1),
    ("contains", "the answer is the truth", 1),
    ("contains", "affirmatively alejandro tells the truth", 1),
    ("regex", "answer is (.+?) tells a lie", 0),
    ("regex", "answer is (.+?) lies", 0),
    ("regex", "answer is (.+?) says lie", 0),
    ("regex", "answer is (.+?) doesn t tell the truth", 0),
    ("regex", "answer is (.+?) does not tell the truth", 0),
    ("regex", "answer is (.+?) didn t tell the truth", 0),
    ("regex", "answer is (.+?) tells the truth", 1),
    ("regex", "answer is (.+?) does tell the truth", 1),
    ("regex", "answer to the question (.+?) is no", 0),
    ("regex", "answer to the question (.+?) is yes", 1),
    ("regex", "from the above steps we can conclude that (.+?) tells the truth", 1),
    ("ends", "does not tell the truth", 0),
    ("ends", "cannot be telling the truth", 0),
    ("ends", "is lying", 0),
    ("ends", "tells the lie", 0),
    ("ends", "is also telling the truth", 1),
    ("ends", "must be lying", 1),
    ("ends", "must be telling the truth", 1),
    ("ends", "tells the truth", 1),
    ("ends", "delfina does tell the truth", 1),
    ("ends", "osvaldo is telling the truth", 1),
    ("ends", "lies", 0),
    ("starts", "no", 0),
    ("starts", "yes", 1),
    ("ends", "no", 0),
    ("ends", "yes", 1),
)
"""``extract_answer_lies``: does the last person of a chain tell the truth."""

RULES: Mapping[str, tuple[Rule, ...]] = MappingProxyType({
    "sports_understanding": YES_NO + SPORTS,
    "hyperbaton": HYPERBATON,
    "navigate": YES_NO + NAVIGATE,
    "web_of_lies": YES_NO + LIES,
})
"""Each task's whole table, in the order its rules are tried."""


def task_of(record_id: str) -> str | None:
    """The task whose name ``record_id`` holds, None for none. An id holding two names gets
    the first in ``BBH_TASKS``, which is the order the reference tests them in."""
    return next((task for task in BBH_TASKS if task in record_id), None)


def normalise(reply: str) -> str:
    """``reply`` as the reference's ``normalize`` makes it before any rule is tried."""
    text = reply.lower()
    if text.endswith(_TRAILER):
        text = text[:-len(_TRAILER)].strip()
    if text.startswith(_TAGS):
        text = text[3:].strip()
    text = text.replace(_DROPPED, "")
    for mark in _SPACED:
        text = text.replace(mark, " ")
    return " ".join(text.split())


def read_bbh(reply: str, task: str) -> int | None:
    """What ``reply`` answers under ``task``'s rules (``task`` one of ``BBH_TASKS``): 1 for
    yes or (B), 0 for no or (A), None where the reference would guess."""
    return answer_by(RULES[task], normalise(reply))


def answer_by(rules: Sequence[Rule], text: str) -> int | None:
    """The answer of the first of ``rules`` that holds for the normalised ``text``, None when
    none does."""
    return next((answer for kind, rule, answer in rules if _TESTS[kind](rule, text)), None)


def truth(reference: str) -> int:
    """What a record's reference answer reads as: yes and (B) 1, no and (A) 0, in any case.

    Raises ValueError for any other text, with no stripping (" yes" too), where the reference
    fails with a KeyError."""
    try:
        return TRUTHS[reference.lower()]
    except KeyError as error:
        raise ValueError(f"a bbh reference is one of {', '.join(TRUTHS)} (any case), "
                         f"not {reference!r}") from error


def fallback(sample_id: str, seed: int) -> int:
    """The answer guessed for a reply no rule reads: 0 or 1 with even odds, as the
    reference's, but fixed by ``seed`` and ``sample_id`` alone."""
    # A string seed is hashed with SHA-512 by random.seed: the same guess in every process.
    return random.Random(f"{seed}:{sample_id}").choice((0, 1))
