"""Speech recognition beyond English as the reference scores it (Qwen2-Audio's
``eval_audio/evaluate_asr.py``; PROTOCOLS.md, "Speech recognition beyond English"): Chinese
and Cantonese by characters, other languages by words, Kimi-Audio-Evalkit's mixed error rate
beside; the words aligned by the width a terminal gives them."""

# Full-width letters, digits and marks are what these tests are about.
# ruff: noqa: RUF001

from __future__ import annotations

import contextlib
import io
import random
from collections.abc import Callable
from types import ModuleType

import pytest

from pytest_audiobench.benchmarks.wer import chinese
from pytest_audiobench.benchmarks.wer.aligning import aligned, width
from pytest_audiobench.benchmarks.wer.counting import count, error_rate
from pytest_audiobench.benchmarks.wer.normalising import (
    PIPELINES,
    endings,
    pipelines,
    unit,
    words,
)
from tests.test_wer import _installed, _lmms_eval_asr, _module, _openai_whisper_normalisers

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


# --- each language's tokens, the reference's ---------------------------------------------------

LANGUAGES = ["zh", "yue", "en", "fr"]


def _normaliser(language: str, copy: str) -> Callable[[str], str]:
    """The reference's first steps in ``language`` from the packages that ship them: lmms-eval's
    ``remove_sp`` (Chinese its language without spaces) and ``_normalize`` (the normalisers by
    language, as its ``compute_wer`` runs them), with zhconv, openai-whisper's normalisers and
    the ``copy`` of cn_tn."""
    steps, whisper = _lmms_eval_asr(), _openai_whisper_normalisers()
    chinese_norm = _text_norm(copy)
    english, basic = whisper.EnglishTextNormalizer(), whisper.BasicTextNormalizer()

    def normalise(text: str) -> str:
        said: str = steps._normalize(
            steps.remove_sp(text, language, no_space_languages={"zh"}), language,
            yue_languages={"yue"}, english_languages={"en"}, chinese_languages={"zh"},
            yue_converter=steps.zhconv_convert, english_normalizer=english,
            chinese_normalizer=chinese_norm, basic_normalizer=basic)
        return said
    return normalise


def _reference_tokens(language: str, copy: str) -> Callable[[str], list[str]]:
    """The reference's tokens: its sacreBLEU ``none`` tokenizer with punctuation removal and
    lower case (lmms-eval's ``EvaluationTokenizer``), split, and for Chinese and Cantonese the
    tokens joined and split into characters, as lmms-eval's ``compute_wer`` does."""
    normalise = _normaliser(language, copy)
    tokenizer = _lmms_eval_asr().EvaluationTokenizer(
        tokenizer_type="none", lowercase=True, punctuation_removal=True,
        character_tokenization=False)

    def tokens(text: str) -> list[str]:
        items: list[str] = tokenizer.tokenize(normalise(text)).split()
        return list("".join(items)) if language in ("zh", "yue") else items
    return tokens


def _kimi_tokens(language: str, copy: str) -> Callable[[str], list[str]]:
    """Kimi-Audio-Evalkit's tokens: the same normalisers, then sacreBLEU's ``zh`` tokenizer
    with punctuation removal and lower case, no split into characters."""
    normalise = _normaliser(language, copy)
    tokenizer = _lmms_eval_asr().EvaluationTokenizer(
        tokenizer_type="zh", lowercase=True, punctuation_removal=True)

    def tokens(text: str) -> list[str]:
        items: list[str] = tokenizer.tokenize(normalise(text)).split()
        return items
    return tokens


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_s_tokens_are_the_reference_s(language: str, copy: str) -> None:
    theirs = _reference_tokens(language, copy)
    differ = [t for t in TRICKY if words(t, "reference", language) != theirs(t)]
    assert not differ


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_s_tokens_are_kimi_s(language: str, copy: str) -> None:
    theirs = _kimi_tokens(language, copy)
    differ = [t for t in TRICKY if words(t, "kimi", language) != theirs(t)]
    assert not differ


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("language", ["zh", "yue"])
def test_generated_strings_make_the_reference_s_characters(language: str, copy: str) -> None:
    theirs = _reference_tokens(language, copy)
    differ = [t for t in GENERATED if words(t, "reference", language) != theirs(t)]
    assert not differ


# A reference per language, against which every tricky reply is counted.
REFERENCES = {
    "zh": ["今天是2024年3月5日，我花了12.50元。", "我用iPhone 15打电话给13812345678。"],
    "yue": ["我哋今日去飲茶，三個人。", "佢話聽日會落雨"],
    "en": ["He hoped there would be stew for dinner.", "It cost $3.50, twenty percent off."],
    "fr": ["C'est la vie, à 3 h 30.", "Bonjour tout le monde"],
}


