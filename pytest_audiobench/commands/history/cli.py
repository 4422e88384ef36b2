"""The command line of ``audiobench-history``: its arguments, the exit status, the page
written."""


from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_audiobench.commands.history.page import write_page
from pytest_audiobench.commands.history.runs import ORDER, PROG, History, read_history, reports_in
from pytest_audiobench.commands.history.text import render
from pytest_audiobench.config import convert
from pytest_audiobench.errors import AudiobenchError
from pytest_audiobench.report.html import Written
from pytest_audiobench.untrusted import one_line


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="How a model's headline metrics moved over a series of runs, and which "
                    f"samples keep flipping. The runs are ordered {ORDER}.",
        epilog="Exit status: 0 when the page is written, 4 when a report cannot be read or "
               "none was given or found, 3 when the page cannot be written, 2 for a bad "
               "option.")
    parser.add_argument("reports", nargs="*", type=Path, metavar="REPORT",
                        help="a JSON report (--audiobench-report) or a folder of them (every "
                             "*.json directly in it)")
    parser.add_argument("--samples", type=convert.non_negative_int, default=20, metavar="N",
                        help="flipped samples listed per benchmark (default 20)")
    parser.add_argument("--html", type=Path, default=Path("audiobench-history.html"),
                        metavar="PATH", help="write the history as one self-contained HTML "
                                             "page here (default audiobench-history.html)")
    parser.add_argument("--html-audio-mb", type=convert.non_negative_float, default=20.0,
                        metavar="MB", help="megabytes of audio the page embeds, each flipped "
                                           "sample's clip while they last; a clip beyond them "
                                           "is linked relative to the page (default 20)")
    args = parser.parse_args(argv)
    try:
        history = read_history(reports_in(args.reports))
        lines = render(history, args.samples)
        written = _written(history, args)
    except AudiobenchError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 4
    if written is None:
        return 3
    print("\n".join(one_line(line) for line in [*lines, written.line()]))
    return 0


def _written(history: History, args: argparse.Namespace) -> Written | None:
    """The page written as asked; None, said, when it could not be."""
    try:
        return write_page(history, args.html, args.samples, int(args.html_audio_mb * 2**20))
    except OSError as exc:
        print(f"{PROG}: error: cannot write the page {args.html}: {exc}", file=sys.stderr)
        return None
