"""Chinese text normalisation as the reference scores Chinese: speechio's ``cn_tn.TextNorm``
with every option off (no full-width folding, no case change, no fillers or erhua removed, no
character check, no traditional-to-simplified conversion). Our own code, held equal to the two
copies the registries ship (lmms-eval's ``tasks/librispeech/cn_tn.py`` and evalscope's
``metrics/utils/text_normalizer/chinese.py``) by tests/test_cer.py.

Two steps: numbers and the like written out in characters (``spelled``: dates, money,
telephone numbers, fractions, percentages, counted quantities, digit strings, plain numbers,
in that order), then Chinese and ASCII punctuation made spaces. What cn_tn does that a reader
would not guess, and this module does alike:

- Each rule finds its matches in the text as it stood before the rule, then replaces the
  FIRST occurrence of each matched string, wherever it is: "35和5个" counts "5个" and rewrites
  the 5 of 35, which becomes "三五和五个". Only the number before a measure word is replaced.
- ``\\d`` is any Unicode decimal digit, so a number in full-width digits is a number too; but
  the years (``19``/``20``, ``[089]``) and the telephone prefixes are ASCII, and so is the zero
  that leading zeros are stripped of: 105元 in full-width digits is "一百零十五元", 2024年
  "两千零百二十四年" (a counted year, not a date).
- Any run of 7 or 8 digits starting 1-9 between non-digits is a fixed-line telephone number,
  read digit by digit ("12345678" is "一二三四五六七八"); 4 to 32 digits otherwise are read digit
  by digit too, so only numbers of at most three digits (and those before a unit, a currency, a
  measure word, a slash or a percent sign) are read as amounts.
- A bare 万, 千, 百, 亿 counts as a currency ("3万人" is money, with the same result), and so do
  分 and 毛; a date needs a month ("5日" is a counted day, "2024年" alone a year).
- 2 before a unit other than 十 is 两 when nothing or a unit other than 十 precedes it
  ("两千两百", "十二", "二十二"); 10-19 drop their leading 一 ("十二", and "一十万" is "十万").
- Letters around a written-out 2 get their digit back ("P2P"), and so does any "a二b" the text
  held.
- The text is wrapped in ``^``...``$`` for the rules' non-digit anchors, and every ``^`` at its
  start and ``$`` at its end is stripped after, the text's own too.
- The full-width full stop (U+FF0E) is not punctuation to it (it stays), "·" and "—" are.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable

DIGITS = "零一二三四五六七八九"
POWERS: tuple[tuple[int, str], ...] = (
    (1, "十"), (2, "百"), (3, "千"), (4, "万"), (8, "亿"), (12, "兆"), (16, "京"), (20, "垓"),
    (24, "秭"), (28, "穰"), (32, "沟"), (36, "涧"), (40, "正"), (44, "载"))
"""The units and the power of ten each stands for: 十 to 万 each one more, then a factor of 10^4
per unit (cn_tn's "mid" numbering, the default)."""
_UNIT_OF = dict(POWERS)

_PUNCTUATION = (
    "".join(chr(ord(mark) + 0xFEE0) for mark in "!?\"#$%&'()*+,-/:;<=>@[\\]^_`{|}~")
    + "｡。｟｠｢｣､、〃《》「」『』【】〔〕〖〗〘〙〚〛〜〝〞〟〰〾〿–—‘’‛“”„‟…‧﹏·〈〉-"  # noqa: RUF001
    + string.punctuation)
"""cn_tn's Chinese punctuation (from the Zhon project) and ASCII's, each of which becomes a
space: the full-width forms of ASCII's marks but its full stop, then CJK's own."""
_TO_SPACES = str.maketrans(_PUNCTUATION, " " * len(_PUNCTUATION))

_MEASURE_WORDS = ("匹张座回场尾条个首阙阵网炮顶丘棵只支袭辆挑担颗壳窠曲墙群腔砣客贯扎捆刀令打手"
                  "罗坡山岭江溪钟队单双对出口头脚板跳枝件贴针线管名位身堂课本页家户层丝毫厘分钱"
                  "两斤铢石钧锱忽寸尺丈里寻常铺程撮勺合升斗盘碗碟叠桶笼盆盒杯斛锅簋篮罐瓶壶卮盏"
                  "箩箱煲啖袋钵年月日季刻时周天秒旬纪岁世更夜春夏秋冬代伏辈丸泡粒幢堆根道面片块")
"""The measure words after which a number is read as an amount (cn_tn's list, less its
repeats; 千克, 毫克, 微克 and the metres are in the pattern)."""
_AMOUNT = "(?:亿|千万|百万|万|千|百)"
_CURRENCY = f"(?:{_AMOUNT}|{_AMOUNT}?元|{_AMOUNT}?块|角|毛|分)"
_NUMBER = r"\d+(?:\.\d+)?"

_DATE = re.compile(r"\D+((?:(?P<year>[089]\d|(?:19|20)\d{2})年)?"
                   r"(?:(?P<month>\d{1,2})月(?:(?P<day>\d{1,2})(?P<suffix>[日号]))?)?)")
_MONEY = re.compile(rf"\D+({_NUMBER}[多余几]?{_CURRENCY}(?:\d{_CURRENCY}?)?)")
_MOBILE = re.compile(r"\D((?:\+?86 ?)?1(?:[38]\d|5[0-35-9]|7[678]|9[89])\d{8})\D")
_FIXED_LINE = re.compile(r"\D((?:0(?:10|2[1-3]|[3-9]\d{2})-?)?[1-9]\d{6,7})\D")
_FRACTION = re.compile(r"(\d+)/(\d+)")
_PERCENT = re.compile(rf"({_NUMBER})%")
_COUNTED = re.compile(rf"({_NUMBER})[多余几]?(?:[{_MEASURE_WORDS}]|[千毫微]克|[千分厘毫微]米)")
_DIGIT = re.compile(r"\d")
_DIGIT_STRING = re.compile(r"\d{4,32}")
_AMOUNT_NUMBER = re.compile(_NUMBER)
_LETTERS_TWO = re.compile(r"([a-zA-Z]+)二([a-zA-Z]+)")


def normalise(text: str) -> str:
    """``text`` as ``cn_tn.TextNorm`` with every option off leaves it: ``spelled``, then every
    punctuation mark of Chinese or ASCII a space (the spaces are not tidied)."""
    return spelled(text).translate(_TO_SPACES)


def spelled(text: str) -> str:
    """``text`` with its non-standard words written out in characters, as cn_tn's
    ``normalize_nsw``: dates, money, mobile then fixed-line telephone numbers, fractions,
    percentages, numbers before a measure word, digit strings, the numbers left; then a 2
    between letters restored."""
    # cn_tn makes the full-width percent sign ASCII's just before its percentages; no rule
    # before them tells the two apart, so it is done first here.
    text = f"^{text}$".replace("\uff05", "%")
    if _DIGIT.search(text):  # most references hold none, and then no number rule finds one
        text = _numbers_spelled(text)
    text = _replace_each(text, _LETTERS_TWO, lambda found: f"{found[1]}2{found[2]}",
                         whole=True)
    return text.lstrip("^").rstrip("$")


def _numbers_spelled(text: str) -> str:
    text = _replace_each(text, _DATE, _date)
    text = _replace_each(text, _MONEY, _money)
    text = _replace_each(text, _MOBILE, lambda found: digit_by_digit(found[1]))
    text = _replace_each(text, _FIXED_LINE, lambda found: digit_by_digit(found[1]))
    text = _replace_each(text, _FRACTION,
                         lambda found: f"{number(found[2])}分之{number(found[1])}", whole=True)
    text = _replace_each(text, _PERCENT, lambda found: "百分之" + number(found[1]), whole=True)
    text = _replace_each(text, _COUNTED, lambda found: number(found[1]))
    text = _replace_each(text, _DIGIT_STRING, lambda found: digit_by_digit(found[0]),
                         whole=True)
    return _replace_each(text, _AMOUNT_NUMBER, lambda found: number(found[0]), whole=True)


def _replace_each(text: str, pattern: re.Pattern[str],
                  spell: Callable[[re.Match[str]], str], whole: bool = False) -> str:
    """``text`` with each of ``pattern``'s matches (found in ``text`` as given) replaced, in
    turn, at the FIRST occurrence of its string in the text so far, as cn_tn replaces them.
    What is replaced is the match's first group, or the whole match when ``whole``."""
    for found in list(pattern.finditer(text)):
        text = text.replace(found[0] if whole else found[1], spell(found), 1)
    return text


def _date(found: re.Match[str]) -> str:
    # A match of no date (the group is empty: the non-digits before a digit that starts none)
    # replaces nothing.
    year = digit_by_digit(found["year"]) + "年" if found["year"] else ""
    month = number(found["month"]) + "月" if found["month"] else ""
    day = number(found["day"]) + found["suffix"] if found["day"] else ""
    return year + month + day


def _money(found: re.Match[str]) -> str:
    return _replace_each(found[1], _AMOUNT_NUMBER, lambda amount: number(amount[0]),
                         whole=True)


def digit_by_digit(digits: str) -> str:
    """Each decimal digit of ``digits`` as its character, anything else dropped (the ``+``, the
    space and the dash of a telephone number)."""
    return "".join(DIGITS[int(char)] for char in digits if char.isdecimal())


def number(written: str) -> str:
    """``written`` (digits, one optional decimal point) read as an amount, as cn_tn's
    ``num2chn`` with its defaults reads it: "2005" is "两千零五", "12.50" "十二点五零"."""
    whole, _, decimals = written.partition(".")
    symbols = _amount(whole) if len(whole) > 1 else [("digit", int(c)) for c in whole]
    if decimals:
        symbols += [("point", 0), *(("digit", int(c)) for c in decimals)]
    said = "".join(_said(symbols, at) for at in range(len(symbols)))
    if said.startswith("点"):
        return "零" + said  # a whole part of zeros only ("00.5") says nothing
    return said[1:] if said[:2] == "一十" else said


_Symbol = tuple[str, int]
"""A digit and its value, a unit and its power of ten, or the decimal point."""


def _amount(digits: str) -> list[_Symbol]:
    """``digits`` as digits and units, by the largest unit shorter than the number, with a
    zero said once for leading zeros (cn_tn strips ASCII zeros only)."""
    significant = digits.lstrip("0")
    if not significant:
        return []
    if len(significant) == 1:
        zero: list[_Symbol] = [("digit", 0)] if len(significant) < len(digits) else []
        return [*zero, ("digit", int(significant))]
    power = max(p for p, _ in POWERS if p < len(significant))
    # The head keeps the leading zeros (cn_tn cuts the unstripped string), the tail is cut
    # from the stripped one.
    return [*_amount(digits[:-power]), ("unit", power), *_amount(significant[-power:])]


def _said(symbols: list[_Symbol], at: int) -> str:
    kind, value = symbols[at]
    if kind == "unit":
        return _UNIT_OF[value]
    if kind == "point":
        return "点"
    return "两" if value == 2 and _before_a_big_unit(symbols, at) else DIGITS[value]


def _before_a_big_unit(symbols: list[_Symbol], at: int) -> bool:
    """Whether the 2 at ``at`` is said 两: a unit other than 十 follows, and nothing or a unit
    other than 十 precedes."""
    after = symbols[at + 1] if at + 1 < len(symbols) else None
    before = symbols[at - 1] if at else None
    return (after is not None and after[0] == "unit" and after[1] != 1
            and (before is None or (before[0] == "unit" and before[1] != 1)))
