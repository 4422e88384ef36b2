"""The toy multiple-choice benchmark as a built-in one: its spec is the toy's."""

from tests.toy import CHOICE_SPEC as SPEC

__all__ = ["SPEC"]
