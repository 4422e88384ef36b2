"""The command-line tools beside the plugin: ``audiobench-merge`` gates the shards of one run
as that run (and may write its baseline), ``audiobench-compare`` holds two reports paired.
Above the report, beside the run: both read reports and build them, as a session does."""
