"""AISHELL-2's fixed facts: its name, the release of its test sets, their devices and sizes,
and their layout. A leaf: the spec and every module of the benchmark read them from here."""

from __future__ import annotations

NAME = "aishell2"
RELEASE = "AISHELL-2 test sets (AISHELL-DEV-TEST-SET)"
"""The evaluation sets AISHELL gives with the corpus (licensed on application, so no download
here): one test set per recording device, the same utterances recorded by each."""
LANGUAGE = "zh"
"""The reference's language: Chinese, scored by character error rate."""

DEVICES: dict[str, str] = {"ios": "iOS", "android": "Android", "mic": "Mic"}
"""Each task (a device) and its folder in the release. Each is scored on its own, never
pooled; the reports give iOS (Kimi-Audio's README), the others are there to be run."""
TEST_SIZE = 5000
"""Each device's test utterances."""

SET_FOLDER = "AISHELL-DEV-TEST-SET"
"""The folder the release's evaluation zip extracts to, holding ``<device>/dev/`` and
``<device>/test/`` (or ``test.tar.gz`` still packed, which Kimi-Audio-Evalkit extracts in
place with ``tar -xzf``)."""
TEST_FOLDER = "test"
PACKED = "test.tar.gz"
WAV_SCP = "wav.scp"
"""In a device's ``test/``: one ``<UTTID>\\t<path>`` a line, the path relative to ``test/``
(``wav/T0011/IT0011W0001.wav``), as Kimi-Audio-Evalkit's downloader and Kaldi-style recipes
read it."""
TRANSCRIPTS = "trans.txt"
"""In a device's ``test/``: one ``<UTTID>\\t<text>`` a line."""
