"""Word error rate as the audio-model reports compute it: the normalising pipelines on
reference and answer alike (remove_sp first), the word errors of one utterance, and a split's
rate summed over its utterances. Every expected value is worked out by hand in the comment
beside it; the parity tests run the reference's own steps from installed packages
(openai-whisper's normalisers, lmms-eval's remove_sp and tokenizer) where they are there."""

from __future__ import annotations

import functools
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from pytest_audiobench.benchmarks.wer.counting import WordErrors, count, error_rate
from pytest_audiobench.benchmarks.wer.normalising import PIPELINES, remove_sp, words

REFERENCE = "HE HOPED THERE WOULD BE STEW FOR DINNER"  # LibriSpeech's style: 8 words

# answer, (substitutions, deletions, insertions) under the reference pipeline
REPLIES = [
    # Case and punctuation go: the same 8 words.
    ("He hoped there would be stew for dinner.", (0, 0, 0)),
    # A model's special tag is removed before anything else.
    ("<|en|>He hoped there would be stew for dinner", (0, 0, 0)),
    # A chatty opening is kept, as every reference pipeline keeps it: 3 words inserted
    # ("the", "transcription", "is"; the colon goes with the punctuation).
    ("The transcription is: he hoped there would be stew for dinner.", (0, 0, 3)),
    # "dinner" left out: one deletion.
    ("He hoped there would be stew for", (0, 1, 0)),
    # "stew" heard as "soup": one substitution.
    ("He hoped there would be soup for dinner", (1, 0, 0)),
    # A word added at the end: one insertion.
    ("He hoped there would be stew for dinner tonight", (0, 0, 1)),
    # The contraction is expanded by Whisper's English normaliser: "there'd" -> "there would".
    ("He hoped there'd be stew for dinner", (0, 0, 0)),
    # Nothing said: all 8 reference words deleted.
    ("", (0, 8, 0)),
]


@pytest.mark.parametrize(("answer", "expected"), REPLIES)
def test_each_reply_style_counts_the_word_errors_the_reference_pipeline_gives(
        answer: str, expected: tuple[int, int, int]) -> None:
    counted = count(words(REFERENCE), words(answer))
    assert (counted.substitutions, counted.deletions, counted.insertions) == expected
    assert counted.reference_words == 8
    assert counted.errors == sum(expected)


def test_numbers_and_spellings_are_compared_in_one_written_form() -> None:
    # "TWENTY FIVE DOLLARS" and "$25" both become "$25" by the English normaliser, then "25"
    # by the basic one (which drops the currency sign).
    assert words("TWENTY FIVE DOLLARS") == words("$25") == ["25"]
    assert words("TWENTY FIVE DOLLARS", "english") == words("$25", "english") == ["$25"]
    # British spellings become American ones; titles are spelled out.
    assert words("the colour of Mr. Smith's car") == [
        "the", "color", "of", "mister", "smith", "is", "car"]


def test_the_two_pipelines_differ_on_a_token_of_punctuation_alone() -> None:
    # The English normaliser keeps a lone "." (it reads a period as a decimal point's
    # possible start); the reference pipeline drops tokens made only of punctuation.
    assert words("well ...", "english") == ["well", "."]
    assert words("well ...") == ["well"]
    english = count(words("WELL", "english"), words("well ...", "english"))
    reference = count(words("WELL"), words("well ..."))
    assert (english.insertions, reference.insertions) == (1, 0)


def test_a_split_s_rate_is_its_errors_summed_over_its_reference_words_summed() -> None:
    # 1 error in 2 words and 0 in 8: 1 / 10 = 10 % (the mean of the two rates would be 25 %).
    short, long = WordErrors(1, 0, 0, 2), WordErrors(0, 0, 0, 8)
    assert error_rate([short, long]) == pytest.approx(10.0)
    assert (short.rate, long.rate) == (50.0, 0.0)
    # One utterance, n = 1: its own rate; insertions can take it past 100 %.
    assert error_rate([WordErrors(0, 0, 3, 2)]) == pytest.approx(150.0)
    # Every utterance right.
    assert error_rate([WordErrors(0, 0, 0, 5)] * 3) == 0.0
    # No reference word at all: no rate.
    assert error_rate([]) is None
    assert error_rate([WordErrors(0, 0, 2, 0)]) is None


def test_an_empty_reference_makes_every_answer_word_an_insertion() -> None:
    counted = count([], words("a word or two"))
    assert (counted.insertions, counted.reference_words) == (4, 0)


# --- remove_sp, the reference's first step -------------------------------------------------

