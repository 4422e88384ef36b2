"""Word error rate, which every speech-recognition benchmark shares: the normalising pipelines
that reference and hypothesis both go through (``normalising.py``), and the count of word
errors per utterance, summed over a split (``counting.py``)."""
