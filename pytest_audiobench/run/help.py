"""What ``pytest --help`` lists of the plugin beyond its options: the environment variables
it reads, in pytest's own "Environment variables:" section.

pytest writes that section from a fixed list and offers plugins no hook into it, so the
writer it writes help with (``Config.get_terminal_writer``) is wrapped for the one help
call: our lines go in just before the blank line that ends the section. Should pytest ever
write no such section, they come after the help, under their own heading, rather than not at
all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import pytest

from pytest_audiobench.config import declarations
from pytest_audiobench.config.declarations import OptionGroup
from pytest_audiobench.hub.huggingface import HF_DEFAULT_ENDPOINT, HF_ENDPOINT_ENV_VARS
from pytest_audiobench.hub.modelscope import DEFAULT_ENDPOINT, ENDPOINT_ENV_VARS

SECTION = "Environment variables:"


def variables(groups: Iterable[type[OptionGroup]]) -> list[tuple[str, str]]:
    """Every variable the plugin reads, with what it holds: the keys and the extra headers
    (each option naming one, by its default), then where downloads and the cache go."""
    declared = [option for group in groups for option in declarations.declared(group)]
    keys = [(option.default, f"the API key {option.flag} names by default (unset: none is "
                             "sent; a hosted HTTPS server needs one)")
            for option in declared if option.attr.endswith("api_key_env")]
    headers = [(option.default, f"extra HTTP headers {option.flag} names by default: a JSON "
                                "object, or a file holding one (never printed)")
               for option in declared if option.attr.endswith("headers_env")]
    return [*keys, *headers,
            ("XDG_CACHE_HOME", "--audiobench-cache-dir defaults to its pytest-audiobench/"),
            *((name, f"the ModelScope hub to download from (default {DEFAULT_ENDPOINT})")
              for name in ENDPOINT_ENV_VARS),
            *((name, f"the Hugging Face hub to download from (default {HF_DEFAULT_ENDPOINT})")
              for name in HF_ENDPOINT_ENV_VARS)]


class ListedInHelp:
    """A plugin, registered for a help call, that wraps the terminal reporter's writer once
    the reporter exists (its ``pytest_configure`` runs before this one's)."""

    def __init__(self, groups: Iterable[type[OptionGroup]]) -> None:
        self.listed = variables(groups)

    @pytest.hookimpl(trylast=True)
    def pytest_configure(self, config: pytest.Config) -> None:
        # The writer pytest's help writes with (Config.get_terminal_writer, public since
        # pytest 7): no private name of the reporter is read.
        if config.pluginmanager.get_plugin("terminalreporter") is not None:
            writer = config.get_terminal_writer()
            writer.line = Inserting(writer.line, self.listed)  # type: ignore[method-assign,assignment]

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if config.pluginmanager.get_plugin("terminalreporter") is None:
            return
        line = config.get_terminal_writer().line
        if isinstance(line, Inserting) and not line.done:
            line.write_heading_and_lines()


class Inserting:
    """A writer's ``line`` that puts ``listed`` into the environment section."""

    def __init__(self, line: Callable[..., None], listed: list[tuple[str, str]]) -> None:
        self.line, self.listed = line, listed
        self.inside = self.done = False

    def __call__(self, text: str = "", **markup: Any) -> None:
        if self.inside and not text and not self.done:
            self.write_lines()
        self.inside = self.inside or text == SECTION
        self.line(text, **markup)

    def write_lines(self) -> None:
        self.done = True
        for name, said in self.listed:
            self.line(f"  {name:<24} {said}")

    def write_heading_and_lines(self) -> None:
        self.line(f"{SECTION} (pytest-audiobench)")
        self.write_lines()
