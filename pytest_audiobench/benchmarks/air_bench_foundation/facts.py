"""AIR-Bench Foundation's fixed facts: its name, its 25 source folders (a folder is one task
of one dataset, ``<task_name>_<dataset_name>``, spelt as the release spells them) with the
task and the category each belongs to, and the option letters. A leaf: the spec and every
module of the benchmark read them from here."""

from __future__ import annotations

from typing import Literal

NAME = "air_bench_foundation"
REPO = "evalscope/AIR-Bench"
"""The ModelScope dataset of both AIR-Bench halves (Chat's too)."""
OLDER_REPO = "evalscope/AIR-Bench-Dataset"
"""The name it was published under before; only quoted in error messages."""
LETTERS = ("A", "B", "C", "D")
Matcher = Literal["official", "strict"]
MATCHERS: tuple[Matcher, ...] = ("official", "strict")

# (task_name, dataset_name, category), in the order of the paper's tables: speech, sound,
# music. The categories are the ones evalscope maps the folders to.
_FOLDERS: tuple[tuple[str, str, str], ...] = (
    ("Speaker_Age_Prediction", "common_voice_13.0_en", "speech"),
    ("Speaker_Emotion_Recontion", "iemocap", "speech"),
    ("Speaker_Emotion_Recontion", "meld", "speech"),
    ("Speaker_Gender_Recognition", "common_voice_13_en", "speech"),
    ("Speaker_Gender_Recognition", "meld", "speech"),
    ("Speaker_Intent_Classification", "slurp", "speech"),
    ("Speaker_Number_Verification", "voxceleb1", "speech"),
    ("Speech_Entity_Reconition", "slurp", "speech"),
    ("Speech_Grounding", "librispeech", "speech"),
    ("Spoken_Language_Identification", "covost2", "speech"),
    ("Synthesized_Voice_Detection", "fake_or_real", "speech"),
    ("Acoustic_Scene_Classification", "CochlScene", "sound"),
    ("Acoustic_Scene_Classification", "TUT2017", "sound"),
    ("Audio_Grounding", "AudioGrounding", "sound"),
    ("Sound_AQA", "avqa", "sound"),
    ("Sound_AQA", "clothoaqa", "sound"),
    ("vocal_sound_classification", "VocalSound", "sound"),
    ("Music_AQA", "music_avqa", "music"),
    ("Music_Genre_Recognition", "MTJ-Jamendo", "music"),
    ("Music_Genre_Recognition", "fma", "music"),
    ("Music_Instruments_Classfication", "MTJ-Jamendo", "music"),
    ("Music_Instruments_Classfication", "nsynth", "music"),
    ("Music_Midi_Pitch_Analysis", "nsynth", "music"),
    ("Music_Midi_Velocity_Analysis", "nsynth", "music"),
    ("Music_Mood_Recognition", "MTJ-Jamendo", "music"),
)

FOLDERS: tuple[str, ...] = tuple(f"{task}_{dataset}" for task, dataset, _ in _FOLDERS)
"""The 25 folders, which are the benchmark's pytest tasks (its items' middle node id)."""
FOLDER_TASK: dict[str, str] = {f"{t}_{d}": t for t, d, _ in _FOLDERS}
"""Each folder's task: the 19 tasks pool the folders of their datasets."""
TASK_CATEGORY: dict[str, str] = {t: c for t, _, c in _FOLDERS}
"""The 19 tasks and their categories (every folder of a task is in its category)."""
TASKS: tuple[str, ...] = tuple(TASK_CATEGORY)
CATEGORIES: tuple[str, ...] = ("speech", "sound", "music")
FLAC_TASKS = frozenset({"Audio_Grounding"})
"""Tasks whose records name ``.wav`` files that the release stores as ``.flac``."""
