"""Speech recognition beyond English as the reference scores it (Qwen2-Audio's
``eval_audio/evaluate_asr.py``; PROTOCOLS.md, "Speech recognition beyond English"): Chinese
and Cantonese by characters, other languages by words, Kimi-Audio-Evalkit's mixed error rate
beside; the words aligned by the width a terminal gives them."""

# Full-width letters, digits and marks are what these tests are about.
# ruff: noqa: RUF001

from __future__ import annotations

import random
from collections.abc import Callable
from types import ModuleType

import pytest

from pytest_audiobench.benchmarks.wer import chinese
from pytest_audiobench.benchmarks.wer.aligning import aligned, width
from tests.test_wer import _installed, _module

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


# --- Chinese text normalisation, our own, equal to speechio's cn_tn -----------------------------

# text, what cn_tn (TextNorm with every option off) leaves, worked out by its rules in order:
# dates, money, mobile and fixed-line numbers, fractions, percentages, numbers before a measure
# word, digit strings of 4 to 32, the numbers left; then punctuation made spaces.
CN_TN = [
    # A date: its year digit by digit, month and day as amounts.
    ("2024年3月5日", "二零二四年三月五日"),
    # A year needs 19 or 20 (or 0, 8, 9 and one digit): 3098年 is a counted year.
    ("3098年", "三千零九十八年"),
    ("98年", "九八年"),
    # No month, no date: 5日 is a number before a measure word.
    ("5日", "五日"),
    # Money: a number before a currency unit; the yuan sign is no unit and stays.
    ("3.5元", "三点五元"),
    ("¥12.50", "¥十二点五零"),
    ("12块5", "十二块五"),
    # A bare 万 is a currency unit, read after its number: the 2 alone is 二. Within a number, 2
    # before a unit other than 十 is 两.
    ("2万人", "二万人"),
    ("2200元", "两千两百元"),
    ("10010元", "一万零一十元"),
    # The dollar sign is ASCII punctuation: a space.
    ("$3", " 三"),
    ("50%", "百分之五十"),
    ("3.5％", "百分之三点五"),
    # Telephone numbers digit by digit, the +86 and the dash dropped.
    ("13812345678", "一三八一二三四五六七八"),
    ("+86 13812345678", "八六一三八一二三四五六七八"),
    ("010-12345678", "零一零一二三四五六七八"),
    # Any 7 or 8 digits between non-digits are a fixed-line number; 9 are a digit string.
    ("12345678", "一二三四五六七八"),
    ("123456789", "一二三四五六七八九"),
    ("1/3", "三分之一"),
    # 2024/3 is a fraction, then the /5 a slash and a number.
    ("2024/3/5", "三分之两千零二十四 五"),
    ("0.5", "零点五"),
    ("00.5元", "零点五元"),
    # 10 to 19 drop their leading 一.
    ("12", "十二"),
    ("第1名", "第一名"),
    # The first occurrence of the matched string is replaced: the 5 of 35 for "5个".
    ("35和5个", "三五和五个"),
    # Full-width digits are digits, but only an ASCII zero is a leading zero to strip, and the
    # year must be ASCII: a counted year.
    ("１２３", "一百二十三"),
    ("１０５元", "一百零十五元"),
    ("２０２４年", "两千零百二十四年"),
    # Full-width letters stay (no folding), the full-width full stop too, other marks go.
    ("ＡＢＣ，你好！", "ＡＢＣ 你好 "),
    ("１．５", "一．五"),
    # Letters around a written 2 get their digit back, and so does a written 二 between letters.
    ("P2P", "P2P"),
    ("a二b", "a2b"),
    # No traditional-to-simplified conversion, no erhua or filler removed.
    ("學習說話", "學習說話"),
    ("一点儿，嗯，啊", "一点儿 嗯 啊"),
    # The anchors cn_tn wraps the text in take the text's own ^ and $ at its ends with them.
    ("^^你好$$", "你好"),
    ("", ""),
]


def test_our_punctuation_is_cn_tn_s() -> None:
    copy = _cn_tn("lmms-eval")
    assert set(chinese._PUNCTUATION) == set(copy.PUNCS)


@pytest.mark.parametrize(("text", "expected"), CN_TN)
def test_chinese_normalisation_writes_out_numbers_as_cn_tn_does(text: str, expected: str) -> None:
    assert chinese.normalise(text) == expected


