"""The end of a run as data: the report, its terminal summary, and the merge of shards."""
