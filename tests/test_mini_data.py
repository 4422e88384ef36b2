"""The bundled mini benchmark: read by the package's own loaders, complete, small, and exactly
what scripts/make_mini.py writes."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
import soundfile as sf

from pytest_audiobench.benchmarks.air_bench_chat import TASK_CATEGORY
from pytest_audiobench.benchmarks.air_bench_chat.data import read_records
from pytest_audiobench.benchmarks.air_bench_foundation import data as foundation
from pytest_audiobench.benchmarks.aishell1.data import read_test
from pytest_audiobench.benchmarks.aishell2.data import read_device
from pytest_audiobench.benchmarks.aishell2.facts import DEVICES
from pytest_audiobench.benchmarks.big_bench_audio.data import read_big_bench_audio
from pytest_audiobench.benchmarks.big_bench_audio.facts import CATEGORIES as BBA_CATEGORIES
from pytest_audiobench.benchmarks.common_voice.data import read_locale
from pytest_audiobench.benchmarks.common_voice.facts import LOCALES
from pytest_audiobench.benchmarks.fleurs.data import read_language
from pytest_audiobench.benchmarks.librispeech.data import read_split
from pytest_audiobench.benchmarks.mini_making import (
    ESPEAK_MISSING,
    QUESTION_SECONDS,
    SIZE_LIMIT,
    espeak_version,
)
from pytest_audiobench.benchmarks.mmar import MODALITIES
from pytest_audiobench.benchmarks.mmar.data import (
    CATEGORIES,
    SUB_CATEGORIES,
    audio_path,
    read_mmar,
)
from pytest_audiobench.benchmarks.mmau import data as mmau
from pytest_audiobench.benchmarks.mmsu.data import read_mmsu
from pytest_audiobench.benchmarks.voicebench.data import read_voicebench
from pytest_audiobench.benchmarks.voicebench.facts import SUBSETS as VOICEBENCH_SUBSETS

REPO = Path(__file__).resolve().parents[1]
MINI = REPO / "pytest_audiobench" / "data" / "mini"
CHAT_ROOT = MINI / "air_bench_chat"
MMAR_ROOT = MINI / "mmar"
FOUNDATION_ROOT = MINI / "air_bench_foundation"
MMAU_ROOT = MINI / "mmau"
LIBRISPEECH_ROOT = MINI / "librispeech"
FLEURS_ROOT = MINI / "fleurs"
COMMON_VOICE_ROOT = MINI / "common_voice"
AISHELL1_ROOT = MINI / "aishell1"
AISHELL2_ROOT = MINI / "aishell2"
SCRIPT = REPO / "scripts" / "make_mini.py"
CHAT_FIELDS = ["path", "question", "answer_gt", "task_name", "dataset_name", "meta_info",
               "uniq_id"]
MMAR_FIELDS = ["id", "audio_path", "question", "choices", "answer", "modality", "category",
               "sub-category", "language", "source", "url", "timestamp", "thinking", "cue",
               "rubric"]


def _files(root: Path) -> dict[str, bytes]:
    """What the script writes: the whole folder."""
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _chat_clips() -> list[Path]:
    return [CHAT_ROOT / "Chat" / f"{r.task_name}_{r.dataset_name}" / r.path
            for r in read_records(CHAT_ROOT)]


def _mmar_clips() -> list[Path]:
    records, _ = read_mmar(MMAR_ROOT)
    return [audio_path(MMAR_ROOT, record) for record in records]


def _foundation_clips() -> list[Path]:
    return [foundation.audio_path(FOUNDATION_ROOT, r)
            for r in foundation.read_records(FOUNDATION_ROOT)]


def _mmau_clips() -> list[Path]:
    return [mmau.audio_path(MMAU_ROOT, r) for r in mmau.read_mmau(MMAU_ROOT, "test-mini")]


def _mmsu_clips() -> list[Path]:
    records, note = read_mmsu(MINI / "mmsu", Path("/nonexistent"))  # converted: no cache
    assert note is not None and "8 of 5,000" in note
    assert {r.category for r in records} == {"perception", "reasoning"}
    assert {len(r.choices) for r in records} == {2, 3, 4}
    return [r.audio for r in records]


def _question_clips() -> list[Path]:
    records, note = read_big_bench_audio(MINI / "big_bench_audio", Path("/nonexistent"))
    assert note is not None and "12 of 1,000" in note
    assert Counter(r.category for r in records) == dict.fromkeys(BBA_CATEGORIES, 3)
    return [r.audio for r in records]


FLEURS_LANGUAGES = ("en_us", "cmn_hans_cn", "yue_hant_hk")


def _speech_clips() -> list[Path]:
    utterances = [*read_split(LIBRISPEECH_ROOT, "test-clean")[0],
                  *read_split(LIBRISPEECH_ROOT, "test-other")[0],
                  *(u for language in FLEURS_LANGUAGES
                    for u in read_language(FLEURS_ROOT, language)[0])]
    mandarin = [*read_test(AISHELL1_ROOT)[0],
                *(u for device in DEVICES for u in read_device(AISHELL2_ROOT, device)[0])]
    return [u.audio for u in utterances] + [u.audio for u in mandarin]


def test_the_speech_recognition_splits_hold_several_speakers_and_their_notes_say_so() -> None:
    for split in ("test-clean", "test-other"):
        utterances, note = read_split(LIBRISPEECH_ROOT, split)
        assert (len(utterances), len({u.speaker for u in utterances})) == (8, 4)
        assert note is not None and "8 of" in note
    fleurs, note = read_language(FLEURS_ROOT, "en_us")
    assert Counter(u.sentence for u in fleurs) == dict.fromkeys(("1001", "1002", "1003",
                                                                  "1004"), 2)
    assert all(u.transcription == u.transcription.lower() for u in fleurs)
    assert note is not None and "8 of 647" in note
    # Mandarin and Cantonese, each sentence read twice; no published count to compare with.
    for language, sentences in (("cmn_hans_cn", 3), ("yue_hant_hk", 2)):
        read, note = read_language(FLEURS_ROOT, language)
        assert Counter(Counter(u.sentence for u in read).values()) == {2: sentences}
        assert note is not None and "not known here" in note


def _common_voice_clips() -> list[Path]:
    return [u.audio for locale in LOCALES for u in read_locale(COMMON_VOICE_ROOT, locale)]


def _instruction_clips() -> list[Path]:
    records, _ = read_voicebench(MINI / "voicebench", Path("/nonexistent"), VOICEBENCH_SUBSETS)
    return [r.audio for r in records]


def test_common_voice_holds_each_locale_read_by_two_speakers_quotes_kept_as_text() -> None:
    read = {locale: read_locale(COMMON_VOICE_ROOT, locale) for locale in LOCALES}
    assert {locale: len({u.client_id for u in found}) for locale, found in read.items()} == \
        dict.fromkeys(LOCALES, 2)
    assert all(len(u.client_id) == 128 for found in read.values() for u in found)
    assert 'She said "good morning" to the driver.' in {u.sentence for u in read["en"]}


def test_the_mandarin_sets_hold_two_speakers_and_aishell2_each_device() -> None:
    utterances, notes = read_test(AISHELL1_ROOT)
    assert Counter(u.speaker for u in utterances) == {"S0764": 3, "S0901": 3}
    assert notes == ("aishell1 test: 6 of 7,176 utterances (not the whole split: its numbers "
                     "are not comparable with published ones)",)
    # The transcript's training line has no audio here, and is passed over.
    transcript = (AISHELL1_ROOT / "data_aishell" / "transcript" /
                  "aishell_transcript_v0.8.txt").read_text(encoding="utf-8")
    assert transcript.startswith("BAC009S0002W0001 ")
    said = {}
    for device in DEVICES:
        found, notes = read_device(AISHELL2_ROOT, device)
        assert [u.speaker for u in found] == ["T0011", "T0012"], device
        assert notes and "2 of 5,000" in notes[0], device
        said[device] = [u.transcript for u in found]
    # The same sentences recorded by each device, as the release's test sets are.
    assert said["ios"] == said["android"] == said["mic"]


def test_mmau_covers_its_three_tasks_and_difficulties_with_two_to_five_options() -> None:
    records = mmau.read_mmau(MMAU_ROOT, "test-mini")
    assert Counter(r.task for r in records) == {"speech": 4, "sound": 4, "music": 4}
    assert {r.difficulty for r in records} == {"easy", "medium", "hard"}
    assert {len(r.choices) for r in records} == {2, 3, 4, 5}


def test_foundation_covers_the_three_categories_with_two_to_four_options_and_a_flac() -> None:
    from pytest_audiobench.benchmarks.air_bench_foundation.facts import TASK_CATEGORY as TASKS

    records = foundation.read_records(FOUNDATION_ROOT)
    assert {TASKS[r.task_name] for r in records} == {"speech", "sound", "music"}
    assert {len(r.options) for r in records} == {2, 3, 4}
    flac = [r for r in records if r.task_name == "Audio_Grounding"]
    assert flac and all(r.path.endswith(".wav") for r in flac)
    assert all(foundation.audio_path(FOUNDATION_ROOT, r).suffix == ".flac" for r in flac)
    # Every answer is one of its options, each at a letter the loader found.
    assert all(r.answer_letter is not None for r in records)


def test_chat_covers_every_task_three_times_with_the_official_fields() -> None:
    records = read_records(CHAT_ROOT)
    assert Counter(r.task_name for r in records) == {task: 3 for task in TASK_CATEGORY}
    assert {r.dataset_name for r in records} == {"mini"}
    raw = json.loads((CHAT_ROOT / "Chat" / "Chat_meta.json").read_text(encoding="utf-8"))
    assert [list(item) for item in raw] == [CHAT_FIELDS] * len(raw)


def test_mmar_covers_every_modality_and_layer_with_rubrics() -> None:
    records, has_rubrics = read_mmar(MMAR_ROOT)
    assert has_rubrics
    assert 24 <= len(records) <= 28
    modalities = Counter(r.modality for r in records)
    assert set(modalities) == set(MODALITIES)
    assert min(modalities.values()) >= 3
    assert {r.category for r in records} == set(CATEGORIES)
    assert {r.sub_category for r in records} <= set(SUB_CATEGORIES)
    for record in records:
        assert len(set(record.choices)) == len(record.choices), record.id
        assert record.language == ("en" if "speech" in record.modality else None), record.id
        assert record.source == "pytest-audiobench mini"
        assert record.thinking and record.cue, record.id
    lines = (MMAR_ROOT / "MMAR-meta.jsonl").read_text(encoding="utf-8").splitlines()
    assert [list(json.loads(line)) for line in lines] == [MMAR_FIELDS] * len(lines)


def test_every_clip_is_referenced_and_decodes_as_16_khz_mono_pcm16() -> None:
    clips = (_chat_clips() + _mmar_clips() + _foundation_clips() + _mmau_clips()
             + _mmsu_clips() + _speech_clips())
    assert sorted(clips + _question_clips() + _common_voice_clips()
                  + _instruction_clips()) == sorted(
        [*MINI.rglob("*.wav"), *MINI.rglob("*.flac"), *MINI.rglob("*.mp3")])
    for clip in clips:
        info = sf.info(clip)
        assert (info.format, info.subtype, info.samplerate, info.channels) == (
            clip.suffix[1:].upper(), "PCM_16", 16_000, 1), clip
        assert 1.5 <= info.duration <= 4.0, clip
        data, _ = sf.read(clip, dtype="int16")
        assert abs(data).max() > 0, clip


@pytest.mark.parametrize("clips", [_question_clips, _common_voice_clips, _instruction_clips],
                         ids=["big_bench_audio", "common_voice", "voicebench"])
def test_the_mp3_clips_are_16_khz_mono_as_the_releases_ship_them(
        clips: Callable[[], list[Path]]) -> None:
    for clip in clips():
        info = sf.info(clip)
        assert (clip.suffix, info.format, info.subtype, info.samplerate, info.channels) == (
            ".mp3", "MP3", "MPEG_LAYER_III", 16_000, 1), clip
        assert 1.5 <= info.duration <= QUESTION_SECONDS, clip
        data, _ = sf.read(clip, dtype="int16")
        assert abs(data).max() > 0, clip


def test_the_folder_stays_under_13_mb() -> None:
    size = sum(p.stat().st_size for p in MINI.rglob("*") if p.is_file())
    assert size < SIZE_LIMIT, f"{MINI} holds {size:,} bytes, over {SIZE_LIMIT:,}"


def test_the_manifest_hashes_every_file() -> None:
    files = _files(MINI)
    manifest = json.loads(files.pop("MANIFEST.json"))
    assert manifest["files"] == {
        name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def test_the_script_regenerates_the_same_bytes(tmp_path: Path) -> None:
    if shutil.which("espeak-ng") is None:
        pytest.fail(f"cannot regenerate the mini benchmark: {ESPEAK_MISSING}")
    recorded = json.loads((MINI / "MANIFEST.json").read_text(encoding="utf-8"))["espeak_ng"]
    installed = espeak_version()
    if installed != recorded:
        pytest.fail(f"the installed espeak-ng is {installed!r} but the mini benchmark was made "
                    f"with {recorded!r}: speech clips would differ, so reproducibility cannot "
                    "be checked here; use that version or regenerate with "
                    "python scripts/make_mini.py and commit the result")
    subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)], check=True,
                   capture_output=True)
    fresh, committed = _files(tmp_path), _files(MINI)
    assert sorted(fresh) == sorted(committed)
    differ = [name for name in committed if fresh[name] != committed[name]]
    assert not differ, f"regenerated files differ from the committed ones: {differ}"
