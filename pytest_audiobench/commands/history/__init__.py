"""``audiobench-history``: how a model's headline metrics moved over a series of runs (the last
twenty checkpoints, say), and which samples keep flipping between good and bad.

    audiobench-history REPORT_OR_FOLDER ... [--samples N] [--html PATH] [--html-audio-mb MB]

The inputs are JSON reports (``--audiobench-report``) or folders of them (every ``*.json``
directly in a folder, by name). The runs are ordered by their start time (UTC); a report
without one (a merge of shards) is placed by its file's modification time instead. Per
benchmark it prints a row per run: each headline metric with its gate row's status, the
baseline's status, marked where the baseline changed, then the samples whose outcome flipped
most often with their outcome in each run. The page (``--html``, by default
``audiobench-history.html``) adds the gate's intervals, a chart per headline metric and each
flipped sample's question, answer, grading and audio, from the latest run that has it.

A report's records are read one report at a time: first each report's summaries and its
samples' outcomes, then again only the reports that hold the records the page shows.

Exit status: 0 when the page is written, 4 when a report cannot be read or none was given or
found, 3 when the page cannot be written, 2 for a usage error.
"""

from pytest_audiobench.commands.history.cli import main

__all__ = ["main"]
