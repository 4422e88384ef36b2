"""MMAR prompts on the wire: the maintainers' layout, a user's template, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Servers
from tests.fakes.datasets import build_mmar
from tests.fakes.made_records import made_mmar_records


@pytest.fixture
def two_items(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    records = made_mmar_records()[:2]
    return build_mmar(tmp_path / "mmar", records), records


def test_the_default_prompt_is_the_question_a_select_line_and_one_choice_a_line(
        run_bench: Any, servers: Servers, two_items: tuple[Path, list[dict[str, Any]]]) -> None:
    data, records = two_items
    run_bench(data=data, benchmark="mmar", judge=False)
    texts = {r.text.split("\n", 1)[0]: r.text for r in servers.model.requests}
    for record in records:
        lines = texts[record["question"]].split("\n")
        assert lines[0] == record["question"]
        assert "one" in lines[1].lower() and "option" in lines[1].lower()
        assert lines[2:] == record["choices"]


def test_a_users_template_replaces_the_prompt(run_bench: Any, servers: Servers,
                                              two_items: tuple[Path, list[dict[str, Any]]],
                                              tmp_path: Path) -> None:
    data, records = two_items
    template = tmp_path / "mmar.txt"
    template.write_text("Q: {question}\nOptions:\n{choices}\nReply with the option only.")
    run = run_bench(f"--audiobench-mmar-template={template}", data=data, benchmark="mmar",
                    judge=False)
    text = next(r.text for r in servers.model.requests if records[0]["question"] in r.text)
    assert text == ("Q: " + records[0]["question"] + "\nOptions:\n"
                    + "\n".join(records[0]["choices"]) + "\nReply with the option only.")
    assert f"prompt {template}" in run.result.stdout.str()


def test_a_template_without_its_placeholders_is_an_error_naming_the_file(
        run_bench: Any, two_items: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    data, _ = two_items
    template = tmp_path / "mmar.txt"
    template.write_text("Q: {question}")
    run = run_bench(f"--audiobench-mmar-template={template}", data=data, benchmark="mmar",
                    judge=False)
    assert run.result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--audiobench-mmar-template {template}: missing placeholder(s) {{choices}}" in (
        run.result.stderr.str())