def _cn_tn(copy: str) -> ModuleType:
    """speechio's cn_tn as a registry ships it: lmms-eval's ``tasks/librispeech/cn_tn.py`` or
    evalscope's ``metrics/utils/text_normalizer/chinese.py`` (standard library imports only)."""
    if copy == "lmms-eval":
        path = _installed("lmms-eval", "tasks/librispeech/cn_tn.py",
                          "pip install --no-deps lmms-eval==0.7.3")
    else:
        path = _installed("evalscope", "text_normalizer/chinese.py",
                          "pip install --no-deps evalscope==1.14.1")
    return _module(f"cn_tn_of_{copy.replace('-', '_')}", path)


def _text_norm(copy: str) -> Callable[[str], str]:
    """The reference's Chinese normaliser: cn_tn's ``TextNorm`` with every option off."""
    norm: Callable[[str], str] = _cn_tn(copy).TextNorm(
        to_banjiao=False, to_upper=False, to_lower=False, remove_fillers=False,
        remove_erhua=False, check_chars=False, remove_space=False, cc_mode="")
    return norm


COPIES = ["lmms-eval", "evalscope"]

# Replies a model sends, as tricky for a normaliser as we could make them.
TRICKY = [
    *(text for text, _ in CN_TN),
    "今天是2024年3月5日星期二", "1999年12月31号", "12月25号", "2024年", "98年",
    "¥12.50", "3.5元", "$3", "一共12块5毛", "100万", "3万人", "5千克", "1.5万元", "3百",
    "50%", "3.5%", "百分之50", "５０％", "增长了12.5%左右",
    "13812345678", "010-12345678", "+86 13812345678", "+8613812345678", "1234567", "12345678",
    "123456789", "电话：021-87654321转8", "1/3", "2024/3/5", "3.14", "0.5", "10.05", "1.2.3",
    "１２３", "ＡＢＣ", "１０５元", "２０２４年", "你好，世界！", "（注）", "．",
    "「引号」《书名》",
    "我用iPhone 15打电话", "我用iPhone15打电话", "P2P", "B2B平台", "a二b",
    "學習", "說話", "一点儿", "嗯，啊，那个", "<|zh|>你好", "<|zh|><|transcribe|>今天天气很好。",
    "", "   ", "\t\n", "\u3000你好\u3000", "转写结果：今天天气很好。",
    "The transcription is: 今天天气很好", "😀今天很开心🎉", "35和5个", "第1名", "2200元",
    "1000000", "100000元", "10010元", "3.5.6元", "^$", "今天 天气 很 好", "Hello, World!",
    "C'est la vie, à 3 h 30.", "Straße", "İstanbul", "2005年", "〇一二", "二〇二四年",
    "我哋今日去飲茶", "佢話聽日會落雨", "He hoped there would be stew for dinner.",
    "It cost $3.50, twenty percent off.", "1234567890123456789012345678901234567个",
]


def _generated(count: int, seed: int = 20261206) -> list[str]:
    """``count`` strings mixing digit runs (of the lengths the rules tell apart) with Chinese,
    Latin, units, measure words and the symbols %¥$./-:+ (fixed seed)."""
    rng = random.Random(seed)
    pieces = [*"年月日号元块万千百亿分角毛个米多几%％/.-+: ¥$：，。^P二a中學—·．１０２", "千万",
              "千克", "+86 ", "iPhone"]

    def digits() -> str:
        return "".join(rng.choice("0123456789") for _ in range(
            rng.choice([1, 1, 2, 2, 3, 4, 7, 8, 11, 12, 13, 33, 40])))

    return ["".join(digits() if rng.random() < 0.45 else rng.choice(pieces)
                    for _ in range(rng.randint(0, 12))) for _ in range(count)]


GENERATED = _generated(400)


@pytest.mark.parametrize("copy", COPIES)
def test_chinese_normalisation_equals_each_cn_tn_copy_on_every_tricky_reply(copy: str) -> None:
    theirs = _text_norm(copy)
    assert [chinese.normalise(t) for t in TRICKY] == [theirs(t) for t in TRICKY]


@pytest.mark.parametrize("copy", COPIES)
def test_chinese_normalisation_equals_each_cn_tn_copy_on_generated_strings(copy: str) -> None:
    theirs = _text_norm(copy)
    differ = [t for t in GENERATED if chinese.normalise(t) != theirs(t)]
    assert not differ


@pytest.mark.parametrize("copy", COPIES)
def test_the_table_s_expected_values_are_cn_tn_s(copy: str) -> None:
    theirs = _text_norm(copy)
    assert [theirs(text) for text, _ in CN_TN] == [expected for _, expected in CN_TN]
