"""Fetching releases from model hubs, and unpacking archives safely."""
