"""AIR-Bench Chat's fixed facts: its name and each task's leaderboard category. A leaf: the
package's spec and every module of the benchmark read them from here."""

from __future__ import annotations

from collections.abc import Mapping

NAME = "air_bench_chat"
TASK_CATEGORY: Mapping[str, str] = {
    "speech_QA": "speech",
    "speech_dialogue_QA": "speech",
    "sound_QA": "sound",
    "sound_generation_QA": "sound",
    "music_QA": "music",
    "music_generation_analysis_QA": "music",
    "speech_and_sound_QA": "speech_and_sound",
    "speech_and_music_QA": "speech_and_music",
}
"""Every task and the leaderboard category it counts in."""
