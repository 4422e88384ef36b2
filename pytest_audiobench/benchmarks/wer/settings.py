"""How a speech-recognition benchmark is asked: the settings LibriSpeech's and FLEURS's
options resolve into (each benchmark's flags carry its own name)."""

from __future__ import annotations

from pathlib import Path

from pytest_audiobench.benchmarks.templating import read_template
from pytest_audiobench.config.frozen import OwnSettings


class TranscriptionSettings(OwnSettings):
    """A user's prompt in place of ours, and a system prompt, each read once at the start."""

    prompt_path: Path | None = None
    prompt: str | None = None
    """The text sent with the audio in place of ours (a model's own convention, such as a
    language tag); None: ours."""
    system_path: Path | None = None
    system: str | None = None
    """A system message sent before the audio (a model trained with one); None: none."""
    languages: tuple[str, ...] = ()
    """The languages whose splits are run, for a benchmark that has a flag for them (FLEURS);
    empty: the benchmark's own."""

    @classmethod
    def read(cls, flag: str, prompt: Path | None, system: Path | None,
             languages: tuple[str, ...] = ()) -> TranscriptionSettings:
        """The settings of ``--audiobench-<flag>-prompt`` and ``-system``, their files read."""
        return cls(prompt_path=prompt, system_path=system, languages=languages,
                   prompt=read_template(prompt, f"--audiobench-{flag}-prompt", ())
                   if prompt else None,
                   system=read_template(system, f"--audiobench-{flag}-system", ())
                   if system else None)

    @property
    def asked_with(self) -> str:
        """The prompt as the summary's notes name it."""
        asked = f"prompt {self.prompt_path}" if self.prompt_path else "our prompt"
        return asked + (f", system prompt {self.system_path}" if self.system_path else "")
