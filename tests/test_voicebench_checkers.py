"""VoiceBench's two scorers that come from packages rather than from us: IFEval, lm-eval
0.4.13's copy of Google's checker with the reference's procedure around it (and nltk's Punkt
model in the plugin's cache), and sd-qa's PEDANT, qa-metrics 0.2.17 on a classifier
downloaded into the cache. Downloads go to fake servers on 127.0.0.1; PEDANT's classifier is
a tiny one trained here (the real one only when AUDIOBENCH_PEDANT_CLASSIFIER names a folder
that holds it)."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import io
import ipaddress
import logging
import os
import random
import sys
import types
import zipfile
from collections.abc import Iterator, Mapping
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from pytest_audiobench.benchmarks.voicebench import ifeval, pedant
from pytest_audiobench.benchmarks.voicebench.ifeval import Following, cleaned, figures, following
from pytest_audiobench.benchmarks.voicebench.punkt import MODEL, punkt_data
from pytest_audiobench.errors import AudiobenchError, DataError, DownloadError
from tests.fakes.pedant import NEEDS_QA_METRICS, tiny_classifier
from tests.fakes.serving import closed_port
from tests.fakes.static_files import StaticFiles

# --- nltk's punkt_tab, downloaded into the cache ------------------------------------------

PUNKT_MODEL = {"collocations.tab": "", "sent_starters.txt": "he\n",
               "abbrev_types.txt": "dr\nmrs\n", "ortho_context.tab": ""}
"""A Punkt model in nltk's punkt_tab format, small but valid: "Dr." and "Mrs." end no
sentence."""


def write_punkt_model(cache_dir: Path) -> None:
    folder = cache_dir / "nltk_data" / MODEL
    folder.mkdir(parents=True)
    for name, text in PUNKT_MODEL.items():
        (folder / name).write_text(text, encoding="utf-8")


def punkt_tab_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in PUNKT_MODEL.items():
            archive.writestr(f"punkt_tab/english/{name}", text)
    return buffer.getvalue()


def nltk_index(archive_url: str, archive: bytes) -> bytes:
    """nltk's data index listing one package, punkt_tab, as nltk's own index lists it."""
    unzipped = sum(len(text.encode()) for text in PUNKT_MODEL.values())
    return (f'<?xml version="1.0"?>\n<nltk_data><packages><package id="punkt_tab" '
            f'name="Punkt Tokenizer Models" subdir="tokenizers" unzip="1" url="{archive_url}" '
            f'size="{len(archive)}" unzipped_size="{unzipped}" '
            f'checksum="{hashlib.md5(archive).hexdigest()}" '
            f'sha256_checksum="{hashlib.sha256(archive).hexdigest()}"/></packages>'
            f"<collections/></nltk_data>").encode()


@pytest.fixture
def nltk_data_path(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """nltk's search path, restored after the test."""
    import nltk

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    return nltk.data.path  # type: ignore[no-any-return]


@pytest.fixture
def loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """nltk's downloader refuses every address that is not global (its guard against
    server-side request forgery), 127.0.0.1 among them: for this test it may reach the fake
    index there, and nothing else it refuses."""
    import nltk.pathsec

    forbidden = nltk.pathsec._ip_is_forbidden
    loopback = ipaddress.ip_address("127.0.0.1")
    monkeypatch.setattr(nltk.pathsec, "_ip_is_forbidden",
                        lambda ip: ip != loopback and forbidden(ip))


@pytest.fixture
def nltk_host() -> Iterator[StaticFiles]:
    archive = punkt_tab_zip()
    with StaticFiles({"punkt_tab.zip": archive}) as host:
        host.files["index.xml"] = nltk_index(host.url("punkt_tab.zip"), archive)
        yield host


@pytest.mark.usefixtures("loopback_allowed")
def test_punkt_tab_is_downloaded_into_the_cache_once_and_found_there_first(
        tmp_path: Path, nltk_host: StaticFiles, nltk_data_path: list[str]) -> None:
    from nltk.tokenize import PunktTokenizer

    folder = punkt_data(tmp_path, nltk_host.url("index.xml"))
    assert folder == tmp_path.resolve() / "nltk_data"
    assert (folder / MODEL / "abbrev_types.txt").read_text() == "dr\nmrs\n"
    assert nltk_data_path[0] == str(folder)
    # The model read is the one downloaded: its abbreviations keep "Dr." inside a sentence.
    assert PunktTokenizer("english").tokenize("Dr. Smith came. He left.") == [
        "Dr. Smith came.", "He left."]
    assert punkt_data(tmp_path, nltk_host.url("index.xml")) == folder
    assert nltk_host.hits == {"index.xml": 1, "punkt_tab.zip": 1}
    assert nltk_data_path.count(str(folder)) == 1


