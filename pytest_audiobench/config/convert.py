"""The converters behind the flags: each turns a flag's text into its value, or raises
``argparse.ArgumentTypeError`` with one line saying what was expected (pytest prints it as a
usage error naming the flag)."""

from __future__ import annotations

import argparse
import json
import math
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

S = TypeVar("S", bound=str)


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value!r}")
    return number


def non_negative_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {value!r}")
    return number


def whole_number(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {value!r}") from None


def non_negative_float(value: str) -> float:
    number = _finite(value)
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, got {value!r}")
    return number


def positive_float(value: str) -> float:
    number = _finite(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {value!r}")
    return number


def confidence(value: str) -> float:
    number = _finite(value)
    if not 0.5 <= number < 1:
        raise argparse.ArgumentTypeError(f"expected a confidence from 0.5 up to (not including) "
                                         f"1, like 0.95; got {value!r}")
    return number


def share(value: str) -> float:
    number = _finite(value)
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"expected a share from 0 to 1, like 0.25; got {value!r}")
    return number


def _finite(value: str) -> float:
    """The number ``value`` writes; NaN and the infinities are refused (Python's float()
    accepts them, and a NaN compares false with everything, so a bound would never bind)."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {value!r}")
    return number


def choice(accepted: tuple[S, ...]) -> Callable[[str], S]:
    def convert(value: str) -> S:
        if value not in accepted:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(accepted)}; got {value!r}"
            )
        return value

    return convert


def names(value: str) -> tuple[str, ...]:
    """A comma-separated list of names, blanks and repeats dropped. Which names a run knows is
    checked when the run's settings are resolved (``resolve.py``): a benchmark or a task may be
    registered by a conftest, which pytest loads after it first reads the flags."""
    found = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if not found:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of names, got "
                                         f"{value!r}")
    return found


def some_of(accepted: tuple[S, ...]) -> Callable[[str], tuple[S, ...]]:
    """A comma-separated list of ``accepted`` names, in the order given, repeats dropped."""
    def convert(value: str) -> tuple[S, ...]:
        given = names(value)
        unknown = unknown_names(given, accepted, "name")
        if unknown:
            raise argparse.ArgumentTypeError(unknown)
        known = {str(name): name for name in accepted}
        return tuple(known[name] for name in given)

    return convert


def unknown_names(given: tuple[str, ...], accepted: tuple[str, ...], what: str) -> str | None:
    """Why ``given`` are not all names of ``accepted`` (each a ``what``), or None."""
    unknown = [name for name in given if name not in accepted]
    if not unknown:
        return None
    return (f"unknown {what} {', '.join(unknown)}; expected a comma-separated list of: "
            f"{', '.join(accepted)}")


def path(value: str) -> Path:
    if not value.strip():
        raise argparse.ArgumentTypeError("expected a path, got an empty value")
    return Path(value)


def http_url(value: str) -> str:
    parts = urllib.parse.urlsplit(value.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL, got {value!r}")
    return value.strip()


def shard(value: str) -> tuple[int, int]:
    index, _, total = value.partition("/")
    try:
        k, n = int(index), int(total)
    except ValueError:
        k = n = 0
    if not 1 <= k <= n:
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, like 2/4; got {value!r}")
    return k, n


def env_name(value: str) -> str:
    if not value or not value.replace("_", "").isalnum():
        # The value is not repeated: it may be a key pasted in by mistake.
        raise argparse.ArgumentTypeError(
            "expected the NAME of an environment variable, like AUDIOBENCH_API_KEY (the key "
            "itself is never a flag)"
        )
    return value


_SENT_BY_US = {"model": "--audiobench-model", "messages": "the benchmark's prompt",
               "stream": "the plugin, which reads whole replies",
               "n": "the plugin, which reads one choice"}
_SAMPLING = ("temperature", "seed", "max_tokens")


def json_body(prefix: str) -> Callable[[str], dict[str, object]]:
    """A JSON object merged into every request body of one endpoint (vLLM's ``top_k``,
    ``chat_template_kwargs``); the keys the plugin sends itself, or that have a flag of their
    own (``--audiobench-<prefix>temperature``...), are refused with the place to set them."""

    def convert(value: str) -> dict[str, object]:
        try:
            parsed = json.loads(value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(
                f"expected a JSON object, like {_BODY_EXAMPLE}; got text that is not JSON "
                f"({exc})") from None
        if not isinstance(parsed, dict):
            raise argparse.ArgumentTypeError(f"expected a JSON object, like {_BODY_EXAMPLE}; "
                                             f"got a JSON {type(parsed).__name__}")
        for key in parsed:
            if key in _SENT_BY_US:
                raise argparse.ArgumentTypeError(f"{key!r} is set by {_SENT_BY_US[key]}, not "
                                                 "in the extra body")
            if key in _SAMPLING:
                flag = f"--audiobench-{prefix}{key.replace('_', '-')}"
                raise argparse.ArgumentTypeError(f"{key!r} has a flag of its own: {flag}")
        return parsed

    return convert


_BODY_EXAMPLE = '\'{"top_k": 20, "chat_template_kwargs": {"enable_thinking": false}}\''