# text, language, what remove_sp leaves: tags made spaces, whitespace runs one space, the space
# before a mark of !,.?;: removed, leading spaces removed (a trailing one stays, as in the
# reference); for Chinese every space goes too.
REMOVE_SP = [
    ("Hello , world !", "en", "Hello, world!"),
    ("Why ? Because ; then : done", "en", "Why? Because; then: done"),
    ("1 ,000 people and version 2 .0", "en", "1,000 people and version 2.0"),
    # The tags become spaces, the runs of spaces one, the leading one goes.
    ("<|en|>  He   said<|zh|>hi .", "en", "He said hi."),
    ("wait . . . no", "en", "wait... no"),  # each space before a period goes
    ("tab\tand\nnew line \u00a0,end \n", "en", "tab and new line,end "),
    ("<|zh|>今天 天气 很好 。", "en", "今天 天气 很好 。"),  # "。" is not one of the marks
    ("<|zh|>今天 天气 很好 。", "zh", "今天天气很好。"),
    ("", "en", ""),
]


@pytest.mark.parametrize(("text", "language", "expected"), REMOVE_SP)
def test_remove_sp_leaves_what_the_reference_s_first_step_leaves(
        text: str, language: str, expected: str) -> None:
    assert remove_sp(text, language) == expected


# reference, answer, (substitutions, deletions, insertions) under the reference pipeline, and
# under the english one (Whisper's normaliser alone, which has no remove_sp).
SPACED = [
    # A space before each mark: the mark goes with the punctuation either way, so only the
    # words count. "soup" for "stew": one substitution.
    (REFERENCE, "He hoped there would be soup for dinner !", (1, 0, 0), (1, 0, 0)),
    # "for dinner" left out: two deletions.
    (REFERENCE, "He hoped , there would be stew", (0, 2, 0), (0, 2, 0)),
    # "well" added: one insertion; both periods go.
    (REFERENCE, "Well . He hoped there would be stew for dinner .", (0, 0, 1), (0, 0, 1)),
    # "did" added and "hope" for "hoped": one insertion, one substitution.
    (REFERENCE, "Did he hope there would be stew for dinner ?", (1, 0, 1), (1, 0, 1)),
    (REFERENCE, "He hoped there would be stew ; for dinner ; yes", (0, 0, 1), (0, 0, 1)),
    (REFERENCE, "He hoped : there would be stew for dinner", (0, 0, 0), (0, 0, 0)),
    (REFERENCE, "He hoped there would be stew for dinner . . .", (0, 0, 0), (0, 0, 0)),
    # Numbers: remove_sp makes "1,000", whose comma between digits the English normaliser
    # drops: "1000", as it writes "one thousand". Without remove_sp it sees two numbers, "1"
    # (which it writes "one") and "000" (0): "one" for "1000" and "0" inserted.
    ("ONE THOUSAND PEOPLE CAME", "1 ,000 people came .", (0, 0, 0), (1, 0, 1)),
    # remove_sp makes "2.0", which the English normaliser reads as the number 2, as it reads
    # "two". Without it ".0" stays a word of its own: one insertion.
    ("VERSION TWO", "Version 2 .0", (0, 0, 0), (0, 0, 1)),
    # A tag between two words becomes a space; Whisper's normaliser alone removes it with
    # nothing, and "stewfor" is one substitution and one deletion.
    (REFERENCE, "<|en|>He hoped there would be stew<|endoftext|>for dinner", (0, 0, 0),
     (1, 1, 0)),
    # Leading spaces, runs of spaces, tabs and new lines, a tag then a spaced period: nothing.
    (REFERENCE, "  He   hoped\tthere would\n\nbe stew for dinner <|en|> .", (0, 0, 0),
     (0, 0, 0)),
]


@pytest.mark.parametrize(("reference", "answer", "expected", "english"), SPACED)
def test_a_space_before_a_mark_counts_the_errors_the_reference_pipeline_gives(
        reference: str, answer: str, expected: tuple[int, int, int],
        english: tuple[int, int, int]) -> None:
    for pipeline, errors in (("reference", expected), ("english", english)):
        counted = count(words(reference, pipeline), words(answer, pipeline))
        assert (counted.substitutions, counted.deletions, counted.insertions) == errors, \
            pipeline


# --- the normaliser equals openai-whisper's own --------------------------------------------

HOSTILE = [
    REFERENCE,
    "He hoped there'd be stew for dinner; she'll say it's fine, won't she?",
    "It cost $3.50, twenty percent off, and £20 more: 1,000,000 in all.",
    "Twenty five dollars and fifty cents, or 25.50, or one hundred and one",
    "The colour, the behaviour and the centre of the theatre were analysed.",
    "'cause it's late, cause and effect, because",
    "Mr. Smith, Mrs. Jones, Dr. Who, St. Paul and Prof. X met on 1st May 1999.",
    "A well-known, twenty-one-year-old mother-in-law -- and a dash — here",
    "hmm um uh mhm [laughter] (inaudible) <noise> okay",
    "kinda sorta dunno gonna wanna",
    "ÉCOLE naïve café Zürich 5% 3rd 2nd",
    "ONE TWO THREE FOUR FIVE SIX SEVEN EIGHT NINE TEN ELEVEN TWELVE",
    "the 1990s, the '90s, 10:30 pm, 3/4 cup, 2.5kg, #1",
    "",
]