@pytest.mark.usefixtures("loopback_allowed", "nltk_data_path")
def test_without_the_index_the_punkt_download_fails_in_one_line_naming_it(
        tmp_path: Path) -> None:
    index = f"http://127.0.0.1:{closed_port()}/index.xml"
    with pytest.raises(DownloadError) as raised:
        punkt_data(tmp_path, index)
    message = str(raised.value)
    assert "\n" not in message
    assert f"nltk's punkt_tab sentence model, which IFEval's sentence counts need, from the " \
           f"index {index}: Connection refused;" in message
    assert str(tmp_path.resolve() / "nltk_data") in message


@pytest.mark.usefixtures("nltk_data_path")
def test_nltk_itself_refuses_an_index_on_a_loopback_address(tmp_path: Path,
                                                            nltk_host: StaticFiles) -> None:
    """Why the tests above let nltk reach 127.0.0.1: left alone, it refuses to."""
    with pytest.raises(DownloadError, match=r"SSRF attempt to restricted IP 127\.0\.0\.1"):
        punkt_data(tmp_path, nltk_host.url("index.xml"))
    assert nltk_host.hits == {}


# --- IFEval: the reference's procedure on lm-eval's checker ---------------------------------


@pytest.fixture(scope="module")
def checker_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder whose nltk data already holds the Punkt model: nothing is downloaded."""
    cache = tmp_path_factory.mktemp("cache")
    write_punkt_model(cache)
    return cache


NO_COMMA = "punctuation:no_comma"
LOWERCASE = "change_case:english_lowercase"
WORDS = "length_constraints:number_words"
JSON = "detectable_format:json_format"
QUOTED = "startend:quotation"
ENDING = "startend:end_checker"
SENTENCES = "length_constraints:number_sentences"
LOWER_TEXT = "the weather in the mountains is cold and windy in the winter months"

HAND_TABLE: list[tuple[str, str, list[str], list[dict[str, Any]], list[bool], list[bool]]] = [
    # (case, reply, instruction ids, kwargs, strict, loose), from reading Google's checker.
    ("no comma", "Paris is the capital of France.", [NO_COMMA], [{}], [True], [True]),
    ("a comma", "Paris, the capital.", [NO_COMMA], [{}], [False], [False]),
    ("a comma in the first line only", "Sure, here it is:\nParis is the capital",
     [NO_COMMA], [{}], [False], [True]),
    ("lowercase English", LOWER_TEXT, [LOWERCASE], [{}], [True], [True]),
    ("a capital letter", LOWER_TEXT.capitalize(), [LOWERCASE], [{}], [False], [False]),
    ("a capitalised first line", f"Here is my answer:\n{LOWER_TEXT}", [LOWERCASE], [{}],
     [False], [True]),
    ("four words, fewer than five", "one two three four", [WORDS],
     [{"num_words": 5, "relation": "less than"}], [True], [True]),
    ("five words, not fewer than five", "one two three four five", [WORDS],
     [{"num_words": 5, "relation": "less than"}], [False], [False]),
    ("words counted without the first line", "A title line here\none two three", [WORDS],
     [{"num_words": 5, "relation": "less than"}], [False], [True]),
    ("two words, not at least three", "a b", [WORDS],
     [{"num_words": 3, "relation": "at least"}], [False], [False]),
    ("JSON", '{"answer": 42}', [JSON], [{}], [True], [True]),
    ("JSON in markdown ticks", '```json\n{"answer": [1, 2]}\n```', [JSON], [{}], [True],
     [True]),
    ("JSON after a first line", 'Here you go:\n{"answer": 42}', [JSON], [{}], [False], [True]),
    ("JSON before a last line", '{"answer": 42}\nHope this helps!', [JSON], [{}], [False],
     [True]),
    ("not JSON", "the answer is 42", [JSON], [{}], [False], [False]),
    ("quotes inside asterisks", '*"hello there"*', [QUOTED], [{}], [False], [True]),
    ("an ending in bold", "Thanks for asking. **Any other questions?**", [ENDING],
     [{"end_phrase": "Any other questions?"}], [False], [True]),
    ("an empty reply follows nothing", "", [NO_COMMA, JSON], [{}, {}], [False, False],
     [False, False]),
    ("a blank reply follows nothing", "  \n \n", [NO_COMMA], [{}], [False], [False]),
    ("a reply that is only a marker", "<2>", [NO_COMMA], [{}], [False], [False]),
    ("markers removed before checking", f"<1> {LOWER_TEXT} <|user|>", [LOWERCASE, QUOTED],
     [{}, {}], [True, False], [True, False]),
    ("None and 0 kwargs dropped", "one two, three", [NO_COMMA, WORDS],
     [{"num_words": None, "relation": None, "num_highlights": 0, "keywords": []},
      {"num_words": 5, "relation": "less than", "end_phrase": "", "num_bullets": None}],
     [False, True], [False, True]),
    ("Dr. ends no sentence in the cached model", "Dr. Smith came home.", [SENTENCES],
     [{"num_sentences": 2, "relation": "less than"}], [True], [True]),
]


@pytest.mark.parametrize(("reply", "ids", "kwargs", "strict", "loose"),
                         [case[1:] for case in HAND_TABLE], ids=[case[0] for case in HAND_TABLE])
def test_each_instruction_is_checked_strictly_and_loosely_as_google_s_checker_does(
        reply: str, ids: list[str], kwargs: list[dict[str, Any]], strict: list[bool],
        loose: list[bool], checker_cache: Path) -> None:
    assert following(reply, "a prompt", ids, kwargs, checker_cache) == Following(
        tuple(strict), tuple(loose))


@pytest.mark.parametrize(("reply", "expected"), [
    ("<1> hello", "hello"), ("<3>hello\n", "hello"), ("hello <|user|>", "hello"),
    ("<2> hello <|user|>", "hello"), ("<1>", ""), ("<4> hello", "<4> hello"),
    (" <1> hello", " <1> hello"), ("hello <|user|> ", "hello <|user|> "),
    ("  hello  ", "  hello  "), ("<|user|> hello", "<|user|> hello"),
])
def test_a_reply_loses_a_leading_turn_marker_and_a_trailing_user_tag_only(
        reply: str, expected: str) -> None:
    assert cleaned(reply) == expected


def test_an_unknown_instruction_is_a_data_error_naming_it(checker_cache: Path) -> None:
    with pytest.raises(DataError, match=r"IFEval instruction 2 \('format:haiku'\): no such "
                                        r"instruction in lm-eval 0\.4\.13's IFEval checker"):
        following("hi", "p", [NO_COMMA, "format:haiku"], [{}, {}], checker_cache)


def test_an_argument_the_checker_takes_left_falsy_is_refused_rather_than_drawn_at_random(
        checker_cache: Path) -> None:
    """The reference keeps only truthy kwargs; a checker missing an argument it takes draws
    one at random, so a record with ``num_words: 0`` would score differently run to run."""
    with pytest.raises(DataError, match=r"IFEval instruction 1 \('length_constraints:number_"
                                        r"words'\): num_words=0: the reference drops"):
        following("one two", "p", [WORDS], [{"num_words": 0, "relation": "less than"}],
                  checker_cache)


def test_kwargs_the_checker_refuses_are_a_data_error_naming_the_instruction(
        checker_cache: Path) -> None:
    with pytest.raises(DataError, match=r"\('length_constraints:number_words'\): its checker "
                                        r"refuses the kwargs .*'about'"):
        following("one two", "p", [WORDS], [{"num_words": 3, "relation": "about"}],
                  checker_cache)
    with pytest.raises(DataError, match=r"\('punctuation:no_comma'\): its checker refuses"):
        following("one two", "p", [NO_COMMA], [{"num_words": 3}], checker_cache)


def test_kwargs_must_come_one_per_instruction(checker_cache: Path) -> None:
    with pytest.raises(DataError, match="2 instructions and 1 kwargs"):
        following("hi", "p", [NO_COMMA, JSON], [{}], checker_cache)


@pytest.mark.parametrize(("name", "installed", "said"), [
    ("lm-eval", None, "needs lm-eval==0.4.13, which is not installed: "),
    ("lm-eval", "0.4.14", "needs lm-eval==0.4.13, and lm-eval 0.4.14 is installed: "),
    ("langdetect", None, "needs langdetect, which is not installed: "),
])
def test_a_missing_checker_package_is_one_line_naming_the_pip_commands(
        name: str, installed: str | None, said: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    version = metadata.version

    def pretended(distribution: str) -> str:
        if distribution != name:
            return version(distribution)
        if installed is None:
            raise metadata.PackageNotFoundError(distribution)
        return installed

    monkeypatch.setattr(metadata, "version", pretended)
    ifeval._checkers.cache_clear()  # checked once per process, as a run checks them
    with pytest.raises(AudiobenchError) as raised:
        following("hi", "p", [NO_COMMA], [{}], tmp_path)
    assert str(raised.value) == (
        f"VoiceBench's ifeval {said}pip install 'pytest-audiobench[voicebench]' && "
        "pip install --no-deps lm-eval==0.4.13")


@pytest.mark.usefixtures("nltk_data_path")
def test_the_checker_loads_without_lm_eval_s_package_code_nor_its_nltk_download(
        tmp_path: Path, nltk_data_path: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """lm-eval's ``tasks/__init__.py`` imports its task manager (datasets, torch), its
    ``__init__.py`` sets Hugging Face variables, and its ``instructions_util`` calls
    ``nltk.download`` and prints a line when nltk finds no punkt_tab (here it finds none):
    none of it runs, nltk's own download is back in place afterwards, and ``sys.modules``
    holds no lm-eval module afterwards that it did not hold before."""
    import nltk

    nltk_data_path[:] = [str(tmp_path)]
    with pytest.raises(LookupError):
        nltk.data.find("tokenizers/punkt_tab")

    def refused(*args: object, **kwargs: object) -> None:
        pytest.fail("downloaded")

    monkeypatch.setattr(nltk, "download", refused)
    monkeypatch.delenv("HF_XET_HIGH_PERFORMANCE", raising=False)
    before = set(sys.modules)
    registry = ifeval._load_alone().INSTRUCTION_DICT
    assert not [name for name in set(sys.modules) - before if name.split(".")[0] == "lm_eval"]
    assert "HF_XET_HIGH_PERFORMANCE" not in os.environ
    assert nltk.download is refused
    assert capsys.readouterr() == ("", "")
    assert NO_COMMA in registry


def test_only_the_instructions_that_read_punkt_make_it_ready(
        tmp_path: Path, checker_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mini benchmark's ifeval items count no sentences, so its offline run needs no
    download; an item that counts them gets the model first."""
    readied: list[Path] = []

    def ready(cache_dir: Path) -> Path:
        readied.append(cache_dir)
        return punkt_data(checker_cache)

    monkeypatch.setattr(ifeval, "punkt_data", ready)
    empty = tmp_path / "cache"
    under_five = {"num_words": 5, "relation": "less than"}
    following("a reply", "p", [NO_COMMA], [{}], empty)
    following("a reply", "p", [LOWERCASE, WORDS], [{}, under_five], empty)
    assert readied == []
    assert following("One. Two.", "p", [SENTENCES],
                     [{"num_sentences": 3, "relation": "less than"}], empty) == Following(
                         (True,), (True,))
    assert following("One.", "p", ["change_case:capital_word_frequency"],
                     [{"capital_frequency": 1, "capital_relation": "less than"}], empty
                     ) == Following((True,), (True,))
    assert readied == [empty.resolve()]
    assert sorted(ifeval.PUNKT_USERS) == ["change_case:capital_word_frequency", SENTENCES]


