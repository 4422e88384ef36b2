"""The command-line tools beside the plugin: ``audiobench-merge`` gates the shards of one run
as that run (and may write its baseline), ``audiobench-compare`` holds two reports paired,
``audiobench-history`` shows a series of runs' headline metrics and flipping samples.
Above the report, beside the run: they read reports, and the first two build them, as a
session does."""
