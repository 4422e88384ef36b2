"""Speech recognition beyond English as the reference scores it (Qwen2-Audio's
``eval_audio/evaluate_asr.py``; PROTOCOLS.md, "Speech recognition beyond English"): Chinese
and Cantonese by characters, other languages by words, Kimi-Audio-Evalkit's mixed error rate
beside; the words aligned by the width a terminal gives them."""

# Full-width letters, digits and marks are what these tests are about.
# ruff: noqa: RUF001

from __future__ import annotations

import pytest

from pytest_audiobench.benchmarks.wer.aligning import aligned, width

# --- the words aligned, CJK characters two columns wide ---------------------------------------

# reference tokens, hypothesis tokens, the two lines.
ALIGNED = [
    # Every character equal: one space between them.
    (list("今天天气好"), list("今天天气好"), ("今 天 天 气 好", "今 天 天 气 好")),
    # "北" (2 columns) for "bei" (3): the pair is 3 wide, so "北" gets one space of padding and
    # "京" starts in column 10 on both lines (2 + 1 + 2 + 1 + 3 + 1).
    (["我", "爱", "北", "京"], ["我", "爱", "bei", "京"],
     ("我 爱 北  京", "我 爱 BEI 京")),
    # A deleted character over stars: the pair is 3 wide, the trailing padding dropped.
    (["你", "好"], ["你"], ("你 好", "你 ***")),
    # An inserted character under stars; full-width letters are two columns as well.
    (["Ａ"], ["Ａ", "好"], ("Ａ ***", "Ａ 好")),
]


@pytest.mark.parametrize(("reference", "hypothesis", "lines"), ALIGNED)
def test_characters_stand_under_each_other_by_their_display_width(
        reference: list[str], hypothesis: list[str], lines: tuple[str, str]) -> None:
    assert aligned(reference, hypothesis) == lines


def test_a_character_s_width_is_what_a_terminal_gives_it() -> None:
    # Wide CJK and full-width forms two columns, ASCII one, a combining accent none.
    assert [width(c) for c in ("中", "。", "Ａ", "a", "é", "e\u0301")] == [2, 2, 2, 1, 1, 1]
