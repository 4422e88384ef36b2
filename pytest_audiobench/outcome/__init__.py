"""What a sample and a run produced: records and metrics, as plain data."""
