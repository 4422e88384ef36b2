"""Baselines and the decision they define."""
