"""The benchmarks: one folder each, behind the protocol in ``base``, found by ``registry``."""
