"""``python -m pytest_audiobench.commands.history``, as ``audiobench-history``."""

import sys

from pytest_audiobench.commands.history.cli import main

if __name__ == "__main__":
    sys.exit(main())
