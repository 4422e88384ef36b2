"""A clone with no reference metadata beside it (a user's, where ../shared does not exist)
passes its own tests: a test that reads the real metadata skips and says why, whatever guard
it has or forgot, because the readers themselves skip. (The whole suite is run so in a fresh
clone before every release: README.md says when it last was.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import datasets


@pytest.mark.parametrize("reader", ["load_chat_reference", "load_mmar_reference"])
def test_a_reader_of_absent_metadata_skips_the_test_saying_why(
        reader: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHAT_REFERENCE", "MMAR_REFERENCE"):
        monkeypatch.setattr(datasets, name, tmp_path / "no-shared-here" / f"{name}.json")
    assert not datasets.reference_available()
    with pytest.raises(pytest.skip.Exception) as skipped:
        getattr(datasets, reader)()
    assert str(skipped.value).startswith(
        "the reference metadata (../shared/reference beside the repository) is absent: "
        f"{tmp_path / 'no-shared-here'}")


def test_the_reference_folder_can_be_pointed_elsewhere_as_a_clone_without_it_is(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_reads="""
        from tests.fakes.datasets import load_mmar_reference

        def test_reads():
            assert load_mmar_reference()
    """)
    repo = Path(__file__).resolve().parents[1]
    monkeypatch.setenv("AUDIOBENCH_TESTS_REFERENCE_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("PYTHONPATH", str(repo))
    result = pytester.runpytest_subprocess("-rs", "-p", "no:cacheprovider")
    result.assert_outcomes(skipped=1)
    assert "the reference metadata (../shared/reference beside the repository) is absent" in (
        result.stdout.str())