@pytest.mark.parametrize("copy", COPIES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_each_reply_s_edits_are_the_reference_s_edit_distance(language: str, copy: str) -> None:
    editdistance = pytest.importorskip("editdistance", reason="pip install editdistance==0.8.1")
    theirs = _reference_tokens(language, copy)
    for pipeline, tokens in (("reference", theirs), ("kimi", _kimi_tokens(language, copy))):
        for reference in REFERENCES[language]:
            ours = [count(words(reference, pipeline, language),
                          words(reply, pipeline, language)).errors for reply in TRICKY]
            assert ours == [editdistance.eval(tokens(reference), tokens(reply))
                            for reply in TRICKY], (pipeline, reference)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_split_s_rate_is_lmms_eval_s_compute_wer(language: str) -> None:
    steps, whisper = _lmms_eval_asr(), _openai_whisper_normalisers()
    references = [REFERENCES[language][i % 2] for i in range(len(TRICKY))]
    # Its caller runs remove_sp first, as the reference's main does.
    untagged = [[steps.remove_sp(t, language, no_space_languages={"zh"}) for t in texts]
                for texts in (references, TRICKY)]
    with contextlib.redirect_stdout(io.StringIO()):  # it prints its first pair
        theirs = steps.compute_wer(
            *untagged, language, yue_languages={"yue"}, english_languages={"en"},
            chinese_languages={"zh"}, char_languages={"zh", "yue"},
            yue_converter=steps.zhconv_convert,
            english_normalizer=whisper.EnglishTextNormalizer(),
            chinese_normalizer=_text_norm("lmms-eval"),
            basic_normalizer=whisper.BasicTextNormalizer())
    ours = error_rate(count(words(r, "reference", language), words(h, "reference", language))
                      for r, h in zip(references, TRICKY, strict=True))
    assert ours == pytest.approx(100.0 * theirs, rel=1e-12)


# --- error rates worked out by hand ------------------------------------------------------------

# Per language: reference, reply, (substitutions, deletions, insertions), reference tokens, under
# the reference pipeline (characters for zh and yue, words otherwise).
BY_HAND = {
    "zh": [
        # 今天天气很好: 6 characters; the full stop becomes a space and goes.
        ("今天天气很好", "今天天气很好。", (0, 0, 0), 6),
        # 很 heard as 真: one substitution.
        ("今天天气很好", "今天天气真好", (1, 0, 0), 6),
        # 3个 is written 三个 in the reference: 我有三个苹果, 6 characters, no error.
        ("我有3个苹果", "我有三个苹果", (0, 0, 0), 6),
        # The date 二零二四年三月五日: 9 characters.
        ("2024年3月5日", "二零二四年三月五日", (0, 0, 0), 9),
        # 50% is 百分之五十: 价格是百分之五十, 8 characters.
        ("价格是50%", "价格是百分之五十", (0, 0, 0), 8),
        # The tag and the space go, the marks too: 你好世界, 4 characters.
        ("<|zh|>你好 世界", "你好，世界！", (0, 0, 0), 4),
        # iPhone is 6 letters, each a character: 我用iphone打电话, 11; 苹果 for it is 2
        # substitutions and 4 deletions.
        ("我用iPhone打电话", "我用苹果打电话", (2, 4, 0), 11),
        # No conversion to simplified characters: 学习 for 學習 is 2 substitutions.
        ("學習", "学习", (2, 0, 0), 2),
        # Fillers are kept: 嗯好的, 3 characters, 嗯 left out is a deletion.
        ("嗯，好的", "好的", (0, 1, 0), 3),
        # Nothing said: every character deleted.
        ("今天天气很好", "", (0, 6, 0), 6),
        # A preamble's characters are insertions: 转写结果, 4 (the colon goes).
        ("今天天气很好", "转写结果：今天天气很好", (0, 0, 4), 6),
        ("今天天气很好", "<|zh|>今天 天气 很好", (0, 0, 0), 6),
    ],
    "yue": [
        # Both made simplified by zhconv: 我哋今日去饮茶, 7 characters.
        ("我哋今日去飲茶", "我哋今日去饮茶", (0, 0, 0), 7),
        ("學習", "学习", (0, 0, 0), 2),
        # No numbers written out in Cantonese: 3 against 三 is a substitution (个 and 苹 are the
        # simplified 個 and 蘋); 我有3个苹果, 6 characters.
        ("我有3個蘋果", "我有三个苹果", (1, 0, 0), 6),
        # The basic normaliser makes the marks spaces: 你好世界, 4.
        ("你好，世界！", "你好世界", (0, 0, 0), 4),
        ("今日好熱", "", (0, 4, 0), 4),
        # Latin letters and digits are characters too: 我用iphone15, 10.
        ("我用iPhone 15", "我用iphone 15", (0, 0, 0), 10),
    ],
    "en": [
        # 8 words, "soup" for "stew".
        ("He hoped there would be stew for dinner", "He hoped there would be soup for dinner.",
         (1, 0, 0), 8),
        # Both are "25" once normalised (English, then basic): 1 word.
        ("Twenty five dollars", "$25", (0, 0, 0), 1),
        ("Hello world", "", (0, 2, 0), 2),
        ("<|en|>Good morning", "good morning!", (0, 0, 0), 2),
    ],
    "fr": [
        # The basic normaliser alone: c est la vie, 4 words.
        ("C'est la vie.", "C'est la vie", (0, 0, 0), 4),
        # Accents are kept: "ca" for "ça" is a substitution; 3 words.
        ("Ça va bien", "Ca va bien", (1, 0, 0), 3),
        # No numbers written out: il est 3 h 30, 5 words; trois heures trente, 3 substitutions.
        ("Il est 3 h 30.", "Il est trois heures trente", (3, 0, 0), 5),
        ("Bonjour tout le monde", "", (0, 4, 0), 4),
    ],
}

# Per language, the split's rate in percent: errors summed over reference tokens summed.
# zh: 1 + 6 + 2 + 1 + 6 + 4 = 20 errors over 6+6+6+9+8+4+11+2+3+6+6+6 = 73 characters.
# yue: 1 + 4 = 5 over 7+2+6+4+4+10 = 33. en: 1 + 2 = 3 over 8+1+2+2 = 13.
# fr: 1 + 3 + 4 = 8 over 4+3+5+4 = 16.
SPLIT_RATES = {"zh": 100 * 20 / 73, "yue": 100 * 5 / 33, "en": 100 * 3 / 13, "fr": 50.0}


@pytest.mark.parametrize(("language", "reference", "reply", "expected", "tokens"), [
    (language, *row) for language, rows in BY_HAND.items() for row in rows])
def test_each_reply_s_errors_are_the_ones_worked_out_by_hand(
        language: str, reference: str, reply: str, expected: tuple[int, int, int],
        tokens: int) -> None:
    counted = count(words(reference, "reference", language), words(reply, "reference", language))
    assert (counted.substitutions, counted.deletions, counted.insertions) == expected
    assert counted.reference_words == tokens


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_split_s_rate_is_the_one_worked_out_by_hand(language: str) -> None:
    counted = [count(words(ref, "reference", language), words(reply, "reference", language))
               for ref, reply, _, _ in BY_HAND[language]]
    assert error_rate(counted) == pytest.approx(SPLIT_RATES[language])


@pytest.mark.parametrize("language", LANGUAGES)
def test_degenerate_splits_have_the_rates_worked_out_by_hand(language: str) -> None:
    reference = BY_HAND[language][0][0]
    said = words(reference, "reference", language)
    # One utterance, said right: 0 %; said twice in a row: as many insertions as tokens, 100 %.
    assert error_rate([count(said, said)]) == 0.0
    twice = words(f"{reference} {reference}", "reference", language)
    assert error_rate([count(said, twice)]) == pytest.approx(100.0)
    # Every utterance right.
    rows = BY_HAND[language]
    assert error_rate(count(words(r, "reference", language), words(r, "reference", language))
                      for r, _, _, _ in rows) == 0.0
    # Every reply empty: all deletions, 100 %.
    assert error_rate(count(words(r, "reference", language), [])
                      for r, _, _, _ in rows) == 100.0


# The mixed error rate Kimi-Audio-Evalkit reports for Chinese: CJK characters and Latin words.
# 我用iphone打电话 is 6 tokens (iphone one); 苹果 for iphone: 1 substitution and 1 insertion.
# 学习 for 學習: 2 substitutions in 2. The split: 4 errors over 8 tokens, 50 %.
KIMI = [("我用iPhone打电话", "我用苹果打电话", (1, 0, 1), 6), ("學習", "学习", (2, 0, 0), 2)]


def test_kimi_s_mixed_error_rate_keeps_latin_words_whole() -> None:
    counted = [count(words(ref, "kimi", "zh"), words(reply, "kimi", "zh"))
               for ref, reply, _, _ in KIMI]
    assert [((c.substitutions, c.deletions, c.insertions), c.reference_words)
            for c in counted] == [(errors, tokens) for _, _, errors, tokens in KIMI]
    assert error_rate(counted) == 50.0


# --- which pipelines and metrics a language has -------------------------------------------------


def test_each_language_has_its_pipelines_and_metric_endings() -> None:
    assert pipelines("en") == ("reference", "english")
    assert pipelines("zh") == pipelines("yue") == ("reference", "kimi")
    assert pipelines("fr") == pipelines("de") == ("reference",)
    assert set(PIPELINES) == {"reference", "english", "kimi"}
    assert [unit(language) for language in ("zh", "yue", "en", "fr")] == [
        "characters", "characters", "words", "words"]
    assert endings("zh") == endings("yue") == {"cer": "reference", "kimi.mer": "kimi"}
    assert endings("en") == {"wer": "reference", "english.wer": "english"}
    assert endings("fr") == {"wer": "reference"}


def test_the_english_pipeline_is_whisper_s_normaliser_alone_whatever_the_language() -> None:
    # No remove_sp (Whisper's normaliser drops the tag itself) and no characters: the Chinese
    # stays in words.
    assert words("<|en|>Good morning", "english", "zh") == words(
        "<|en|>Good morning", "english") == ["good", "morning"]
    assert words("今天 天气", "english", "zh") == ["今天", "天气"]