def test_language_detection_gives_a_short_reply_one_answer(
        checker_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """langdetect draws a random seed at each call unless one is set, and "good morning" is
    English in some draws and Croatian in others: the reference's lowercase check passes or
    fails it by chance. Seeded, it is one answer (here, not English)."""
    following("ok", "p", [NO_COMMA], [{}], checker_cache)
    # The langdetect the checker imported (an in-process pytest run elsewhere in this process
    # may have left another in sys.modules).
    langdetect = ifeval._checkers()[LOWERCASE].check_following.__globals__["langdetect"]
    assert langdetect.DetectorFactory.seed == 0
    verdicts = {following("good morning", "p", [LOWERCASE], [{}], checker_cache)
                for _ in range(10)}
    assert verdicts == {Following((False,), (False,))}
    monkeypatch.setattr(langdetect.DetectorFactory, "seed", None)
    assert {langdetect.detect("good morning") for _ in range(30)} == {"en", "hr"}


# --- IFEval's figures -----------------------------------------------------------------------


def test_the_figures_are_shares_of_items_and_of_instructions_and_their_mean() -> None:
    items = [Following((True, False), (True, True)), Following((True,), (True,)),
             Following((False, False, True), (False, True, True))]
    assert figures(items) == pytest.approx({
        "strict-prompt": 100 / 3, "strict-instruction": 50.0, "loose-prompt": 200 / 3,
        "loose-instruction": 500 / 6, "final": 700 / 12})
    assert list(figures(items)) == ["strict-prompt", "strict-instruction", "loose-prompt",
                                    "loose-instruction", "final"]


@pytest.mark.parametrize(("item", "percent"), [
    (Following((True, True), (True, True)), 100.0),
    (Following((False,), (False,)), 0.0),
])
def test_one_item_scores_all_or_nothing(item: Following, percent: float) -> None:
    assert figures([item]) == dict.fromkeys(
        ("strict-prompt", "strict-instruction", "loose-prompt", "loose-instruction", "final"),
        percent)


def test_an_item_without_instructions_counts_as_followed_as_in_the_reference() -> None:
    """``all([])`` is true: the reference counts it at the prompt level and adds nothing at
    the instruction level."""
    assert figures([Following((), ()), Following((False,), (True,))]) == {
        "strict-prompt": 50.0, "strict-instruction": 0.0, "loose-prompt": 100.0,
        "loose-instruction": 100.0, "final": 62.5}


@pytest.mark.parametrize("items", [[], [Following((), ())]], ids=["no item", "no instruction"])
def test_nothing_to_score_is_an_error(items: list[Following]) -> None:
    with pytest.raises(ValueError, match="no IFEval instruction to score"):
        figures(items)


def test_a_result_per_instruction_is_needed_both_ways() -> None:
    with pytest.raises(ValueError, match="2 strict and 1 loose results"):
        Following((True, True), (True,))


# --- IFEval: lm-eval's checker against the reference's vendored copy -------------------------

REFERENCE_COPY = "lmms_eval/tasks/voicebench/instruction_following_eval"
"""The reference's vendored checker as lmms-eval 0.7.3 ships it (the same code but for its
logger: loguru instead of absl)."""

KWARGS: dict[str, list[dict[str, Any]]] = {
    "keywords:existence": [{"keywords": ["capital", "weather"]}],
    "keywords:frequency": [{"keyword": "the", "frequency": 2, "relation": "at least"},
                           {"keyword": "answer", "frequency": 2, "relation": "less than"}],
    "keywords:forbidden_words": [{"forbidden_words": ["paris", "answer"]}],
    "keywords:letter_frequency": [{"letter": "e", "let_frequency": 6, "let_relation": "at least"},
                                  {"letter": "z", "let_frequency": 1,
                                   "let_relation": "less than"}],
    "language:response_language": [{"language": "en"}, {"language": "fr"}],
    "length_constraints:number_sentences": [{"num_sentences": 3, "relation": "less than"},
                                            {"num_sentences": 2, "relation": "at least"}],
    "length_constraints:number_paragraphs": [{"num_paragraphs": 2}],
    "length_constraints:number_words": [{"num_words": 10, "relation": "less than"},
                                        {"num_words": 20, "relation": "at least"}],
    "length_constraints:nth_paragraph_first_word": [
        {"num_paragraphs": 2, "nth_paragraph": 2, "first_word": "paris"}],
    "detectable_content:number_placeholders": [{"num_placeholders": 1}],
    "detectable_content:postscript": [{"postscript_marker": "P.S."},
                                      {"postscript_marker": "P.P.S"}],
    "detectable_format:number_bullet_lists": [{"num_bullets": 2}],
    "detectable_format:constrained_response": [{}],
    "detectable_format:number_highlighted_sections": [{"num_highlights": 1}],
    "detectable_format:multiple_sections": [{"section_spliter": "Section", "num_sections": 2}],
    "detectable_format:json_format": [{}],
    "detectable_format:title": [{}],
    "combination:two_responses": [{}],
    "combination:repeat_prompt": [{"prompt_to_repeat": "Write a poem about the sea"}],
    "startend:end_checker": [{"end_phrase": "Any other questions?"}],
    "change_case:capital_word_frequency": [{"capital_frequency": 2,
                                            "capital_relation": "at least"}],
    "change_case:english_capital": [{}],
    "change_case:english_lowercase": [{}],
    "punctuation:no_comma": [{}],
    "startend:quotation": [{}],
}
"""Every registered instruction with the kwargs it is checked with here."""

PIECES = (
    "Paris is the capital of France.", "the weather is cold, windy and grey today",
    "Dr. Smith arrived at noon. He left soon after!", "I think, therefore I am?",
    "*a highlighted part*", "**bold words**", "* first bullet", "* second bullet",
    "- a dash bullet", "<<A Title>>", "<<>>", "P.S. remember the answer",
    "P.P.S one more thing", "Section 1 the start", "Section 2 the end", "[name] lives at [address]",
    '{"answer": 42}', '```json\n{"a": [1, 2]}\n```', "My answer is yes.", "My answer is maybe.",
    "Any other questions?", "Is there anything else I can help with?",
    "Bonjour tout le monde, comment allez-vous aujourd'hui mes amis?",
    "Das ist ein deutscher Satz über das schöne Wetter im Sommer.", "这是一个关于天气的中文句子。",
    "NASA AND THE USA SENT ROCKETS", "the answer answer answer is here", "zebra",
    "word " * 25, "Write a poem about the sea", "",
)
SEPARATORS = ("\n", " ", "\n\n", "\n***\n", "\n******\n")
SHAPES = (str, str.lower, str.upper, lambda text: f'"{text}"',
          lambda text: f"Write a poem about the sea\n{text}",
          lambda text: f"{text}\nAny other questions?")


CRAFTED = ("* first bullet\n* second bullet", "Section 1 the start\nSection 2 the end",
           "Hello there.\n\nParis is the capital of France.")
"""Replies that follow the instructions random pieces rarely do: two bullets, two sections,
a second paragraph that starts with "Paris"."""


def generated_replies(count: int = 30, seed: int = 20241) -> list[str]:
    """Replies made of pieces that trip each checker one way or the other."""
    draw = random.Random(seed)
    replies = list(CRAFTED)
    for _ in range(count):
        pieces = draw.sample(PIECES, draw.randint(1, 4))
        replies.append(draw.choice(SHAPES)(draw.choice(SEPARATORS).join(pieces)))
    return replies


def _loaded_by_path(name: str, folder: Path) -> Any:
    """The copy's registry imported from `folder` as package `name`; loguru (its logger) a
    stand-in on the standard logging when it is not installed; ``sys.modules`` left as it
    was."""
    stand_ins: dict[str, types.ModuleType] = {name: types.ModuleType(name)}
    stand_ins[name].__path__ = [str(folder)]
    if importlib.util.find_spec("loguru") is None:
        stand_ins["loguru"] = types.ModuleType("loguru")
        stand_ins["loguru"].logger = logging.getLogger("reference-ifeval")  # type: ignore[attr-defined]
    before = set(sys.modules)
    sys.modules.update(stand_ins)
    try:
        return importlib.import_module(f"{name}.instructions_registry")
    finally:
        for added in set(sys.modules) - before:
            if added in stand_ins or added.startswith(f"{name}."):
                del sys.modules[added]


@pytest.fixture(scope="module")
def reference_copy(checker_cache: Path) -> Any:
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("the reference's IFEval checker is read from lmms-eval 0.7.3: "
                    "pip install --no-deps lmms-eval==0.7.3")
    folder = Path(next(iter(spec.submodule_search_locations))).parent / REFERENCE_COPY
    punkt_data(checker_cache)  # its sentence counts read the same model as lm-eval's
    # Its language detection seeded as lm-eval's is: unseeded, langdetect draws at each call.
    return ifeval.seeded(_loaded_by_path("reference_ifeval_copy", folder))


@pytest.fixture(scope="module")
def lm_eval_copy(checker_cache: Path) -> Any:
    """lm-eval's registry module, loaded as ``following`` loads it (its language detection
    seeded as ``following`` seeds it)."""
    following("ok", "p", [NO_COMMA], [{}], checker_cache)
    return ifeval.seeded(ifeval._load_alone())


def test_both_copies_register_the_same_instructions(reference_copy: Any,
                                                    lm_eval_copy: Any) -> None:
    assert set(lm_eval_copy.INSTRUCTION_DICT) == set(reference_copy.INSTRUCTION_DICT) == set(
        KWARGS)


def test_each_checker_of_lm_eval_agrees_with_the_reference_s_copy_on_generated_replies(
        reference_copy: Any, lm_eval_copy: Any) -> None:
    replies = generated_replies()
    differences = []
    outcomes: dict[str, set[bool]] = {}
    for instruction_id, options in KWARGS.items():
        for kwargs in options:
            ours = _built(lm_eval_copy, instruction_id, kwargs)
            theirs = _built(reference_copy, instruction_id, kwargs)
            for reply in replies:
                verdict = ours.check_following(reply)
                outcomes.setdefault(instruction_id, set()).add(bool(verdict))
                if verdict != theirs.check_following(reply):
                    differences.append((instruction_id, kwargs, reply))
    assert differences == []
    # The replies tell each checker's two answers apart, or the agreement would say little.
    assert {i for i, seen in outcomes.items() if seen != {True, False}} == set()


def test_the_copies_differ_only_in_a_checker_no_registry_holds(reference_copy: Any,
                                                                lm_eval_copy: Any) -> None:
    """lm-eval made RephraseChecker's ``*change*`` pattern lazy; no instruction id reaches
    that checker in either copy, so no score can differ by it."""
    text = "keep *this* and *that* here"
    lm_eval_rephrase = lm_eval_copy.instructions.RephraseChecker
    reference_rephrase = reference_copy.instructions.RephraseChecker
    assert lm_eval_rephrase.strip_changes(None, text) == "keep  and  here"
    assert reference_rephrase.strip_changes(None, text) == "keep  here"
    for copy in (lm_eval_copy, reference_copy):
        assert copy.instructions.RephraseChecker not in copy.INSTRUCTION_DICT.values()


def _built(copy: Any, instruction_id: str, kwargs: Mapping[str, Any]) -> Any:
    checker = copy.INSTRUCTION_DICT[instruction_id](instruction_id)
    checker.build_description(**kwargs)
    return checker


# --- sd-qa's PEDANT --------------------------------------------------------------------------

QUESTIONS = [
    ("George Washington", "Washington was", "Who was the first president?"),
    ("George Washington", "Abraham Lincoln.", "Who was the first president?"),
    ("Marie Curie", "It was Curie", "Who discovered radium?"),
    ("Marie Curie", "pasteur", "Who discovered radium?"),
    ("Paris", "The capital is PARIS!", "What is the capital of France?"),
]


@pytest.fixture(scope="module")
def classifier() -> Mapping[str, bytes]:
    """A tiny PEDANT classifier, trained here, as the two files qa-metrics downloads."""
    pytest.importorskip("qa_metrics.pedant", reason=NEEDS_QA_METRICS)
    pytest.importorskip("sklearn", reason=NEEDS_QA_METRICS)
    return tiny_classifier()


@pytest.fixture
def classifier_host(classifier: Mapping[str, bytes]) -> Iterator[StaticFiles]:
    with StaticFiles(classifier) as host:
        yield host


def test_the_classifier_is_downloaded_once_then_read_from_the_cache(
        tmp_path: Path, classifier_host: StaticFiles, classifier: Mapping[str, bytes]) -> None:
    model, vectorizer = pedant.classifier_files(tmp_path, classifier_host.url())
    assert (model.name, vectorizer.name) == ("lr_classifier.pkl", "tf-idf_vectorizer.pkl")
    assert model.read_bytes() == classifier["lr_classifier"]
    assert vectorizer.read_bytes() == classifier["tf-idf_vectorizer"]
    pedant.Pedant(tmp_path, classifier_host.url())
    pedant.Pedant(tmp_path, classifier_host.url() + "/")
    assert classifier_host.hits == {"lr_classifier": 1, "tf-idf_vectorizer": 1}


def test_a_cached_file_that_changed_since_its_download_is_downloaded_again(
        tmp_path: Path, classifier_host: StaticFiles, classifier: Mapping[str, bytes]) -> None:
    model, _ = pedant.classifier_files(tmp_path, classifier_host.url())
    model.write_bytes(b"half a pickle")
    assert pedant.classifier_files(tmp_path, classifier_host.url())[0] == model
    assert model.read_bytes() == classifier["lr_classifier"]
    assert classifier_host.hits == {"lr_classifier": 2, "tf-idf_vectorizer": 2}


def test_without_the_host_the_classifier_download_fails_in_one_line_naming_the_url(
        tmp_path: Path) -> None:
    base = f"http://127.0.0.1:{closed_port()}/classifier"
    with pytest.raises(DownloadError) as raised:
        pedant.classifier_files(tmp_path, base)
    folder = tmp_path.resolve() / "qa-metrics-pedant"
    assert str(raised.value) == (
        f"cannot download {base}/lr_classifier, the classifier sd-qa's PEDANT score needs: "
        f"Connection refused; run once where it is reachable (it is kept in {folder})")
    assert not [path.name for path in folder.iterdir() if path.name != ".lock"]


def test_a_classifier_that_is_not_a_pickle_is_an_error_naming_the_file(
        tmp_path: Path, classifier_host: StaticFiles) -> None:
    classifier_host.files["lr_classifier"] = b"<html>rate limited</html>"
    with pytest.raises(DataError) as raised:
        pedant.Pedant(tmp_path, classifier_host.url())
    folder = tmp_path.resolve() / "qa-metrics-pedant"
    assert str(raised.value).startswith(
        f"{folder / 'lr_classifier.pkl'} is not a readable joblib pickle (")
    assert str(raised.value).endswith(
        f"); delete {folder} to download it again from {classifier_host.url()}")


def test_a_pickle_of_something_else_is_an_error_naming_what_it_holds(
        tmp_path: Path, classifier_host: StaticFiles) -> None:
    import joblib

    buffer = io.BytesIO()
    joblib.dump({"not": "a model"}, buffer)
    classifier_host.files["tf-idf_vectorizer"] = buffer.getvalue()
    with pytest.raises(DataError, match=r"tf-idf_vectorizer\.pkl holds a dict, which has no "
                                        r"transform\(\); expected PEDANT's fitted"):
        pedant.Pedant(tmp_path, classifier_host.url())


def test_the_score_is_qa_metrics_evaluate_called_as_the_reference_calls_it(
        tmp_path: Path, classifier_host: StaticFiles, monkeypatch: pytest.MonkeyPatch) -> None:
    import joblib
    from qa_metrics.pedant import PEDANT

    def downloads(self: Any) -> None:
        pytest.fail("PEDANT.__init__ runs, and downloads")

    monkeypatch.setattr(PEDANT, "__init__", downloads)
    ours = pedant.Pedant(tmp_path, classifier_host.url())
    theirs = PEDANT.__new__(PEDANT)
    model, vectorizer = pedant.classifier_files(tmp_path, classifier_host.url())
    theirs.model, theirs.tokenizer = joblib.load(model), joblib.load(vectorizer)
    scores = [ours.score(*case) for case in QUESTIONS]
    assert scores == [float(theirs.evaluate([reference.lower()], reply.lower(), question.lower()))
                      for reference, reply, question in QUESTIONS]
    # Both answers, from the classifier (the first four hold no reference) and from the
    # reference found in the reply (the last).
    assert scores == [1.0, 0.0, 1.0, 0.0, 1.0]


def test_without_qa_metrics_pedant_is_one_line_naming_the_pip_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def absent(distribution: str) -> str:
        raise metadata.PackageNotFoundError(distribution)

    monkeypatch.setattr(metadata, "version", absent)
    with pytest.raises(AudiobenchError) as raised:
        pedant.Pedant(tmp_path, f"http://127.0.0.1:{closed_port()}")
    assert str(raised.value) == ("sd-qa's PEDANT score needs qa-metrics 0.2.17, which is not "
                                 "installed: pip install 'pytest-audiobench[pedant]'")
    assert not (tmp_path / "qa-metrics-pedant").exists()


REAL_CLASSIFIER = os.environ.get("AUDIOBENCH_PEDANT_CLASSIFIER")


@pytest.mark.skipif(not REAL_CLASSIFIER, reason="AUDIOBENCH_PEDANT_CLASSIFIER names no folder "
                    "holding qa-metrics' lr_classifier and tf-idf_vectorizer (a development "
                    "check)")
def test_the_real_classifier_scores_as_qa_metrics_does(tmp_path: Path) -> None:
    pytest.importorskip("qa_metrics.pedant", reason=NEEDS_QA_METRICS)
    import joblib
    from qa_metrics.pedant import PEDANT

    folder = Path(str(REAL_CLASSIFIER))
    served = {name: (folder / name).read_bytes() for name, _ in pedant.FILES}
    with StaticFiles(served) as host:
        ours = pedant.Pedant(tmp_path, host.url())
    theirs = PEDANT.__new__(PEDANT)
    theirs.model, theirs.tokenizer = (joblib.load(folder / name) for name, _ in pedant.FILES)
    cases = {
        ("Paris", "the capital is paris", "what is the capital of france"): 1.0,
        ("Paris", "I think it is Lyon", "what is the capital of france"): 0.0,
        ("Mount Everest", "everest", "what is the tallest mountain in the world"): 1.0,
        ("George Washington", "the first president was washington",
         "who was the first president of the united states"): 0.0,
        ("blue", "it is usually blue-ish in color", "what color is the sky"): 1.0,
    }
    for (reference, reply, question), expected in cases.items():
        assert ours.score(reference, reply, question) == expected
        assert theirs.evaluate([reference.lower()], reply.lower(), question.lower()) == bool(
            expected)


def test_a_run_on_local_data_scores_pedant_only_from_the_classifier_kept_whole(
        tmp_path: Path) -> None:
    """``classifier_kept`` tells a run whether it can score PEDANT with no request: the files
    from that URL, as downloaded; another URL's, or a changed file, would be fetched again."""
    served = {"lr_classifier": b"model bytes", "tf-idf_vectorizer": b"vectorizer bytes"}
    with StaticFiles(served) as host:
        assert not pedant.classifier_kept(tmp_path, host.url())
        model, _ = pedant.classifier_files(tmp_path, host.url())
        assert pedant.classifier_kept(tmp_path, host.url())
        assert pedant.classifier_kept(tmp_path, host.url() + "/")
        assert not pedant.classifier_kept(tmp_path, host.url("elsewhere"))
        model.write_bytes(b"changed")
        assert not pedant.classifier_kept(tmp_path, host.url())
        assert host.hits == {"lr_classifier": 1, "tf-idf_vectorizer": 1}
