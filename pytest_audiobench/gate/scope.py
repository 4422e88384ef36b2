"""What part of a benchmark a run measured, as the gate reads it (pure data).

A release verdict needs a sample of the benchmark: every selected sample asked, and a
selection that does not depend on how samples did before. Two kinds of run are not that:

- a **rerun**, whose selection was made from earlier outcomes (``--lf`` with failures on
  record, ``--sw`` continuing from the sample that failed last time): the samples that failed
  before are the ones most likely to fail again, and their mean says nothing of the model (the
  same bias as drawing again only where the first draws looked low, "Adding Error Bars to
  Evals", Miller 2024);
- a run **stopped early** (``-x``, ``--maxfail``, ``--sw`` stopping at a failure, Ctrl-C, the
  deadline, a spent budget, an endpoint that stopped answering, a lost worker): the samples
  that ran are the first ones of the node id order, a few tasks, not a sample of the release.

Neither gates a metric; each says what it was, and the run passes only when none of its items
failed (and, for a rerun, the last whole run of the same settings held its gate: a subset
drawn again cannot overturn the whole run's verdict). ``decision.run_verdict`` decides it.

A selection narrowed by pytest's own means (-k, -m, --deselect, paths) is not drawn from
outcomes: it is held on the metrics it measures, but it is a look at part of the configured
selection, whose power no baseline was chosen for: the gate overrules its failed items only
when it tells at least one metric (ok, worse within margin, regressed, a threshold).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class LastWhole(BaseModel):
    """The latest whole run of the same settings, as the cache's run records keep it."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    started: str
    """When it started, ISO 8601 in UTC."""
    held: bool
    """Whether its gate held."""

    def words(self) -> str:
        verdict = "held" if self.held else "FAILED"
        return f"the last whole run ({self.run_id}, started {self.started[:16]}) {verdict}"


class Scope(BaseModel):
    """Whether a run measured the benchmark whole, and if not, why (each None when not)."""

    model_config = ConfigDict(frozen=True)

    rerun: str | None = None
    """Its selection was made from earlier outcomes: what made it ("--lf: the 20 samples
    that failed last time")."""
    stopped: str | None = None
    """It stopped before every selected sample ran: why, and how many were left."""
    last_whole: LastWhole | None = None
    """A rerun's: the latest whole run of the same settings (None when the cache knows none)."""
    narrowed: str | None = None
    """pytest's own selection (-k, -m, --deselect, paths) left samples of the configured
    selection out: how many. Not a partial run: it is held on the metrics it measures, but
    only where it tells one (``decision.run_verdict``); else its items decide."""

    @property
    def partial(self) -> bool:
        """Not a release verdict: a rerun, or stopped early."""
        return self.rerun is not None or self.stopped is not None

    def words(self) -> str:
        """What the run was, in one clause ("" for a whole run)."""
        parts = [part for part in (self.rerun, self.stopped and f"stopped early: {self.stopped}")
                 if part]
        return "; ".join(parts)

    def joined(self, other: Scope, label: str) -> Scope:
        """This scope with a shard's (``label`` names it): a merge is partial when a shard is."""
        def join(mine: str | None, theirs: str | None) -> str | None:
            said = [p for p in (mine, theirs and f"{label}: {theirs}") if p]
            return "; ".join(said) or None

        return Scope(rerun=join(self.rerun, other.rerun),
                     stopped=join(self.stopped, other.stopped),
                     last_whole=self.last_whole or other.last_whole,
                     narrowed=join(self.narrowed, other.narrowed))
