"""The end of a run as data and as text: the report that renders the gate's ruling, its
terminal summary and its HTML page. It decides nothing and writes no baseline; the merge of
shards lives in ``commands/merge.py`` and ends through ``ending.py`` as a run does."""
