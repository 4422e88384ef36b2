"""MMAR: multiple-choice audio reasoning, accuracy by matcher and reasoning rubrics."""

NAME = "mmar"
