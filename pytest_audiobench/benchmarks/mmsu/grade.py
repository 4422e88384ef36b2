"""What grading one MMSU answer gives: the letter each matcher read, and whether the deciding
one found it right. The official rule is ``mmsu_evaluation.py``'s: the reply's first
character, else its second-to-last, when it is A-D; an empty reply or "None" is wrong; any
other reply is left out of every count. The strict one reads the letter as a person would
and leaves nothing out."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from pytest_audiobench import ChoiceGrade, Detail, official_letter, strict_choice
from pytest_audiobench.benchmarks.choice.letters import LETTERS
from pytest_audiobench.benchmarks.choice.names import Matcher

_MARKUP = re.compile(r"[*_`]")
_ONE_LETTER = re.compile(r"\W*([A-Da-d])\W*")


class MmsuGrade(ChoiceGrade):
    """One answer read by both matchers; ``matcher`` decides."""

    kind: Literal["mmsu"] = "mmsu"
    matcher: Matcher
    right: list[str]
    """The letters whose option is the correct one (``answer_gt``'s text)."""
    official: str | None
    """The letter the official rule read; None: it read none."""
    counted: bool
    """The official rule counts the reply: it read a letter, or the reply was empty or
    "None" (counted wrong); False: left out of every official count."""
    strict: str | None
    strict_reason: str

    @classmethod
    def read(cls, reply: str, options: Mapping[str, str], answer: str,
             matcher: Matcher) -> MmsuGrade:
        """``reply`` read by both rules against the options by letter and the correct text."""
        text = reply.strip().replace("\n", "")
        letter = official_letter(reply)
        strict, reason = strict_letter(reply, options)
        return cls(matcher=matcher, right=[k for k, v in options.items() if v == answer],
                   official=letter, counted=letter is not None or not text or text == "None",
                   strict=strict, strict_reason=reason)

    @property
    def decisions(self) -> dict[str, bool | None]:
        return {"official": (self.official in self.right) if self.counted else None,
                "strict": self.strict in self.right}

    def chosen(self, choices: Sequence[str]) -> int | None:
        letter = self.official if self.matcher == "official" else self.strict
        return None if letter is None else LETTERS.index(letter)

    def counts(self) -> dict[str, int]:
        """Replies the official rule read otherwise than the strict one (a letter, or none),
        among those it counted."""
        return {"official.differs_num": int(self.counted and self.official != self.strict)}

    def readings(self) -> list[Detail]:
        if not self.counted:
            official = ("left out of every official count: neither its first nor its "
                        "second-to-last character is A-D")
        elif self.official is None:
            official = "wrong: an empty reply or 'None' is counted wrong"
        else:
            official = f"{self.official} (its first or second-to-last character)"
        return [Detail(label="official", text=official),
                Detail(label="strict", text=f"{self.strict or 'none'} ({self.strict_reason})")]


def strict_letter(reply: str, options: Mapping[str, str]) -> tuple[str | None, str]:
    """The option a person reads in ``reply``: markup (``**B**``) and case (``b``) aside, a
    letter alone, a letter it says ("Answer: B", "(B)", "The answer is B."), or one option's
    whole text; None with the reason when it names none or several (wrong, never left out)."""
    plain = _MARKUP.sub("", reply).strip()
    alone = _ONE_LETTER.fullmatch(plain)
    if alone is not None and options.get(alone.group(1).upper()):
        letter = alone.group(1).upper()
        return letter, f"names option {letter} by its letter"
    texts = list(options.values())
    while texts and not texts[-1]:
        texts.pop()
    return strict_choice(plain, texts)
