"""The three names this plugin reads that pytest and xdist do not make public, in one place,
each with why no public call does, and each checked by ``tests/test_internals.py`` so that a
release that moves it fails there by name rather than slowing or breaking runs quietly.

- ``Function._fixtureinfo``: the items of a task share one fixture closure, as pytest shares
  one among a parametrized test's items. ``Function.from_parent(fixtureinfo=...)`` takes it,
  but the computed one is only readable as this attribute (the fixture manager that makes it
  is private as well); without it every item computes its own, about 1 KB and 0.1 ms each.
- xdist's ``WorkerInteractor.torun``: a worker's queue of the item indices it runs next (a
  deque behind a lock), which lets the next items' requests start early. xdist has no public
  call for it; when it is missing, a worker knows only its current item.
- ``Config._get_unknown_ini_keys``: the keys of the configuration file that no plugin
  declared. pytest warns of each among the run's other warnings (or fails on all of them with
  ``--strict-config``); the one public way to see the file's keys, ``Config.inicfg``, is
  deprecated since pytest 9. A misspelt ``audiobench_*`` key would otherwise be a run with a
  default the team did not choose.
"""

from __future__ import annotations

from typing import Any

import pytest


def fixture_info(item: pytest.Function) -> Any:
    """The fixture closure pytest computed for ``item``, for its siblings to share."""
    return item._fixtureinfo


def in_xdist_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (xdist gives its config the controller's
    ``workerinput``): the one place that asks."""
    return hasattr(config, "workerinput")


def xdist_workers(config: pytest.Config) -> int:
    """How many xdist workers run the items (0: this process runs them)."""
    workers = getattr(config.option, "numprocesses", None)
    return workers if isinstance(workers, int) and workers > 0 else 0


def xdist_queue(config: pytest.Config) -> Any:
    """On an xdist worker, its queue of the item indices it runs next; None elsewhere, or
    when xdist keeps no such queue."""
    if not in_xdist_worker(config):
        return None
    for plugin in config.pluginmanager.get_plugins():
        queue = getattr(plugin, "torun", None)
        if queue is not None and callable(getattr(queue, "lock", None)):
            return queue
    return None


def unknown_ini_keys(config: pytest.Config) -> set[str]:
    """The configuration file's keys that no plugin declared."""
    return set(config._get_unknown_ini_keys())
