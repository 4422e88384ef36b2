"""One pytest run: the session, its items, prefetching, progress and the dry run."""