def _installed(distribution: str, ending: str, install: str) -> Path:
    """The installed file of ``distribution`` whose path ends with ``ending``; the test is
    skipped when the distribution is not installed (``install`` says how, as .ci/run does)."""
    try:
        files = _files(distribution)
    except importlib.metadata.PackageNotFoundError:
        pytest.skip(f"{distribution} is not installed: {install} gives the reference's steps")
    found = next(f for f in files if f.endswith(ending))
    return Path(str(files[found].locate()))


@functools.cache
def _files(distribution: str) -> dict[str, importlib.metadata.PackagePath]:
    """Each file of ``distribution`` by its path in the record: read once (lmms-eval's record
    lists thousands, and each reference step asked again)."""
    return {str(f): f for f in importlib.metadata.files(distribution) or []}


def _module(name: str, path: Path, folder: Path | None = None) -> ModuleType:
    """The module (or, with ``folder``, the package) at ``path``, run once under ``name`` and
    apart from the package that holds it, whose own ``__init__`` imports what the tests do not
    install."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[str(folder)] if folder else None)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _openai_whisper_normalisers() -> ModuleType:
    """openai-whisper's ``whisper/normalizers`` package, without running
    ``whisper/__init__.py`` (which imports torch)."""
    init = _installed("openai-whisper", "normalizers/__init__.py",
                      "pip install --no-deps openai-whisper==20250625")
    return _module("openai_whisper_normalizers", init, init.parent)


def _lmms_eval_asr() -> ModuleType:
    """lmms-eval's ``tasks/asr_wer_utils.py``, which its LibriSpeech task scores with: its
    ``remove_sp`` (the copy of Qwen2-Audio's) and its tokenizer. Read alone, as the package's
    ``__init__`` imports its whole framework; it imports ``editdistance``."""
    pytest.importorskip("editdistance", reason="pip install editdistance==0.8.1")
    path = _installed("lmms-eval", "tasks/asr_wer_utils.py",
                      "pip install --no-deps lmms-eval==0.7.3")
    return _module("lmms_eval_asr_wer_utils", path)


@pytest.mark.parametrize("text", HOSTILE)
def test_the_normalisers_equal_openai_whisper_s_own(text: str) -> None:
    from whisper_normalizer.basic import BasicTextNormalizer
    from whisper_normalizer.english import EnglishTextNormalizer

    theirs = _openai_whisper_normalisers()
    assert EnglishTextNormalizer()(text) == theirs.EnglishTextNormalizer()(text)
    assert BasicTextNormalizer()(text) == theirs.BasicTextNormalizer()(text)


def _every_reference() -> list[str]:
    """Every reference and reply of the mini data and of the end-to-end tests' tables."""
    from pytest_audiobench.benchmarks.fleurs.data import read_language
    from pytest_audiobench.benchmarks.librispeech.data import read_split
    from pytest_audiobench.config.names import MINI, bundled
    from tests.test_wer_run import FLEURS, TABLE

    speech = bundled(MINI, "librispeech")
    texts = [u.transcript for split in ("test-clean", "test-other")
             for u in read_split(speech, split)[0]]
    fleurs, _ = read_language(bundled(MINI, "fleurs"), "en_us")
    texts += [t for u in fleurs for t in (u.transcription, u.raw_transcription)]
    return texts + [t for u in (*TABLE, *FLEURS) for t in (u.reference, str(u.reply))]


def test_the_normalisers_equal_openai_whisper_s_own_on_every_reference() -> None:
    from whisper_normalizer.basic import BasicTextNormalizer
    from whisper_normalizer.english import EnglishTextNormalizer

    theirs = _openai_whisper_normalisers()
    texts = _every_reference()
    assert len(texts) > 50
    for text in texts:
        assert EnglishTextNormalizer()(text) == theirs.EnglishTextNormalizer()(text), text
        assert BasicTextNormalizer()(text) == theirs.BasicTextNormalizer()(text), text


def test_every_pipeline_is_named() -> None:
    assert PIPELINES == ("reference", "english", "kimi")


@pytest.mark.parametrize(("language", "named"), [
    ("en", {"wer": "reference", "english.wer": "english"}),
    ("zh", {"cer": "reference", "kimi.mer": "kimi"}),
    ("yue", {"cer": "reference", "kimi.mer": "kimi"}),
    ("fr", {"wer": "reference"}),
])
def test_each_language_names_its_metrics_by_its_pipelines(language: str,
                                                           named: dict[str, str]) -> None:
    from pytest_audiobench.benchmarks.wer.normalising import endings

    assert endings(language) == named


# --- the reference pipeline equals the reference's own steps ----------------------------------

PARITY = [*HOSTILE, *(text for text, _, _ in REMOVE_SP),
          *(text for row in SPACED for text in row[:2])]


def _reference_steps(text: str) -> list[str]:
    """``text``'s words by the reference's own steps, run from the installed packages:
    lmms-eval's remove_sp, openai-whisper's English then basic normaliser, then the reference
    tokenizer's punctuation removal and lower case (its sacreBLEU tokenizer is ``none``,
    which returns the line as it is, so sacreBLEU is not needed)."""
    steps, whisper = _lmms_eval_asr(), _openai_whisper_normalisers()
    untagged = steps.remove_sp(text, "en")
    normalised = whisper.BasicTextNormalizer()(whisper.EnglishTextNormalizer()(untagged))
    return list(steps.EvaluationTokenizer.remove_punctuation(normalised).lower().split())


@pytest.mark.parametrize(("text", "language", "expected"), REMOVE_SP)
def test_remove_sp_equals_lmms_eval_s_copy_of_the_reference_s(
        text: str, language: str, expected: str) -> None:
    # lmms-eval's LibriSpeech task names Chinese as the language written without spaces.
    theirs = _lmms_eval_asr().remove_sp(text, language, no_space_languages={"zh"})
    assert remove_sp(text, language) == theirs == expected


@pytest.mark.parametrize("text", PARITY)
def test_each_pipeline_makes_the_words_its_reference_steps_make(text: str) -> None:
    assert words(text) == _reference_steps(text)
    # The english pipeline is the Whisper paper's: its normaliser alone, no remove_sp.
    english = _openai_whisper_normalisers().EnglishTextNormalizer()(text).split()
    assert words(text, "english") == english


def test_the_reference_pipeline_makes_the_reference_s_words_on_every_reference() -> None:
    texts = _every_reference()
    assert [words(text) for text in texts] == [_reference_steps(text) for text in texts]


def test_an_utterance_s_errors_are_the_reference_s_edit_distance() -> None:
    from tests.test_wer_run import FLEURS, TABLE

    _lmms_eval_asr()  # skips without editdistance too
    import editdistance

    pairs = [(row[0], row[1]) for row in SPACED] + [
        (u.reference, str(u.reply)) for u in (*TABLE, *FLEURS)]
    for reference, answer in pairs:
        theirs = editdistance.eval(_reference_steps(reference), _reference_steps(answer))
        assert count(words(reference), words(answer)).errors == theirs, answer


# --- counting on token lists, whatever the tokens ------------------------------------------

# reference tokens, hypothesis tokens, (substitutions, deletions, insertions): tokens are
# compared as they are, never joined by spaces and split again.
ODD_TOKENS = [
    # A token holding a space is one token: "a b" for "a", then "b" inserted.
    (["a b", "c"], ["a", "b", "c"], (1, 0, 1)),
    # An empty token and a space are tokens too: one substitution each.
    (["", " "], ["x", "y"], (2, 0, 0)),
    # Tokens that a space-joined string would have run together: "ab" and "a" "b".
    (["ab"], ["a", "b"], (1, 0, 1)),
    # Characters that are whitespace to Python, and a zero-width space, each one token.
    (["\u3000", "\u200b", "\t"], ["\u3000", "\u200b", "\t"], (0, 0, 0)),
    # Characters: "今天天气好" against "今天天汽好": one substitution.
    (list("今天天气好"), list("今天天汽好"), (1, 0, 0)),
]


@pytest.mark.parametrize(("reference", "hypothesis", "expected"), ODD_TOKENS)
def test_a_count_compares_the_tokens_as_they_are(
        reference: list[str], hypothesis: list[str], expected: tuple[int, int, int]) -> None:
    counted = count(reference, hypothesis)
    assert (counted.substitutions, counted.deletions, counted.insertions) == expected
    assert counted.reference_words == len(reference)


@pytest.mark.parametrize(("reference", "hypothesis", "expected"), ODD_TOKENS)
def test_a_count_s_errors_are_editdistance_s_on_odd_tokens(
        reference: list[str], hypothesis: list[str], expected: tuple[int, int, int]) -> None:
    editdistance = pytest.importorskip("editdistance", reason="pip install editdistance==0.8.1")
    assert count(reference, hypothesis).errors == editdistance.eval(reference, hypothesis)
