"""The offline default as users run it: the bundled mini benchmark, the built-in models and
the offline judge, end to end, with real audio decoding and a real speech model."""

from __future__ import annotations

from pathlib import Path

import pytest

INSTALL = "pip install 'pytest-audiobench[cascade]'"


def test_without_the_extra_the_cascade_is_a_one_line_error_naming_the_install(
        pytester: pytest.Pytester, chat_data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A module that shadows the real one and fails to import, as a missing package does.
    hidden = pytester.path / "without_extra"
    hidden.mkdir()
    (hidden / "faster_whisper.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'faster_whisper'\")\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(hidden))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--audiobench-model", "cascade",
        "--audiobench-judge-model", "overlap", f"--audiobench-data={chat_data}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert errors == [f"ERROR: --audiobench-model cascade needs faster-whisper, which comes with "
                      f"the cascade extra: {INSTALL}"]
    assert "Traceback" not in result.stderr.str()
